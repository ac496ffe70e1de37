#!/bin/sh
# Boot benchmark: the same kernel, initramfs and disk booted to power-off on
# everett (under each engine: --engine jit and --engine interp) and on QEMU,
# in one invocation. 1 hart against QEMU's deterministic mode (-icount
# shift=0); 2 and 4 harts against QEMU's single-threaded TCG (its icount
# mode is impractical with several harts). Each configuration runs RUNS
# times (default 3); the median wall time counts. Prints the ratios
# everett/QEMU of wall times, one line per engine (targets: the jit at most
# 0.5 on 1 hart; the interpreter at most 2).
set -eu
cd "$(dirname "$0")/.."
EVERETT=bin/everett
RUNS=${RUNS:-3}
BIOS=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
kernel=$(sh guest-images/linux/build-kernel.sh)
initrd=$(sh guest-images/linux/build-initramfs.sh)
disk=$(sh guest-images/linux/build-disk.sh)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

# median SECONDS... : the median of the arguments.
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# timed OUTFILE CMD... : runs CMD, checks the smoke marker, prints seconds.
timed() {
	out=$1; shift
	t0=$(now)
	"$@" >"$out" 2>&1 || true
	t1=$(now)
	grep -q EVERETT-SMOKE-OK "$out" || { echo "bench-boot: no smoke marker from: $*" >&2; tail -5 "$out" >&2; exit 1; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

everett() { # harts engine
	"$EVERETT" run --smp "$1" --engine "$2" --kernel "$kernel" --initrd "$initrd" --disk "$disk" --append console=ttyS0
}

qemu() { # harts accel-args...
	n=$1; shift
	cp "$disk" "$tmp/disk.img"
	timeout 300 qemu-system-riscv64 -M virt -smp "$n" -m 256M -nographic "$@" -bios "$BIOS" \
		-kernel "$kernel" -initrd "$initrd" -append console=ttyS0 \
		-drive file="$tmp/disk.img",format=raw,if=none,id=d0 -device virtio-blk-device,drive=d0 \
		-device virtio-rng-device -netdev user,id=n0 -device virtio-net-device,netdev=n0
}

echo "boot bench: Linux to power-off, median of $RUNS runs"
for harts in 1 2 4; do
	if [ "$harts" = 1 ]; then
		peer="-icount shift=0"; label="qemu -icount shift=0"; short=qemu-icount; jtarget=0.5
	else
		peer="-accel tcg,thread=single"; label="qemu tcg,thread=single"; short=qemu-tcg; jtarget=2
	fi
	tj="" tn="" tq=""
	for _ in $(seq "$RUNS"); do
		tj="$tj $(timed "$tmp/j.out" everett "$harts" jit)"
		tn="$tn $(timed "$tmp/n.out" everett "$harts" interp)"
		# shellcheck disable=SC2086
		tq="$tq $(timed "$tmp/q.out" qemu "$harts" $peer)"
	done
	# shellcheck disable=SC2086
	mj=$(median $tj); mn=$(median $tn); mq=$(median $tq)
	awk -v h="$harts" -v j="$mj" -v n="$mn" -v q="$mq" -v l="$label" -v s="$short" -v jt="$jtarget" 'BEGIN {
		printf "  %d hart(s): everett jit %6.2f s   everett interp %6.2f s   %-24s %6.2f s\n", h, j, n, l, q
		printf "    jit / %-11s    = %.2f (target <= %s)\n", s, j / q, jt
		printf "    interp / %-11s = %.2f (target <= 2)\n", s, n / q }'
done
