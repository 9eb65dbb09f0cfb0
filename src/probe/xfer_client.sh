# Transfer test, client side (check --transfer; NOT read-only).  Run as:
# sh -c SCRIPT di-transfer TOKEN SERVER_IP PORT SIZE ITERATIONS MEMORY SECONDS
# All arguments are generated or validated by the plugin (SERVER_IP is an
# IPv4/IPv6 literal from the API server, MEMORY is host or cuda).  Same
# environment rules and DI_TRANSFER marker as the server script; UCX_LOG_LEVEL
# =info makes UCX print the lanes it chose.  The server may not listen yet:
# retry the connect until SECONDS have passed.
set -u
tok=$1 ip=$2 port=$3 size=$4 iters=$5 mem=$6 secs=$7
if ! command -v ucx_perftest >/dev/null 2>&1; then
	echo "di-transfer: ucx_perftest not found"
	exit 127
fi
if [ -r /proc/1/environ ]; then
	vars=$(tr '\0' '\n' </proc/1/environ | grep -E '^(UCX|NIXL)_[A-Za-z0-9_]*=')
	while IFS= read -r kv; do
		[ -n "$kv" ] && export "$kv"
	done <<VARS
$vars
VARS
fi
unset UCX_LOG_FILE
export UCX_LOG_LEVEL=info DI_TRANSFER="$tok"
end=$(($(date +%s) + secs))
try=0
while :; do
	left=$((end - $(date +%s)))
	[ "$left" -gt 0 ] || { echo "di-transfer: time limit reached"; exit 124; }
	try=$((try + 1))
	out=$(timeout -s KILL "$left" ucx_perftest "$ip" -p "$port" -t tag_bw -m "$mem" \
		-s "$size" -n "$iters" -w 2 2>&1)
	rc=$?
	case $out in
	*Final:*) break ;;
	esac
	# not connected yet (the server starts at the same time): retry
	[ "$rc" -eq 137 ] && break
	[ "$try" -ge 10 ] && break
	sleep 1
done
printf '%s\n' "$out"
echo "di-transfer: client exit $rc after $try tries"
exit $rc
