#!/bin/sh
# make demo: start the bundled test cluster with the demo scenario (several
# Dynamo workers on simulated GPU nodes, healthy and broken), point the
# plugin at it, show `pods` and `check`, and stop the cluster.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
plugin="$root/kubectl-dynamo_interconnect"
scenario=${DEMO_SCENARIO:-$root/tests/cluster/scenarios/demo.yaml}

if [ "$(id -u)" != 0 ]; then
	echo "error: the demo cluster's pods are namespace sandboxes: run as root (sudo make demo)" >&2
	exit 1
fi
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

/usr/bin/python3 "$root/tests/cluster/fakecluster" --scenario "$scenario" \
	--kubeconfig "$tmp/kubeconfig" >"$tmp/ready" 2>"$tmp/server.log" &
pid=$!
i=0
until grep -q '^READY ' "$tmp/ready" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 120 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "error: the test cluster did not start:" >&2
		tail -n 5 "$tmp/server.log" >&2
		exit 1
	fi
	sleep 0.5
done
echo "Test cluster $(cut -d' ' -f2 "$tmp/ready"), kubeconfig $tmp/kubeconfig"
echo
echo "\$ kubectl dynamo-interconnect pods -n demo"
"$plugin" pods -n demo --kubeconfig "$tmp/kubeconfig"
echo
echo "\$ kubectl dynamo-interconnect check -n demo"
"$plugin" check -n demo --kubeconfig "$tmp/kubeconfig"
rc=$?
echo
echo "(check exited $rc: 0 READY, 1 error, 2 NOT READY, 3 UNVERIFIED)"
echo
echo "Run it again by hand: sudo make -C $root demo"
[ $rc -eq 1 ] && exit 1
exit 0
