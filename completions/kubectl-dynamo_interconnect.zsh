#compdef kubectl-dynamo_interconnect
# zsh completion for kubectl-dynamo_interconnect run directly.
_kubectl_dynamo_interconnect() {
	local out directive=0 line pfx=
	local -a cands lines
	# After "--flag=" the answer is the bare value (cobra's __complete):
	# zsh inserts the "--flag=" again, as cobra's own zsh script does.
	[[ ${words[CURRENT]} == -*=* ]] && pfx=${words[CURRENT]%%=*}=
	out=$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
	lines=("${(@f)out}")
	for line in "${lines[@]}"; do
		[[ -z $line ]] && continue
		if [[ $line == :* ]]; then directive=${line#:}; continue; fi
		# _describe reads "value:description"; a colon in a value is escaped.
		if [[ $line == *$'\t'* ]]; then
			cands+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
		else
			cands+=("${line//:/\\:}")
		fi
	done
	if (( ${#cands} )); then
		if [[ -n $pfx ]]; then
			_describe -V completions cands -P "$pfx"
		else
			_describe -V completions cands
		fi
	elif (( !(directive & 4) )); then
		_files
	fi
}
compdef _kubectl_dynamo_interconnect kubectl-dynamo_interconnect
