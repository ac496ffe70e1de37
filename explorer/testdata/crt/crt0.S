# Entry for the SMP demo: every hart gets its own 16 KiB stack and calls
# hart_main(hartid). The exit code goes to HTIF tohost as (code << 1) | 1.
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	csrr	a0, mhartid
	li	t0, 1 << 13
	csrs	mstatus, t0		# mstatus.FS = Initial: FP on
	la	gp, __global_pointer$
	la	sp, __stacks_top
	slli	t0, a0, 14
	sub	sp, sp, t0
	call	hart_main
	slli	a0, a0, 1
	ori	a0, a0, 1
	la	t0, tohost
	sd	a0, 0(t0)
1:	j	1b

	.section .tohost, "aw", @progbits
	.balign 64
	.globl tohost
	.type tohost, @object
	.size tohost, 8
tohost:	.dword 0
	.balign 64
	.globl fromhost
	.type fromhost, @object
	.size fromhost, 8
fromhost: .dword 0
