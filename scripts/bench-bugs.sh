#!/bin/sh
# Bug-suite benchmark: how soon `everett explore` finds each bug of
# guest-images/bugs, and how rare the bug is as an ordinary program.
#
#   scripts/bench-bugs.sh                 # every program (make bench-bugs)
#   scripts/bench-bugs.sh counter go-leak # these only
#
# For each program NAME (build/bugs/NAME, its twin NAME-fixed) it prints
# one table row per plan:
#   native   failures of BUGS_RUNS runs (default 1000) of the host build
#            (build/bugs-native/NAME), each killed after BUGS_NATIVE_TIMEOUT
#            seconds (default 5; a deadlock hangs natively); empty with
#            BUGS_RUNS=0. BUGS_NATIVE_PREFIX runs each under a command
#            (e.g. "chrt -r 1": a real-time policy, as on an idle host).
#   seed S   for each seed of BUGS_SEEDS (default 1 2 3 4 5), the universe
#            of the first failure and the host seconds to it (the search's
#            own first_failure, boot included) under
#              everett explore --linux --smp 2 --seed S --stop-on-failure
#                --time BUGS_TIME --workers BUGS_WORKERS NAME
#            (defaults 60s and 2), or "-/U" when none was found in U
#            universes; once with the default plan ("default") and once
#            with faults.preemptions: 0 (a spec, "no-preempt"); BUGS_PLANS
#            (default "default no-preempt") picks the plans.
#   twin     the verdict on NAME-fixed over BUGS_TWIN_UNIVERSES universes
#            (default 200; 0 skips it) from seed 1 with the default plan:
#            "pass" or the failing universe (a false alarm or a bad twin).
# After the table, the signature of every failure found, so that a bug
# found for the wrong reason (a timeout, say) shows.
#
# EVERETT (default bin/everett) is the binary under test; reports and
# summaries go to BUGS_OUT (default build/bench-bugs). The programs and
# the binary are built first. The full table takes long: every program,
# five seeds, two plans, up to BUGS_TIME each.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
EVERETT=${EVERETT:-bin/everett}
RUNS=${BUGS_RUNS:-1000}
SEEDS=${BUGS_SEEDS-1 2 3 4 5}
TIME=${BUGS_TIME:-60s}
WORKERS=${BUGS_WORKERS:-2}
TWIN=${BUGS_TWIN_UNIVERSES:-200}
PLANS=${BUGS_PLANS-default no-preempt}
NTIMEOUT=${BUGS_NATIVE_TIMEOUT:-5}
NPREFIX=${BUGS_NATIVE_PREFIX:-}
OUT=${BUGS_OUT:-build/bench-bugs}

make -s -C guest-images/bugs >/dev/null
[ "$EVERETT" = bin/everett ] && make -s build
[ -x "$EVERETT" ] || { echo "bench-bugs: no everett binary at $EVERETT" >&2; exit 2; }
all=$(make -s -C guest-images/bugs list)
if [ $# -gt 0 ]; then
	for n in "$@"; do
		echo "$all" | grep -qx "$n" || { echo "bench-bugs: no program $n (make -C guest-images/bugs list)" >&2; exit 2; }
	done
	names="$*"
else
	names=$all
fi
mkdir -p "$OUT"
sigs="$OUT/signatures.txt"
: >"$sigs"

# native NAME: "F/RUNS" failures of the host build.
native() {
	[ "$RUNS" -gt 0 ] || { echo ""; return; }
	f=0
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		# shellcheck disable=SC2086 # NPREFIX is a command and its words
		timeout -s KILL "$NTIMEOUT" $NPREFIX "build/bugs-native/$1" >/dev/null 2>&1 || f=$((f + 1))
		i=$((i + 1))
	done
	echo "$f/$RUNS"
}

# explore NAME SEED PLAN: the first failure's "u<universe> <seconds>s",
# or "-/<universes>" when none was found.
explore() {
	dir="$OUT/$1/$3-seed$2"
	rm -rf "$dir"
	mkdir -p "$dir"
	case $3 in
	default) set -- "$1" "$2" "$3" --linux --smp 2 "$root/build/bugs/$1" ;;
	no-preempt)
		# What `--linux --smp 2 PROG` builds, with no preemptions where
		# harts communicate.
		cat >"$dir/spec.yaml" <<YAML
name: $1
nodes:
  - name: "n{i}"
    harts: 2
    run: [$root/build/bugs/$1]
faults:
  preemptions: 0
YAML
		set -- "$1" "$2" "$3" "$dir/spec.yaml"
		;;
	*) echo "bench-bugs: unknown plan $3" >&2; exit 2 ;;
	esac
	name=$1 seed=$2 plan=$3
	shift 3
	"$EVERETT" explore --seed "$seed" --stop-on-failure --time "$TIME" --workers "$WORKERS" \
		--out "$dir" "$@" >"$dir/stdout" 2>"$dir/stderr" || true
	s="$dir/summary.json"
	if [ ! -f "$s" ]; then
		echo "error"
		echo "$name $plan seed $seed: no summary (see $dir/stderr)" >>"$sigs"
		return
	fi
	u=$(jq -r '.first_failure.universe // empty' "$s")
	if [ -z "$u" ]; then
		echo "-/$(jq -r .universes "$s")"
		return
	fi
	echo "u$u $(jq -r '.first_failure.seconds * 10 | floor / 10' "$s")s"
	echo "$name $plan seed $seed: $(jq -r .first_failure.signature "$s")" >>"$sigs"
}

# twin NAME: the verdict on NAME-fixed.
twin() {
	[ "$TWIN" -gt 0 ] || { echo ""; return; }
	dir="$OUT/$1-fixed"
	rm -rf "$dir"
	mkdir -p "$dir"
	"$EVERETT" explore --linux --smp 2 --seed 1 --universes "$TWIN" --workers "$WORKERS" \
		--out "$dir" "$root/build/bugs/$1-fixed" >"$dir/stdout" 2>"$dir/stderr" || true
	s="$dir/summary.json"
	if [ ! -f "$s" ]; then
		echo "error"
		return
	fi
	n=$(jq -r '.failures | length' "$s")
	if [ "$n" = 0 ]; then
		echo "pass $(jq -r .universes "$s")"
		return
	fi
	echo "FAIL u$(jq -r '.failures[0].universe' "$s")"
	echo "$1-fixed: $(jq -r '.failures[0].signature' "$s")" >>"$sigs"
}

echo "bench-bugs: $(date -u +%Y-%m-%d), $EVERETT (tree at $(git rev-parse --short HEAD)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  explore --linux --smp 2 --stop-on-failure --time $TIME --workers $WORKERS; native: $RUNS runs${NPREFIX:+ under $NPREFIX}"
printf '| %-16s | %-9s | %-10s |' program native plan
for s in $SEEDS; do printf ' %-12s |' "seed $s"; done
printf ' %-9s |\n' twin
printf '|%s|%s|%s|' ------------------ ----------- ------------
for s in $SEEDS; do printf '%s|' --------------; done
printf '%s|\n' -----------
for n in $names; do
	nat=$(native "$n")
	tw=$(twin "$n")
	first=1
	for plan in $PLANS; do
		if [ $first = 1 ]; then
			printf '| %-16s | %-9s | %-10s |' "$n" "$nat" "$plan"
		else
			printf '| %-16s | %-9s | %-10s |' "" "" "$plan"
		fi
		for s in $SEEDS; do printf ' %-12s |' "$(explore "$n" "$s" "$plan")"; done
		if [ $first = 1 ]; then printf ' %-9s |\n' "$tw"; else printf ' %-9s |\n' ""; fi
		first=0
	done
done
echo
echo "failures found (signature of each first failure):"
sed 's/^/  /' "$sigs"
