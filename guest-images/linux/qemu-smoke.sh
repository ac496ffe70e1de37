#!/bin/sh
# Boots the guest (kernel, initramfs, disk from the build-*.sh recipes) on
# QEMU's virt machine and checks that init printed EVERETT-SMOKE-OK.
# Exits 0 on the marker, 1 on EVERETT-SMOKE-FAIL, a missing marker or a
# time-out. Prints the wall time of the boot.
#
# Environment (all optional):
#   SMP=4 MEM=256M TIMEOUT=180   harts, memory, seconds before giving up
#   BIOS=default                 or a firmware path, e.g. Debian's
#                                /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
#   APPEND_EXTRA="everett.sleep=60"   more kernel command-line words
#   QEMU_CPU=rv64,h=false,sstc=false,svpbmt=false,Zihintpause=false
#                                a plain RV64GC hart, like everett's (default:
#                                QEMU's rv64, which adds H, Sstc and more)
#   QEMU_EXTRA="-icount shift=0"      more QEMU options
#   LOG=path                     where the console log goes (default: a temp file)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
need_debs qemu-system-misc

SMP=${SMP:-4}
MEM=${MEM:-256M}
TIMEOUT=${TIMEOUT:-180}
BIOS=${BIOS:-default}
APPEND="console=ttyS0 earlycon=sbi panic=-1${APPEND_EXTRA:+ $APPEND_EXTRA}"

kernel=$("$here/build-kernel.sh")
initrd=$("$here/build-initramfs.sh")
disk=$("$here/build-disk.sh")
log_file=${LOG:-$(mktemp /tmp/everett-qemu-smoke.XXXXXX)}

log "smp=$SMP mem=$MEM bios=$BIOS ${QEMU_CPU:+cpu=$QEMU_CPU }${QEMU_EXTRA:-}"
log "append: $APPEND"
start=$(date +%s.%N)
rc=0
# snapshot=on: the guest's writes go to a temporary overlay, so the cached
# image stays byte-identical.
# shellcheck disable=SC2086
timeout --foreground -k 5 "$TIMEOUT" qemu-system-riscv64 -M virt -smp "$SMP" -m "$MEM" \
	-nographic -no-reboot -bios "$BIOS" \
	-kernel "$kernel" -initrd "$initrd" -append "$APPEND" \
	-drive file="$disk",format=raw,if=none,id=d0,snapshot=on \
	-device virtio-blk-device,drive=d0 \
	-device virtio-rng-device \
	-netdev user,id=n0,restrict=on -device virtio-net-device,netdev=n0 \
	${QEMU_CPU:+-cpu "$QEMU_CPU"} ${QEMU_EXTRA:-} </dev/null >"$log_file" 2>&1 || rc=$?
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc)

if grep -q '^EVERETT-SMOKE-OK' "$log_file"; then
	log "EVERETT-SMOKE-OK after ${secs} s wall (log: $log_file)"
	exit 0
fi
tail -40 "$log_file" >&2
if [ "$rc" -eq 124 ]; then
	log "timed out after $TIMEOUT s (log: $log_file)"
else
	log "no EVERETT-SMOKE-OK marker (qemu exit $rc, ${secs} s; log: $log_file)"
fi
exit 1
