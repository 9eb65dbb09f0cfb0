#!/bin/sh
# Installs what `make dist` and tests/e2e/test_dist.py need beyond
# deps.sh: the arm64 cross toolchain, the :arm64 -dev packages of the
# libraries the plugin links (Debian multiarch) and qemu-user-static to run
# the arm64 binary.  Needs root.
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "error: run as root (sudo sh tests/tools/deps-dist.sh)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	crossbuild-essential-arm64 qemu-user-static binutils \
	libcurl4-openssl-dev:arm64 libyaml-dev:arm64 libcjson-dev:arm64 libssl-dev:arm64 >/dev/null
echo "dist dependencies installed"
