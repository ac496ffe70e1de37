#!/bin/sh
# make demo-etcd: build the etcd example (etcd's server from its release,
# three Linux nodes with a data disk each), explore it for a few minutes
# (ETCD_UNIVERSES universes from seed 1, default 12), and print what it
# found or that the history stayed linearizable; then the same with the
# deliberately broken client (serializable reads), which must be caught.
set -eu
cd "$(dirname "$0")/.."
out=${EVERETT_DEMO_OUT:-everett-out/etcd}
n=${ETCD_UNIVERSES:-12}
echo "== building the guest (Linux 6.1, etcd ${ETCD_VERSION:-at build.sh's default release}, the disk; cached after the first time)"
sh guest-images/examples/etcd/build.sh >/dev/null
echo "== everett explore guest-images/examples/etcd/spec.yaml --seed 1 --universes $n"
rc=0
bin/everett explore guest-images/examples/etcd/spec.yaml --seed 1 --universes "$n" --out "$out/correct" || rc=$?
case "$rc" in
0) echo "== the history stayed linearizable, the watches complete and the hashes equal in $n universes" ;;
1) echo "== failures: see $out/correct/summary.json; replay a report with everett replay" ;;
*) echo "demo-etcd: explore exited $rc" >&2; exit 1 ;;
esac
echo "== the broken client: everett explore guest-images/examples/etcd/spec-serializable.yaml --seed 1 --universes 12"
rc=0
bin/everett explore guest-images/examples/etcd/spec-serializable.yaml --seed 1 --universes 12 --out "$out/broken" || rc=$?
report=$(ls "$out"/broken/failure-assertion-always--etcd--the-history*.json 2>/dev/null | head -1)
if [ "$rc" -ne 1 ] || [ -z "$report" ]; then
	echo "demo-etcd: the stale serializable reads were not caught (exit $rc)" >&2
	exit 1
fi
echo "== caught; the client's account of it:"
python3 - "$report" <<'PY' 2>/dev/null || true
import json, sys
r = json.load(open(sys.argv[1]))
tail = r["console_tails"][r["failure"]["node"]].splitlines()
print("\n".join(l for l in tail if "client:" in l or l.startswith("etcd-init: node 0:   "))[-2500:])
PY
echo "Replay it with: bin/everett replay $report"
