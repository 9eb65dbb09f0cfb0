#!/bin/sh
# What the quick start needs and nothing more: build the plugin and run
# `make demo` (the bundled test cluster: Python with PyYAML, openssl for its
# certificates, unshare/nsenter and ip for its pod sandboxes).  The test
# suite's tools (clang, valgrind, chromium, shells, prometheus) are
# tests/tools/deps.sh's.  Debian 12, Ubuntu 22.04 and 24.04: every name below
# is in each (libcjson-dev is in Ubuntu's universe component).
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "error: run as root (sudo sh tests/tools/deps-demo.sh)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
PKGS="build-essential pkg-config libcurl4-openssl-dev libyaml-dev libcjson-dev libssl-dev
python3 python3-yaml openssl util-linux iproute2 ca-certificates"
apt-get update -qq
for p in $PKGS; do
	if ! apt-cache show "$p" >/dev/null 2>&1; then
		echo "error: package $p is not in this system's package lists" \
			"(on Ubuntu: add-apt-repository universe && apt-get update)" >&2
		exit 1
	fi
done
# shellcheck disable=SC2086  # one word per package
apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
echo "build and demo dependencies installed: make && sudo make demo"
