#!/bin/sh
# Builds the smoke-test initramfs: init/init.c as a static riscv64 binary at
# /init, plus /dev/console and the mount points it uses, packed as a gzip'd
# newc cpio by init/mkcpio.c. Prints the path of initramfs.cpio.gz.
#
# Cache: $EVERETT_CACHE/initramfs/<key>/ (EVERETT_CACHE defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/everett). <key> hashes the init sources,
# this script and the cross compiler and C library versions. The archive is
# byte-identical across builds with the same key.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_debs gcc-riscv64-linux-gnu libc6-dev-riscv64-cross gcc libc6-dev gzip

tools=$(dpkg-query -W -f='${Package} ${Version}\n' gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)
key=$(key_of "str:$tools" "$here/init/init.c" "$here/init/mkcpio.c" \
	"$here/build-initramfs.sh")
out="$cache_root/initramfs/$key"
img="$out/initramfs.cpio.gz"

if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

tmp="$out/tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cd "$here/init"
riscv64-linux-gnu-gcc -static -O2 -pthread -Wall -Wextra -Werror \
	-fno-math-errno -ffile-prefix-map="$here"=. -s -o "$tmp/init" init.c -lm
gcc -O2 -Wall -Wextra -Werror -o "$tmp/mkcpio" mkcpio.c

"$tmp/mkcpio" >"$tmp/initramfs.cpio" <<LIST
dir  /dev     0755
nod  /dev/console 0600 c 5 1
dir  /proc    0555
dir  /sys     0555
dir  /mnt     0755
dir  /tmp     1777
file /init    0755 $tmp/init
LIST
# -n: no name or timestamp in the gzip header, so the bytes are reproducible.
gzip -n -9 <"$tmp/initramfs.cpio" >"$tmp/initramfs.cpio.gz"
cp "$tmp/init" "$out/init"
mv "$tmp/initramfs.cpio.gz" "$img"
rm -rf "$tmp"
echo "$img"
