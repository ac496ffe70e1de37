#!/bin/sh
# Usage: gobuild.sh NAME
#
# Builds the initramfs of the Go example guest-images/examples/NAME: the Go
# program of that folder, cross-compiled for linux/riscv64 and installed as
# /init (with /dev/console and mount points) by
# guest-images/sdk/go/mkinitramfs. Prints the path of the archive.
#
# It also links the archive, the guest kernel (guest-images/linux/
# build-kernel.sh) and the program itself (build/examples/NAME/NAME, for
# everett explore --linux, which brings its own init) into
# build/examples/NAME/ at the top of the repository, where the example's
# spec.yaml finds them.
#
# The archive is an uncompressed newc cpio (NAME-initramfs.cpio): the
# kernel unpacks it without inflating, which saves about 30 million guest
# instructions per boot. GZIP=1 builds NAME-initramfs.cpio.gz instead.
#
# Cache: $EVERETT_CACHE/NAME/<key>/ (EVERETT_CACHE defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/everett), like the recipes of
# guest-images/linux. <key> hashes the Go toolchain version, this script,
# go.mod and every file of the repository the program and the packer are
# built from (go_sources in gosources.sh: the SDK packages they import
# included), so that the archive is rebuilt exactly when one changes; two
# builds with the same key are byte-identical.
set -eu
ex=${1:?usage: gobuild.sh NAME}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache_root="${EVERETT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/everett}"
. "$here/gosources.sh"
GO=${GO:-go}

name=$ex-initramfs.cpio
zflag=-z=false
if [ "${GZIP:-${KV_GZIP:-0}}" = 1 ]; then
	name=$ex-initramfs.cpio.gz
	zflag=-z=true
fi

srcs=$(
	(GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go_sources "$root" "$root" ./guest-images/examples/$ex) || exit 1
	go_sources "$root" "$root" ./guest-images/sdk/go/mkinitramfs
)
key=$(
	cd "$root"
	{
		"$GO" version
		echo "$name"
		for f in guest-images/examples/gobuild.sh guest-images/examples/gosources.sh go.mod $srcs; do
			printf 'file %s\n' "$f"
			cat "$f"
		done
	} | sha256sum | cut -c1-16
)
out="$cache_root/$ex/$key"
img="$out/$name"

# link puts the archive and the kernel where spec.yaml expects them, and
# the program beside them.
link() {
	kernel=$(sh "$root/guest-images/linux/build-kernel.sh")
	mkdir -p "$root/build/examples/$ex"
	ln -sf "$kernel" "$root/build/examples/$ex/Image"
	ln -sf "$img" "$root/build/examples/$ex/$name"
	ln -sf "$out/$ex" "$root/build/examples/$ex/$ex"
}

if [ -f "$img" ]; then
	link
	echo "$img"
	exit 0
fi

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [ -f "$img" ]; then
	link
	echo "$img"
	exit 0
fi
tmp="$out/tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cd "$root"
# -trimpath, no build id and no VCS stamp: the binary depends on the sources
# and the toolchain only.
CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 "$GO" build -trimpath -buildvcs=false \
	-ldflags="-s -w -buildid=" -o "$tmp/$ex" ./guest-images/examples/$ex
"$GO" build -o "$tmp/mkinitramfs" ./guest-images/sdk/go/mkinitramfs
"$tmp/mkinitramfs" $zflag -o "$tmp/$name" -init "$tmp/$ex"
cp "$tmp/$ex" "$out/$ex"
mv "$tmp/$name" "$img"
link
echo "$img"
