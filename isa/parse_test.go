package isa

import (
	"errors"
	"strings"
	"testing"
)

// TestParse checks the assembler on forms the golden file does not use:
// canonical spellings, assembler-only aliases and c. mnemonics.
func TestParse(t *testing.T) {
	const pc = 0x80000000
	tests := []struct {
		name string
		text string
		want uint32
	}{
		{"canonical addi", "addi a0,zero,5", 0x00500513},
		{"architectural register names", "addi x10, x0, 5", 0x00500513},
		{"fp is s0", "addi fp,sp,16", 0x01010413},
		{"a space instead of a tab after the mnemonic", "add a0, a1, a2", 0x00c58533},
		{"hex immediates", "addi a0,a1,-0x10", 0xff058513},
		{"canonical slli", "slli a0,a1,63", 0x03f59513},
		{"canonical jalr", "jalr ra,0(a0)", 0x000500e7},
		{"jalr with three operands", "jalr t6,s11,-1", 0xfffd8fe7},
		{"a load without an offset", "lw a0,(a1)", 0x0005a503},
		{"bgt swaps its operands into blt", "bgt a0,a1,80000010", 0x00a5c863},
		{"bleu swaps its operands into bgeu", "bleu a0,a1,80000010", 0x00a5f863},
		{"a target with 0x", "j 0x80000800", 0x0010006f},
		{"a backward target", "beqz s0,7ffff000", 0x80040063},
		{"csrwi", "csrwi mstatus,5", 0x3002d073},
		{"canonical csrrwi", "csrrwi a0,mstatus,5", 0x3002d573},
		{"csrrs with a CSR number", "csrrs a0,0x300,zero", 0x30002573},
		{"fsflagsi with one operand", "fsflagsi 5", 0x0012d073},
		{"an AMO with .aqrl", "amoadd.w.aqrl a0,a1,(a2)", 0x06b6252f},
		{"lr.d with .rl", "lr.d.rl a0,(a1)", 0x1205b52f},
		{"a Zalasr load-acquire", "lw.aq a0,(a1)", 0x3405a52f},
		{"a Zalasr load-acquire with offset 0, as herd writes it", "lw.aq a0,0(a1)", 0x3405a52f},
		{"a Zalasr load with .aqrl", "ld.aqrl t6,(sp)", 0x36013faf},
		{"a Zalasr store-release", "sb.rl a0,(a1)", 0x3aa5802f},
		{"a Zalasr store with .aqrl", "sw.aqrl t6,0(sp)", 0x3ff1202f},
		{"a plain load is still a plain load", "lw a0,0(a1)", 0x0005a503},
		{"fadd.s without a rounding mode is dyn", "fadd.s fa0,fa1,fa2", 0x00c5f553},
		{"fadd.s with rtz", "fadd.s fa0,fa1,fa2,rtz", 0x00c59553},
		{"fadd.s with an explicit dyn", "fadd.s fa0,fa1,fa2,dyn", 0x00c5f553},
		{"architectural f register names", "fsgnj.d f10,f11,f12", 0x22c58553},
		{"fcvt.d.w with a rounding mode objdump does not print", "fcvt.d.w fa0,a0,rtz", 0xd2051553},
		{"fence with sets", "fence rw,w", 0x0310000f},
		{"fence with an empty set", "fence w,unknown", 0x0100000f},
		{"fence with an empty set written 0", "fence w,0", 0x0100000f},
		{"c.addi on sp", "c.addi sp,-16", 0x1141},
		{"c.addi16sp", "c.addi16sp sp,-16", 0x717d},
		{"c.addi4spn", "c.addi4spn a0,sp,16", 0x0808},
		{"c.lwsp", "c.lwsp a0,12(sp)", 0x4532},
		{"c.sw", "c.sw a0,4(a1)", 0xc1c8},
		{"c.nop", "c.nop", 0x0001},
		{"c.j", "c.j 80000002", 0xa009},
		{"c.bnez", "c.bnez a5,80000002", 0xe389},
		{"c.jr", "c.jr ra", 0x8082},
		{"c.jalr", "c.jalr a0", 0x9502},
		{"c.mv", "c.mv a0,a1", 0x852e},
		{"c.add", "c.add a0,a1", 0x952e},
		{"c.sub", "c.sub a0,a1", 0x8d0d},
		{"c.lui", "c.lui a0,0x1", 0x6505},
		{"c.srli", "c.srli a5,32", 0x9381},
		{"c.slli64", "c.slli64 a0", 0x0502},
		{"c.ebreak", "c.ebreak", 0x9002},
		{"c.unimp", "c.unimp", 0x0000},
		{"hypercall", "hypercall", 0x0000000b},
		{".4byte of an unknown word", ".4byte 0x20b52533", 0x20b52533},
		{".2byte of a reserved word", ".2byte 0x8000", 0x8000},
		{".4byte of a valid word decodes it", ".4byte 0x13", 0x00000013},
	}
	for _, tt := range tests {
		t.Run(tt.name+" assembles "+tt.text, func(t *testing.T) {
			in, err := Parse(tt.text, pc)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.text, err)
			}
			w, err := Encode(in)
			if err != nil {
				t.Fatalf("Encode(%+v): %v", in, err)
			}
			if w != tt.want {
				t.Errorf("Parse(%q) encodes as %#x, want %#x (%+v)", tt.text, w, tt.want, in)
			}
			if in != Decode(w) {
				t.Errorf("Parse(%q) = %+v, want what Decode returns, %+v", tt.text, in, Decode(w))
			}
		})
	}
}

// TestParseErrors checks that Parse rejects bad text and says why.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{"an unknown mnemonic", "frobnicate a0", `unknown mnemonic "frobnicate"`},
		{"too few operands", "sub a0,a1", "takes 3 operands"},
		{"a register out of range", "add a0,a1,x32", `"x32" is not an x register`},
		{"an f register where an x register goes", "add a0,a1,fa0", `"fa0" is not an x register`},
		{"an immediate that does not fit", "addi a0,a1,2048", "immediate 2048 does not fit"},
		{"a memory operand without a closing parenthesis", "lw a0,8(a1", "is not of the form offset(register)"},
		{"c.lwsp relative to a register other than sp", "c.lwsp a0,8(a1)", "base register must be 2 in c.lwsp"},
		{"c.lw with a register outside x8..x15", "c.lw a0,0(sp)", "is not one of x8..x15"},
		{"the rounding mode objdump prints for 5 and 6", "fadd.s fa0,fa1,fa2,unknown", `"unknown" is not a rounding mode`},
		{"a CSR name that does not exist", "csrr a0,mbogus", `"mbogus" is not a CSR name`},
		{"a zimm over 31", "csrwi mstatus,32", "is not a 5-bit unsigned immediate"},
		{"an upper immediate over 20 bits", "lui a0,0x100000", "is not a 20-bit upper immediate"},
		{"a target that is not hex", "j label", `"label" is not a hex address`},
		{"a .2byte that is a 32-bit instruction", ".2byte 0x13", "is not a 16-bit instruction"},
		{"a .4byte that is a 16-bit instruction", ".4byte 0x1", "is not a 32-bit instruction"},
		{"an AMO with an offset", "amoadd.w a0,a1,4(a2)", "has no offset"},
		{"an ordering suffix on a non-atomic op", "add.aq a0,a1,a2", "unknown mnemonic"},
		{"a Zalasr load with an offset", "lw.aq a0,4(a1)", "has no offset"},
		{"a load with release only", "lw.rl a0,(a1)", "a Zalasr load needs aq"},
		{"a store with acquire only", "sw.aq a0,(a1)", "a Zalasr load needs aq and a store rl"},
		{"an unsigned load-acquire, which Zalasr does not have", "lwu.aq a0,(a1)", "unknown mnemonic"},
		{"a fence set with a repeated letter", "fence rr,w", "is not a fence set"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is rejected", func(t *testing.T) {
			in, err := Parse(tt.text, 0)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.text, in)
			}
			if !errors.Is(err, ErrParse) {
				t.Errorf("error %v does not wrap ErrParse", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) error %q does not contain %q", tt.text, err, tt.want)
			}
		})
	}
}
