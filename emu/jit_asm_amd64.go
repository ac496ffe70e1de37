//go:build linux && amd64

package emu

import "everett/emu/internal/amd64"

// The JIT's amd64 emitter lives in emu/internal/amd64, where its encodings
// are tested byte for byte against the GNU assembler's. These short names
// keep the lowering (jit_lower_amd64.go) readable.

type (
	reg     = amd64.Reg
	cond    = amd64.Cond
	aluOp   = amd64.ALUOp
	shiftOp = amd64.ShiftOp
	mem     = amd64.Mem
	label   = amd64.Label
	emitter = amd64.Emitter
)

const (
	rax = amd64.RAX
	rcx = amd64.RCX
	rdx = amd64.RDX
	rbx = amd64.RBX
	rsp = amd64.RSP
	rbp = amd64.RBP
	rsi = amd64.RSI
	rdi = amd64.RDI
	r8  = amd64.R8
	r9  = amd64.R9
	r10 = amd64.R10
	r11 = amd64.R11
	r12 = amd64.R12
	r13 = amd64.R13
	r14 = amd64.R14
	r15 = amd64.R15

	ccB  = amd64.CondB
	ccAE = amd64.CondAE
	ccE  = amd64.CondE
	ccNE = amd64.CondNE
	ccA  = amd64.CondA
	ccP  = amd64.CondP
	ccL  = amd64.CondL
	ccGE = amd64.CondGE

	aluAdd = amd64.ALUAdd
	aluOr  = amd64.ALUOr
	aluAnd = amd64.ALUAnd
	aluSub = amd64.ALUSub
	aluXor = amd64.ALUXor
	aluCmp = amd64.ALUCmp

	shiftShl = amd64.ShiftShl
	shiftShr = amd64.ShiftShr
	shiftSar = amd64.ShiftSar
)

// at is [base + disp].
func at(base reg, disp int32) mem { return amd64.At(base, disp) }

// atIdx is [base + index*scale + disp].
func atIdx(base, index reg, scale uint8, disp int32) mem {
	return amd64.AtIdx(base, index, scale, disp)
}

// newLabel returns a fresh label from the pool; freeLabels returns them all
// at the start of a translation.
func newLabel() *label { return amd64.NewLabel() }
func freeLabels()      { amd64.FreeLabels() }
