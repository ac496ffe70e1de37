package board_test

import (
	"fmt"
	"testing"
)

// The C part of the ISA suite (see isa_suite_test.go): every RV64C
// instruction but c.ebreak (a trap) in its compressed encoding. The
// registers of the 3-bit fields are x8..x15: a0 (x10) points at the data
// bytes, a1..a5 are operands and destinations. The sp-relative forms run
// with sp moved to the data bytes and put back after.

func rv64cCases() []isaCase {
	var cs []isaCase
	vals := []uint64{0, 1, ones, min64, 0x7fffffff, 0xffffffff, 0x123456789abcdef0}
	one := func(name string, set []isaReg, outs []string, lines ...string) {
		cs = append(cs, isaCase{name: name, set: set, lines: lines, outs: outs})
	}
	for _, v := range vals {
		s := []isaReg{{"a4", v}}
		for _, imm := range []int{1, -1, 31, -32} {
			one(fmt.Sprintf("c.addi %#x %d", v, imm), s, []string{"a4"}, fmt.Sprintf("c.addi a4,%d", imm))
			one(fmt.Sprintf("c.addiw %#x %d", v, imm), s, []string{"a4"}, fmt.Sprintf("c.addiw a4,%d", imm))
			one(fmt.Sprintf("c.andi %#x %d", v, imm), s, []string{"a4"}, fmt.Sprintf("c.andi a4,%d", imm))
		}
		one(fmt.Sprintf("c.addiw %#x 0 (sext.w)", v), s, []string{"a4"}, "c.addiw a4,0")
		for _, sh := range []int{1, 31, 32, 63} {
			one(fmt.Sprintf("c.slli %#x %d", v, sh), s, []string{"a4"}, fmt.Sprintf("c.slli a4,%d", sh))
			one(fmt.Sprintf("c.srli %#x %d", v, sh), s, []string{"a4"}, fmt.Sprintf("c.srli a4,%d", sh))
			one(fmt.Sprintf("c.srai %#x %d", v, sh), s, []string{"a4"}, fmt.Sprintf("c.srai a4,%d", sh))
		}
		for _, w := range []uint64{1, ones, 0x80000000, 0x123456789abcdef0} {
			s2 := []isaReg{{"a4", v}, {"a2", w}}
			for _, op := range []string{"c.sub", "c.xor", "c.or", "c.and", "c.subw", "c.addw", "c.add", "c.mv"} {
				one(fmt.Sprintf("%s %#x %#x", op, v, w), s2, []string{"a4"}, op+" a4,a2")
			}
		}
	}
	for _, imm := range []int{0, 1, -1, 31, -32} {
		one(fmt.Sprintf("c.li %d", imm), nil, []string{"a4"}, fmt.Sprintf("c.li a4,%d", imm))
	}
	for _, imm := range []uint64{1, 0x1f, 0xfffe0, 0xfffff} {
		one(fmt.Sprintf("c.lui %#x", imm), nil, []string{"a4"}, fmt.Sprintf("c.lui a4,%#x", imm))
	}
	one("c.nop changes nothing", []isaReg{{"a4", 5}}, []string{"a4"}, "c.nop")
	one("c.addi4spn", nil, []string{"a4"}, "c.addi4spn a4,sp,16", "c.addi4spn a5,sp,1020")
	one("c.addi16sp", nil, []string{"a4", "a5"}, "mv a5,sp", "c.addi16sp sp,-512", "sub a4,a5,sp", "c.addi16sp sp,496", "c.addi16sp sp,16", "sub a5,a5,sp")
	pat := []isaReg{{"a1", 0x8081828384858687}, {"a2", 0xf0f1f2f3f4f5f6f7}}
	fill := []string{"sd a1,0(a0)", "sd a2,8(a0)", "sd a1,248(a0)", "sd a2,120(a0)"}
	one("c.lw and c.ld", pat, []string{"a4", "a5", "a3"}, append(fill, "c.lw a4,4(a0)", "c.ld a5,8(a0)", "c.lw a3,120(a0)")...)
	one("c.fld", pat, []string{"fa4", "fa5"}, append(fill, "c.fld fa4,0(a0)", "c.fld fa5,248(a0)")...)
	one("c.sw and c.sd", pat, []string{"a4", "a5"}, "sd zero,0(a0)", "sd zero,8(a0)", "c.sw a1,4(a0)", "c.sd a2,8(a0)", "ld a4,0(a0)", "ld a5,8(a0)")
	one("c.fsd", []isaReg{{"fa1", 0x7ff0000000000001}}, []string{"a4"}, "c.fsd fa1,248(a0)", "ld a4,248(a0)")
	sp := func(lines ...string) []string {
		return append(append([]string{"mv sp,a0"}, lines...), fmt.Sprintf("addi sp,s0,%d", spOff-s0Off))
	}
	one("c.lwsp and c.ldsp", pat, []string{"a4", "a5", "a3"}, append(fill, sp("c.lwsp a4,4(sp)", "c.ldsp a5,248(sp)", "c.lwsp a3,252(sp)")...)...)
	one("c.fldsp", pat, []string{"fa4"}, append(fill, sp("c.fldsp fa4,8(sp)")...)...)
	one("c.swsp and c.sdsp", pat, []string{"a4", "a5"}, sp("sd zero,0(sp)", "c.swsp a1,4(sp)", "c.sdsp a2,200(sp)", "ld a4,0(sp)", "ld a5,200(sp)")...)
	one("c.fsdsp", []isaReg{{"fa1", 0xfff8000000000123}}, []string{"a4"}, sp("c.fsdsp fa1,24(sp)", "ld a4,24(sp)")...)
	// Control transfer: a4 = 1 if the jump or branch is taken.
	for _, v := range []uint64{0, 1, min64} {
		one(fmt.Sprintf("c.beqz %#x", v), []isaReg{{"a1", v}}, []string{"a4"}, "c.li a4,1", "c.beqz a1,{+4}", "c.li a4,2")
		one(fmt.Sprintf("c.bnez %#x", v), []isaReg{{"a1", v}}, []string{"a4"}, "c.li a4,1", "c.bnez a1,{+4}", "c.li a4,2")
	}
	one("c.j", nil, []string{"a4"}, "c.li a4,1", "c.j {+4}", "c.li a4,2")
	one("c.jr", nil, []string{"a4"}, "c.li a4,1", "auipc a1,0", "addi a1,a1,12", "c.jr a1", "c.li a4,2")
	one("c.jalr links pc+2", nil, []string{"a4", "ra"}, "c.li a4,1", "auipc a1,0", "addi a1,a1,12", "c.jalr a1", "c.li a4,2")
	return cs
}

// TestISASuiteRV64CAgreesWithQEMUUnderBothEngines runs every RV64C
// instruction under the interpreter, the JIT and QEMU.
func TestISASuiteRV64CAgreesWithQEMUUnderBothEngines(t *testing.T) {
	t.Parallel()
	runISASuite(t, rv64cCases())
}

// Every RV64C instruction but c.ebreak (which traps: isa_priv_test.go)
// has cases, c.nop included.
func TestISASuiteRV64CTableCoversEveryInstructionButCEbreak(t *testing.T) {
	const rv64c = "c.addi4spn c.fld c.lw c.ld c.fsd c.sw c.sd c.nop c.addi c.addiw c.li c.addi16sp c.lui " +
		"c.srli c.srai c.andi c.sub c.xor c.or c.and c.subw c.addw c.j c.beqz c.bnez " +
		"c.slli c.fldsp c.lwsp c.ldsp c.jr c.mv c.jalr c.add c.fsdsp c.swsp c.sdsp"
	if m := missingMnemonics(rv64cCases(), rv64c); len(m) != 0 {
		t.Errorf("no case runs %v", m)
	}
}
