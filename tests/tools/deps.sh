#!/bin/sh
# Installs what building, testing and the demo need, from Debian/Ubuntu
# packages.  Needs root (the test cluster's pods are namespaces and mounts).
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "error: run as root (sudo sh tests/tools/deps.sh)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential pkg-config clang libclang-rt-14-dev valgrind \
	libcurl4-openssl-dev libyaml-dev libcjson-dev libssl-dev \
	python3 python3-yaml python3-kubernetes python3-jsonschema mandoc \
	openssl util-linux bubblewrap ca-certificates iproute2 ucx-utils strace \
	tmux zsh fish chromium prometheus prometheus-pushgateway python3-ruamel.yaml >/dev/null
# make dist and its test build linux/arm64 too.
sh "$(dirname "$0")/deps-dist.sh"
echo "dependencies installed"
