#!/bin/sh
# make demo: boots the bundled Linux guest on everett with 4 harts, showing
# its console, then boots it again and compares state hashes.
set -eu
cd "$(dirname "$0")/.."
kernel=$(sh guest-images/linux/build-kernel.sh)
initrd=$(sh guest-images/linux/build-initramfs.sh)
disk=$(sh guest-images/linux/build-disk.sh)
run() {
	bin/everett run --smp 4 --kernel "$kernel" --initrd "$initrd" --disk "$disk" \
		--append "console=ttyS0" --seed 1 --stats --state-hash "$@"
}
echo "== everett: booting OpenSBI + Linux 6.1 on 4 harts (virt platform)"
run 2>"${TMPDIR:-/tmp}/everett-demo.1"
cat "${TMPDIR:-/tmp}/everett-demo.1"
echo "== again, to show the run is a pure function of its inputs"
run >/dev/null 2>"${TMPDIR:-/tmp}/everett-demo.2"
h1=$(grep state-hash "${TMPDIR:-/tmp}/everett-demo.1")
h2=$(grep state-hash "${TMPDIR:-/tmp}/everett-demo.2")
if [ "$h1" = "$h2" ]; then
	echo "identical: $h1"
else
	echo "DIFFERENT: $h1 vs $h2" >&2
	exit 1
fi
