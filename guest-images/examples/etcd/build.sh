#!/bin/sh
# Builds the etcd example's guest: etcd's server at ETCD_VERSION (default
# below), built unmodified from its released source by build-server.sh in a
# Go module of its own, and this example's init and client (init/, built in
# this folder's module at the client release its go.mod pins), packed into
# an initramfs; the client as an ordinary program (client/, static
# linux/riscv64); and the data disk every node gets a copy of (an empty
# ext4 file system, guest-images/linux/build-disk.sh). Links them, the
# server binary and the guest kernel into build/examples/etcd/ at the top
# of the repository, where the specs find them (spec.yaml: Image,
# etcd-initramfs.cpio, disk.img; spec-workload.yaml: etcd, etcd-client,
# disk.img). Prints the initramfs's path.
#
# check-versions.sh lists the releases this recipe was seen to build.
#
# Cache: $EVERETT_CACHE/etcd/<key>/, <key> hashing the Go toolchain, the
# etcd version, this script, build-server.sh, go.mod and go.sum (the
# repository's too: the module replaces everett with it) and every file of
# the repository the init, the client and the packer are built from
# (go_sources in ../gosources.sh: the SDK packages they import included;
# the server has a cache of its own, see build-server.sh). Two builds with
# the same key are byte-identical.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
. "$root/guest-images/linux/lib.sh"
. "$root/guest-images/examples/gosources.sh"
GO=${GO:-go}
# The release built when ETCD_VERSION is not set.
default_version=v3.7.3
ETCD_VERSION=${ETCD_VERSION:-$default_version}
case "$ETCD_VERSION" in
v3.[5-9].* | v3.[1-9][0-9].* | v[4-9].*) ;;
*) log "ETCD_VERSION=$ETCD_VERSION: want a release v3.5.0 or later (vMAJOR.MINOR.PATCH)"; exit 2 ;;
esac

disk=$(sh "$root/guest-images/linux/build-disk.sh" 256)
srcs=$(
	(GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go_sources "$root" "$here" ./init ./client) || exit 1
	go_sources "$root" "$root" ./guest-images/sdk/go/mkinitramfs
)
key=$(
	cd "$root"
	{
		"$GO" version
		echo "etcd $ETCD_VERSION"
		for f in go.mod go.sum guest-images/examples/etcd/build.sh guest-images/examples/etcd/build-server.sh \
			guest-images/examples/gosources.sh guest-images/examples/etcd/go.mod guest-images/examples/etcd/go.sum $srcs; do
			printf 'file %s\n' "$f"
			cat "$f"
		done
	} | sha256sum | cut -c1-16
)
out="$cache_root/etcd/$key"
img="$out/etcd-initramfs.cpio"
client="$out/etcd-client"

link() {
	kernel=$(sh "$root/guest-images/linux/build-kernel.sh")
	mkdir -p "$root/build/examples/etcd"
	ln -sf "$kernel" "$root/build/examples/etcd/Image"
	ln -sf "$img" "$root/build/examples/etcd/etcd-initramfs.cpio"
	ln -sf "$disk" "$root/build/examples/etcd/disk.img"
	ln -sf "$client" "$root/build/examples/etcd/etcd-client"
	ln -sf "$(sh "$here/build-server.sh" "$ETCD_VERSION")" "$root/build/examples/etcd/etcd"
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

server=$(sh "$here/build-server.sh" "$ETCD_VERSION")

# The initial corruption check's flag was renamed by 3.6 (a feature gate).
case "$ETCD_VERSION" in
v3.5.*) flags="--experimental-initial-corrupt-check=true" ;;
*) flags="--feature-gates=InitialCorruptCheck=true" ;;
esac
printf '%s\n' "$flags" >"$tmp/etcd-flags"

# -trimpath, no build id and no VCS stamp: the binary depends on the
# sources and the toolchain only.
(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 "$GO" build -trimpath -buildvcs=false \
	-ldflags="-s -w -buildid=" -o "$tmp/init" ./init)
(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 "$GO" build -trimpath -buildvcs=false \
	-ldflags="-s -w -buildid=" -o "$tmp/etcd-client" ./client)
(cd "$root" && "$GO" build -o "$tmp/mkinitramfs" ./guest-images/sdk/go/mkinitramfs)
cat >"$tmp/list" <<EOF
dir bin 0755
dir etc 0755
dir data 0755
file bin/etcd 0755 $server
file etc/etcd-flags 0644 $tmp/etcd-flags
EOF
"$tmp/mkinitramfs" -z=false -o "$tmp/etcd-initramfs.cpio" -init "$tmp/init" -list "$tmp/list"
echo "$ETCD_VERSION" >"$out/etcd-version"
mv "$tmp/etcd-client" "$client"
mv "$tmp/etcd-initramfs.cpio" "$img"
link
echo "$img"
