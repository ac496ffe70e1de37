/* bare.S: the bare-metal (everett) side of the user-mode fuzz harness: M-mode
 * start-up drops to U-mode at fuzz_entry with FS = Initial; fuzz_report
 * (in U-mode) sends fuzz_out and the scratch bytes raw through the HTIF
 * console and exits with code 0. A trap (the generator made an illegal
 * instruction, or the emulator faulted) prints "TRAP" and mcause, mepc,
 * mtval as raw doublewords and exits with code 3. */
	.section .text.init, "ax"
	.globl _start
_start:
	csrr	t0, mhartid
	bnez	t0, park
	li	t0, -1
	csrw	pmpaddr0, t0
	li	t0, 0x1f
	csrw	pmpcfg0, t0
	lla	t0, trap
	csrw	mtvec, t0
	li	t0, 3 << 11
	csrc	mstatus, t0
	li	t0, 1 << 13
	csrs	mstatus, t0
	lla	t0, fuzz_entry
	csrw	mepc, t0
	mret
park:	wfi
	j	park

	.balign 4
trap:
	li	a0, 'T'
	call	putc
	li	a0, 'R'
	call	putc
	li	a0, 'A'
	call	putc
	li	a0, 'P'
	call	putc
	csrr	s0, mcause
	call	put8
	csrr	s0, mepc
	call	put8
	csrr	s0, mtval
	call	put8
	li	t0, (3 << 1) | 1
	j	exit

	.globl fuzz_report
fuzz_report:
	lla	s1, fuzz_scratch + 3072
	li	s2, 65 * 8
	call	putbuf
	lla	s1, fuzz_scratch
	li	s2, 3072
	call	putbuf
	li	t0, 1
exit:	la	t1, tohost
	sd	t0, 0(t1)
1:	j	1b

/* putbuf: s2 bytes from s1 */
putbuf:
	mv	s3, ra
1:	beqz	s2, 2f
	lbu	a0, 0(s1)
	call	putc
	addi	s1, s1, 1
	addi	s2, s2, -1
	j	1b
2:	mv	ra, s3
	ret

/* put8: the 8 bytes of s0, little-endian */
put8:
	mv	s3, ra
	li	s4, 8
1:	andi	a0, s0, 0xff
	call	putc
	srli	s0, s0, 8
	addi	s4, s4, -1
	bnez	s4, 1b
	mv	ra, s3
	ret

/* putc: HTIF console, device 1 command 1 */
putc:
	lla	t1, tohost
	lla	t2, fromhost
1:	ld	t0, 0(t1)
	bnez	t0, 1b
	li	t0, 0x0101
	slli	t0, t0, 48
	or	t0, t0, a0
	sd	t0, 0(t1)
2:	ld	t0, 0(t2)
	beqz	t0, 2b
	sd	zero, 0(t2)
	ret

	.section .tohost, "aw", @progbits
	.balign 64
	.globl tohost, fromhost
tohost:	.dword 0
fromhost: .dword 0
