#!/bin/sh
# bench/run.sh [bench.py options]: what `make bench` runs.
# Setup: gnuplot (the PNG) and hyperfine (start times) from Debian when they
# are missing and we may install (root + apt-get); without them the benchmark
# still runs (no PNG; a fork/exec loop for the start times).
set -e
cd "$(dirname "$0")/.."
need=""
command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
command -v hyperfine >/dev/null 2>&1 || need="$need hyperfine"
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "bench: installing$need" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null ||
			echo "bench: could not install$need; going on without" >&2
	else
		echo "bench: missing$need (apt-get install$need); going on without" >&2
	fi
fi
[ -x ./kubectl-dynamo_interconnect ] || make
exec /usr/bin/python3 bench/bench.py "$@"
