//go:build riscv64

#include "textflag.h"

// func hypercall(op, arg uint64, msg unsafe.Pointer, n uint64) uint64
//
// everett's hypercall is the 32-bit word 0x0000000b (custom-0 major
// opcode): a0 = operation, a1..a3 = arguments, result in a0. The emulator
// intercepts it in every privilege mode, so it never traps; it clobbers
// nothing but a0.
TEXT ·hypercall(SB), NOSPLIT, $0-40
	MOV	op+0(FP), A0
	MOV	arg+8(FP), A1
	MOV	msg+16(FP), A2
	MOV	n+24(FP), A3
	WORD	$0x0000000b
	MOV	A0, ret+32(FP)
	RET
