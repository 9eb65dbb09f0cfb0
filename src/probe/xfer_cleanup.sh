# Transfer test cleanup (check --transfer, after xfer_perftest.sh).  Run as: sh -c SCRIPT di-transfer
# TOKEN.  Stops every process of this pod whose environment carries
# DI_TRANSFER=TOKEN (the test's own processes, nothing else): TERM, then
# KILL after a second for what is left.  Prints "di-transfer: stopped N".
set -u
tok=$1
find_marked() {
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = "$$" ] && continue
		[ -r "$d/environ" ] || continue
		if tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qxF "DI_TRANSFER=$tok"; then
			echo "$p"
		fi
	done
}
pids=$(find_marked)
n=0
for p in $pids; do
	kill -TERM "$p" 2>/dev/null && n=$((n + 1))
done
if [ -n "$pids" ]; then
	sleep 1
	for p in $(find_marked); do
		kill -KILL "$p" 2>/dev/null
	done
fi
echo "di-transfer: stopped $n"
