#!/bin/sh
# Kernel-heavy guests against the binary of the day issue 27 was taken up
# (issue 27: etcd universes 5x faster, the one-node Linux spec 2x, peak RSS
# of an etcd search within 2 GB). In one invocation, with --seed 1 and one
# explorer worker:
#   1. the etcd example (guest-images/examples/etcd/spec.yaml: three Linux
#      nodes running etcd's own server, faults by the swarm), ETCD_UNIVERSES
#      universes (default 6);
#   2. one Linux node with 2 harts (the smoke-test guest of
#      guest-images/linux), LINUX_UNIVERSES universes (default 40);
# each run by this everett and by the base, alternating, ROUNDS rounds
# (default 2). Prints, per spec and binary, universes per wall second and
# per CPU second (user+sys: the machine is shared, and CPU time is what a
# neighbour's load disturbs least), the median of the rounds, the ratios
# new/base, and each binary's peak RSS on etcd.
# The base is everett at ad344b6^ (before ASIDs, the first change for issue
# 27), built once into the cache outside the clone; BASE=path/to/an/everett
# uses that binary instead. Its runs differ from this everett's (ASIDs
# change what Linux does), so the universes compare, not their results.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
EVERETT=bin/everett
ETCD_UNIVERSES=${ETCD_UNIVERSES:-6}
LINUX_UNIVERSES=${LINUX_UNIVERSES:-40}
ROUNDS=${ROUNDS:-2}
[ -x "$EVERETT" ] || { echo "bench-kernel: run 'make bench'" >&2; exit 2; }
if [ -z "${BASE:-}" ]; then
	BASE=$(base_everett ad344b6^) || { echo "bench-kernel: no git history with ad344b6: set BASE" >&2; exit 2; }
fi
sh guest-images/examples/etcd/build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

linux_spec "$tmp/linux.yaml"

# run BIN NAME SPEC UNIVERSES ROUND: one search; appends "wall cpu rssKiB"
# to $tmp/NAME-BIN.
run() {
	d="$tmp/$2-$1-$5"
	bin=$EVERETT
	[ "$1" = base ] && bin=$BASE
	rc=0
	/usr/bin/time -f '%e %U %S %M' -o "$d.time" "$bin" explore "$3" --seed 1 --universes "$4" --workers 1 \
		--out "$d" >"$d.out" 2>"$d.err" || rc=$?
	[ "$rc" -le 1 ] || { echo "bench-kernel: $1 explore $3 exited $rc:" >&2; tail -5 "$d.err" >&2; exit 1; }
	n=$(sed -n 's/^explored \([0-9]*\) universes.*/\1/p' "$d.out")
	awk -v n="$n" '{ printf "%.4f %.4f %d\n", n / $1, n / ($2 + $3), $4 }' "$d.time" >>"$tmp/$2-$1"
}

# median FILE COLUMN
median() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "kernel bench: --seed 1, one worker, median of $ROUNDS rounds; base $BASE"
for spec in "etcd guest-images/examples/etcd/spec.yaml $ETCD_UNIVERSES" "linux $tmp/linux.yaml $LINUX_UNIVERSES"; do
	# shellcheck disable=SC2086
	set -- $spec
	for r in $(seq "$ROUNDS"); do
		run base "$1" "$2" "$3" "$r"
		run new "$1" "$2" "$3" "$r"
	done
	awk -v name="$1" -v n="$3" -v bw="$(median "$tmp/$1-base" 1)" -v nw="$(median "$tmp/$1-new" 1)" \
		-v bc="$(median "$tmp/$1-base" 2)" -v nc="$(median "$tmp/$1-new" 2)" \
		-v bm="$(median "$tmp/$1-base" 3)" -v nm="$(median "$tmp/$1-new" 3)" 'BEGIN {
		printf "  %s, %d universes: base %.3f universes/s (%.3f per CPU s), new %.3f (%.3f per CPU s)\n", name, n, bw, bc, nw, nc
		printf "    new / base = %.2f wall, %.2f CPU; peak RSS base %d MiB, new %d MiB\n", nw / bw, nc / bc, bm / 1024, nm / 1024 }'
done
