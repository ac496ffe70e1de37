#!/bin/sh
# Builds the everett guest kernel: Linux 6.1 from Debian's linux-source-6.1,
# configured as tinyconfig + kernel.config, for ARCH=riscv. Prints the path of
# arch/riscv/boot/Image, copied into the cache as <dir>/Image beside vmlinux,
# System.map and the final .config (as config).
#
# Cache: $EVERETT_CACHE/linux/<key>/ (EVERETT_CACHE defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/everett). <key> hashes the linux-source
# package version, kernel.config and this script. When <dir>/Image exists,
# nothing is built. EVERETT_KEEP_SRC=1 keeps the source and object tree.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_debs linux-source-6.1 gcc-riscv64-linux-gnu gcc make flex bison bc \
	libssl-dev libelf-dev xz-utils perl

srcpkg=linux-source-6.1
version=$(dpkg-query -W -f='${Version}' "$srcpkg")
key=$(key_of "str:$srcpkg $version" "$here/kernel.config" "$here/build-kernel.sh")
out="$cache_root/linux/$key"

if [ -f "$out/Image" ]; then
	echo "$out/Image"
	exit 0
fi

mkdir -p "$out"
# One build per key at a time; a second caller waits, then finds the Image.
exec 9>"$out/.lock"
flock 9
if [ -f "$out/Image" ]; then
	echo "$out/Image"
	exit 0
fi

tree="$out/src"
log "building Linux $version in $tree (about 20 min on 2 cores; log: $out/build.log)"
rm -rf "$tree"
mkdir -p "$tree"
tar -xJf "/usr/src/$srcpkg.tar.xz" -C "$tree" --strip-components=1

export ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-
# A fixed build identity, so that two machines produce the same Image and the
# same "Linux version" banner: the banner reaches the console, and a console
# log must be a pure function of everett's inputs.
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 1970"
export KBUILD_BUILD_USER=everett KBUILD_BUILD_HOST=everett KBUILD_BUILD_VERSION=1
start=$(date +%s)
(
	cd "$tree"
	make tinyconfig
	scripts/kconfig/merge_config.sh -m .config "$here/kernel.config"
	make olddefconfig
) >"$out/build.log" 2>&1 || { log "configure failed, see $out/build.log"; exit 1; }

# Every option the fragment names must have survived olddefconfig as written:
# a silently dropped option is a kernel that boots differently.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$tree/.config" || { log "config: wanted $line, got: $(grep "^${line%%=*}[= ]\|^# ${line%%=*} is" "$tree/.config" || echo absent)"; bad=1; }
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		! grep -q "^$sym=" "$tree/.config" || { log "config: wanted $sym off, got: $(grep "^$sym=" "$tree/.config")"; bad=1; }
		;;
	esac
done <"$here/kernel.config"
[ "$bad" -eq 0 ] || exit 1

(cd "$tree" && make -j"$(nproc)" LOCALVERSION= Image) >>"$out/build.log" 2>&1 ||
	{ log "build failed, see $out/build.log"; tail -20 "$out/build.log" >&2; exit 1; }

cp "$tree/.config" "$out/config"
cp "$tree/vmlinux" "$out/vmlinux"
cp "$tree/System.map" "$out/System.map"
cp "$tree/arch/riscv/boot/Image" "$out/Image.tmp"
mv "$out/Image.tmp" "$out/Image"
[ "${EVERETT_KEEP_SRC:-0}" = 1 ] || rm -rf "$tree"
log "built in $(($(date +%s) - start)) s"
echo "$out/Image"
