/* crt0.S: entry of the race example. Every hart starts here in M-mode
 * (everett's bare-metal machine starts all harts at the ELF entry point).
 * Each hart gets a 16 KiB stack. Hart 0 clears .bss and calls main; the
 * others wait until main sets `released` and call worker(hartid). main's
 * return value is the exit code, sent to the host through HTIF tohost as
 * (code << 1) | 1. */
#define MAX_HARTS 4 /* stacks reserved in link.ld */

	.section .text.init, "ax", @progbits
	.globl _start
_start:
	csrw	mie, zero
	li	t0, 1 << 13
	csrs	mstatus, t0		/* mstatus.FS = Initial */
	csrr	a0, mhartid
	li	t0, MAX_HARTS
	bgeu	a0, t0, park
	la	sp, stacks_top
	slli	t0, a0, 14
	sub	sp, sp, t0
	bnez	a0, secondary

	la	t0, bss_start
	la	t1, bss_end
1:	bgeu	t0, t1, 2f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	1b
2:	call	main
	call	htif_exit

secondary:
	la	t0, released
3:	lw	t1, 0(t0)
	beqz	t1, 3b
	fence	rw, rw
	csrr	a0, mhartid
	call	worker
park:
	wfi
	j	park
