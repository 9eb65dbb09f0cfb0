#!/bin/sh
# tests/run.sh BUILD_DIR: runs every test against the binaries in BUILD_DIR
# and prints one closing line "BUILD_DIR: N passed, N failed".
#
# Each suite prints its own "NAME: N passed, N failed" line; this adds them
# up.  The test cluster's conformance suite does not depend on the C build,
# so it runs once, with the plain build.
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
suite_out=$(mktemp)
trap 'rm -f "$log" "$suite_out"' EXIT
status=0

# Runs one suite; a suite that fails without a count (a crash, an import
# error) is counted as one failure, so it can never pass silently.
run() {
	echo "== $*"
	"$@" >"$suite_out" 2>&1
	rc=$?
	cat "$suite_out" >>"$log"
	grep -v '^ok ' "$suite_out"
	if [ $rc -ne 0 ] && ! grep -Eq '(^|[^0-9])[1-9][0-9]* failed' "$suite_out"; then
		echo "$1 $2: 0 passed, 1 failed (exit $rc)" | tee -a "$log"
	fi
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | tee -a "$log" | tail -n 20
	if [ $rc -ne 0 ] && ! printf '%s' "$out" | grep -q ' [1-9][0-9]* failed'; then
		# A crash (sanitizer report, signal) leaves no count: count it.
		echo "$(basename "$t"): 0 passed, 1 failed (exit $rc)" | tee -a "$log"
	fi
done

# The layering facts (issue 14): includes and calls between files.
if [ "$build" = build ]; then
	run python3 "$here/layering/check.py" "$build"
fi

export DI_PLUGIN="$(cd "$build" && pwd)/kubectl-dynamo_interconnect"
export DI_TOOLS="$(cd "$build" && pwd)/tools"
for s in "$here"/e2e/run.sh; do
	[ -f "$s" ] && run sh "$s"
done
if [ "$build" = build ] && [ -f "$here/cluster/run_tests.sh" ]; then
	run sh "$here/cluster/run_tests.sh"
fi

pass=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | awk '{p+=$1} END {print p+0}')
fail=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | awk '{f+=$3} END {print f+0}')
[ "$fail" -eq 0 ] || status=1
[ "$pass" -gt 0 ] || status=1
echo "$build: $pass passed, $fail failed"
exit $status
