#!/bin/sh
# Builds the smoke-test disk: a raw image holding an ext4 file system with
# /hello.txt, which init/init.c checks. Usage: build-disk.sh [SIZE_MIB]
# (default 16). Prints the path of disk.img.
#
# Cache: $EVERETT_CACHE/disk/<key>/ (EVERETT_CACHE defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/everett). <key> hashes the size, this
# script and the e2fsprogs version. Two builds are byte-identical: fixed UUID
# and directory hash seed, and every timestamp 0. mke2fs 1.47.0 reads neither
# SOURCE_DATE_EPOCH nor E2FSPROGS_FAKE_TIME, so it runs under faketime with a
# frozen clock, and debugfs then zeroes the times copied from the staging
# files. Treat the image as read-only: boot it with snapshot=on or a copy.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

size_mib=${1:-16}
case "$size_mib" in
'' | *[!0-9]*) log "size must be a number of MiB, got '$size_mib'"; exit 2 ;;
esac
if [ "$size_mib" -lt 8 ] || [ "$size_mib" -gt 65536 ]; then
	log "size must be 8..65536 MiB"
	exit 2
fi

need_debs e2fsprogs faketime

tools=$(dpkg-query -W -f='${Package} ${Version}\n' e2fsprogs)
key=$(key_of "str:$tools" "str:size $size_mib MiB" "$here/build-disk.sh")
out="$cache_root/disk/$key"
img="$out/disk.img"

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
mkdir -p "$tmp/root"
trap 'rm -rf "$tmp"' EXIT
printf 'hello from the everett disk image\n' >"$tmp/root/hello.txt"

frozen() { TZ=UTC faketime "1970-01-01 00:00:00" "$@"; }
truncate -s "${size_mib}M" "$tmp/disk.img"
# lazy_*_init=0: initialise inode tables and journal now, so the guest's
# first mount starts no background zeroing thread.
frozen mkfs.ext4 -q -F -t ext4 -T default -b 4096 -L everett \
	-U 5eed0000-e7e7-4000-8000-000000000001 \
	-E hash_seed=5eed0000-e7e7-4000-8000-000000000002,root_owner=0:0,lazy_itable_init=0,lazy_journal_init=0,nodiscard \
	-d "$tmp/root" "$tmp/disk.img"

# Zero the inode times that mke2fs took from the staging files and the host.
{
	for ino in '<2>' '<11>'; do
		for f in atime ctime mtime crtime; do echo "sif $ino $f 0"; done
	done
	(cd "$tmp/root" && find . -mindepth 1) | sed 's|^\.||' | while IFS= read -r p; do
		for f in atime ctime mtime crtime; do echo "sif $p $f 0"; done
	done
} >"$tmp/debugfs.cmds"
frozen debugfs -w -f "$tmp/debugfs.cmds" "$tmp/disk.img" >/dev/null 2>"$tmp/debugfs.err" ||
	{ cat "$tmp/debugfs.err" >&2; exit 1; }
e2fsck -fn "$tmp/disk.img" >/dev/null 2>&1 || { log "e2fsck found errors in the new image"; exit 1; }

mv "$tmp/disk.img" "$img"
echo "$img"
