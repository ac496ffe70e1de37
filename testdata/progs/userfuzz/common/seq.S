/* seq.S: the part of the user-mode fuzz harness shared by its bare-metal
 * (everett) and Linux (qemu-riscv64-static) builds, at the same address in
 * both (0x8001_0000, see the linker scripts), so that even pc-relative
 * results agree.
 *
 * Layout of section .fuzz (offsets fixed; emu/board/userfuzz_test.go
 * patches fuzz_init, fuzz_scratch and fuzz_code in the ELF file):
 *   +0x0000 fuzz_entry: load every register from fuzz_init, run fuzz_code
 *   +0x0800 fuzz_init: x0..x31, f0..f31, fcsr (65 doublewords)
 *   +0x1000 fuzz_scratch: 4 KiB; bytes 0..3071 are what the sequence may
 *           load, store and AMO; fuzz_out (x0..x31, f0..f31, fcsr) at 3072
 *   +0x2000 fuzz_code: FUZZ_SLOT bytes of nops, then fuzz_dump, which
 *           saves every register to fuzz_out through x8 (x8 = scratch +
 *           2048; the sequence never writes x2, x8 or x9) and jumps to
 *           fuzz_report (one per platform). */
#define FUZZ_SLOT 0x4000
#define OUT 1024 /* fuzz_out - x8 */

	.section .fuzz, "awx", @progbits
	.option norvc
	.globl fuzz_entry
fuzz_entry:
	lla	x31, fuzz_init
	ld	x30, 64*8(x31)
	fscsr	x30
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fld	f\n, (32+\n)*8(x31)
	.endr
	.irp n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30
	ld	x\n, \n*8(x31)
	.endr
	ld	x31, 31*8(x31)
	j	fuzz_code

	.org 0x800
	.globl fuzz_init
fuzz_init:
	.fill 65, 8, 0

	.org 0x1000
	.globl fuzz_scratch
fuzz_scratch:
	.fill 4096, 1, 0

	.org 0x2000
	.globl fuzz_code
fuzz_code:
	.fill FUZZ_SLOT/4, 4, 0x00000013
	.globl fuzz_dump
fuzz_dump:
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	sd	x\n, OUT+\n*8(x8)
	.endr
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fsd	f\n, OUT+(32+\n)*8(x8)
	.endr
	frcsr	x5
	sd	x5, OUT+64*8(x8)
	j	fuzz_report
