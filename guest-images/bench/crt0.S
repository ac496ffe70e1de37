# Entry for the benchmark: hart 0 runs main(), other harts wait forever.
# The exit code goes to HTIF tohost as (code << 1) | 1.
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	csrr	t0, mhartid
	bnez	t0, 2f
	# Enable the FPU (mstatus.FS = Initial).
	li	t0, 1 << 13
	csrs	mstatus, t0
	la	sp, __stack_top
	la	gp, __global_pointer$
	call	main
	slli	a0, a0, 1
	ori	a0, a0, 1
	la	t0, tohost
	sd	a0, 0(t0)
1:	j	1b
2:	wfi
	j	2b

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
