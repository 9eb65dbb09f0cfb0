#!/bin/sh
# make demo: start the bundled test cluster with the demo scenario (Dynamo
# workers on simulated GPU nodes, healthy and broken), show `pods` and
# `check` against it, and stop it.
#   make demo KEEP=1   leave it running; prints the two export lines that
#                      point a fresh shell at it and the command that stops it
#   make demo-stop     stop a kept demo cluster
# State of a kept cluster: $DEMO_DIR (default /tmp/dynamo-interconnect-demo).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
plugin=${DEMO_PLUGIN:-$root/kubectl-dynamo_interconnect}
scenario=${DEMO_SCENARIO:-$root/tests/cluster/scenarios/demo.yaml}
keep=${KEEP:-}
dir=${DEMO_DIR:-/tmp/dynamo-interconnect-demo}
# What to type in front of make: nothing as root, sudo for the user who
# ran us through sudo.
sudo=
[ -n "${SUDO_USER:-}" ] && sudo="sudo "

stop() {
	if [ -f "$dir/pid" ]; then
		pid=$(cat "$dir/pid")
		if kill -TERM "$pid" 2>/dev/null; then
			i=0
			while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
				sleep 0.1
				i=$((i + 1))
			done
		fi
		echo "demo cluster stopped"
	else
		echo "no demo cluster running (no $dir/pid)"
	fi
	rm -rf "$dir"
}

if [ "${1:-}" = stop ]; then
	stop
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "error: the demo cluster's pods are namespace sandboxes: run as root (sudo make demo)" >&2
	exit 1
fi
if [ -n "$keep" ]; then
	[ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null && stop >/dev/null
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	tmp=$dir
else
	tmp=$(mktemp -d)
	mkdir -p "$tmp/bin"
fi
# The plugin and its completion helper on a PATH of their own, as krew
# would install them, so `kubectl dynamo-interconnect` finds them.
ln -s "$plugin" "$tmp/bin/kubectl-dynamo_interconnect"
ln -s "$plugin" "$tmp/bin/kubectl_complete-dynamo_interconnect"
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
[ -z "$keep" ] && trap cleanup EXIT INT TERM

# A kept server outlives make: its own session, no terminal.
if [ -n "$keep" ]; then
	setsid /usr/bin/python3 "$root/tests/cluster/fakecluster" --scenario "$scenario" \
		--kubeconfig "$tmp/kubeconfig" >"$tmp/ready" 2>"$tmp/server.log" </dev/null &
else
	/usr/bin/python3 "$root/tests/cluster/fakecluster" --scenario "$scenario" \
		--kubeconfig "$tmp/kubeconfig" >"$tmp/ready" 2>"$tmp/server.log" &
fi
pid=$!
i=0
until grep -q '^READY ' "$tmp/ready" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 240 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "error: the test cluster did not start:" >&2
		tail -n 5 "$tmp/server.log" >&2
		[ -n "$keep" ] && { kill -TERM "$pid" 2>/dev/null; rm -rf "$dir"; }
		exit 1
	fi
	sleep 0.5
done
echo "$pid" >"$tmp/pid"

# Run exactly what is shown, the way a user types it: through kubectl when
# it is installed, else the plugin binary itself.
export KUBECONFIG="$tmp/kubeconfig"
PATH="$tmp/bin:$PATH"
export PATH
if command -v kubectl >/dev/null 2>&1; then
	cmd="kubectl dynamo-interconnect"
else
	cmd="kubectl-dynamo_interconnect"
fi
show() {
	echo "\$ $cmd $*"
	$cmd "$@"
}
echo "Test cluster $(cut -d' ' -f2 "$tmp/ready")"
echo
show pods -n demo
echo
show check -n demo
rc=$?
echo
echo "(check exited $rc: 0 READY, 1 error, 2 NOT READY, 3 UNVERIFIED)"
if [ -n "$keep" ]; then
	# The user of `sudo make demo KEEP=1` reads the kubeconfig from a
	# fresh shell of their own.
	if [ -n "${SUDO_UID:-}" ]; then
		chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$dir"
	fi
	echo
	echo "The demo cluster keeps running. In a new shell:"
	echo
	echo "  export KUBECONFIG=$tmp/kubeconfig"
	echo "  export PATH=$tmp/bin:\$PATH"
	echo "  $cmd check -n demo"
	echo
	echo "Stop it with: ${sudo}make -C $root demo-stop"
else
	echo
	echo "Run it again by hand: ${sudo}make -C $root demo   (KEEP=1 to keep the cluster running)"
fi
[ $rc -eq 1 ] && exit 1
exit 0
