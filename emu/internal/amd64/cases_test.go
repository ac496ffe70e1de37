package amd64

import (
	"fmt"
	"strings"
)

// A test case: one encoder call and the same instruction as GNU assembler
// text (Intel syntax, no register prefix). Lines separated by ";" are one
// case (a jump and its label).
type encCase struct {
	text string
	emit func(a *Emitter)
	// shortForm: for this text GNU as picks a shorter encoding of the same
	// instruction (the accumulator forms "add rax, imm32" = 48 05 id and
	// "test rax, imm32" = 48 a9 id, the shift by one "shl rax, 1" = d1 /4)
	// where the encoder emits the general form. The table then holds the
	// encoder's bytes, and the check against binutils disassembles them
	// with objdump instead: they must read back as text.
	shortForm bool
}

var (
	regs64 = []string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}
	regs32 = []string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"}
	regs16 = []string{"ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w"}
	regs8  = []string{"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b"}
)

func xmm(r Reg) string { return fmt.Sprintf("xmm%d", r) }

// allRegs is every general-purpose register.
var allRegs = func() []Reg {
	var rs []Reg
	for r := RAX; r <= R15; r++ {
		rs = append(rs, r)
	}
	return rs
}()

// memText is m in Intel syntax.
func memText(m Mem) string {
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(regs64[m.base])
	if m.hasIndex {
		fmt.Fprintf(&b, "+%s*%d", regs64[m.index], m.scale)
	}
	switch {
	case m.disp > 0:
		fmt.Fprintf(&b, "+%#x", m.disp)
	case m.disp < 0:
		fmt.Fprintf(&b, "-%#x", -int64(m.disp))
	}
	b.WriteString("]")
	return b.String()
}

// mems are the memory operands every memory form is tried with: each base
// register (so rsp and r12, which need a SIB byte, and rbp and r13, which
// need a displacement, in particular) with no displacement, disp8 at both
// ends, disp32 just beyond them and far out; and indexed forms with every
// scale, extended bases and indexes, and the rbp/r13 bases.
var mems = func() []Mem {
	var ms []Mem
	for _, b := range allRegs {
		for _, d := range []int32{0, 8, 127, -128, 128, -129, 0x12345, -0x7fffffff} {
			ms = append(ms, At(b, d))
		}
	}
	for _, s := range []uint8{1, 2, 4, 8} {
		ms = append(ms, AtIdx(RAX, RCX, s, 0))
	}
	for _, x := range allRegs {
		if x != RSP {
			ms = append(ms, AtIdx(RDX, x, 1, 0x10))
		}
	}
	for _, b := range allRegs {
		ms = append(ms, AtIdx(b, R9, 8, 0), AtIdx(b, RSI, 4, -8), AtIdx(b, R12, 2, 0x1000))
	}
	return ms
}()

// someMems is a short list of memory operands for the forms whose memory
// encoding is the shared path already covered by mems.
var someMems = []Mem{At(RAX, 0), At(RSP, 8), At(R13, 0), At(R12, -0x200), AtIdx(RBP, R10, 8, 0x40), At(R15, 0x7fffffff)}

var aluNames = map[ALUOp]string{ALUAdd: "add", ALUOr: "or", ALUAnd: "and", ALUSub: "sub", ALUXor: "xor", ALUCmp: "cmp"}
var aluOps = []ALUOp{ALUAdd, ALUOr, ALUAnd, ALUSub, ALUXor, ALUCmp}
var shiftNames = map[ShiftOp]string{ShiftShl: "shl", ShiftShr: "shr", ShiftSar: "sar"}
var shiftOps = []ShiftOp{ShiftShl, ShiftShr, ShiftSar}
var condNames = map[Cond]string{CondB: "b", CondAE: "ae", CondE: "e", CondNE: "ne", CondA: "a", CondP: "p", CondL: "l", CondGE: "ge"}
var conds = []Cond{CondB, CondAE, CondE, CondNE, CondA, CondP, CondL, CondGE}

// encCases is every instruction form the encoder has, each over every
// register in each register position and (for memory forms) over mems or
// someMems, immediates at the imm8/imm32 boundaries.
func encCases() []encCase {
	var cs []encCase
	add := func(text string, emit func(a *Emitter)) { cs = append(cs, encCase{text: text, emit: emit}) }
	addShort := func(text string, emit func(a *Emitter)) {
		cs = append(cs, encCase{text: text, emit: emit, shortForm: true})
	}
	// Register-register forms: every register as each operand.
	pairs := func(fn func(x, y Reg)) {
		for _, r := range allRegs {
			fn(r, RCX)
			if r != RCX {
				fn(RDX, r)
			}
		}
		fn(R9, R14)
	}
	// Memory forms: one register with every operand, every register with one.
	memForms := func(ms []Mem, fn func(r Reg, m Mem)) {
		for _, m := range ms {
			fn(RDX, m)
		}
		for _, r := range allRegs {
			fn(r, At(R11, 0x20))
		}
	}
	memForms(mems, func(r Reg, m Mem) {
		add(fmt.Sprintf("mov %s, qword ptr %s", regs64[r], memText(m)), func(a *Emitter) { a.Load64(r, m) })
		add(fmt.Sprintf("mov qword ptr %s, %s", memText(m), regs64[r]), func(a *Emitter) { a.Store64(m, r) })
		add(fmt.Sprintf("lea %s, %s", regs64[r], memText(m)), func(a *Emitter) { a.Lea(r, m) })
	})
	memForms(someMems, func(r Reg, m Mem) {
		add(fmt.Sprintf("movsx %s, byte ptr %s", regs64[r], memText(m)), func(a *Emitter) { a.LoadS8(r, m) })
		add(fmt.Sprintf("movzx %s, byte ptr %s", regs32[r], memText(m)), func(a *Emitter) { a.LoadU8(r, m) })
		add(fmt.Sprintf("movsx %s, word ptr %s", regs64[r], memText(m)), func(a *Emitter) { a.LoadS16(r, m) })
		add(fmt.Sprintf("movzx %s, word ptr %s", regs32[r], memText(m)), func(a *Emitter) { a.LoadU16(r, m) })
		add(fmt.Sprintf("movsxd %s, dword ptr %s", regs64[r], memText(m)), func(a *Emitter) { a.LoadS32(r, m) })
		add(fmt.Sprintf("mov %s, dword ptr %s", regs32[r], memText(m)), func(a *Emitter) { a.LoadU32(r, m) })
		add(fmt.Sprintf("mov byte ptr %s, %s", memText(m), regs8[r]), func(a *Emitter) { a.Store8(m, r) })
		add(fmt.Sprintf("mov word ptr %s, %s", memText(m), regs16[r]), func(a *Emitter) { a.Store16(m, r) })
		add(fmt.Sprintf("mov dword ptr %s, %s", memText(m), regs32[r]), func(a *Emitter) { a.Store32(m, r) })
		for _, op := range aluOps {
			add(fmt.Sprintf("%s %s, qword ptr %s", aluNames[op], regs64[r], memText(m)), func(a *Emitter) { a.ALURM(op, r, m) })
			add(fmt.Sprintf("%s %s, dword ptr %s", aluNames[op], regs32[r], memText(m)), func(a *Emitter) { a.ALURM32(op, r, m) })
			add(fmt.Sprintf("%s qword ptr %s, %s", aluNames[op], memText(m), regs64[r]), func(a *Emitter) { a.ALUMR(op, m, r) })
		}
		// SSE and FMA: r is an xmm register here.
		add(fmt.Sprintf("movq %s, qword ptr %s", xmm(r), memText(m)), func(a *Emitter) { a.MovsdLoad(r, m) })
		add(fmt.Sprintf("movq qword ptr %s, %s", memText(m), xmm(r)), func(a *Emitter) { a.MovsdStore(m, r) })
		for _, o := range []struct {
			op   byte
			name string
		}{{0x58, "addsd"}, {0x59, "mulsd"}, {0x5c, "subsd"}, {0x5e, "divsd"}, {0x51, "sqrtsd"}} {
			add(fmt.Sprintf("%s %s, qword ptr %s", o.name, xmm(r), memText(m)), func(a *Emitter) { a.SSEArith(o.op, r, m) })
		}
		for _, o := range []struct {
			op   byte
			name string
		}{{0xa9, "vfmadd213sd"}, {0xab, "vfmsub213sd"}, {0xad, "vfnmadd213sd"}, {0xaf, "vfnmsub213sd"}} {
			add(fmt.Sprintf("%s %s, %s, qword ptr %s", o.name, xmm(r), xmm(15-r), memText(m)), func(a *Emitter) { a.FMA213(o.op, r, 15-r, m) })
		}
	})
	for _, m := range someMems {
		for _, imm := range []int32{0, 1, -128, 127, 128, -129, 0x12345678, -0x80000000} {
			for _, op := range aluOps {
				add(fmt.Sprintf("%s qword ptr %s, %d", aluNames[op], memText(m), imm), func(a *Emitter) { a.ALUMI(op, m, imm) })
			}
			add(fmt.Sprintf("mov qword ptr %s, %d", memText(m), imm), func(a *Emitter) { a.StoreMI(m, imm) })
			add(fmt.Sprintf("test qword ptr %s, %d", memText(m), imm), func(a *Emitter) { a.TestMI(m, imm) })
		}
		for _, imm := range []uint8{0, 1, 0x7f, 0x80, 0xff} {
			add(fmt.Sprintf("cmp byte ptr %s, %d", memText(m), imm), func(a *Emitter) { a.CmpMI8(m, imm) })
		}
		add(fmt.Sprintf("call qword ptr %s", memText(m)), func(a *Emitter) { a.CallM(m) })
		add(fmt.Sprintf("ldmxcsr dword ptr %s", memText(m)), func(a *Emitter) { a.MXCSR(2, m) })
		add(fmt.Sprintf("stmxcsr dword ptr %s", memText(m)), func(a *Emitter) { a.MXCSR(3, m) })
	}
	pairs(func(x, y Reg) {
		add(fmt.Sprintf("mov %s, %s", regs64[x], regs64[y]), func(a *Emitter) { a.MovRR(x, y) })
		add(fmt.Sprintf("mov %s, %s", regs32[x], regs32[y]), func(a *Emitter) { a.MovRR32(x, y) })
		add(fmt.Sprintf("test %s, %s", regs64[x], regs64[y]), func(a *Emitter) { a.TestRR(x, y) })
		add(fmt.Sprintf("imul %s, %s", regs64[x], regs64[y]), func(a *Emitter) { a.ImulRR(x, y) })
		add(fmt.Sprintf("imul %s, %s", regs32[x], regs32[y]), func(a *Emitter) { a.ImulRR32(x, y) })
		add(fmt.Sprintf("test %s, %s", regs32[x], regs32[y]), func(a *Emitter) { a.TestRR32(x, y) })
		add(fmt.Sprintf("movsxd %s, %s", regs64[x], regs32[y]), func(a *Emitter) { a.Movsxd(x, y) })
		for _, op := range aluOps {
			add(fmt.Sprintf("%s %s, %s", aluNames[op], regs64[x], regs64[y]), func(a *Emitter) { a.ALURR(op, x, y) })
			add(fmt.Sprintf("%s %s, %s", aluNames[op], regs32[x], regs32[y]), func(a *Emitter) { a.ALURR32(op, x, y) })
		}
		add(fmt.Sprintf("cvtsi2sd %s, %s", xmm(x), regs64[y]), func(a *Emitter) { a.Cvtsi2sd(x, y, true) })
		add(fmt.Sprintf("cvtsi2sd %s, %s", xmm(x), regs32[y]), func(a *Emitter) { a.Cvtsi2sd(x, y, false) })
		add(fmt.Sprintf("ucomisd %s, %s", xmm(x), xmm(y)), func(a *Emitter) { a.UcomisdRR(x, y) })
	})
	for _, r := range allRegs {
		add(fmt.Sprintf("xor %s, %s", regs32[r], regs32[r]), func(a *Emitter) { a.Zero(r) })
		add(fmt.Sprintf("not %s", regs64[r]), func(a *Emitter) { a.Not(r) })
		add(fmt.Sprintf("neg %s", regs64[r]), func(a *Emitter) { a.UnaryR(true, 3, r) })
		add(fmt.Sprintf("div %s", regs64[r]), func(a *Emitter) { a.UnaryR(true, 6, r) })
		add(fmt.Sprintf("idiv %s", regs32[r]), func(a *Emitter) { a.UnaryR(false, 7, r) })
		add(fmt.Sprintf("jmp %s", regs64[r]), func(a *Emitter) { a.JmpR(r) })
		add(fmt.Sprintf("call %s", regs64[r]), func(a *Emitter) { a.CallR(r) })
		for _, n := range []uint8{0, 5, 63} {
			add(fmt.Sprintf("bts %s, %d", regs64[r], n), func(a *Emitter) { a.BtsRI(r, n) })
		}
		for _, op := range shiftOps {
			add(fmt.Sprintf("%s %s, cl", shiftNames[op], regs64[r]), func(a *Emitter) { a.ShiftRCL(true, op, r) })
			add(fmt.Sprintf("%s %s, cl", shiftNames[op], regs32[r]), func(a *Emitter) { a.ShiftRCL(false, op, r) })
			for _, n := range []uint8{1, 2, 31, 63} {
				text := fmt.Sprintf("%s %s, %d", shiftNames[op], regs64[r], n)
				if n == 1 {
					addShort(text, func(a *Emitter) { a.ShiftRI(op, r, n) })
				} else {
					add(text, func(a *Emitter) { a.ShiftRI(op, r, n) })
				}
				if n < 32 {
					text := fmt.Sprintf("%s %s, %d", shiftNames[op], regs32[r], n)
					if n == 1 {
						addShort(text, func(a *Emitter) { a.ShiftRI32(op, r, n) })
					} else {
						add(text, func(a *Emitter) { a.ShiftRI32(op, r, n) })
					}
				}
			}
		}
		for _, imm := range []int32{0, 1, -1, -128, 127, 128, -129, 0x12345678, -0x80000000} {
			// An imm8 takes the 0x83 form; for an imm32 GNU as picks the
			// accumulator form when the register is rax.
			short := r == RAX && (imm < -128 || imm > 127)
			for _, op := range aluOps {
				text := fmt.Sprintf("%s %s, %d", aluNames[op], regs64[r], imm)
				text32 := fmt.Sprintf("%s %s, %d", aluNames[op], regs32[r], imm)
				if short {
					addShort(text, func(a *Emitter) { a.ALURI(op, r, imm) })
					addShort(text32, func(a *Emitter) { a.ALURI32(op, r, imm) })
				} else {
					add(text, func(a *Emitter) { a.ALURI(op, r, imm) })
					add(text32, func(a *Emitter) { a.ALURI32(op, r, imm) })
				}
			}
			text := fmt.Sprintf("test %s, %d", regs64[r], imm)
			if r == RAX {
				addShort(text, func(a *Emitter) { a.TestRI(r, imm) })
			} else {
				add(text, func(a *Emitter) { a.TestRI(r, imm) })
			}
		}
		// movImm: a zero-extended dword, a sign-extended dword, a qword.
		add(fmt.Sprintf("mov %s, 0", regs32[r]), func(a *Emitter) { a.MovImm(r, 0) })
		add(fmt.Sprintf("mov %s, 0xffffffff", regs32[r]), func(a *Emitter) { a.MovImm(r, 0xffffffff) })
		add(fmt.Sprintf("mov %s, -1", regs64[r]), func(a *Emitter) { a.MovImm(r, -1) })
		add(fmt.Sprintf("mov %s, -0x80000000", regs64[r]), func(a *Emitter) { a.MovImm(r, -0x80000000) })
		add(fmt.Sprintf("movabs %s, 0x100000000", regs64[r]), func(a *Emitter) { a.MovImm(r, 0x100000000) })
		add(fmt.Sprintf("movabs %s, -0x80000001", regs64[r]), func(a *Emitter) { a.MovImm(r, -0x80000001) })
		add(fmt.Sprintf("movabs %s, 0x123456789abcdef0", regs64[r]), func(a *Emitter) { a.MovImm(r, 0x123456789abcdef0) })
	}
	for _, r := range []Reg{RAX, RCX, RDX, RBX} {
		for _, c := range conds {
			add(fmt.Sprintf("set%s %s", condNames[c], regs8[r]), func(a *Emitter) { a.Setcc(c, r) })
		}
	}
	add("cqo", func(a *Emitter) { a.Cqo(true) })
	add("cdq", func(a *Emitter) { a.Cqo(false) })
	add("ret", func(a *Emitter) { a.Ret() })
	// Jumps are rel32 ({disp32} keeps as from relaxing them to rel8),
	// forward (patched when the label is bound) and backward.
	for _, c := range conds {
		add(fmt.Sprintf("{disp32} j%s 1f; ret; 1:", condNames[c]), func(a *Emitter) {
			l := NewLabel()
			a.Jcc(c, l)
			a.Ret()
			a.Bind(l)
		})
		add(fmt.Sprintf("1: ret; {disp32} j%s 1b", condNames[c]), func(a *Emitter) {
			l := NewLabel()
			a.Bind(l)
			a.Ret()
			a.Jcc(c, l)
		})
	}
	add("{disp32} jmp 1f; {disp32} jmp 1f; ret; 1:", func(a *Emitter) {
		l := NewLabel()
		a.Jmp(l)
		a.Jmp(l)
		a.Ret()
		a.Bind(l)
	})
	add("1: ret; {disp32} jmp 1b", func(a *Emitter) {
		l := NewLabel()
		a.Bind(l)
		a.Ret()
		a.Jmp(l)
	})
	return cs
}
