#!/bin/bash
# Runs the kv cluster on QEMU: three `qemu-system-riscv64 -M virt` machines
# whose virtio-net cards share one Ethernet segment (a UDP multicast group
# on the host), each booting guest-images/linux's kernel with the kv
# initramfs. Waits until the client (on node 1) powers its machine off,
# stops the other two, and leaves the consoles in $OUT/node{0,1,2}.log.
#
#   qemu.sh                 no fault: the workload must pass
#   qemu.sh stop-primary    SIGSTOP node 0 (the first primary) for
#                           $PAUSE seconds (default 1) in mid-workload
#   qemu.sh kill-primary    kill node 0 in mid-workload
#
# Environment: OUT (default: a new temporary directory), DELAY (seconds
# after the workload starts before the fault, default 0.5), PAUSE, MCAST
# (group:port, default 230.0.0.1:1234: pick another to run several clusters
# at once), TIMEOUT (seconds, default 120).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fault=${1:-none}
case "$fault" in none | stop-primary | kill-primary) ;; *)
	echo "usage: $0 [none|stop-primary|kill-primary]" >&2
	exit 2
	;;
esac
kernel=$(sh "$root/guest-images/linux/build-kernel.sh")
initrd=$("$here/build.sh")
OUT=${OUT:-$(mktemp -d)}
DELAY=${DELAY:-0.5}
PAUSE=${PAUSE:-1}
MCAST=${MCAST:-230.0.0.1:1234}
TIMEOUT=${TIMEOUT:-120}
mkdir -p "$OUT"

pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill -CONT "$p" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT

for n in 0 1 2; do
	qemu-system-riscv64 -M virt -smp 1 -m 256M -bios default -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 quiet everett.node=$n everett.nodes=3" \
		-netdev socket,id=n0,mcast="$MCAST" \
		-device virtio-net-device,netdev=n0,mac=52:54:00:00:00:0$((n + 1)) \
		-display none -serial file:"$OUT/node$n.log" -monitor none -no-reboot &
	pids+=($!)
done
client=${pids[1]}

deadline=$((SECONDS + TIMEOUT))
if [ "$fault" != none ]; then
	until grep -q "running .* operations" "$OUT/node1.log" 2>/dev/null; do
		[ $SECONDS -lt $deadline ] || { echo "qemu.sh: the cluster did not form" >&2; exit 1; }
		sleep 0.05
	done
	sleep "$DELAY"
	case "$fault" in
	stop-primary)
		echo "qemu.sh: SIGSTOP node 0 for ${PAUSE}s" >&2
		kill -STOP "${pids[0]}"
		sleep "$PAUSE"
		kill -CONT "${pids[0]}"
		;;
	kill-primary)
		echo "qemu.sh: killing node 0" >&2
		kill -KILL "${pids[0]}"
		wait "${pids[0]}" 2>/dev/null || true
		;;
	esac
fi
while kill -0 "$client" 2>/dev/null; do
	[ $SECONDS -lt $deadline ] || { echo "qemu.sh: timeout" >&2; exit 1; }
	sleep 0.2
done
for n in 0 1 2; do
	echo "== node $n"
	grep -a "^kv: " "$OUT/node$n.log" || true
done
echo "consoles: $OUT"
grep -aq "exit code 0;" "$OUT/node1.log"
