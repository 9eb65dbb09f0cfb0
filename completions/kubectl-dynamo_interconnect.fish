# fish completion for kubectl-dynamo_interconnect run directly.
# Through kubectl, kubectl's own completion calls kubectl_complete-dynamo_interconnect.
#
# The plugin answers candidates and a cobra ShellCompDirective (":N", last
# line). Bit 4 (NoFileComp) set: only the candidates; clear (a path is
# wanted, e.g. env RECIPE_PATH, --recipe, --kubeconfig): fish's own file
# completion too, so the rule without -f applies.
function __kubectl_dynamo_interconnect_answer
	set -l args (commandline -opc) (commandline -ct)
	$args[1] __complete $args[2..-1] 2>/dev/null
end

# After "--flag=" the answer is the bare value (cobra's __complete); fish
# matches the whole token, so the "--flag=" goes back in front.
function __kubectl_dynamo_interconnect_complete
	set -l pfx (string match -r -- '^-[^=]*=' (commandline -ct))
	__kubectl_dynamo_interconnect_answer | string match -v -r '^:' | string replace -r -- '^' "$pfx"
end

function __kubectl_dynamo_interconnect_nofile
	set -l directive (__kubectl_dynamo_interconnect_answer | string match -r '^:[0-9]+$' | string sub -s 2)
	test -n "$directive"; or return 0
	test (math "bitand($directive, 4)") -ne 0
end

complete -c kubectl-dynamo_interconnect -n '__kubectl_dynamo_interconnect_nofile' -f -a '(__kubectl_dynamo_interconnect_complete)'
complete -c kubectl-dynamo_interconnect -n 'not __kubectl_dynamo_interconnect_nofile' -F -a '(__kubectl_dynamo_interconnect_complete)'
