#!/bin/sh
# A/B of two everett binaries on the 1-hart Linux boot, for a machine too
# noisy for sequential timing: each round runs both boots at the same time
# (one per core), so both see the same load, and takes the ratio of their
# CPU times (perf stat task-clock). Prints the median and quartiles of
# B/A over ROUNDS rounds (default 20) and the mean CPU times.
#   scripts/ab-boot.sh OLD_BINARY NEW_BINARY
# Needs perf and the guest images (make guest-images).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 A B" >&2; exit 2; }
A=$1 B=$2
ROUNDS=${ROUNDS:-20}
cd "$(dirname "$0")/.."
kernel=$(sh guest-images/linux/build-kernel.sh)
initrd=$(sh guest-images/linux/build-initramfs.sh)
disk=$(sh guest-images/linux/build-disk.sh)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

boot() { # binary outfile
	perf stat -x, -e task-clock -o "$2" "$1" run --smp 1 --kernel "$kernel" --initrd "$initrd" \
		--disk "$disk" --append console=ttyS0 >/dev/null 2>&1
}

for _ in $(seq "$ROUNDS"); do
	boot "$A" "$tmp/a" & boot "$B" "$tmp/b" & wait
	a=$(grep task-clock "$tmp/a" | cut -d, -f1)
	b=$(grep task-clock "$tmp/b" | cut -d, -f1)
	echo "$a $b"
done | awk '{ print $2 / $1, $1, $2 }' | sort -n | awk '
	{ r[NR] = $1; sa += $2; sb += $3 }
	END { printf "B/A cpu: median %.3f, quartiles %.3f-%.3f, %d rounds; mean A %.1f ms, B %.1f ms\n",
		r[int((NR + 1) / 2)], r[int((NR + 3) / 4)], r[int((3 * NR + 1) / 4)], NR, sa / NR, sb / NR }'
