// Package amd64 is the JIT's amd64 emitter: the few instruction forms
// translated blocks use, encoded by hand (Intel SDM vol. 2, chapter 2,
// "Instruction format"; opcodes from its instruction reference). Every form
// takes 64-bit registers unless its name ends in 32. The tests compare every
// form's bytes with a table the GNU assembler produced.
package amd64

import "encoding/binary"

// Reg is an amd64 general-purpose register number (0-15); the SSE and FMA
// forms take xmm register numbers in it.
type Reg uint8

// The general-purpose registers, in encoding order.
const (
	RAX Reg = iota
	RCX
	RDX
	RBX
	RSP
	RBP
	RSI
	RDI
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
)

// Cond is a condition code: the low nibble of Jcc, SETcc and CMOVcc.
type Cond uint8

// The condition codes the JIT uses.
const (
	CondB  Cond = 0x2 // unsigned <
	CondAE Cond = 0x3 // unsigned >=
	CondE  Cond = 0x4
	CondNE Cond = 0x5
	CondA  Cond = 0x7 // unsigned >
	CondP  Cond = 0xa // parity: an unordered (NaN) comparison
	CondL  Cond = 0xc // signed <
	CondGE Cond = 0xd // signed >=
)

// ALUOp is an ALU operation of the 0x01-0x3b group and of 0x81 /digit.
type ALUOp uint8

// The ALU operations, by their /digit.
const (
	ALUAdd ALUOp = 0
	ALUOr  ALUOp = 1
	ALUAnd ALUOp = 4
	ALUSub ALUOp = 5
	ALUXor ALUOp = 6
	ALUCmp ALUOp = 7
)

// ShiftOp is a shift operation of 0xc1 /digit and 0xd3 /digit.
type ShiftOp uint8

// The shift operations, by their /digit.
const (
	ShiftShl ShiftOp = 4
	ShiftShr ShiftOp = 5
	ShiftSar ShiftOp = 7
)

// Mem is a memory operand: [base + index*scale + disp]. The index is never
// RSP: that number means "no index" in a SIB byte.
type Mem struct {
	base     Reg
	index    Reg
	scale    uint8 // 0: no index; else 1, 2, 4 or 8
	disp     int32
	hasIndex bool
}

// At is the memory operand [base + disp].
func At(base Reg, disp int32) Mem { return Mem{base: base, disp: disp} }

// AtIdx is the memory operand [base + index*scale + disp]; scale is 1, 2,
// 4 or 8.
func AtIdx(base, index Reg, scale uint8, disp int32) Mem {
	return Mem{base: base, index: index, scale: scale, disp: disp, hasIndex: true}
}

// Label is a position in the code; fixups patch rel32 jumps to it.
type Label struct {
	pos    int // -1 until bound
	fixups []int
}

// Emitter accumulates one translation's code.
type Emitter struct {
	Code []byte
}

func (a *Emitter) byte1(v ...byte) { a.Code = append(a.Code, v...) }

// put appends one byte: most of the code is emitted a byte at a time.
func (a *Emitter) put(v byte) { a.Code = append(a.Code, v) }

func (a *Emitter) u32(v uint32) { a.Code = binary.LittleEndian.AppendUint32(a.Code, v) }

func (a *Emitter) u64(v uint64) { a.Code = binary.LittleEndian.AppendUint64(a.Code, v) }

// rex emits a REX prefix if any of its bits is needed (or force is set,
// for byte registers beyond BL).
func (a *Emitter) rex(w bool, r, x, b Reg, force bool) {
	v := byte(0x40)
	if w {
		v |= 8
	}
	if r&8 != 0 {
		v |= 4
	}
	if x&8 != 0 {
		v |= 2
	}
	if b&8 != 0 {
		v |= 1
	}
	if v != 0x40 || force {
		a.put(v)
	}
}

// modrmReg emits ModRM for a register-direct operand.
func (a *Emitter) modrmReg(r, rm Reg) { a.byte1(0xc0 | byte(r&7)<<3 | byte(rm&7)) }

// modrmMem emits ModRM (and SIB, displacement) for a memory operand.
func (a *Emitter) modrmMem(r Reg, m Mem) {
	var mod byte
	switch {
	case m.disp == 0 && m.base&7 != RBP:
		mod = 0
	case m.disp >= -128 && m.disp <= 127:
		mod = 1
	default:
		mod = 2
	}
	if m.hasIndex || m.base&7 == RSP {
		a.put(mod<<6 | byte(r&7)<<3 | 4)
		idx := byte(4) // no index
		ss := byte(0)
		if m.hasIndex {
			idx = byte(m.index & 7)
			switch m.scale {
			case 2:
				ss = 1
			case 4:
				ss = 2
			case 8:
				ss = 3
			}
		}
		a.put(ss<<6 | idx<<3 | byte(m.base&7))
	} else {
		a.put(mod<<6 | byte(r&7)<<3 | byte(m.base&7))
	}
	switch mod {
	case 1:
		a.put(byte(int8(m.disp)))
	case 2:
		a.u32(uint32(m.disp))
	}
}

func (a *Emitter) rexMem(w bool, r Reg, m Mem, force bool) {
	x := Reg(0)
	if m.hasIndex {
		x = m.index
	}
	a.rex(w, r, x, m.base, force)
}

// opMem emits an instruction with a memory operand: prefix, REX, opcode
// bytes, ModRM.
func (a *Emitter) opMem(w bool, r Reg, m Mem, op ...byte) {
	a.rexMem(w, r, m, false)
	a.byte1(op...)
	a.modrmMem(r, m)
}

// opReg emits an instruction with two register operands (r in ModRM.reg,
// rm in ModRM.rm).
func (a *Emitter) opReg(w bool, r, rm Reg, op ...byte) {
	a.rex(w, r, 0, rm, false)
	a.byte1(op...)
	a.modrmReg(r, rm)
}

// Load64: mov dst, qword [m].
func (a *Emitter) Load64(dst Reg, m Mem) { a.opMem(true, dst, m, 0x8b) }

// Store64: mov qword [m], src.
func (a *Emitter) Store64(m Mem, src Reg) { a.opMem(true, src, m, 0x89) }

// MovRR32: mov dst32, src32 (zero-extends into dst).
func (a *Emitter) MovRR32(dst, src Reg) { a.opReg(false, src, dst, 0x89) }

// MovRR: mov dst, src.
func (a *Emitter) MovRR(dst, src Reg) { a.opReg(true, src, dst, 0x89) }

// MovImm: dst = v, in the shortest form.
func (a *Emitter) MovImm(dst Reg, v int64) {
	switch {
	case v >= 0 && v <= 0xffffffff:
		a.rex(false, 0, 0, dst, false)
		a.put(0xb8 + byte(dst&7))
		a.u32(uint32(v))
	case v >= -1<<31 && v < 1<<31:
		a.rex(true, 0, 0, dst, false)
		a.put(0xc7)
		a.modrmReg(0, dst)
		a.u32(uint32(v))
	default:
		a.rex(true, 0, 0, dst, false)
		a.put(0xb8 + byte(dst&7))
		a.u64(uint64(v))
	}
}

// Zero: xor dst32, dst32 (clobbers flags).
func (a *Emitter) Zero(dst Reg) { a.opReg(false, dst, dst, 0x31) }

// ALURR: dst op= src.
func (a *Emitter) ALURR(op ALUOp, dst, src Reg) { a.opReg(true, src, dst, byte(op)<<3|1) }

// ALURR32: dst32 op= src32.
func (a *Emitter) ALURR32(op ALUOp, dst, src Reg) { a.opReg(false, src, dst, byte(op)<<3|1) }

// ALURM: dst op= qword [m].
func (a *Emitter) ALURM(op ALUOp, dst Reg, m Mem) { a.opMem(true, dst, m, byte(op)<<3|3) }

// ALURM32: dst32 op= dword [m].
func (a *Emitter) ALURM32(op ALUOp, dst Reg, m Mem) { a.opMem(false, dst, m, byte(op)<<3|3) }

// ALUMR: qword [m] op= src.
func (a *Emitter) ALUMR(op ALUOp, m Mem, src Reg) { a.opMem(true, src, m, byte(op)<<3|1) }

// ALURI: dst op= imm (sign-extended 32-bit).
func (a *Emitter) ALURI(op ALUOp, dst Reg, imm int32) { a.ALURIW(true, op, dst, imm) }

// ALURI32: dst32 op= imm.
func (a *Emitter) ALURI32(op ALUOp, dst Reg, imm int32) { a.ALURIW(false, op, dst, imm) }

// ALURIW: dst op= imm, 64-bit if w, else 32-bit.
func (a *Emitter) ALURIW(w bool, op ALUOp, dst Reg, imm int32) {
	a.rex(w, 0, 0, dst, false)
	a.put(aluImmOpcode(imm))
	a.modrmReg(Reg(op), dst)
	a.aluImm(imm)
}

// ALUMI: qword [m] op= imm (sign-extended 32-bit).
func (a *Emitter) ALUMI(op ALUOp, m Mem, imm int32) {
	a.rexMem(true, 0, m, false)
	a.put(aluImmOpcode(imm))
	a.modrmMem(Reg(op), m)
	a.aluImm(imm)
}

// aluImmOpcode is the opcode of the ALU group with an immediate: 0x83 with
// a sign-extended byte, 0x81 with a dword.
func aluImmOpcode(imm int32) byte {
	if imm >= -128 && imm <= 127 {
		return 0x83
	}
	return 0x81
}

// aluImm emits the immediate in the size aluImmOpcode chose.
func (a *Emitter) aluImm(imm int32) {
	if imm >= -128 && imm <= 127 {
		a.put(byte(int8(imm)))
		return
	}
	a.u32(uint32(imm))
}

// CmpMI8: cmp byte [m], imm.
func (a *Emitter) CmpMI8(m Mem, imm uint8) {
	a.rexMem(false, 0, m, false)
	a.put(0x80)
	a.modrmMem(7, m)
	a.put(imm)
}

// TestRR: test x, y.
func (a *Emitter) TestRR(x, y Reg) { a.opReg(true, y, x, 0x85) }

// TestRR32: test x32, y32.
func (a *Emitter) TestRR32(x, y Reg) { a.opReg(false, y, x, 0x85) }

// ShiftRI: dst = dst shift imm.
func (a *Emitter) ShiftRI(op ShiftOp, dst Reg, n uint8) { a.shiftRIw(true, op, dst, n) }

// ShiftRI32: dst32 = dst32 shift imm.
func (a *Emitter) ShiftRI32(op ShiftOp, dst Reg, n uint8) { a.shiftRIw(false, op, dst, n) }

func (a *Emitter) shiftRIw(w bool, op ShiftOp, dst Reg, n uint8) {
	a.rex(w, 0, 0, dst, false)
	a.put(0xc1)
	a.modrmReg(Reg(op), dst)
	a.put(n)
}

// CallM calls the address held at m.
func (a *Emitter) CallM(m Mem) { a.opMem(false, 2, m, 0xff) }

// BtsRI sets bit n of dst.
func (a *Emitter) BtsRI(dst Reg, n uint8) {
	a.rex(true, 0, 0, dst, false)
	a.byte1(0x0f, 0xba)
	a.modrmReg(5, dst)
	a.put(n)
}

// ShiftRCL: dst = dst shift cl (the count masked to 6 bits, or 5 for 32).
func (a *Emitter) ShiftRCL(w bool, op ShiftOp, dst Reg) {
	a.rex(w, 0, 0, dst, false)
	a.put(0xd3)
	a.modrmReg(Reg(op), dst)
}

// UnaryR: F7 /digit on a register: 3 neg, 6 div, 7 idiv.
func (a *Emitter) UnaryR(w bool, digit, r Reg) { a.opReg(w, digit, r, 0xf7) }

// Cqo sign-extends RAX into RDX (cdq for eax into edx when !w).
func (a *Emitter) Cqo(w bool) {
	if w {
		a.put(0x48)
	}
	a.put(0x99)
}

// Movsxd: dst = sign-extended src32.
func (a *Emitter) Movsxd(dst, src Reg) { a.opReg(true, dst, src, 0x63) }

// Setcc: dst8 = cc (dst must be RAX, RCX, RDX or RBX).
func (a *Emitter) Setcc(c Cond, dst Reg) {
	a.byte1(0x0f, 0x90|byte(c))
	a.modrmReg(0, dst)
}

// Lea: dst = address of m.
func (a *Emitter) Lea(dst Reg, m Mem) { a.opMem(true, dst, m, 0x8d) }

// Loads of guest data, sign- or zero-extended to 64 bits.

// LoadS8: movsx dst, byte [m].
func (a *Emitter) LoadS8(dst Reg, m Mem) { a.opMem(true, dst, m, 0x0f, 0xbe) }

// LoadU8: movzx dst32, byte [m].
func (a *Emitter) LoadU8(dst Reg, m Mem) { a.opMem(false, dst, m, 0x0f, 0xb6) }

// LoadS16: movsx dst, word [m].
func (a *Emitter) LoadS16(dst Reg, m Mem) { a.opMem(true, dst, m, 0x0f, 0xbf) }

// LoadU16: movzx dst32, word [m].
func (a *Emitter) LoadU16(dst Reg, m Mem) { a.opMem(false, dst, m, 0x0f, 0xb7) }

// LoadS32: movsxd dst, dword [m].
func (a *Emitter) LoadS32(dst Reg, m Mem) { a.opMem(true, dst, m, 0x63) }

// LoadU32: mov dst32, dword [m].
func (a *Emitter) LoadU32(dst Reg, m Mem) { a.opMem(false, dst, m, 0x8b) }

// Stores of the low bytes of src.

// Store8: mov byte [m], src8 (with a REX prefix for spl, bpl, sil, dil).
func (a *Emitter) Store8(m Mem, src Reg) {
	a.rexMem(false, src, m, src >= RSP)
	a.put(0x88)
	a.modrmMem(src, m)
}

// Store16: mov word [m], src16.
func (a *Emitter) Store16(m Mem, src Reg) {
	a.put(0x66)
	a.opMem(false, src, m, 0x89)
}

// Store32: mov dword [m], src32.
func (a *Emitter) Store32(m Mem, src Reg) { a.opMem(false, src, m, 0x89) }

// JmpR: jmp src.
func (a *Emitter) JmpR(src Reg) { a.opReg(false, 4, src, 0xff) }

// CallR calls the code at src (the arena's shared stubs).
func (a *Emitter) CallR(src Reg) { a.opReg(false, 2, src, 0xff) }

// Ret returns to the trampoline.
func (a *Emitter) Ret() { a.byte1(0xc3) }

// Jcc jumps to l if c holds.
func (a *Emitter) Jcc(c Cond, l *Label) {
	a.byte1(0x0f, 0x80|byte(c))
	a.rel32(l)
}

// Jmp jumps to l.
func (a *Emitter) Jmp(l *Label) {
	a.put(0xe9)
	a.rel32(l)
}

func (a *Emitter) rel32(l *Label) {
	if l.pos >= 0 {
		a.u32(uint32(int32(l.pos - (len(a.Code) + 4))))
		return
	}
	l.fixups = append(l.fixups, len(a.Code))
	a.u32(0)
}

// NewLabel returns an unbound label from the pool (labelPool).
func NewLabel() *Label {
	p := &labelPool
	if p.n == len(p.l) {
		p.l = append(p.l, &Label{})
	}
	l := p.l[p.n]
	p.n++
	l.pos, l.fixups = -1, l.fixups[:0]
	return l
}

// labelPool hands out labels that every translation reuses, fixups
// included, so that a translation's hundreds of labels cost no
// allocations. Translations are made under the arena's lock, one at a
// time, and no Label outlives the translation it was made for.
var labelPool struct {
	l []*Label
	n int
}

// FreeLabels makes every Label free again: a translation is starting.
func FreeLabels() { labelPool.n = 0 }

// Bind places l here and patches the jumps that were waiting for it.
func (a *Emitter) Bind(l *Label) {
	l.pos = len(a.Code)
	for _, f := range l.fixups {
		binary.LittleEndian.PutUint32(a.Code[f:], uint32(int32(l.pos-(f+4))))
	}
	l.fixups = l.fixups[:0] // kept: the Label goes back to the pool (labelPool)
}

// StoreMI: mov qword [m], imm (sign-extended 32-bit).
func (a *Emitter) StoreMI(m Mem, imm int32) {
	a.rexMem(true, 0, m, false)
	a.put(0xc7)
	a.modrmMem(0, m)
	a.u32(uint32(imm))
}

// ImulRR: dst *= src (low 64 bits).
func (a *Emitter) ImulRR(dst, src Reg) { a.opReg(true, dst, src, 0x0f, 0xaf) }

// ImulRR32: dst32 *= src32 (low 32 bits, zero-extended into dst).
func (a *Emitter) ImulRR32(dst, src Reg) { a.opReg(false, dst, src, 0x0f, 0xaf) }

// SSE2 scalar double forms (xmm registers 0-15 share the Reg numbers).

// sse emits prefix, REX, 0F op, ModRM for an xmm register and a memory
// operand.
func (a *Emitter) sse(prefix byte, w bool, op byte, x Reg, m Mem) {
	a.put(prefix)
	a.rexMem(w, x, m, false)
	a.byte1(0x0f, op)
	a.modrmMem(x, m)
}

// Cvtsi2sd: x = the signed integer in src (64 bits if w, else 32) as a
// double, rounded as MXCSR says.
func (a *Emitter) Cvtsi2sd(x, src Reg, w bool) {
	a.put(0xf2)
	a.rex(w, x, 0, src, false)
	a.byte1(0x0f, 0x2a)
	a.modrmReg(x, src)
}

// MovsdLoad: movq xmm, qword [m].
func (a *Emitter) MovsdLoad(x Reg, m Mem) { a.sse(0xf3, false, 0x7e, x, m) }

// MovsdStore: movq qword [m], xmm.
func (a *Emitter) MovsdStore(m Mem, x Reg) { a.sse(0x66, false, 0xd6, x, m) }

// SSEArith: x = x op qword [m], for op 0x58 add, 0x59 mul, 0x5c sub,
// 0x5e div, 0x51 sqrt (x = sqrt m).
func (a *Emitter) SSEArith(op byte, x Reg, m Mem) { a.sse(0xf2, false, op, x, m) }

// UcomisdRR: compare x with y, PF set if either is NaN.
func (a *Emitter) UcomisdRR(x, y Reg) {
	a.put(0x66)
	a.rex(false, x, 0, y, false)
	a.byte1(0x0f, 0x2e)
	a.modrmReg(x, y)
}

// FMA213: x = v*x + m (op 0xa9), v*x - m (0xab), -(v*x) + m (0xad),
// -(v*x) - m (0xaf): VEX.LIG.66.0F38.W1, vfm*213sd x, v, m.
func (a *Emitter) FMA213(op byte, x, v Reg, m Mem) {
	rexR, rexX, rexB := byte(1), byte(1), byte(1)
	if x&8 != 0 {
		rexR = 0
	}
	if m.hasIndex && m.index&8 != 0 {
		rexX = 0
	}
	if m.base&8 != 0 {
		rexB = 0
	}
	a.byte1(0xc4, rexR<<7|rexX<<6|rexB<<5|0x02, 0x80|byte(^v&15)<<3|0x01, op)
	a.modrmMem(x, m)
}

// MXCSR: ldmxcsr (digit 2) or stmxcsr (digit 3) dword [m].
func (a *Emitter) MXCSR(digit Reg, m Mem) { a.opMem(false, digit, m, 0x0f, 0xae) }

// TestMI: test qword [m], imm (sign-extended 32-bit).
func (a *Emitter) TestMI(m Mem, imm int32) {
	a.rexMem(true, 0, m, false)
	a.put(0xf7)
	a.modrmMem(0, m)
	a.u32(uint32(imm))
}

// TestRI: test dst, imm (sign-extended 32-bit).
func (a *Emitter) TestRI(dst Reg, imm int32) {
	a.opReg(true, 0, dst, 0xf7)
	a.u32(uint32(imm))
}

// Not: dst = ^dst.
func (a *Emitter) Not(dst Reg) { a.opReg(true, 2, dst, 0xf7) }
