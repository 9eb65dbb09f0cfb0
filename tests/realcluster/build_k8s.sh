#!/bin/sh
# Builds kube-apiserver, kubelet and kube-controller-manager (Jobs and
# service-account tokens for the in-cluster test) v1.20.2 from Debian bookworm's
# `kubernetes` source package with bookworm's Go, cached by version under
# $DI_K8S_CACHE (default /var/cache/dynamo-interconnect-k8s).  A second run
# with the binaries already cached does nothing.  Needs root and Debian's apt.
set -eu
K8S_VERSION=v1.20.2
CACHE=${DI_K8S_CACHE:-/var/cache/dynamo-interconnect-k8s}
OUT=$CACHE/$K8S_VERSION
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/kubelet" ] &&
	[ -x "$OUT/kube-controller-manager" ]; then
	echo "build_k8s: cached $OUT"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# deb-src for bookworm, in a file of our own (kept: apt-get source needs it).
SRCLIST=/etc/apt/sources.list.d/dynamo-interconnect-deb-src.sources
if [ ! -f "$SRCLIST" ]; then
	cat > "$SRCLIST" <<'EOS'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	apt-get update -qq
fi
# Fix 1: the build scripts need rsync.  Fix 2: Debian's reflect2 1.0.2.
apt-get install -y -qq --no-install-recommends golang-go rsync dpkg-dev \
	golang-github-modern-go-reflect2-dev >/dev/null
mkdir -p "$CACHE"
WORK=$CACHE/src
rm -rf "$WORK"
mkdir -p "$WORK"
t0=$(date +%s)
(cd "$WORK" && apt-get source -qq kubernetes >/dev/null 2>&1)
SRC=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)
[ -n "$SRC" ] || { echo "build_k8s: apt-get source kubernetes failed" >&2; exit 1; }
R2=/usr/share/gocode/src/github.com/modern-go/reflect2
rm -rf "$SRC/vendor/github.com/modern-go/reflect2"
mkdir -p "$SRC/vendor/github.com/modern-go/reflect2"
cp -r "$R2"/. "$SRC/vendor/github.com/modern-go/reflect2/"
rm -rf "$SRC/vendor/github.com/modern-go/reflect2/.git"* 2>/dev/null || true
cd "$SRC"
# A Go build cache of our own, removed afterwards: same cost on every machine.
GOCACHE=$CACHE/gocache GOFLAGS=-mod=vendor CGO_ENABLED=0 KUBE_GIT_VERSION=$K8S_VERSION \
	nice -n 10 make WHAT="cmd/kube-apiserver cmd/kubelet cmd/kube-controller-manager"
BIN=$(dirname "$(find _output -type f -name kube-apiserver | head -n1)")
mkdir -p "$OUT.tmp"
cp "$BIN/kube-apiserver" "$BIN/kubelet" "$BIN/kube-controller-manager" "$OUT.tmp/"
cp build/pause/linux/pause.c "$OUT.tmp/pause.c"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
cd /
rm -rf "$WORK" "$CACHE/gocache"
echo "build_k8s: built $OUT in $(( $(date +%s) - t0 )) s"
