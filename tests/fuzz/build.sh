#!/bin/sh
# tests/fuzz/build.sh [OUT]: builds every libFuzzer target tests/fuzz/fuzz_*.c
# into OUT/bin (default build/fuzz).  The library is built by the main
# Makefile into OUT with clang and -fsanitize=fuzzer-no-link,address,undefined
# (incremental), each target is linked with -fsanitize=fuzzer.
# Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${1:-build/fuzz}
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# Warnings are the gcc build's job (-Werror there); clang's differ.
make -s --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" BUILD="$out" CC=clang \
	CFLAGS="-O1 -g" WARN=-w SAN_FLAGS="$san" "$out/libdi.a" >/dev/null
mkdir -p "$out/bin"
libs="$(pkg-config --libs libcurl yaml-0.1 libcjson libcrypto libssl) -lpthread"
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin="$out/bin/$name"
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$out/libdi.a" -nt "$bin" ]; then
		# shellcheck disable=SC2086
		clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -w \
			-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
			-Isrc $(pkg-config --cflags libcurl yaml-0.1 libcjson libcrypto) \
			-o "$bin" "$src" "$out/libdi.a" $libs
	fi
	echo "$bin"
done
