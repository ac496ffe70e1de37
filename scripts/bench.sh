#!/bin/sh
# CPU benchmark: the same guest program on everett (under each engine,
# --engine interp and --engine jit), on QEMU in its deterministic mode
# (-icount shift=0) and on plain QEMU TCG, in one invocation. Prints guest
# MIPS for each and everett's ratios. The machines are shared and noisy, so
# only ratios measured in the same run mean anything.
set -eu
cd "$(dirname "$0")/.."
ELF=build/bench/bench.elf
EVERETT=bin/everett
[ -x "$EVERETT" ] && [ -f "$ELF" ] || { echo "bench: run 'make bench'" >&2; exit 2; }

now() { date +%s.%N; }
out=$(mktemp); trap 'rm -f "$out" "$out".*' EXIT

# everett ENGINE: runs the program, prints "instructions seconds"; the
# checksum it printed goes to $out.ENGINE.
everett() {
	t0=$(now)
	"$EVERETT" run --stats --engine "$1" "$ELF" >"$out.$1" 2>"$out.stats" ||
		{ echo "bench: everett --engine $1 failed:" >&2; cat "$out.stats" >&2; exit 1; }
	t1=$(now)
	n=$(sed -n 's/^everett: \([0-9]*\) instructions retired.*/\1/p' "$out.stats")
	awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { print n, b - a }'
}

set -- $(everett interp); insns=$1; tint=$2
set -- $(everett jit); tjit=$2
[ "$1" = "$insns" ] || { echo "bench: the jit retired $1 instructions, the interpreter $insns" >&2; exit 1; }
sum_e=$(cat "$out.interp")
[ "$(cat "$out.jit")" = "$sum_e" ] || { echo "bench: the jit computed '$(cat "$out.jit")', the interpreter '$sum_e'" >&2; exit 1; }

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

ti=$(qemu -icount shift=0)
tt=$(qemu -accel tcg)

awk -v n="$insns" -v tn="$tint" -v tj="$tjit" -v ti="$ti" -v tt="$tt" 'BEGIN {
	mn = n / tn / 1e6; mj = n / tj / 1e6; mi = n / ti / 1e6; mt = n / tt / 1e6
	printf "cpu bench: %.0f guest instructions (%s)\n", n, "build/bench/bench.elf"
	printf "  %-34s %8.2f s %8.1f MIPS\n", "everett --engine jit", tj, mj
	printf "  %-34s %8.2f s %8.1f MIPS\n", "everett --engine interp", tn, mn
	printf "  %-34s %8.2f s %8.1f MIPS\n", "qemu -M spike -icount shift=0", ti, mi
	printf "  %-34s %8.2f s %8.1f MIPS\n", "qemu -M spike (TCG)", tt, mt
	printf "  jit / qemu-icount    = %.3f   (target >= 1.5)\n", mj / mi
	printf "  jit / qemu-tcg       = %.3f   (stretch >= 1)\n", mj / mt
	printf "  jit / interp         = %.3f\n", mj / mn
	printf "  interp / qemu-icount = %.3f   (target >= 0.25)\n", mn / mi
	printf "  interp / qemu-tcg    = %.3f\n", mn / mt
}'
