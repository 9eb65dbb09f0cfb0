# Transfer test (check --transfer; NOT read-only: it runs ucx_perftest).
# Run as one of:
#   sh -c SCRIPT di-transfer server TOKEN PORT SECONDS
#   sh -c SCRIPT di-transfer client TOKEN SERVER_IP PORT SIZE ITERATIONS MEMORY SECONDS
# Every argument is generated or validated by the plugin (a random token,
# numbers, SERVER_IP an IPv4/IPv6 literal from the API server, MEMORY host
# or cuda); nothing here comes from user text.  The worker's own UCX_/NIXL_
# settings are read from the container's first process, so the test uses
# the transports the worker would.  DI_TRANSFER=TOKEN marks every process
# it starts, so the cleanup script can find and stop them.
set -u
role=$1 tok=$2
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
export DI_TRANSFER="$tok"
if [ "$role" = server ]; then
	port=$3 secs=$4
	timeout -s KILL "$secs" ucx_perftest -p "$port" 2>&1
	rc=$?
	echo "di-transfer: server exit $rc"
	exit $rc
fi
# client: UCX_LOG_LEVEL=info makes UCX print the lanes it chose.  The
# server may not listen yet: retry the connect until SECONDS have passed.
ip=$3 port=$4 size=$5 iters=$6 mem=$7 secs=$8
export UCX_LOG_LEVEL=info
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
