#!/bin/sh
# tests/tools/corpus_diff.sh OLD_PLUGIN NEW_PLUGIN [OUT]: the "byte-identical
# on the e2e corpus" check of a refactor (issue 40).  Runs `check -A` with
# -o table, wide, json, yaml and junit against every scenario of
# tests/cluster/scenarios (SCEN="files..." to pick others, e.g. the DGD
# ones of tests/e2e/scenarios) with each plugin, and compares the outputs,
# stderr and exit codes after blanking what differs run to run (timestamps,
# the server's port, junit times, temp names, the probe's own durationMs and
# cpuMs measured in the pod).  Prints
# "corpus-diff: N passed, N failed"; ~10 min per plugin on 2 loaded cores.
# OLD_PLUGIN may be the "old" directory of an earlier run's OUT instead
# (the outputs of the binary before the refactor, kept once): only NEW runs.
# A scenario whose server did not come up in 20 s (a loaded machine)
# shows as an empty kubeconfig error: rerun that one with SCEN=.
# Not part of `make test` (it is slow); run it by hand before and after.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
old=$1 new=$2 out=${3:-$(mktemp -d)}
run() {
	mkdir -p "$2"
	for s in ${SCEN:-$root/tests/cluster/scenarios/*.yaml}; do
		b=$(basename "$s" .yaml)
		case $b in many|latency|faults|hostile-*) continue;; esac
		kc=$(mktemp) log=$(mktemp)
		/usr/bin/python3 "$root/tests/cluster/fakecluster" --scenario "$s" --kubeconfig "$kc" >"$log" 2>&1 &
		pid=$!
		for _ in $(seq 1 100); do grep -q READY "$log" && break; sleep 0.2; done
		for o in table wide json yaml junit; do
			timeout 120 "$1" check --kubeconfig "$kc" -A -o $o >"$2/$b.$o" 2>"$2/$b.$o.err"
			echo "rc=$?" >>"$2/$b.$o.err"
		done
		kill $pid; wait $pid 2>/dev/null
		rm -f "$kc" "$log"
	done
}
norm() {
	sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/TS/g;
		s/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g; s/time="[0-9.]+"/time="T"/g;
		s/tmp\.[A-Za-z0-9]+/tmp.X/g;
		s/"?(durationMs|cpuMs)"?: [0-9]+/\1: N/g' "$1"
}
if [ -d "$old" ]; then
	mkdir -p "$out" && rm -rf "$out/old" && cp -r "$old" "$out/old"
else
	run "$old" "$out/old"
fi
run "$new" "$out/new"
n=0 d=0
for f in $(ls "$out/new"); do
	n=$((n + 1))
	norm "$out/old/$f" >"$out/a" 2>/dev/null
	norm "$out/new/$f" >"$out/b"
	if ! cmp -s "$out/a" "$out/b"; then
		d=$((d + 1))
		echo "differs: $f"
		diff "$out/a" "$out/b" | head -10
	fi
done
echo "corpus-diff: $((n - d)) passed, $d failed (outputs in $out)"
[ "$d" -eq 0 ]
