#!/bin/sh
# Installs what building, testing and the demo need, from Debian/Ubuntu
# packages.  Needs root (the test cluster's pods are namespaces and mounts).
# A package this distribution does not have (Ubuntu has no apt chromium,
# only a snap) is skipped with one line saying so; the tests that need it
# then fail by name.  For the build and the demo alone: deps-demo.sh.
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "error: run as root (sudo sh tests/tools/deps.sh)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
PKGS="build-essential pkg-config clang libclang-rt-14-dev valgrind
libcurl4-openssl-dev libyaml-dev libcjson-dev libssl-dev
python3 python3-yaml python3-kubernetes python3-jsonschema python3-h2 mandoc
openssl util-linux bubblewrap ca-certificates iproute2 ucx-utils strace
tmux zsh fish chromium prometheus prometheus-pushgateway python3-ruamel.yaml"
apt-get update -qq
have=
for p in $PKGS; do
	if apt-cache show "$p" >/dev/null 2>&1; then
		have="$have $p"
	else
		echo "deps.sh: skipping $p: not in this distribution's package lists"
	fi
done
# shellcheck disable=SC2086  # one word per package
apt-get install -y -qq --no-install-recommends $have >/dev/null
# make dist and its test build linux/arm64 too.
sh "$(dirname "$0")/deps-dist.sh"
echo "dependencies installed"
