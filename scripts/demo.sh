#!/bin/sh
# make demo: explore the replicated key-value example (three Linux nodes
# under OpenSBI, a client workload, partitions, crashes, packet faults) until
# the explorer finds its bug, then replay the report exactly.
set -eu
cd "$(dirname "$0")/.."
out=${EVERETT_DEMO_OUT:-everett-out/kv}
echo "== building the guest (Linux 6.1 and the kv initramfs; cached after the first time)"
sh guest-images/examples/kv/build.sh >/dev/null
echo "== everett explore guest-images/examples/kv/spec.yaml --seed 1 --universes 8"
rc=0
bin/everett explore guest-images/examples/kv/spec.yaml --seed 1 --universes 8 --out "$out" || rc=$?
if [ "$rc" -ne 1 ]; then
	echo "demo: the explorer found no failure (exit $rc)" >&2
	exit 1
fi
report=$(ls "$out"/failure-assertion-*acknowledged*.json 2>/dev/null | head -1)
[ -n "$report" ] || report=$(ls "$out"/failure-*.json | head -1)
echo "== everett replay $report"
rc=0
bin/everett replay "$report" || rc=$?
[ "$rc" -eq 1 ] || { echo "demo: the report did not reproduce" >&2; exit 1; }
echo "== the last lines the client printed before the assertion failed:"
python3 - "$report" <<'PY' 2>/dev/null || true
import json, sys
r = json.load(open(sys.argv[1]))
tail = r["console_tails"][r["failure"]["node"]].splitlines()
print("\n".join(l for l in tail if l.startswith("kv:"))[-1500:])
PY
echo "Reports and summary: $out/ (bisect, shrink and replay them with everett bisect|shrink|replay)."

# Your own program: an ordinary static riscv64 Linux binary, explored as it
# is (README.md, "Your program under everett"). Build the C example so that
# the command below works as printed.
make -s -C guest-images/examples/tickets >/dev/null
echo
echo "Next, your own program (a static riscv64 Linux binary), e.g. the tickets example just built:"
echo "  bin/everett explore --linux --smp 2 build/examples/tickets/tickets"
