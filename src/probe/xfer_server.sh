# Transfer test, server side (check --transfer; NOT read-only: it runs
# ucx_perftest).  Run as: sh -c SCRIPT di-transfer TOKEN PORT SECONDS
# Every argument is generated or validated by the plugin (a random token,
# numbers); nothing here comes from user text.  The worker's own UCX_/NIXL_
# settings are read from the container's first process, so the test uses
# the transports the worker would.  DI_TRANSFER=TOKEN marks every process
# it starts, so the cleanup script can find and stop them.
set -u
tok=$1 port=$2 secs=$3
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
timeout -s KILL "$secs" ucx_perftest -p "$port" 2>&1
rc=$?
echo "di-transfer: server exit $rc"
exit $rc
