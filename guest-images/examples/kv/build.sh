#!/bin/sh
# Builds the kv example's initramfs: the Go program of this folder,
# cross-compiled for linux/riscv64 and installed as /init (with /dev/console
# and mount points) by guest-images/sdk/go/mkinitramfs. Prints the path of
# the archive.
#
# It also links the archive and the guest kernel (guest-images/linux/
# build-kernel.sh) into build/examples/kv/ at the top of the repository,
# where spec.yaml finds them.
#
# The archive is an uncompressed newc cpio (kv-initramfs.cpio): the kernel
# unpacks it without inflating, which saves about 30 million guest
# instructions per boot. KV_GZIP=1 builds kv-initramfs.cpio.gz instead.
#
# Cache: $EVERETT_CACHE/kv/<key>/ (EVERETT_CACHE defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/everett), like the recipes of
# guest-images/linux. <key> hashes the Go toolchain version, this script,
# go.mod and every Go source the program and the packer are built from, so
# that the archive is rebuilt exactly when one changes; two builds with the
# same key are byte-identical.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cache_root="${EVERETT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/everett}"
GO=${GO:-go}

name=kv-initramfs.cpio
zflag=-z=false
if [ "${KV_GZIP:-0}" = 1 ]; then
	name=kv-initramfs.cpio.gz
	zflag=-z=true
fi

key=$(
	cd "$root"
	{
		"$GO" version
		echo "$name"
		for f in guest-images/examples/kv/build.sh go.mod \
			guest-images/examples/kv/*.go guest-images/sdk/go/everett/* \
			guest-images/sdk/go/initramfs/*.go guest-images/sdk/go/mkinitramfs/*.go; do
			case "$f" in *_test.go) continue ;; esac
			printf 'file %s\n' "$f"
			cat "$f"
		done
	} | sha256sum | cut -c1-16
)
out="$cache_root/kv/$key"
img="$out/$name"

# link puts the archive and the kernel where spec.yaml expects them.
link() {
	kernel=$(sh "$root/guest-images/linux/build-kernel.sh")
	mkdir -p "$root/build/examples/kv"
	ln -sf "$kernel" "$root/build/examples/kv/Image"
	ln -sf "$img" "$root/build/examples/kv/$name"
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
	-ldflags="-s -w -buildid=" -o "$tmp/kv" ./guest-images/examples/kv
"$GO" build -o "$tmp/mkinitramfs" ./guest-images/sdk/go/mkinitramfs
"$tmp/mkinitramfs" $zflag -o "$tmp/$name" -init "$tmp/kv"
cp "$tmp/kv" "$out/kv"
mv "$tmp/$name" "$img"
link
echo "$img"
