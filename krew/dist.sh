#!/bin/sh
# krew/dist.sh (make dist): release archives for linux/amd64 and linux/arm64
# and the krew manifest with both sha256, all in $DISTDIR (default dist/).
# No tracked file changes.
#
# Reproducible: the same commit gives the same archives wherever it is
# cloned and built (-ffile-prefix-map maps the clone's path away, the binary
# is stripped, tar gets sorted names, owner 0, normalised modes and
# SOURCE_DATE_EPOCH as mtime, gzip -n drops its name and time stamp).
# SOURCE_DATE_EPOCH defaults to the commit time (0 outside git).
#
# Needs the cross toolchain and the :arm64 -dev packages
# (sh tests/tools/deps-dist.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
distdir=${DISTDIR:-dist}
prog=kubectl-dynamo_interconnect
completer=kubectl_complete-dynamo_interconnect
name=dynamo-interconnect
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
fi
export SOURCE_DATE_EPOCH
mkdir -p "$distdir"

triplet() {
	case $1 in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	esac
}

# build ARCH: the stripped binary in build/dist-ARCH/dist/.
build() {
	t=$(triplet "$1")
	if ! command -v "$t-gcc" >/dev/null 2>&1; then
		echo "error: $t-gcc not found (install the cross toolchain: sh tests/tools/deps-dist.sh)" >&2
		exit 1
	fi
	# MAKEFLAGS of the parent (its jobserver) carry over.
	make --no-print-directory BUILD="build/dist-$1" CC="$t-gcc" \
		PKG_CONFIG="env PKG_CONFIG_LIBDIR=/usr/lib/$t/pkgconfig:/usr/share/pkgconfig pkg-config" \
		CFLAGS="-O2 -ffile-prefix-map=$root=." "build/dist-$1/dist/$prog"
}

# stage ARCH DIR: what the archive holds, with fixed modes.
stage() {
	rm -rf "$2"
	install -d -m 0755 "$2" "$2/deploy" "$2/schema"
	install -m 0755 "build/dist-$1/dist/$prog" "$2/$prog"
	# A copy, not a link: krew links only `bin` onto PATH and archives
	# may not keep links.
	install -m 0755 "build/dist-$1/dist/$prog" "$2/$completer"
	install -m 0644 LICENSE README.md "man/$prog.1" "$2/"
	# deploy/ as `make install` puts it under share/ (issue 44 point 4).
	install -m 0644 deploy/rbac.yaml deploy/cronjob.yaml deploy/alerts.yaml "$2/deploy/"
	install -m 0644 schema/*.json "$2/schema/"
	# completions/ (bash, zsh, fish scripts) when the tree has it.
	if [ -d completions ]; then
		find completions -type d | sort | while IFS= read -r d; do
			install -d -m 0755 "$2/$d"
		done
		find completions -type f | sort | while IFS= read -r f; do
			install -m 0644 "$f" "$2/$f"
		done
	fi
}

for arch in amd64 arm64; do
	build "$arch"
	st="build/dist-$arch/stage"
	stage "$arch" "$st"
	tgz="$distdir/kubectl-$name""_linux_$arch.tar.gz"
	# shellcheck disable=SC2046 # top-level names, no spaces
	tar -C "$st" --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
		--mode='u+rwX,go+rX,go-w' --mtime="@$SOURCE_DATE_EPOCH" \
		-cf - $(cd "$st" && ls -A) | gzip -9n >"$tgz"
	eval "sha_$arch=\$(sha256sum \"\$tgz\" | cut -d' ' -f1)"
	echo "$tgz sha256 $(eval echo \$sha_$arch)"
done

# The manifest: the template with each platform's sha256 filled in.
out="$distdir/$name.yaml"
sed -e "s/^\(    sha256: \)\"[0-9a-f]*\"\( # linux\/amd64\)$/\1\"$sha_amd64\"\2/" \
    -e "s/^\(    sha256: \)\"[0-9a-f]*\"\( # linux\/arm64\)$/\1\"$sha_arm64\"\2/" \
    "krew/$name.yaml" >"$out.tmp"
for a in amd64 arm64; do
	if ! grep -q "\"$(eval echo \$sha_$a)\" # linux/$a\$" "$out.tmp"; then
		echo "error: krew/$name.yaml has no sha256 line for linux/$a" >&2
		rm -f "$out.tmp"
		exit 1
	fi
done
mv "$out.tmp" "$out"
echo "$out: linux/amd64 $sha_amd64, linux/arm64 $sha_arm64"
