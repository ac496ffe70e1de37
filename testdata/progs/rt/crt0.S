/* crt0.S: entry point, per-hart stacks, trap entry/exit and privilege
 * switching of the bare-metal test programs.
 *
 * Every hart starts at _start in M-mode (RISC-V privileged spec §3.4
 * "Reset"). Hart 0 clears .bss, calls rt_init and main, and exits with
 * main's return value through HTIF. Other harts wait until hart 0 has
 * initialised the runtime and call rt_secondary_main(hartid), whose default
 * (weak) definition parks the hart in a WFI loop. */

#include "rt_asm.h"

	.section .text.init, "ax"
	.globl _start
_start:
	csrw	mie, zero
	la	t0, rt_mtrap_entry
	csrw	mtvec, t0
	/* No global pointer: programs are linked without gp relaxation
	 * (link.ld defines no __global_pointer$), so gp stays free. */
	li	gp, 0
	csrr	a0, mhartid
	li	t0, RT_MAX_HARTS
	bgeu	a0, t0, rt_park
	mv	tp, a0
	/* sp = _stack_top - hartid*RT_STACK_BYTES */
	la	sp, _stack_top
	li	t0, RT_STACK_BYTES
	mul	t0, t0, a0
	sub	sp, sp, t0
	/* mscratch = top of this hart's M trap stack, sscratch = S trap stack */
	li	t0, RT_TSTACK_BYTES
	mul	t0, t0, a0
	la	t1, _mtstack_top
	sub	t1, t1, t0
	csrw	mscratch, t1
	la	t1, _ststack_top
	sub	t1, t1, t0
	csrw	sscratch, t1
	/* PMP: one NAPOT region covering everything, RWX, so that S and U
	 * may access memory (priv spec §3.7.1: with PMP implemented and no
	 * entry matching, S and U accesses fail). */
	li	t0, -1
	csrw	pmpaddr0, t0
	li	t0, 0x1f
	csrw	pmpcfg0, t0
	/* FS = Initial, fcsr = 0, f registers zero. */
	li	t0, MSTATUS_FS_INITIAL
	csrs	mstatus, t0
	fscsr	zero
	fmv.d.x	f0, zero
	fmv.d.x	f1, zero
	fmv.d.x	f2, zero
	fmv.d.x	f3, zero
	fmv.d.x	f4, zero
	fmv.d.x	f5, zero
	fmv.d.x	f6, zero
	fmv.d.x	f7, zero
	fmv.d.x	f8, zero
	fmv.d.x	f9, zero
	fmv.d.x	f10, zero
	fmv.d.x	f11, zero
	fmv.d.x	f12, zero
	fmv.d.x	f13, zero
	fmv.d.x	f14, zero
	fmv.d.x	f15, zero
	fmv.d.x	f16, zero
	fmv.d.x	f17, zero
	fmv.d.x	f18, zero
	fmv.d.x	f19, zero
	fmv.d.x	f20, zero
	fmv.d.x	f21, zero
	fmv.d.x	f22, zero
	fmv.d.x	f23, zero
	fmv.d.x	f24, zero
	fmv.d.x	f25, zero
	fmv.d.x	f26, zero
	fmv.d.x	f27, zero
	fmv.d.x	f28, zero
	fmv.d.x	f29, zero
	fmv.d.x	f30, zero
	fmv.d.x	f31, zero
	bnez	a0, 2f

	/* hart 0: clear .bss, initialise, run main, exit */
	la	t0, _bss_start
	la	t1, _bss_end
1:	bgeu	t0, t1, 1f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	1b
1:	call	rt_init
	fence
	li	t0, 1
	la	t1, rt_booted
	sw	t0, 0(t1)
	call	main
	call	rt_exit
	j	rt_park

	/* other harts: wait for hart 0, then rt_secondary_main(hartid) */
2:	la	t1, rt_booted
3:	lw	t0, 0(t1)
	beqz	t0, 3b
	fence
	csrr	a0, mhartid
	call	rt_secondary_main
rt_park:
	csrw	mie, zero
4:	wfi
	j	4b

/* ------------------------------------------------------------------
 * Trap entry. The frame (struct rt_frame in rt.h) holds x0..x31, then epc,
 * cause, tval, status, the vector index (-1: direct mode) and the mode
 * that handled the trap. sp is swapped with mscratch (sscratch), which
 * holds the top of this hart's trap stack while no trap is handled. */

.macro SAVE_REST
	sd	x1, 1*8(sp)
	sd	x3, 3*8(sp)
	sd	x4, 4*8(sp)
	sd	x6, 6*8(sp)
	sd	x7, 7*8(sp)
	sd	x8, 8*8(sp)
	sd	x9, 9*8(sp)
	sd	x10, 10*8(sp)
	sd	x11, 11*8(sp)
	sd	x12, 12*8(sp)
	sd	x13, 13*8(sp)
	sd	x14, 14*8(sp)
	sd	x15, 15*8(sp)
	sd	x16, 16*8(sp)
	sd	x17, 17*8(sp)
	sd	x18, 18*8(sp)
	sd	x19, 19*8(sp)
	sd	x20, 20*8(sp)
	sd	x21, 21*8(sp)
	sd	x22, 22*8(sp)
	sd	x23, 23*8(sp)
	sd	x24, 24*8(sp)
	sd	x25, 25*8(sp)
	sd	x26, 26*8(sp)
	sd	x27, 27*8(sp)
	sd	x28, 28*8(sp)
	sd	x29, 29*8(sp)
	sd	x30, 30*8(sp)
	sd	x31, 31*8(sp)
	sd	x0, 0*8(sp)
.endm

.macro RESTORE_ALL
	ld	x1, 1*8(sp)
	ld	x3, 3*8(sp)
	ld	x4, 4*8(sp)
	ld	x5, 5*8(sp)
	ld	x6, 6*8(sp)
	ld	x7, 7*8(sp)
	ld	x8, 8*8(sp)
	ld	x9, 9*8(sp)
	ld	x10, 10*8(sp)
	ld	x11, 11*8(sp)
	ld	x12, 12*8(sp)
	ld	x13, 13*8(sp)
	ld	x14, 14*8(sp)
	ld	x15, 15*8(sp)
	ld	x16, 16*8(sp)
	ld	x17, 17*8(sp)
	ld	x18, 18*8(sp)
	ld	x19, 19*8(sp)
	ld	x20, 20*8(sp)
	ld	x21, 21*8(sp)
	ld	x22, 22*8(sp)
	ld	x23, 23*8(sp)
	ld	x24, 24*8(sp)
	ld	x25, 25*8(sp)
	ld	x26, 26*8(sp)
	ld	x27, 27*8(sp)
	ld	x28, 28*8(sp)
	ld	x29, 29*8(sp)
	ld	x30, 30*8(sp)
	ld	x31, 31*8(sp)
	ld	x2, 2*8(sp)
.endm

/* TRAP_ENTRY m|s: a direct-mode entry point rt_<m>trap_entry and a vector
 * table rt_<m>trap_vectors of 16 entries (vectored mode, priv spec
 * §3.1.7 "Machine Trap-Vector Base-Address Register"). */
.macro TRAP_ENTRY p
	.balign 256
	.globl rt_\p\()trap_vectors
rt_\p\()trap_vectors:
	.option push
	.option norvc
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	j	rt_\p\()vec_\n
	.endr
	.option pop
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
rt_\p\()vec_\n:
	csrrw	sp, \p\()scratch, sp
	addi	sp, sp, -RT_FRAME_BYTES
	sd	x5, 5*8(sp)
	li	x5, \n
	j	rt_\p\()trap_common
	.endr

	.balign 4
	.globl rt_\p\()trap_entry
rt_\p\()trap_entry:
	csrrw	sp, \p\()scratch, sp
	addi	sp, sp, -RT_FRAME_BYTES
	sd	x5, 5*8(sp)
	li	x5, -1
rt_\p\()trap_common:
	sd	x5, RT_F_VEC(sp)
	SAVE_REST
	csrr	t0, \p\()scratch        /* the interrupted sp */
	sd	t0, 2*8(sp)
	csrr	t0, \p\()epc
	sd	t0, RT_F_EPC(sp)
	csrr	t0, \p\()cause
	sd	t0, RT_F_CAUSE(sp)
	csrr	t0, \p\()tval
	sd	t0, RT_F_TVAL(sp)
	csrr	t0, \p\()status
	sd	t0, RT_F_STATUS(sp)
	mv	a0, sp
	call	rt_\p\()trap
	ld	t0, RT_F_EPC(sp)
	csrw	\p\()epc, t0
	ld	t0, RT_F_STATUS(sp)
	csrw	\p\()status, t0
	addi	t0, sp, RT_FRAME_BYTES
	csrw	\p\()scratch, t0
	RESTORE_ALL
	\p\()ret
.endm

	.text
	TRAP_ENTRY m
	TRAP_ENTRY s

/* long rt_run_in(int mode, long (*fn)(long), long arg): calls fn(arg) in
 * privilege mode `mode` (0 U, 1 S, 3 M) through mret, and returns fn's
 * result in M-mode. fn returns to rt_lower_return, whose ecall the M trap
 * handler turns back into a return from rt_run_in. */
	.globl rt_run_in
rt_run_in:
	addi	sp, sp, -112
	sd	ra, 0(sp)
	sd	s0, 8(sp)
	sd	s1, 16(sp)
	sd	s2, 24(sp)
	sd	s3, 32(sp)
	sd	s4, 40(sp)
	sd	s5, 48(sp)
	sd	s6, 56(sp)
	sd	s7, 64(sp)
	sd	s8, 72(sp)
	sd	s9, 80(sp)
	sd	s10, 88(sp)
	sd	s11, 96(sp)
	csrr	t0, mhartid
	slli	t0, t0, 3
	la	t1, rt_resume_sp
	add	t1, t1, t0
	sd	sp, 0(t1)
	li	t0, MSTATUS_MPP | MSTATUS_MPIE
	csrc	mstatus, t0
	slli	t0, a0, 11
	csrs	mstatus, t0
	csrw	mepc, a1
	mv	a0, a2
	la	ra, rt_lower_return
	mret
	.globl rt_lower_return
rt_lower_return:
	li	a7, RT_ECALL_RETURN
	ecall
	/* not reached */
	j	rt_lower_return
	.globl rt_run_in_resume
rt_run_in_resume:
	ld	ra, 0(sp)
	ld	s0, 8(sp)
	ld	s1, 16(sp)
	ld	s2, 24(sp)
	ld	s3, 32(sp)
	ld	s4, 40(sp)
	ld	s5, 48(sp)
	ld	s6, 56(sp)
	ld	s7, 64(sp)
	ld	s8, 72(sp)
	ld	s9, 80(sp)
	ld	s10, 88(sp)
	ld	s11, 96(sp)
	addi	sp, sp, 112
	ret

/* void rt_dump_regs(const char *tag): prints every x and f register as they
 * were at the call, fcsr, and (in M-mode) the key CSRs. */
	.globl rt_dump_regs
rt_dump_regs:
	addi	sp, sp, -(64*8+16)
	sd	x0, 0*8(sp)
	sd	x1, 1*8(sp)
	sd	x3, 3*8(sp)
	sd	x4, 4*8(sp)
	sd	x5, 5*8(sp)
	sd	x6, 6*8(sp)
	sd	x7, 7*8(sp)
	sd	x8, 8*8(sp)
	sd	x9, 9*8(sp)
	sd	x10, 10*8(sp)
	sd	x11, 11*8(sp)
	sd	x12, 12*8(sp)
	sd	x13, 13*8(sp)
	sd	x14, 14*8(sp)
	sd	x15, 15*8(sp)
	sd	x16, 16*8(sp)
	sd	x17, 17*8(sp)
	sd	x18, 18*8(sp)
	sd	x19, 19*8(sp)
	sd	x20, 20*8(sp)
	sd	x21, 21*8(sp)
	sd	x22, 22*8(sp)
	sd	x23, 23*8(sp)
	sd	x24, 24*8(sp)
	sd	x25, 25*8(sp)
	sd	x26, 26*8(sp)
	sd	x27, 27*8(sp)
	sd	x28, 28*8(sp)
	sd	x29, 29*8(sp)
	sd	x30, 30*8(sp)
	sd	x31, 31*8(sp)
	addi	t0, sp, 64*8+16
	sd	t0, 2*8(sp)
	fsd	f0, 32*8(sp)
	fsd	f1, 33*8(sp)
	fsd	f2, 34*8(sp)
	fsd	f3, 35*8(sp)
	fsd	f4, 36*8(sp)
	fsd	f5, 37*8(sp)
	fsd	f6, 38*8(sp)
	fsd	f7, 39*8(sp)
	fsd	f8, 40*8(sp)
	fsd	f9, 41*8(sp)
	fsd	f10, 42*8(sp)
	fsd	f11, 43*8(sp)
	fsd	f12, 44*8(sp)
	fsd	f13, 45*8(sp)
	fsd	f14, 46*8(sp)
	fsd	f15, 47*8(sp)
	fsd	f16, 48*8(sp)
	fsd	f17, 49*8(sp)
	fsd	f18, 50*8(sp)
	fsd	f19, 51*8(sp)
	fsd	f20, 52*8(sp)
	fsd	f21, 53*8(sp)
	fsd	f22, 54*8(sp)
	fsd	f23, 55*8(sp)
	fsd	f24, 56*8(sp)
	fsd	f25, 57*8(sp)
	fsd	f26, 58*8(sp)
	fsd	f27, 59*8(sp)
	fsd	f28, 60*8(sp)
	fsd	f29, 61*8(sp)
	fsd	f30, 62*8(sp)
	fsd	f31, 63*8(sp)
	frcsr	t0
	sd	t0, 64*8(sp)
	sd	ra, 64*8+8(sp)
	mv	a1, sp
	call	rt_print_regs
	ld	ra, 64*8+8(sp)
	ld	t0, 5*8(sp)
	ld	a0, 10*8(sp)
	ld	a1, 11*8(sp)
	addi	sp, sp, 64*8+16
	ret
