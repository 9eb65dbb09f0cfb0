#!/bin/sh
# Builds the libFuzzer target for the WebSocket reader into BUILD/fuzz/
# (default build/fuzz/).  Needs clang with libFuzzer (Debian: clang).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build}/fuzz
mkdir -p "$out"
cd "$root"
clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Isrc -o "$out/fuzz_ws" \
	tests/fuzz/fuzz_ws.c src/kube/ws.c src/util/buf.c src/util/xalloc.c \
	-lcrypto
echo "$out/fuzz_ws"
