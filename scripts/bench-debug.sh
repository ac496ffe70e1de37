#!/bin/sh
# bench-debug: how long gdb's reverse-continue takes on the report of a
# 2.6e9-instruction Linux run (etcd on three nodes, 700 operations; the
# "failure" is the client's last line, so the report ends where the run
# does). It explores guest-images/examples/etcd/spec-debug-end.yaml from
# seed 2 (one universe), serves the report with everett debug, and drives
# gdb-multiarch: continue to the end, watch node 0's jiffies,
# reverse-continue twice, reverse-stepi; then, back at the end, the worst
# case: a watch on a variable whose page changes in every interval.
# Wall times come from gdb's Python.
# The times are absolute: no peer can go backward through such a run.
set -eu
cd "$(dirname "$0")/.."
sh guest-images/examples/etcd/build.sh >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bin/everett explore guest-images/examples/etcd/spec-debug-end.yaml --seed 2 --universes 1 --workers 1 --out "$out" >"$out/explore.log" 2>&1 || true
report=$(ls "$out"/failure-*.json)
kernel=$(readlink -f build/examples/etcd/Image)
vmlinux=$(dirname "$kernel")/vmlinux
echo "bench-debug: $(grep -o '"instructions": [0-9]*' "$report" | tail -1) in the report"
cat >"$out/cmds.gdb" <<'GDB'
set pagination off
python import time
python t0 = time.time()
continue
python print("bench-debug: continue to the end of the run: %.2f s" % (time.time() - t0))
watch *(long *)&jiffies
python t0 = time.time()
reverse-continue
python print("bench-debug: reverse-continue to the last write of jiffies: %.2f s (target <= 2)" % (time.time() - t0))
monitor icount
python t0 = time.time()
reverse-continue
python print("bench-debug: reverse-continue to the write before: %.2f s" % (time.time() - t0))
monitor icount
python t0 = time.time()
reverse-stepi
python print("bench-debug: reverse-stepi: %.2f s" % (time.time() - t0))
monitor points
delete
continue
watch *(int *)&system_state
python t0 = time.time()
reverse-continue
python print("bench-debug: reverse-continue to the last write of system_state (set at boot; its page is written all through the run): %.2f s" % (time.time() - t0))
monitor icount
GDB
bin/everett debug --gdb 127.0.0.1:0 --symbols "$vmlinux" "$report" >/dev/null 2>"$out/server.log" &
server=$!
addr=""
for _ in $(seq 100); do
	addr=$(sed -n 's/.*gdb server on \([^;]*\);.*/\1/p' "$out/server.log")
	[ -n "$addr" ] && break
	sleep 0.2
done
gdb-multiarch -nx -batch -ex "target remote $addr" -x "$out/cmds.gdb" "$vmlinux" 2>&1 | grep -E '^(bench-debug|icount=|[0-9]+ points)'
wait $server
