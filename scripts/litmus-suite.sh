#!/bin/sh
# Runs the public RISC-V litmus suite (litmus-tests-riscv: 7,925 files)
# through `everett litmus` and says how many files ran, how many were
# skipped and why (grouped, numbers folded to N), and how the runs came
# out (Never / Sometimes / Always).
#
#   scripts/litmus-suite.sh [SUITE_DIR] [MODEL] [RUNS]
#
# SUITE_DIR defaults to $EVERETT_LITMUS_SUITE or
# /work/shared/litmus-riscv/tests, MODEL to sc, RUNS to 100. One worker
# (--jobs 1): the host is shared. Measured 2026-12-04 with 100 runs: about
# a minute for either model on a shared 2-core host; 7921 of 7925 ran.
set -eu
cd "$(dirname "$0")/.."
suite=${1:-${EVERETT_LITMUS_SUITE:-/work/shared/litmus-riscv/tests}}
model=${2:-sc}
runs=${3:-100}
[ -d "$suite" ] || { echo "litmus-suite: no suite at $suite" >&2; exit 2; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
go build -o "$out/everett" ./cmd/everett
find "$suite" -name '*.litmus' | LC_ALL=C sort >"$out/files"
total=$(wc -l <"$out/files")
rc=0
# One invocation for all files (about 0.6 MB of arguments).
"$out/everett" litmus --model "$model" --runs "$runs" --jobs 1 $(cat "$out/files") \
	>"$out/stdout" 2>"$out/stderr" || rc=$?
ran=$(grep -c '^Observation ' "$out/stdout" || true)
skipped=$(grep -c ' (skipped)$' "$out/stderr" || true)
echo "model $model, $runs runs per test: $ran of $total files ran, $skipped skipped (exit $rc)"
if [ "$skipped" -gt 0 ]; then
	echo "skipped, by reason:"
	grep ' (skipped)$' "$out/stderr" |
		sed -e 's/ (skipped)$//' -e 's/^[^:]*\.litmus\(:[0-9]*\)\{0,1\}: //' -e 's/[0-9][0-9]*/N/g' |
		LC_ALL=C sort | uniq -c | LC_ALL=C sort -rn
fi
echo "observations:"
awk '/^Observation /{print $3}' "$out/stdout" | LC_ALL=C sort | uniq -c
