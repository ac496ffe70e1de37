/* linux.S: the Linux (qemu-riscv64-static) side of the user-mode fuzz
 * harness: _start jumps to fuzz_entry; fuzz_report writes fuzz_out and the
 * scratch bytes raw to stdout with the write syscall and exits with 0. */
	.section .text.init, "ax"
	.globl _start
_start:
	j	fuzz_entry

	.globl fuzz_report
fuzz_report:
	li	a7, 64
	li	a0, 1
	lla	a1, fuzz_scratch + 3072
	li	a2, 65 * 8
	ecall
	li	a7, 64
	li	a0, 1
	lla	a1, fuzz_scratch
	li	a2, 3072
	ecall
	li	a7, 93
	li	a0, 0
	ecall
