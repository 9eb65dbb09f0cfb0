#!/bin/sh
# make test-real: brings the real cluster up, runs test_real.py, and tears
# it down whatever happened (also on Ctrl-C).  Needs root.
#   sh tests/realcluster/run.sh [BUILD_DIR]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
# One real cluster per machine (fixed ports, state dir, bridge): runs wait
# for each other.
exec 9>/var/lock/dynamo-interconnect-realcluster.lock
flock 9
t0=$(date +%s)
down() { sh "$HERE/down.sh"; }
trap 'down; exit 130' INT TERM
# the plugin's image (make image) for the in-cluster Job
if ! DI_RC_IMAGE=$B/image.oci.tar sh "$HERE/up.sh"; then
	echo "test-real: up.sh failed" >&2
	down
	exit 1
fi
t1=$(date +%s)
DI_PLUGIN=${DI_PLUGIN:-$ROOT/kubectl-dynamo_interconnect} DI_EXEC=${DI_EXEC:-$B/tools/di_exec} \
	/usr/bin/python3 "$HERE/test_real.py" -v
rc=$?
down
echo "test-real: rc=$rc (up $((t1 - t0)) s, tests+down $(( $(date +%s) - t1 )) s, total $(( $(date +%s) - t0 )) s)"
exit $rc
