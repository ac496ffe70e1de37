package board_test

import (
	"fmt"
	"testing"
)

// The RV64I part of the ISA suite (see isa_suite_test.go). Sources are
// a1..a3 (a0 points at the data bytes), the destination a4.

// isaInts are the integer operands every register-register instruction
// meets: zero, ones, the signed and unsigned extremes of 64 and 32 bits,
// shift amounts at and past the width, and patterns with both halves set.
var isaInts = []uint64{
	0, 1, 0xffffffffffffffff, 2, 0x8000000000000000, 0x7fffffffffffffff,
	0x80000000, 0x7fffffff, 0xffffffff, 0xffffffff80000000, 0x100000000,
	31, 32, 63, 64, 0x123456789abcdef0, 0xfedcba9876543210,
}

// isaImms are the 12-bit immediates of the I-type instructions.
var isaImms = []int64{0, 1, -1, 2047, -2048, 0x555, -0x556}

// rr is the case "op a4,a1,a2" with a1 = a, a2 = b.
func rr(op string, a, b uint64) isaCase {
	return isaCase{
		name:  fmt.Sprintf("%s of %#x and %#x", op, a, b),
		set:   []isaReg{{"a1", a}, {"a2", b}},
		lines: []string{op + " a4,a1,a2"},
		outs:  []string{"a4"},
	}
}

// ri is the case "op a4,a1,imm" with a1 = a.
func ri(op string, a uint64, imm int64) isaCase {
	return isaCase{
		name:  fmt.Sprintf("%s of %#x and %d", op, a, imm),
		set:   []isaReg{{"a1", a}},
		lines: []string{fmt.Sprintf("%s a4,a1,%d", op, imm)},
		outs:  []string{"a4"},
	}
}

// withWant returns c requiring the values want.
func withWant(c isaCase, want ...uint64) isaCase {
	c.want = want
	return c
}

func rv64iCases() []isaCase {
	var cs []isaCase
	for _, op := range []string{"add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
		"addw", "subw", "sllw", "srlw", "sraw"} {
		for _, a := range isaInts {
			for _, b := range isaInts {
				cs = append(cs, rr(op, a, b))
			}
		}
	}
	for _, op := range []string{"addi", "slti", "sltiu", "xori", "ori", "andi", "addiw"} {
		for _, a := range isaInts {
			for _, imm := range isaImms {
				cs = append(cs, ri(op, a, imm))
			}
		}
	}
	for _, a := range isaInts {
		for _, sh := range []int64{0, 1, 31, 32, 63} {
			cs = append(cs, ri("slli", a, sh), ri("srli", a, sh), ri("srai", a, sh))
		}
		for _, sh := range []int64{0, 1, 31} {
			cs = append(cs, ri("slliw", a, sh), ri("srliw", a, sh), ri("sraiw", a, sh))
		}
	}
	// Edge cases the specification spells out (RISC-V unprivileged ISA,
	// 20191213: 2.4 and 5.2 for the shifts and W forms).
	cs = append(cs,
		withWant(rr("sll", 1, 64), 1), // 4.2: the shift amount is rs2[5:0]
		withWant(rr("srl", 0x8000000000000000, 65), 0x4000000000000000),
		withWant(rr("sra", 0x8000000000000000, 127), 0xffffffffffffffff),
		withWant(rr("sllw", 1, 32), 1),                  // 5.2: SLLW uses rs2[4:0]
		withWant(rr("sllw", 1, 31), 0xffffffff80000000), // and sign-extends its 32-bit result
		withWant(rr("srlw", 0xffffffff80000000, 0), 0xffffffff80000000),
		withWant(rr("srlw", 0xffffffff80000000, 1), 0x40000000), // SRLW shifts rs1[31:0] only
		withWant(rr("sraw", 0x0000000080000000, 4), 0xfffffffff8000000),
		withWant(rr("addw", 0x7fffffff, 1), 0xffffffff80000000), // overflow wraps, sign-extended
		withWant(rr("subw", 0x80000000, 1), 0x7fffffff),
		withWant(ri("addiw", 0xffffffff00000000|0x7fffffff, 1), 0xffffffff80000000),
		withWant(ri("addiw", 0x123456789, 0), 0x23456789), // sext.w
		withWant(rr("add", 0x7fffffffffffffff, 1), 0x8000000000000000),
		withWant(ri("sltiu", 5, -1), 1), // 2.4: the immediate is sign-extended, then compared unsigned
		withWant(ri("slti", 0x8000000000000000, -2048), 1),
	)
	// x0 as destination: the write is dropped (2.1), but a load still loads.
	for _, l := range []string{"add zero,a1,a2", "addi zero,a1,5", "lui zero,0x12345", "auipc zero,1",
		"addw zero,a1,a2", "slli zero,a1,3", "ld zero,0(a0)", "jal zero,{+4}"} {
		cs = append(cs, isaCase{name: l + " leaves x0 zero", set: []isaReg{{"a1", 7}, {"a2", 9}},
			lines: []string{l}, outs: []string{"zero"}, want: []uint64{0}})
	}
	for _, imm := range []uint64{0, 1, 0x7ffff, 0x80000, 0xfffff, 0x12345} {
		want := uint64(int64(int32(uint32(imm << 12))))
		cs = append(cs, isaCase{name: fmt.Sprintf("lui %#x", imm), lines: []string{fmt.Sprintf("lui a4,%#x", imm)},
			outs: []string{"a4"}, want: []uint64{want}})
		cs = append(cs, isaCase{name: fmt.Sprintf("auipc %#x", imm), lines: []string{fmt.Sprintf("auipc a4,%#x", imm)},
			outs: []string{"a4"}})
	}
	// Loads at every offset of a doubleword pair (aligned and not) and
	// with both signs of every width.
	for _, pat := range [][2]uint64{{0x8081828384858687, 0xf0f1f2f3f4f5f6f7}, {0x0102030405060708, 0x7f6f5f4f3f2f1f0f}} {
		for off := 0; off < 8; off++ {
			for _, op := range []string{"lb", "lbu", "lh", "lhu", "lw", "lwu", "ld"} {
				cs = append(cs, isaCase{
					name:  fmt.Sprintf("%s at offset %d of %#x %#x", op, off, pat[0], pat[1]),
					set:   []isaReg{{"a1", pat[0]}, {"a2", pat[1]}},
					lines: []string{"sd a1,0(a0)", "sd a2,8(a0)", fmt.Sprintf("%s a4,%d(a0)", op, off)},
					outs:  []string{"a4"},
				})
			}
		}
	}
	for off := 0; off < 8; off++ {
		for _, op := range []string{"sb", "sh", "sw", "sd"} {
			cs = append(cs, isaCase{
				name:  fmt.Sprintf("%s at offset %d", op, off),
				set:   []isaReg{{"a1", 0x1122334455667788}, {"a2", 0xffffffffffffffff}},
				lines: []string{"sd a2,0(a0)", "sd a2,8(a0)", fmt.Sprintf("%s a1,%d(a0)", op, off), "ld a4,0(a0)", "ld a5,8(a0)"},
				outs:  []string{"a4", "a5"},
			})
		}
	}
	cs = append(cs, isaCase{name: "a negative offset addresses below the base",
		set:   []isaReg{{"a1", 0xabcdef}},
		lines: []string{"addi a3,a0,64", "sd a1,-24(a3)", "ld a4,40(a0)"}, outs: []string{"a4"}, want: []uint64{0xabcdef}})
	// Branches taken and not: a4 = 1 if taken, 2 if not.
	for _, op := range []string{"beq", "bne", "blt", "bge", "bltu", "bgeu"} {
		for _, p := range [][2]uint64{{0, 0}, {1, 2}, {2, 1}, {0xffffffffffffffff, 1}, {1, 0xffffffffffffffff},
			{0x8000000000000000, 0x7fffffffffffffff}, {0xffffffff, 0xffffffffffffffff}} {
			cs = append(cs, isaCase{
				name:  fmt.Sprintf("%s %#x, %#x", op, p[0], p[1]),
				set:   []isaReg{{"a1", p[0]}, {"a2", p[1]}},
				lines: []string{"addi a4,zero,1", op + " a1,a2,{+8}", "addi a4,zero,2"},
				outs:  []string{"a4"},
			})
		}
	}
	cs = append(cs,
		isaCase{name: "jal links the next pc and skips", lines: []string{"addi a5,zero,0", "jal a4,{+8}", "addi a5,zero,1"},
			outs: []string{"a4", "a5"}},
		isaCase{name: "jalr clears bit 0 of the target (2.5)", lines: []string{"auipc a1,0", "addi a1,a1,17", "jalr a4,0(a1)",
			"addi a5,zero,1", "addi a5,a5,2"}, set: []isaReg{{"a5", 0}}, outs: []string{"a4", "a5"}},
		isaCase{name: "jalr with rd = rs1 jumps to the old value", lines: []string{"auipc a1,0", "addi a1,a1,16", "jalr a1,0(a1)",
			"addi a5,zero,1", "sub a4,a1,a0"}, set: []isaReg{{"a5", 0}}, outs: []string{"a1", "a5"}},
		isaCase{name: "jalr with a negative offset", lines: []string{"auipc a1,0", "addi a1,a1,32", "jalr a4,-16(a1)",
			"addi a5,zero,1", "addi a5,a5,2"}, set: []isaReg{{"a5", 0}}, outs: []string{"a4", "a5"}},
		isaCase{name: "fence and fence.i change no register", set: []isaReg{{"a1", 5}},
			lines: []string{"fence", "fence rw,rw", "fence.i", "addi a4,a1,1"}, outs: []string{"a4"}, want: []uint64{6}},
	)
	return cs
}

// TestISASuiteRV64IAgreesWithQEMUUnderBothEngines runs every RV64I
// instruction on its edge cases under the interpreter, the JIT and QEMU.
func TestISASuiteRV64IAgreesWithQEMUUnderBothEngines(t *testing.T) {
	t.Parallel()
	runISASuite(t, rv64iCases())
}

// Every RV64I instruction a user program runs (the unprivileged manual's
// RV32I and RV64I base instruction listings, but ecall and ebreak, which
// trap: isa_priv_test.go) has cases.
func TestISASuiteRV64ITableCoversEveryRV64IInstruction(t *testing.T) {
	const rv64i = "lui auipc jal jalr beq bne blt bge bltu bgeu lb lh lw lbu lhu lwu ld sb sh sw sd " +
		"addi slti sltiu xori ori andi slli srli srai add sub sll slt sltu xor srl sra or and " +
		"addiw slliw srliw sraiw addw subw sllw srlw sraw fence fence.i"
	if m := missingMnemonics(rv64iCases(), rv64i); len(m) != 0 {
		t.Errorf("no case runs %v", m)
	}
}
