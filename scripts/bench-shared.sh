#!/bin/sh
# Shared-search benchmark (README, "Many machines"; issue 28):
#   1. universes/s of the one-node Linux spec (the smoke-test guest of
#      guest-images/linux, 2 harts; preemptions at communication events, as
#      by default), UNIVERSES universes (default 200: fewer measure mostly start-up) from seed 1: one
#      worker process (--workers 1), then two such processes sharing the
#      search through a file:// bucket. Prints both and the ratio, the
#      same after each process's boot (what a long search sees), and the
#      peer: two copies of QEMU (deterministic mode) on the CPU benchmark's
#      guest at once against one, how well this machine runs two
#      single-threaded CPU-bound processes side by side.
#   2. time to the first failure of the ttas and seqlock examples, from
#      each of seeds 1..SEEDS (default 5) with --stop-on-failure: the
#      merged summary's first_failure.seconds (from the search's creation
#      to the first failing universe's end), one process against two.
#      Prints the medians.
#   3. what sharing brings: the Linux spec's distinct edges against time,
#      for the two processes of 1. sharing their corpus and coverage, and
#      for two that share only the claims (--shared-isolated). Prints both
#      curves (seconds:edges, one point per finished claim) and when each
#      reached the edges both reached. (One process's corpus adds no
#      edges on this spec, 2026-12-05, so sharing it cannot either.)
#   4. what sharing brings where the corpus finds bugs: the first failure
#      of go-fieldorder and go-dblclose (guest-images/bugs) from seeds
#      BUG_SEEDS, 2 processes sharing the corpus against 2 sharing only
#      the claims.
#   5. what sharing brings where the corpus guides the search: the stages
#      example (guest-images/examples/stages: a chain of races, each
#      reached only through the one before; forks from one process's
#      corpus reach stages its roots do not), from seeds 1..SEEDS,
#      STAGES_UNIVERSES universes (default 600), 2 processes sharing the
#      corpus against 2 sharing only the claims: when each reached the
#      edges both reached, and the medians.
# Each process runs one explorer worker, so two processes use two cores:
# run it on an otherwise idle machine.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
EVERETT=bin/everett
UNIVERSES=${UNIVERSES:-200}
SEEDS=${SEEDS:-5}
[ -x "$EVERETT" ] || { echo "bench-shared: run 'make bench'" >&2; exit 2; }
make -s -C guest-images/examples/ttas
make -s -C guest-images/bench # the peer's guest (build/bench/bench.elf)
sh guest-images/examples/seqlock/build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

linux_spec "$tmp/linux.yaml"

now() { date +%s.%N; }

# shared NAME PROCS ARGS...: runs PROCS worker processes on a new shared
# search NAME with ARGS and waits for all; their outputs go to $tmp/NAME-*.
shared() {
	name=$1 procs=$2
	shift 2
	pids=
	for p in $(seq "$procs"); do
		"$EVERETT" explore "$@" --workers 1 --claim 4 --lease 1m --shared "file://$tmp/bucket-$name" \
			--out "$tmp/$name-$p" >"$tmp/$name-$p.out" 2>"$tmp/$name-$p.err" &
		pids="$pids $!"
	done
	for pid in $pids; do
		wait "$pid" || { echo "bench-shared: a worker of $name failed:" >&2; cat "$tmp/$name"-*.err >&2; exit 1; }
	done
}

# rate PROCS: universes/s of the Linux spec with PROCS processes.
rate() {
	t0=$(now)
	shared "linux-$1" "$1" "$tmp/linux.yaml" --seed 1 --universes "$UNIVERSES"
	awk -v n="$UNIVERSES" -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", n / (b - a) }'
}

# peer N: seconds for N copies of QEMU (deterministic mode) running the CPU
# benchmark's guest at once: how well this machine runs two single-threaded
# CPU-bound processes side by side, the bound on any 2-process ratio.
peer() {
	t0=$(now)
	pids=
	for p in $(seq "$1"); do
		qemu-system-riscv64 -nographic -M spike -bios none -icount shift=0 -kernel build/bench/bench.elf >/dev/null &
		pids="$pids $!"
	done
	for pid in $pids; do wait "$pid"; done
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}

r1=$(rate 1)
r2=$(rate 2)
t0=$(now)
shared linux-isolated 2 "$tmp/linux.yaml" --seed 1 --universes "$UNIVERSES" --shared-isolated
ri=$(awk -v n="$UNIVERSES" -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", n / (b - a) }')
# Each process boots before its first universe: the rate after the boot
# (universes over the wall time less the longest boot) is what a long
# search sees.
boot_s() { sed -n 's/.*booted once to the setup point.* in \([0-9.]*\)\(m*s\):.*/\1 \2/p' "$tmp/$1"-*.err |
	awk '{ v = ($2 == "ms") ? $1 / 1000 : $1; if (v > m) m = v } END { printf "%.3f", m }'; }
echo "shared search, one-node Linux, $UNIVERSES universes: 1 process $r1 universes/s, 2 processes $r2 universes/s, ratio $(awk -v a="$r1" -v b="$r2" 'BEGIN { printf "%.2f", b / a }') (issue 28 asks >= 1.8)"
echo "shared search, one-node Linux, $UNIVERSES universes, 2 processes sharing only the claims (--shared-isolated: no rebuilding of each other's corpus entries): $ri universes/s, ratio $(awk -v a="$r1" -v b="$ri" 'BEGIN { printf "%.2f", b / a }')"
b1=$(boot_s linux-1) b2=$(boot_s linux-2)
awk -v n="$UNIVERSES" -v r1="$r1" -v r2="$r2" -v b1="$b1" -v b2="$b2" 'BEGIN {
	s1 = n / (n / r1 - b1); s2 = n / (n / r2 - b2)
	printf "shared search, one-node Linux, after the boot (%.1f s, %.1f s): 1 process %.2f universes/s, 2 processes %.2f, ratio %.2f\n", b1, b2, s1, s2, s2 / s1 }'
if [ -f build/bench/bench.elf ] && command -v qemu-system-riscv64 >/dev/null; then
	p1=$(peer 1) p2=$(peer 2)
	echo "peer: QEMU -icount shift=0 on build/bench/bench.elf, 1 copy $p1 s, 2 copies at once $p2 s: this machine runs 2 CPU-bound processes at $(awk -v a="$p1" -v b="$p2" 'BEGIN { printf "%.2f", 2 * a / b }') times the throughput of one"
fi

# first NAME PROCS SPEC-ARGS...: the median over seeds of the seconds to
# the first failure.
# (Its variables are not shared's: sh functions share one namespace.)
first() {
	fname=$1 fprocs=$2
	shift 2
	for s in $(seq "$SEEDS"); do
		shared "$fname-$fprocs-$s" "$fprocs" "$@" --seed "$s" --stop-on-failure --time 30m
		"$EVERETT" report --shared "file://$tmp/bucket-$fname-$fprocs-$s" --out "$tmp/$fname-$fprocs-$s-report" >/dev/null || true
		sed -n 's/.*"seconds": \([0-9.e+-]*\).*/\1/p' "$tmp/$fname-$fprocs-$s-report/summary.json" | tail -n 1
	done | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else printf "%.2f", v[int((NR + 1) / 2)] }'
}

for ex in ttas seqlock; do
	case $ex in
	ttas) args="--elf build/examples/ttas.elf --smp 3 --universes 400" ;;
	seqlock) args="guest-images/examples/seqlock/spec.yaml --universes 400" ;;
	esac
	# shellcheck disable=SC2086 # args are words
	f1=$(first "$ex" 1 $args)
	# shellcheck disable=SC2086
	f2=$(first "$ex" 2 $args)
	echo "shared search, $ex: median seconds to the first failure over seeds 1-$SEEDS: 1 process $f1, 2 processes $f2"
done

# curve NAME: the search's coverage curve as seconds:edges words.
curve() {
	"$EVERETT" report --shared "file://$tmp/bucket-$1" --out "$tmp/$1-report" >/dev/null || true
	tr -d ' \n' <"$tmp/$1-report/coverage-curve.json" | sed 's/},{/}\n{/g' |
		sed -n 's/.*"seconds":\([0-9.e+-]*\),"universes":[0-9]*,"edges":\([0-9]*\).*/\1:\2/p' | tr '\n' ' '
}
shared_curve=$(curve linux-2)
isolated_curve=$(curve linux-isolated)
echo "shared search, one-node Linux, 2 processes sharing corpus and coverage, seconds:edges: $shared_curve"
echo "shared search, one-node Linux, 2 processes sharing only the claims, seconds:edges: $isolated_curve"
# when NAME-CURVE EDGES: the first seconds at which the curve has EDGES.
when() { echo "$1" | tr ' ' '\n' | awk -F: -v e="$2" '$2 >= e { print $1; exit }'; }
both=$(printf '%s\n%s\n' "${shared_curve##*:}" "${isolated_curve##*:}" | sort -n | head -n 1)
echo "shared search, one-node Linux: $both edges after $(when "$shared_curve" "$both") s sharing, $(when "$isolated_curve" "$both") s not sharing"

# What sharing brings where the corpus finds bugs: two Go bug kernels that
# one process finds several times sooner with forks from its corpus than
# from roots alone (docs/rationale/explorer.md, "What does the corpus
# do?"), from seeds BUG_SEEDS (default "3 4": where roots alone find
# nothing in 600 universes), 2 processes sharing the corpus against 2
# sharing only the claims: the universe and seconds of the first failure
# ("none": not within 600 universes).
make -s -C guest-images/bugs >/dev/null
for prog in go-fieldorder go-dblclose; do
	for s in ${BUG_SEEDS:-3 4}; do
		line="shared search, $prog seed $s, 2 processes, first failure (universe, seconds):"
		for mode in sharing isolated; do
			iso=
			[ "$mode" = isolated ] && iso=--shared-isolated
			# Not shared(): its flags would follow PROGRAM and become the
			# program's arguments.
			pids=
			for p in 1 2; do
				# shellcheck disable=SC2086 # iso is one word or none
				"$EVERETT" explore --workers 1 --claim 4 --lease 1m --shared "file://$tmp/bucket-$prog-$s-$mode" $iso \
					--seed "$s" --stop-on-failure --universes 600 --out "$tmp/$prog-$s-$mode-$p" \
					--linux --smp 2 "build/bugs/$prog" >"$tmp/$prog-$s-$mode-$p.out" 2>"$tmp/$prog-$s-$mode-$p.err" &
				pids="$pids $!"
			done
			for pid in $pids; do
				wait "$pid" || { echo "bench-shared: a worker of $prog seed $s failed:" >&2; cat "$tmp/$prog-$s-$mode"-*.err >&2; exit 1; }
			done
			"$EVERETT" report --shared "file://$tmp/bucket-$prog-$s-$mode" --out "$tmp/$prog-$s-$mode-report" >/dev/null || true
			ff=$(tr -d ' \n' <"$tmp/$prog-$s-$mode-report/summary.json" |
				sed -n 's/.*"first_failure":{[^}]*"universe":\([0-9]*\)[^}]*"seconds":\([0-9.e+-]*\).*/\1 \2 s/p')
			line="$line $mode ${ff:-none}"
		done
		echo "$line"
	done
done

make -s -C guest-images/examples/stages
cat >"$tmp/stages.yaml" <<EOF
name: stages
nodes:
  - name: stages
    elf: $PWD/build/examples/stages.elf
    harts: 2
EOF
: >"$tmp/stages-times"
for s in $(seq "$SEEDS"); do
	shared "stages-sharing-$s" 2 "$tmp/stages.yaml" --seed "$s" --universes "${STAGES_UNIVERSES:-600}"
	shared "stages-isolated-$s" 2 "$tmp/stages.yaml" --seed "$s" --universes "${STAGES_UNIVERSES:-600}" --shared-isolated
	sc=$(curve "stages-sharing-$s") ic=$(curve "stages-isolated-$s")
	e=$(printf '%s\n%s\n' "${sc##*:}" "${ic##*:}" | sort -n | head -n 1)
	ts=$(when "$sc" "$e") ti=$(when "$ic" "$e")
	echo "shared search, stages seed $s: $e edges (both reached) after $ts s sharing, $ti s not sharing; at the end ${sc##*:} and ${ic##*:} edges"
	echo "$ts $ti" >>"$tmp/stages-times"
done
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
echo "shared search, stages, seeds 1-$SEEDS: median seconds to the edges both reached: $(cut -d' ' -f1 "$tmp/stages-times" | med) sharing, $(cut -d' ' -f2 "$tmp/stages-times" | med) not sharing"
