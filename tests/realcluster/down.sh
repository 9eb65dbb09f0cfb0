#!/bin/sh
# Tears down what up.sh started and created: deletes the test pods through
# the API (the kubelet stops their containers and sandboxes), stops the
# kubelet, containerd, kube-apiserver and etcd by their PID files, kills the
# containerd shims of this containerd (found by its socket path), unmounts
# and removes the state directory, the CNI bridge and its veths, the pods'
# network namespaces and log directories, and any of /var/log/pods,
# /var/log/containers, /var/lib/kubelet, /run/containerd, /var/lib/cni,
# /run/netns that did not exist before up.sh.  Safe to run twice.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ST=${DI_RC_STATE:-/var/tmp/dynamo-interconnect-realcluster}
BRIDGE=dicni0
C=$ST/containerd
[ -d "$ST" ] || exit 0

alive() { [ -f "$ST/pids/$1" ] && kill -0 "$(cat "$ST/pids/$1")" 2>/dev/null; }
stop() { # NAME: TERM, then KILL after 10 s
	alive "$1" || { rm -f "$ST/pids/$1"; return 0; }
	_p=$(cat "$ST/pids/$1")
	kill "$_p" 2>/dev/null
	_i=0
	while kill -0 "$_p" 2>/dev/null && [ $_i -lt 20 ]; do sleep 0.5; _i=$((_i + 1)); done
	kill -9 "$_p" 2>/dev/null
	rm -f "$ST/pids/$1"
}

# 1. pods, through the API while everything still runs (the Job controller
# first, so that it makes no new pod)
stop kube-controller-manager
if alive kube-apiserver && alive kubelet; then
	/usr/bin/python3 "$HERE/kapi.py" "$ST" delete-pods dynamo-e2e dynamo-interconnect 2>/dev/null || true
fi
stop kubelet
# 2. whatever containers are left, through containerd
if alive containerd; then
	for t in $(ctr -a "$C/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
		ctr -a "$C/containerd.sock" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1
	done
	sleep 1
	for t in $(ctr -a "$C/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
		ctr -a "$C/containerd.sock" -n k8s.io tasks delete -f "$t" >/dev/null 2>&1
	done
fi
stop containerd
stop kube-apiserver
stop etcd
# 3. shims started by our containerd (their command line names our socket)
for d in /proc/[0-9]*; do
	case $( (tr '\0' ' ' < "$d/cmdline") 2>/dev/null) in
	*containerd-shim*"$C/containerd.sock"*) kill -9 "${d#/proc/}" 2>/dev/null ;;
	esac
done
sleep 0.5
# 4. mounts under the state dir, deepest first
awk -v st="$ST" 'index($2, st) == 1 { print $2 }' /proc/mounts | sort -r |
	while read -r m; do umount -l "$m" 2>/dev/null; done
# 5. network: pods' netns made since up.sh, the bridge (its veths go with it)
if [ -f "$ST/netns.before" ]; then
	for n in $(ls /run/netns 2>/dev/null); do
		grep -qx "$n" "$ST/netns.before" && continue
		case $n in cni-*) umount -l "/run/netns/$n" 2>/dev/null; rm -f "/run/netns/$n" ;; esac
	done
fi
for v in $(ip -o link show master "$BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
	ip link del "$v" 2>/dev/null
done
ip link del "$BRIDGE" 2>/dev/null
# 6. pod logs of our namespace; host paths that did not exist before
rm -rf /var/log/pods/dynamo-e2e_* 2>/dev/null
for l in /var/log/containers/*_dynamo-e2e_*; do [ -e "$l" ] || [ -L "$l" ] && rm -f "$l"; done
for p in /var/log/pods /var/log/containers /var/lib/kubelet /run/containerd \
	/var/lib/cni /run/netns /var/run/netns; do
	[ -e "$p" ] || continue
	grep -qx "$p" "$ST/preexisting" 2>/dev/null && continue
	[ -L "$p" ] && continue
	case $p in
	*/netns) rmdir "$p" 2>/dev/null ;;   # others' namespaces may be there now
	*) rm -rf "$p" 2>/dev/null ;;
	esac
done
rm -rf "$ST"
echo "down: removed $ST"
