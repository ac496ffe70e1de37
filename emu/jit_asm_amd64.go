//go:build linux && amd64

package emu

import "encoding/binary"

// The JIT's amd64 emitter: the few instruction forms translated blocks
// use, encoded by hand (Intel SDM vol. 2, chapter 2, "Instruction format";
// opcodes from its instruction reference). Every form takes 64-bit
// registers unless its name ends in 32.

// reg is an amd64 general-purpose register number.
type reg uint8

const (
	rax reg = iota
	rcx
	rdx
	rbx
	rsp
	rbp
	rsi
	rdi
	r8
	r9
	r10
	r11
	r12
	r13
	r14
	r15
)

// Condition codes (the low nibble of Jcc, SETcc, CMOVcc).
type cond uint8

const (
	ccB  cond = 0x2 // unsigned <
	ccAE cond = 0x3 // unsigned >=
	ccE  cond = 0x4
	ccNE cond = 0x5
	ccA  cond = 0x7 // unsigned >
	ccP  cond = 0xa // parity: an unordered (NaN) comparison
	ccL  cond = 0xc // signed <
	ccGE cond = 0xd // signed >=
)

// ALU operations of the 0x01-0x3b group and of 0x81 /digit.
type aluOp uint8

const (
	aluAdd aluOp = 0
	aluOr  aluOp = 1
	aluAnd aluOp = 4
	aluSub aluOp = 5
	aluXor aluOp = 6
	aluCmp aluOp = 7
)

// Shift operations of 0xc1 /digit and 0xd3 /digit.
type shiftOp uint8

const (
	shiftShl shiftOp = 4
	shiftShr shiftOp = 5
	shiftSar shiftOp = 7
)

// mem is a memory operand: [base + index*scale + disp].
type mem struct {
	base     reg
	index    reg
	scale    uint8 // 0: no index; else 1, 2, 4 or 8
	disp     int32
	hasIndex bool
}

func at(base reg, disp int32) mem { return mem{base: base, disp: disp} }

func atIdx(base, index reg, scale uint8, disp int32) mem {
	return mem{base: base, index: index, scale: scale, disp: disp, hasIndex: true}
}

// label is a position in the code; fixups patch rel32 jumps to it.
type label struct {
	pos    int // -1 until bound
	fixups []int
}

// emitter accumulates one translation's code.
type emitter struct {
	b []byte
}

func (a *emitter) byte1(v ...byte) { a.b = append(a.b, v...) }

// put appends one byte: most of the code is emitted a byte at a time.
func (a *emitter) put(v byte) { a.b = append(a.b, v) }

func (a *emitter) u32(v uint32) { a.b = binary.LittleEndian.AppendUint32(a.b, v) }

func (a *emitter) u64(v uint64) { a.b = binary.LittleEndian.AppendUint64(a.b, v) }

// rex emits a REX prefix if any of its bits is needed (or force is set,
// for byte registers beyond BL).
func (a *emitter) rex(w bool, r, x, b reg, force bool) {
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
func (a *emitter) modrmReg(r, rm reg) { a.byte1(0xc0 | byte(r&7)<<3 | byte(rm&7)) }

// modrmMem emits ModRM (and SIB, displacement) for a memory operand.
func (a *emitter) modrmMem(r reg, m mem) {
	var mod byte
	switch {
	case m.disp == 0 && m.base&7 != rbp:
		mod = 0
	case m.disp >= -128 && m.disp <= 127:
		mod = 1
	default:
		mod = 2
	}
	if m.hasIndex || m.base&7 == rsp {
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

func (a *emitter) rexMem(w bool, r reg, m mem, force bool) {
	x := reg(0)
	if m.hasIndex {
		x = m.index
	}
	a.rex(w, r, x, m.base, force)
}

// opMem emits an instruction with a memory operand: prefix, REX, opcode
// bytes, ModRM.
func (a *emitter) opMem(w bool, r reg, m mem, op ...byte) {
	a.rexMem(w, r, m, false)
	a.byte1(op...)
	a.modrmMem(r, m)
}

// opReg emits an instruction with two register operands (r in ModRM.reg,
// rm in ModRM.rm).
func (a *emitter) opReg(w bool, r, rm reg, op ...byte) {
	a.rex(w, r, 0, rm, false)
	a.byte1(op...)
	a.modrmReg(r, rm)
}

// load64: mov dst, qword [m].
func (a *emitter) load64(dst reg, m mem) { a.opMem(true, dst, m, 0x8b) }

// store64: mov qword [m], src.
func (a *emitter) store64(m mem, src reg) { a.opMem(true, src, m, 0x89) }

// movRR32: mov dst32, src32 (zero-extends into dst).
func (a *emitter) movRR32(dst, src reg) { a.opReg(false, src, dst, 0x89) }

// movRR: mov dst, src.
func (a *emitter) movRR(dst, src reg) { a.opReg(true, src, dst, 0x89) }

// movImm: dst = v, in the shortest form.
func (a *emitter) movImm(dst reg, v int64) {
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

// zero: xor dst32, dst32 (clobbers flags).
func (a *emitter) zero(dst reg) { a.opReg(false, dst, dst, 0x31) }

// aluRR: dst op= src.
func (a *emitter) aluRR(op aluOp, dst, src reg) { a.opReg(true, src, dst, byte(op)<<3|1) }

// aluRR32: dst32 op= src32.
func (a *emitter) aluRR32(op aluOp, dst, src reg) { a.opReg(false, src, dst, byte(op)<<3|1) }

// aluRM: dst op= qword [m].
func (a *emitter) aluRM(op aluOp, dst reg, m mem) { a.opMem(true, dst, m, byte(op)<<3|3) }

// aluRM32: dst32 op= dword [m].
func (a *emitter) aluRM32(op aluOp, dst reg, m mem) { a.opMem(false, dst, m, byte(op)<<3|3) }

// aluMR: qword [m] op= src.
func (a *emitter) aluMR(op aluOp, m mem, src reg) { a.opMem(true, src, m, byte(op)<<3|1) }

// aluRI: dst op= imm (sign-extended 32-bit).
func (a *emitter) aluRI(op aluOp, dst reg, imm int32) { a.aluRIw(true, op, dst, imm) }

// aluRI32: dst32 op= imm.
func (a *emitter) aluRI32(op aluOp, dst reg, imm int32) { a.aluRIw(false, op, dst, imm) }

func (a *emitter) aluRIw(w bool, op aluOp, dst reg, imm int32) {
	a.rex(w, 0, 0, dst, false)
	a.put(aluImmOpcode(imm))
	a.modrmReg(reg(op), dst)
	a.aluImm(imm)
}

// aluMI: qword [m] op= imm (sign-extended 32-bit).
func (a *emitter) aluMI(op aluOp, m mem, imm int32) {
	a.rexMem(true, 0, m, false)
	a.put(aluImmOpcode(imm))
	a.modrmMem(reg(op), m)
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
func (a *emitter) aluImm(imm int32) {
	if imm >= -128 && imm <= 127 {
		a.put(byte(int8(imm)))
		return
	}
	a.u32(uint32(imm))
}

// cmpMI8: cmp byte [m], imm.
func (a *emitter) cmpMI8(m mem, imm uint8) {
	a.rexMem(false, 0, m, false)
	a.put(0x80)
	a.modrmMem(7, m)
	a.put(imm)
}

// testRR: test x, y.
func (a *emitter) testRR(x, y reg) { a.opReg(true, y, x, 0x85) }

// shiftRI: dst = dst shift imm.
func (a *emitter) shiftRI(op shiftOp, dst reg, n uint8) { a.shiftRIw(true, op, dst, n) }

// shiftRI32: dst32 = dst32 shift imm.
func (a *emitter) shiftRI32(op shiftOp, dst reg, n uint8) { a.shiftRIw(false, op, dst, n) }

func (a *emitter) shiftRIw(w bool, op shiftOp, dst reg, n uint8) {
	a.rex(w, 0, 0, dst, false)
	a.put(0xc1)
	a.modrmReg(reg(op), dst)
	a.put(n)
}

// callM calls the address held at m.
func (a *emitter) callM(m mem) { a.opMem(false, 2, m, 0xff) }

// btsRI sets bit n of dst.
func (a *emitter) btsRI(dst reg, n uint8) {
	a.rex(true, 0, 0, dst, false)
	a.byte1(0x0f, 0xba)
	a.modrmReg(5, dst)
	a.put(n)
}

// shiftRCL: dst = dst shift cl (the count masked to 6 bits, or 5 for 32).
func (a *emitter) shiftRCL(w bool, op shiftOp, dst reg) {
	a.rex(w, 0, 0, dst, false)
	a.put(0xd3)
	a.modrmReg(reg(op), dst)
}

// unaryR: F7 /digit on a register: 3 neg, 6 div, 7 idiv.
func (a *emitter) unaryR(w bool, digit, r reg) { a.opReg(w, digit, r, 0xf7) }

// cqo sign-extends rax into rdx (cdq for eax into edx when !w).
func (a *emitter) cqo(w bool) {
	if w {
		a.put(0x48)
	}
	a.put(0x99)
}

// movsxd: dst = sign-extended src32.
func (a *emitter) movsxd(dst, src reg) { a.opReg(true, dst, src, 0x63) }

// setcc: dst8 = cc (dst must be rax, rcx, rdx or rbx).
func (a *emitter) setcc(c cond, dst reg) {
	a.byte1(0x0f, 0x90|byte(c))
	a.modrmReg(0, dst)
}

// lea: dst = address of m.
func (a *emitter) lea(dst reg, m mem) { a.opMem(true, dst, m, 0x8d) }

// Loads of guest data, sign- or zero-extended to 64 bits.
func (a *emitter) loadS8(dst reg, m mem)  { a.opMem(true, dst, m, 0x0f, 0xbe) }
func (a *emitter) loadU8(dst reg, m mem)  { a.opMem(false, dst, m, 0x0f, 0xb6) }
func (a *emitter) loadS16(dst reg, m mem) { a.opMem(true, dst, m, 0x0f, 0xbf) }
func (a *emitter) loadU16(dst reg, m mem) { a.opMem(false, dst, m, 0x0f, 0xb7) }
func (a *emitter) loadS32(dst reg, m mem) { a.opMem(true, dst, m, 0x63) }
func (a *emitter) loadU32(dst reg, m mem) { a.opMem(false, dst, m, 0x8b) }

// Stores of the low bytes of src.
func (a *emitter) store8(m mem, src reg) {
	a.rexMem(false, src, m, src >= rsp)
	a.put(0x88)
	a.modrmMem(src, m)
}
func (a *emitter) store16(m mem, src reg) {
	a.put(0x66)
	a.opMem(false, src, m, 0x89)
}
func (a *emitter) store32(m mem, src reg) { a.opMem(false, src, m, 0x89) }

// jmpR: jmp src.
func (a *emitter) jmpR(src reg) { a.opReg(false, 4, src, 0xff) }

// callR calls the code at src (the arena's shared stubs).
func (a *emitter) callR(src reg) { a.opReg(false, 2, src, 0xff) }

// ret returns to the trampoline.
func (a *emitter) ret() { a.byte1(0xc3) }

// jcc jumps to l if c holds.
func (a *emitter) jcc(c cond, l *label) {
	a.byte1(0x0f, 0x80|byte(c))
	a.rel32(l)
}

// jmp jumps to l.
func (a *emitter) jmp(l *label) {
	a.put(0xe9)
	a.rel32(l)
}

func (a *emitter) rel32(l *label) {
	if l.pos >= 0 {
		a.u32(uint32(int32(l.pos - (len(a.b) + 4))))
		return
	}
	l.fixups = append(l.fixups, len(a.b))
	a.u32(0)
}

func newLabel() *label {
	p := &labelPool
	if p.n == len(p.l) {
		p.l = append(p.l, &label{})
	}
	l := p.l[p.n]
	p.n++
	l.pos, l.fixups = -1, l.fixups[:0]
	return l
}

// labelPool hands out labels that every translation reuses, fixups
// included, so that a translation's hundreds of labels cost no
// allocations. Translations are made under the arena's lock, one at a
// time, and no label outlives the translation it was made for.
var labelPool struct {
	l []*label
	n int
}

// freeLabels makes every label free again: a translation is starting.
func freeLabels() { labelPool.n = 0 }

// bind places l here and patches the jumps that were waiting for it.
func (a *emitter) bind(l *label) {
	l.pos = len(a.b)
	for _, f := range l.fixups {
		binary.LittleEndian.PutUint32(a.b[f:], uint32(int32(l.pos-(f+4))))
	}
	l.fixups = l.fixups[:0] // kept: the label goes back to the pool (labelPool)
}

// storeMI: mov qword [m], imm (sign-extended 32-bit).
func (a *emitter) storeMI(m mem, imm int32) {
	a.rexMem(true, 0, m, false)
	a.put(0xc7)
	a.modrmMem(0, m)
	a.u32(uint32(imm))
}

// imulRR: dst *= src (low 64 bits).
func (a *emitter) imulRR(dst, src reg) { a.opReg(true, dst, src, 0x0f, 0xaf) }

// SSE2 scalar double forms (xmm registers 0-15 share the reg numbers).

// sse emits prefix, REX, 0F op, ModRM for an xmm register and a memory
// operand.
func (a *emitter) sse(prefix byte, w bool, op byte, x reg, m mem) {
	a.put(prefix)
	a.rexMem(w, x, m, false)
	a.byte1(0x0f, op)
	a.modrmMem(x, m)
}

// cvtsi2sd: x = the signed integer in src (64 bits if w, else 32) as a
// double, rounded as MXCSR says.
func (a *emitter) cvtsi2sd(x, src reg, w bool) {
	a.put(0xf2)
	a.rex(w, x, 0, src, false)
	a.byte1(0x0f, 0x2a)
	a.modrmReg(x, src)
}

// movsdLoad: movq xmm, qword [m].
func (a *emitter) movsdLoad(x reg, m mem) { a.sse(0xf3, false, 0x7e, x, m) }

// movsdStore: movq qword [m], xmm.
func (a *emitter) movsdStore(m mem, x reg) { a.sse(0x66, false, 0xd6, x, m) }

// sseArith: x = x op qword [m], for op 0x58 add, 0x59 mul, 0x5c sub,
// 0x5e div, 0x51 sqrt (x = sqrt m).
func (a *emitter) sseArith(op byte, x reg, m mem) { a.sse(0xf2, false, op, x, m) }

// ucomisdRR: compare x with y, PF set if either is NaN.
func (a *emitter) ucomisdRR(x, y reg) {
	a.put(0x66)
	a.rex(false, x, 0, y, false)
	a.byte1(0x0f, 0x2e)
	a.modrmReg(x, y)
}

// fma213: x = v*x + m (op 0xa9), v*x - m (0xab), -(v*x) + m (0xad),
// -(v*x) - m (0xaf): VEX.LIG.66.0F38.W1, vfm*213sd x, v, m.
func (a *emitter) fma213(op byte, x, v reg, m mem) {
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

// mxcsr: ldmxcsr (digit 2) or stmxcsr (digit 3) dword [m].
func (a *emitter) mxcsr(digit reg, m mem) { a.opMem(false, digit, m, 0x0f, 0xae) }

// testMI: test qword [m], imm (sign-extended 32-bit).
func (a *emitter) testMI(m mem, imm int32) {
	a.rexMem(true, 0, m, false)
	a.put(0xf7)
	a.modrmMem(0, m)
	a.u32(uint32(imm))
}

// testRI: test dst, imm (sign-extended 32-bit).
func (a *emitter) testRI(dst reg, imm int32) {
	a.opReg(true, 0, dst, 0xf7)
	a.u32(uint32(imm))
}

// not: dst = ^dst.
func (a *emitter) not(dst reg) { a.opReg(true, 2, dst, 0xf7) }
