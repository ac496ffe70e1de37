#!/bin/sh
# Does a change of the search lose what it found? For each target, the
# universe of the first failure from seeds 1..SEEDS (default 5), within
# UNIVERSES (default 300), under each of two everett binaries, side by
# side ("-" when none was found):
#   scripts/ab-found.sh OLD_BINARY NEW_BINARY [TARGET...]
# Targets (default all but etcd): ttas, race (bare metal), seqlock, kv
# (own inits), deadlock (explorer/testdata/workload/deadlock, a workload),
# tickets, bank, gotest (workload examples), etcd (spec.yaml, slow: the
# correct client, nothing to find), etcd-serializable (the broken client,
# spec-serializable.yaml, found in its first universes; slow too).
# The universe counts do not depend on the host's load; --workers 1 keeps
# each search a function of its seed.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OLD NEW [TARGET...]" >&2; exit 2; }
old=$1 new=$2
shift 2
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-5}
U=${UNIVERSES:-300}
targets=${*:-ttas race seqlock kv deadlock tickets bank gotest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p build/ab
for t in $targets; do
	case $t in
	ttas) make -s -C guest-images/examples/ttas >/dev/null ;;
	race) make -s -C guest-images/examples/race >/dev/null ;;
	seqlock) sh guest-images/examples/seqlock/build.sh >/dev/null ;;
	kv) sh guest-images/examples/kv/build.sh >/dev/null ;;
	etcd | etcd-serializable) sh guest-images/examples/etcd/build.sh >/dev/null ;;
	deadlock) riscv64-linux-gnu-gcc -static -O2 -g -Wall -pthread -I guest-images/sdk \
		explorer/testdata/workload/deadlock/deadlock.c -o build/ab/deadlock ;;
	tickets | bank) make -s -C "guest-images/examples/$t" >/dev/null ;;
	gotest) sh guest-images/examples/gotest/build.sh >/dev/null ;;
	*) echo "ab-found: unknown target $t" >&2; exit 2 ;;
	esac
done
# args TARGET: the explore arguments of a target.
args() {
	case $1 in
	ttas) echo "--elf build/examples/ttas.elf --smp 3" ;;
	race) echo "--elf build/examples/race.elf --smp 2" ;;
	seqlock) echo "guest-images/examples/seqlock/spec.yaml" ;;
	kv) echo "guest-images/examples/kv/spec.yaml" ;;
	etcd) echo "guest-images/examples/etcd/spec.yaml" ;;
	etcd-serializable) echo "guest-images/examples/etcd/spec-serializable.yaml" ;;
	deadlock) echo "--linux --smp 2 build/ab/deadlock" ;;
	tickets) echo "--linux --smp 2 build/examples/tickets/tickets" ;;
	bank) echo "--linux --smp 2 build/examples/bank/bank" ;;
	gotest) echo "--linux --smp 2 build/examples/gotest/gotest.test -test.count=5" ;;
	esac
}
# first BINARY TARGET SEED: the universe of the first failure, or "-".
first() {
	d="$tmp/out"
	rm -rf "$d"
	# shellcheck disable=SC2046 # the arguments are words
	"$1" explore --seed "$3" --stop-on-failure --universes "$U" --workers 1 --out "$d" $(args "$2") >/dev/null 2>&1 || true
	u=$(jq -r '.first_failure.universe // empty' "$d/summary.json" 2>/dev/null || true)
	echo "${u:--}"
}
echo "first failure within $U universes, seeds 1-$SEEDS: $old | $new"
for t in $targets; do
	a= b=
	for s in $(seq "$SEEDS"); do
		a="$a $(first "$old" "$t" "$s")"
		b="$b $(first "$new" "$t" "$s")"
	done
	echo "$t:$a |$b"
done
