#!/bin/sh
# make image: an OCI image archive of the release binary, without Docker.
#
#   sh deploy/image.sh BINARY OUT.tar [REF]
#
# The image holds the binary (/usr/local/bin/kubectl-dynamo_interconnect),
# the shared libraries ldd names for it (copied to the paths ldd gives, the
# dynamic loader included) and an /etc/passwd entry for uid 65532, nothing
# else: no shell, no package manager.  The release binary links libyaml
# statically and libcurl, libssl, libcrypto and libcjson shared (Makefile
# DIST_LIBS), so the libraries come from the build machine; its glibc is
# the image's.  The CMD is `check -A` (deploy/cronjob.yaml overrides the
# arguments).  deploy/Dockerfile is the same for users who build with docker.
set -eu
bin=$1 out=$2 ref=${3:-docker.io/dynamo-interconnect/kubectl-dynamo_interconnect:latest}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'nonroot:x:65532:65532::/tmp:/nonexistent\n' > "$tmp/passwd"
printf 'nonroot:x:65532:\n' > "$tmp/group"
set -- --file "usr/local/bin/kubectl-dynamo_interconnect=$bin:0755" \
	--file "etc/passwd=$tmp/passwd:0644" --file "etc/group=$tmp/group:0644"
# ldd lines: "libx.so.1 => /lib/.../libx.so.1 (0x...)" or "/lib64/ld-linux... (0x...)"
libs=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
[ -n "$libs" ] || { echo "image.sh: ldd found no libraries for $bin" >&2; exit 1; }
for lib in $libs; do
	set -- "$@" --file "${lib#/}=$(readlink -f "$lib"):0755"
done
python3 "$here/../tests/realcluster/mkimage.py" "$out" "$ref" "$@" \
	--cmd /usr/local/bin/kubectl-dynamo_interconnect --cmd check --cmd -A
echo "image.sh: $out ($ref, $(echo "$libs" | wc -l) libraries)"
