#!/bin/sh
# Instructions per byte of the probe report parser (issue 16 item 4):
# callgrind on build/tools/di_parse, 1 and 1+N parses of the same report;
# the difference removes start-up, so the figure is the per-pod cost of
# probe_facts_new + probe_parse_report + probe_facts_free.
#
#   sh bench/parse.sh [REPORT] [N]     (default bench/report-h100-ib-ok.txt, 20)
#   KEEP=DIR sh bench/parse.sh         keep the callgrind files in DIR
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
report=${1:-$here/bench/report-h100-ib-ok.txt}
n=${2:-20}
tool=${DI_PARSE:-$here/build/tools/di_parse}
[ -x "$tool" ] || make -C "$here" -s build/tools/di_parse
dir=${KEEP:-$(mktemp -d)}
mkdir -p "$dir"
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.$1.out" \
		"$tool" "$report" "$1" >/dev/null 2>&1
	sed -n 's/^summary: *//p; s/^totals: *//p' "$dir/callgrind.$1.out" | head -n 1
}
one=$(ir 1)
many=$(ir $((n + 1)))
bytes=$(wc -c < "$report")
awk -v a="$one" -v b="$many" -v n="$n" -v by="$bytes" 'BEGIN {
	per = (b - a) / n
	printf "report %d bytes: %.0f instructions per parse, %.2f per byte\n", by, per, per / by
}'
[ -n "${KEEP:-}" ] || rm -rf "$dir"
