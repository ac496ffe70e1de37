#!/bin/sh
# CPU benchmark: the same guest program on everett, on QEMU in its
# deterministic mode (-icount shift=0) and on plain QEMU TCG, in one
# invocation. Prints guest MIPS for each and everett's ratios. The machines
# are shared and noisy, so only ratios measured in the same run mean anything.
set -eu
cd "$(dirname "$0")/.."
ELF=build/bench/bench.elf
EVERETT=bin/everett
[ -x "$EVERETT" ] && [ -f "$ELF" ] || { echo "bench: run 'make bench'" >&2; exit 2; }

now() { date +%s.%N; }

# everett: instructions retired and wall time from --stats.
out=$(mktemp); trap 'rm -f "$out" "$out.q"' EXIT
t0=$(now)
"$EVERETT" run --stats "$ELF" >"$out" 2>"$out.stats"
t1=$(now)
insns=$(sed -n 's/^everett: \([0-9]*\) instructions retired.*/\1/p' "$out.stats")
sum_e=$(cat "$out")
rm -f "$out.stats"

qemu() { # qemu EXTRA-ARGS... : prints wall seconds, checks the checksum
	t0=$(now)
	qemu-system-riscv64 -nographic -M spike -bios none "$@" -kernel "$ELF" >"$out.q"
	t1=$(now)
	if [ "$(cat "$out.q")" != "$sum_e" ]; then
		echo "bench: QEMU ($*) computed '$(cat "$out.q")', everett '$sum_e'" >&2
		exit 1
	fi
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}

te=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
ti=$(qemu -icount shift=0)
tt=$(qemu -accel tcg)

awk -v n="$insns" -v te="$te" -v ti="$ti" -v tt="$tt" 'BEGIN {
	me = n / te / 1e6; mi = n / ti / 1e6; mt = n / tt / 1e6
	printf "cpu bench: %.0f guest instructions (%s)\n", n, "build/bench/bench.elf"
	printf "  %-34s %8.2f s %8.1f MIPS\n", "everett", te, me
	printf "  %-34s %8.2f s %8.1f MIPS\n", "qemu -M spike -icount shift=0", ti, mi
	printf "  %-34s %8.2f s %8.1f MIPS\n", "qemu -M spike (TCG)", tt, mt
	printf "  everett / qemu-icount = %.3f   (target >= 0.25)\n", me / mi
	printf "  everett / qemu-tcg    = %.3f\n", me / mt
}'
