#!/bin/sh
# Explorer benchmark: universes per second of `everett explore`, under each
# engine (--engine jit and --engine interp), in one invocation, with a fixed
# universe budget from seed 1 on WORKERS workers (default 2):
#   1. the kv example (guest-images/examples/kv: three Linux nodes and the
#      switch), KV_UNIVERSES universes (default 8, the demo's budget);
#   2. one Linux node with 2 harts (the smoke-test guest of
#      guest-images/linux), LINUX_UNIVERSES universes (default 24).
# Both engines must find the same failures (results never depend on the
# engine). Prints universes/s for each and the ratio jit/interp.
# It also runs a baseline, everett as it was before the JIT (commit
# 18390b7^, built once into the cache outside the clone; engine flag
# omitted), on both specs in the same invocation and prints jit/base: how
# much faster universes run than before (issue 10 asks 2x on kv).
# BASE=path/to/an/everett uses that binary instead; BASE=none skips it.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
EVERETT=bin/everett
WORKERS=${WORKERS:-2}
KV_UNIVERSES=${KV_UNIVERSES:-8}
LINUX_UNIVERSES=${LINUX_UNIVERSES:-24}
[ -x "$EVERETT" ] || { echo "bench-explore: run 'make bench'" >&2; exit 2; }
if [ -z "${BASE:-}" ]; then
	BASE=$(base_everett 18390b7^) || { echo "bench-explore: no git history with 18390b7: no baseline" >&2; BASE=none; }
fi
[ "$BASE" = none ] && BASE=
sh guest-images/examples/kv/build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

linux_spec "$tmp/linux.yaml"

# best NAME SPEC UNIVERSES ENGINE: the best universes/s of RUNS runs
# (default 3: the machine is shared, and load only ever slows a run).
best() {
	b=0
	for _ in $(seq "${RUNS:-3}"); do
		b=$(awk -v a="$b" -v r="$(explore "$@")" 'BEGIN { print (r > a) ? r : a }')
	done
	echo "$b"
}

# explore NAME SPEC UNIVERSES ENGINE: prints the universes/s of the run;
# its summary goes to $tmp/NAME-ENGINE/.
explore() {
	d="$tmp/$1-$4"
	rc=0
	if [ "$4" = base ]; then
		"$BASE" explore "$2" --seed 1 --universes "$3" --workers "$WORKERS" --out "$d" \
			>"$d.out" 2>"$d.err" || rc=$?
	else
		"$EVERETT" explore "$2" --seed 1 --universes "$3" --workers "$WORKERS" --engine "$4" --out "$d" \
			>"$d.out" 2>"$d.err" || rc=$?
	fi
	[ "$rc" -le 1 ] || { echo "bench-explore: explore $2 ($4) exited $rc:" >&2; tail -5 "$d.err" >&2; exit 1; }
	sed -n 's/^explored .* (\([0-9.]*\) universes\/s.*/\1/p' "$d.out"
}

# failures NAME ENGINE: the failure signatures of a run, sorted.
failures() { sed -n 's/^ *"signature": "\(.*\)",$/\1/p' "$tmp/$1-$2/summary.json" | sort; }

echo "explore bench: universes/s with --seed 1 on $WORKERS workers, best of ${RUNS:-3} runs"
for run in "kv guest-images/examples/kv/spec.yaml $KV_UNIVERSES kv-example-(3-nodes)" \
	"linux $tmp/linux.yaml $LINUX_UNIVERSES one-Linux-node-(2-harts)"; do
	# shellcheck disable=SC2086
	set -- $run
	uj=$(best "$1" "$2" "$3" jit)
	un=$(best "$1" "$2" "$3" interp)
	if [ "$(failures "$1" jit)" != "$(failures "$1" interp)" ]; then
		echo "bench-explore: $1: the engines found different failures:" >&2
		failures "$1" jit >&2; echo "--" >&2; failures "$1" interp >&2
		exit 1
	fi
	awk -v name="$4" -v n="$3" -v j="$uj" -v i="$un" 'BEGIN {
		gsub("-", " ", name)
		printf "  %s, %d universes: jit %.2f universes/s, interp %.2f universes/s\n", name, n, j, i
		printf "    jit / interp = %.2f\n", j / i }'
	if [ -n "${BASE:-}" ]; then
		ub=$(best "$1" "$2" "$3" base)
		awk -v j="$uj" -v b="$ub" 'BEGIN { printf "    base %.2f universes/s; jit / base = %.2f\n", b, j / b }'
	fi
done
