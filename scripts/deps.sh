#!/bin/sh
# Installs the Debian packages everett's tests, demo and benchmarks need,
# when they are missing. Safe to run repeatedly; does nothing when all is
# present. Usage: scripts/deps.sh [test|bench|demo]
set -eu

need=""
want() { # want COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || need="$need $2"
}
want_file() { # want_file PATH PACKAGE
	[ -e "$1" ] || need="$need $2"
}

want riscv64-unknown-elf-gcc gcc-riscv64-unknown-elf
want riscv64-unknown-elf-objdump binutils-riscv64-unknown-elf
want_file /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs picolibc-riscv64-unknown-elf
want qemu-system-riscv64 qemu-system-misc
want qemu-riscv64-static qemu-user-static
want riscv64-linux-gnu-gcc gcc-riscv64-linux-gnu
want gdb-multiarch gdb-multiarch
want dtc device-tree-compiler # devices/fdt checks its trees with dtc
want cpio cpio                 # the initramfs writer is checked against cpio
want chromium chromium
want_file /usr/lib/python3/dist-packages/junitparser python3-junitparser
want_file /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin opensbi

[ -z "$need" ] && exit 0

echo "deps: installing$need" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
