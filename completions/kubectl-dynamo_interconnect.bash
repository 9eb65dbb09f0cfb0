# bash completion for kubectl-dynamo_interconnect run directly.
# Through kubectl, kubectl's own completion calls kubectl_complete-dynamo_interconnect.
_kubectl_dynamo_interconnect() {
	local line=${COMP_LINE:0:COMP_POINT} out directive=0 cand cur
	local -a words
	read -ra words <<<"$line"
	[[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]] && words+=("")
	cur=${words[${#words[@]}-1]}
	out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return 0
	COMPREPLY=()
	while IFS= read -r cand; do
		[[ -z $cand ]] && continue
		if [[ $cand == :* ]]; then directive=${cand#:}; continue; fi
		cand=${cand%%$'\t'*}
		# After "--flag=" the answer is the bare value (cobra's __complete).
		# bash splits words at '=' (COMP_WORDBREAKS) and wants it bare;
		# without that split the word is "--flag=..." whole.
		[[ $cur == -*=* && $COMP_WORDBREAKS != *=* ]] && cand="${cur%%=*}=$cand"
		COMPREPLY+=("$cand")
	done <<<"$out"
	((directive & 2)) && compopt -o nospace 2>/dev/null
	((${#COMPREPLY[@]} == 0 && !(directive & 4))) && compopt -o default 2>/dev/null
	return 0
}
complete -F _kubectl_dynamo_interconnect kubectl-dynamo_interconnect
