/* rvc: the C extension (unpriv spec ch. 16 "C"): every RV64 compressed
 * instruction with immediates at the ends of their ranges, written with
 * explicit c. mnemonics, with a register dump after each group; then the
 * reserved encodings, which must raise illegal-instruction exceptions
 * (§16.8 table 16.5 marks them "RES" / "HINT"). */
#include "rt_asm.h"

	.section .rodata
t_li:	.asciz "li-lui"
t_alu:	.asciz "alu"
t_mem:	.asciz "mem"
t_jmp:	.asciz "jumps"
t_sp:	.asciz "sp"

	.data
	.balign 16
buf:	.dword 0x0123456789abcdef, 0xfedcba9876543210, 0x8000000080000000, 0x7fffffff7fffffff
	.dword 0, 0, 0, 0

/* RES enc: executes the 16-bit encoding enc (followed by a c.nop so that
 * a 32-bit word is consumed) and prints the trap it raised, if any. */
.macro RES enc
	call	rt_trap_reset
	li	s0, 0
	.hword	\enc
	c.nop
	li	a0, \enc
	call	report
.endm

	.text
	.option rvc
	.globl main
main:
	addi	sp, sp, -128
	sd	ra, 120(sp)
	sd	s0, 112(sp)
	sd	s1, 104(sp)
	sd	s2, 96(sp)

	/* c.li, c.lui: 6-bit sign-extended immediates */
	c.li	a0, -32
	c.li	a1, 31
	c.li	a2, 0
	c.lui	a3, 1
	c.lui	a4, 0x1f
	c.lui	a5, 0xfffe0
	c.lui	t0, 0xfffff
	c.li	t1, -1
	c.li	t2, 1
	la	a0, t_li
	call	rt_dump_regs

	/* c.addi, c.addiw, shifts, c.andi, register-register ops */
	li	s0, 0x7fffffff
	c.addiw	s0, 1
	li	s1, -1
	c.addiw	s1, 0
	li	a1, 0x100000000
	c.addiw	a1, -32
	li	a2, 10
	c.addi	a2, -32
	c.addi	a2, 31
	li	a3, 1
	c.slli	a3, 63
	mv	a4, a3
	c.srai	a4, 63
	mv	a5, a3
	c.srli	a5, 63
	li	s1, 0x123456789
	c.slli	s1, 1
	c.srli	s1, 32
	mv	t0, s1
	li	s1, -1
	c.srai	s1, 1
	mv	s2, s1
	li	t1, 0x7f
	c.mv	t2, t1
	c.add	t2, t1
	li	a0, 0x0f0f0f0f0f0f0f0f
	mv	s0, a0
	c.andi	s0, -17
	mv	s1, a0
	c.andi	s1, 31
	li	a1, 0xff00ff00ff00ff00
	mv	a2, a0
	c.sub	a2, a1
	mv	a3, a0
	c.xor	a3, a1
	mv	a4, a0
	c.or	a4, a1
	mv	a5, a0
	c.and	a5, a1
	li	a0, 0x80000000
	li	a1, 1
	mv	s0, a0
	c.subw	a0, a1
	c.addw	s0, a1
	mv	t0, a0
	mv	t2, s0
	c.nop
	la	a0, t_alu
	call	rt_dump_regs

	/* loads and stores: c.lw c.ld c.sw c.sd c.fld c.fsd and the sp forms */
	la	s0, buf
	c.lw	a0, 0(s0)
	c.lw	a1, 20(s0)
	c.ld	a2, 8(s0)
	c.ld	a3, 24(s0)
	c.fld	fa0, 16(s0)
	c.fld	fa1, 8(s0)
	c.sw	a1, 32(s0)
	c.sd	a2, 40(s0)
	c.fsd	fa0, 48(s0)
	c.lw	a4, 36(s0)
	c.ld	a5, 48(s0)
	c.ld	s1, 32(s0)
	la	a0, t_mem
	call	rt_dump_regs

	/* sp-relative forms on a scratch frame */
	c.addi16sp sp, -512
	c.addi16sp sp, 496	/* net -16: a 16-byte scratch frame */
	li	t0, 0x1111222233334444
	c.sdsp	t0, 0(sp)
	c.swsp	t0, 8(sp)
	c.fsdsp	fa1, 16(sp)
	c.ldsp	a0, 0(sp)
	c.lwsp	a1, 8(sp)
	c.lwsp	a2, 0(sp)
	c.fldsp	fa2, 16(sp)
	c.ldsp	a3, 16(sp)
	c.addi4spn a4, sp, 4
	c.addi4spn a5, sp, 1020
	sub	a4, a4, sp
	sub	a5, a5, sp
	c.addi16sp sp, 16
	la	a0, t_sp
	call	rt_dump_regs

	/* control transfer: c.j c.jr c.jalr c.beqz c.bnez */
	li	s1, 0
	c.j	1f
	addi	s1, s1, 100
1:	addi	s1, s1, 1
	li	a0, 0
	c.beqz	a0, 2f
	addi	s1, s1, 100
2:	addi	s1, s1, 2
	c.bnez	a0, 3f
	addi	s1, s1, 4
3:	li	a1, -1
	c.bnez	a1, 4f
	addi	s1, s1, 100
4:	c.beqz	a1, 5f
	addi	s1, s1, 8
5:	la	t0, 6f
	c.jr	t0
	addi	s1, s1, 100
6:	la	t1, sub1
	c.jalr	t1          /* links ra = pc+2 */
	mv	s2, ra
	la	t2, 7f
	sub	s2, t2, s2  /* the link is the address of "mv s2, ra" */
	addi	s2, s2, 0
7:	la	a0, t_jmp
	call	rt_dump_regs

	/* reserved encodings (table 16.5 "RES") raise illegal instruction;
	 * HINTs execute as no-ops (§16.7). */
	li	t0, 1
	la	t1, rt_expect_traps
	sw	t0, 0(t1)
	RES	0x0000  /* c.unimp: all zeros */
	RES	0x0004  /* c.addi4spn with nzuimm = 0 */
	RES	0x6101  /* c.addi16sp with nzimm = 0 */
	RES	0x6501  /* c.lui a0 with nzimm = 0 */
	RES	0x8002  /* c.jr with rs1 = x0 */
	RES	0x4002  /* c.lwsp with rd = x0 */
	RES	0x6002  /* c.ldsp with rd = x0 */
	RES	0x2001  /* c.addiw with rd = x0 */
	RES	0x9c41  /* quadrant 1, funct6 100111, funct2 10 */
	RES	0x9c61  /* quadrant 1, funct6 100111, funct2 11 */
	RES	0x8000  /* quadrant 0, funct3 100 */
	RES	0x0005  /* HINT c.nop with nzimm */
	RES	0x4005  /* HINT c.li x0, 1 */
	RES	0x800a  /* HINT c.mv x0, sp */
	RES	0x900a  /* HINT c.add x0, sp */
	RES	0x0006  /* HINT c.slli x0, 1 */
	RES	0x6005  /* HINT c.lui x0, 1 */
	la	t1, rt_expect_traps
	sw	zero, 0(t1)

	ld	ra, 120(sp)
	ld	s0, 112(sp)
	ld	s1, 104(sp)
	ld	s2, 96(sp)
	addi	sp, sp, 128
	li	a0, 0
	ret

sub1:	addi	s1, s1, 16
	ret
