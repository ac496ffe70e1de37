#!/bin/sh
# Measures `everett litmus` against the public RISC-V litmus suite
# (litmus-tests-riscv, 7,925 files) and the oracle of litmus/oracle.go:
# for each model, per family (folder of the suite), how many files ran or
# were refused (with the reason), how many of the outcomes the model
# allows were shown, how many it forbids were shown (must be 0), states
# shown that the model forbids (must be 0), and runs per second.
#
#   scripts/bench-litmus.sh [RUNS] [K] [MODELS]
#
# RUNS per test (default 1000), every K-th file of the sorted suite
# (default 1: all of it), MODELS (default "rvwmo sc"). The suite is
# $EVERETT_LITMUS_SUITE or /work/shared/litmus-riscv/tests. One worker:
# the host is shared. Exit 1 if a forbidden outcome or state was shown.
# Set EVERETT_LITMUS_MISSED=1 to list the allowed outcomes not shown.
# Point EVERETT_LITMUS_SUITE at one folder of the suite (say
# .../tests/non-mixed-size/SF_THESIS/BASIC, 483 files, about 30 s) to
# measure it alone; its family is then named ".".
# Measured 2026-12-04 on a shared 2-core host: K=8 takes about 70 s a
# model; the whole suite about nine minutes a model.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-1000}
k=${2:-1}
models=${3:-rvwmo sc}
out=$(mktemp); trap 'rm -f "$out"' EXIT
rc=0
for model in $models; do
	EVERETT_LITMUS_BENCH="$model $runs $k" go test ./litmus -run '^TestLitmusMeasureSuite$' \
		-count=1 -v -timeout 120m >"$out" 2>&1 || { cat "$out"; exit 1; }
	sed -n '/^model /,/^--- /p' "$out" | grep -v '^--- '
	if grep -q '^FORBIDDEN SHOWN' "$out"; then rc=1; fi
	echo
done
exit $rc
