#!/bin/sh
# Checks that the bugs of guest-images/bugs are real: runs each program
# built with its window widened (make -C guest-images/bugs widen: a few
# milliseconds of work where a thread must be held up, WINDOW() in C,
# bug.Window in Go) on the host BUGS_RUNS times (default 20), and its
# twin as many, each killed after BUGS_NATIVE_TIMEOUT seconds (default 3;
# a deadlock hangs natively). A bug's program should fail in most runs
# and its twin in none.
#
#   scripts/bugs-widened.sh               # every program
#   scripts/bugs-widened.sh counter rlock # these only
set -eu
cd "$(dirname "$0")/.."
RUNS=${BUGS_RUNS:-20}
NTIMEOUT=${BUGS_NATIVE_TIMEOUT:-3}
make -s -C guest-images/bugs widen >/dev/null
names=${*:-$(make -s -C guest-images/bugs list)}

# fails PROG: how many of RUNS runs of PROG failed.
fails() {
	f=0
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		timeout -s KILL "$NTIMEOUT" "$1" >/dev/null 2>&1 || f=$((f + 1))
		i=$((i + 1))
	done
	echo "$f"
}

printf '%-16s %-10s %-10s\n' program widened twin
for n in $names; do
	printf '%-16s %-10s %-10s\n' "$n" "$(fails "build/bugs-widened/$n")/$RUNS" "$(fails "build/bugs-widened/$n-fixed")/$RUNS"
done
