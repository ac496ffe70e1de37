#!/bin/sh
# Builds the etcd example's guest: etcd's server from its released source
# (the Go module proxy) at ETCD_VERSION (default: the release go.mod pins),
# cross-compiled for linux/riscv64 by a main that calls etcd's own entry
# point (etcd/main.go), and this example's init and client (init/), packed
# into an initramfs; and the data disk every node gets a copy of (an empty
# ext4 file system, guest-images/linux/build-disk.sh). Links them and the
# guest kernel into build/examples/etcd/ at the top of the repository,
# where spec.yaml finds them. Prints the initramfs's path.
#
# Any etcd release from 3.5 on works: for another one than go.mod's, the
# module is copied and its requirements moved to that release (go mod
# tidy, through the module proxy) before the build.
#
# Cache: $EVERETT_CACHE/etcd/<key>/, <key> hashing the Go toolchain, the
# etcd version, this script, go.mod, go.sum and every Go source the guest
# and the packer are built from. Two builds with the same key are
# byte-identical.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
. "$root/guest-images/linux/lib.sh"
GO=${GO:-go}
pinned=$(sed -n 's/^[[:space:]]*go.etcd.io\/etcd\/server\/v3 \(v[0-9.]*\).*/\1/p' "$here/go.mod")
ETCD_VERSION=${ETCD_VERSION:-$pinned}
case "$ETCD_VERSION" in
v3.[5-9].* | v3.[1-9][0-9].* | v[4-9].*) ;;
*) log "ETCD_VERSION=$ETCD_VERSION: want a release v3.5.0 or later (vMAJOR.MINOR.PATCH)"; exit 2 ;;
esac

disk=$(sh "$root/guest-images/linux/build-disk.sh" 256)
key=$(
	cd "$root"
	{
		"$GO" version
		echo "etcd $ETCD_VERSION"
		for f in guest-images/examples/etcd/build.sh guest-images/examples/etcd/go.mod \
			guest-images/examples/etcd/go.sum guest-images/examples/etcd/etcd/*.go \
			guest-images/examples/etcd/init/*.go guest-images/sdk/go/everett/* guest-images/sdk/go/netconf/*.go \
			guest-images/sdk/go/initramfs/*.go guest-images/sdk/go/mkinitramfs/*.go; do
			case "$f" in *_test.go) continue ;; esac
			printf 'file %s\n' "$f"
			cat "$f"
		done
	} | sha256sum | cut -c1-16
)
out="$cache_root/etcd/$key"
img="$out/etcd-initramfs.cpio"

link() {
	kernel=$(sh "$root/guest-images/linux/build-kernel.sh")
	mkdir -p "$root/build/examples/etcd"
	ln -sf "$kernel" "$root/build/examples/etcd/Image"
	ln -sf "$img" "$root/build/examples/etcd/etcd-initramfs.cpio"
	ln -sf "$disk" "$root/build/examples/etcd/disk.img"
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
mkdir -p "$tmp/src"
trap 'rm -rf "$tmp"' EXIT

src="$here"
if [ "$ETCD_VERSION" != "$pinned" ]; then
	log "moving the module to etcd $ETCD_VERSION"
	cp -r "$here/etcd" "$here/init" "$tmp/src/"
	# A go.mod of the direct requirements only: go.mod's indirect ones are
	# the pinned release's (its api/v3, grpc and the rest), and a module
	# graph keeps the highest version anyone asks for, so an older release
	# would build against newer etcd modules than its own. tidy fills in
	# what the release asks for. The replace must still reach everett.
	porcupine=$(sed -n 's/^[[:space:]]*github.com\/anishathalye\/porcupine \(v[0-9.]*\).*/\1/p' "$here/go.mod")
	cat >"$tmp/src/go.mod" <<EOF
module everett/guest-images/examples/etcd

go $("$GO" env GOVERSION | sed 's/^go//')

require (
	everett v0.0.0
	github.com/anishathalye/porcupine $porcupine
	go.etcd.io/etcd/client/v3 $ETCD_VERSION
	go.etcd.io/etcd/server/v3 $ETCD_VERSION
)

replace everett => $root
EOF
	(cd "$tmp/src" && GOFLAGS=-mod=mod "$GO" mod tidy)
	src="$tmp/src"
fi

# The initial corruption check's flag was renamed by 3.6 (a feature gate).
case "$ETCD_VERSION" in
v3.5.*) flags="--experimental-initial-corrupt-check=true" ;;
*) flags="--feature-gates=InitialCorruptCheck=true" ;;
esac
printf '%s\n' "$flags" >"$tmp/etcd-flags"

# -trimpath, no build id and no VCS stamp: the binaries depend on the
# sources and the toolchain only.
build() {
	(cd "$src" && CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 "$GO" build -trimpath -buildvcs=false \
		-ldflags="-s -w -buildid=" -o "$1" "./$2")
}
build "$tmp/etcd" etcd
build "$tmp/init" init
(cd "$root" && "$GO" build -o "$tmp/mkinitramfs" ./guest-images/sdk/go/mkinitramfs)
cat >"$tmp/list" <<EOF
dir bin 0755
dir etc 0755
dir data 0755
file bin/etcd 0755 $tmp/etcd
file etc/etcd-flags 0644 $tmp/etcd-flags
EOF
"$tmp/mkinitramfs" -z=false -o "$tmp/etcd-initramfs.cpio" -init "$tmp/init" -list "$tmp/list"
echo "$ETCD_VERSION" >"$out/etcd-version"
mv "$tmp/etcd-initramfs.cpio" "$img"
link
echo "$img"
