package isa

import (
	"errors"
	"strings"
	"testing"
)

// TestEncode checks encodings built from fields rather than decoded words.
func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		in   Inst
		want uint32
	}{
		{"addi with the most negative immediate", Inst{Op: ADDI, Rd: 10, Rs1: 11, Imm: -2048}, 0x80058513},
		{"lui takes the already-shifted value", Inst{Op: LUI, Rd: 1, Imm: -0x80000000}, 0x800000b7},
		{"a backward branch", Inst{Op: BNE, Rs1: 10, Imm: -2}, 0xfe051fe3},
		{"slli by 63 uses shamt[5]", Inst{Op: SLLI, Rd: 27, Rs1: 26, Imm: 63}, 0x03fd1d93},
		{"csrrwi puts zimm in the rs1 field", Inst{Op: CSRRWI, Rs1: 31, CSR: CSRSatp}, 0x180fd073},
		{"fmadd.s puts rs3 in bits 31:27 and rm in funct3", Inst{Op: FMADD_S, Rd: 10, Rs1: 11, Rs2: 12, Rs3: 13, RM: RNE}, 0x68c58543},
		{"amoswap.d.aqrl sets bits 26 and 25", Inst{Op: AMOSWAP_D, Rd: 31, Rs1: 29, Rs2: 30, AQ: true, RL: true}, 0x0feebfaf},
		{"fence.tso is fence with fm=1000 pred=succ=rw", Inst{Op: FENCE, Imm: 0x833}, 0x8330000f},
		{"c.addi4spn scales its immediate", Inst{Op: ADDI, C: C_ADDI4SPN, Rd: 8, Rs1: 2, Imm: 1020}, 0x1fe0},
		{"c.addi16sp", Inst{Op: ADDI, C: C_ADDI16SP, Rd: 2, Rs1: 2, Imm: -16}, 0x717d},
		{"c.addi on sp is a different form from c.addi16sp", Inst{Op: ADDI, C: C_ADDI, Rd: 2, Rs1: 2, Imm: -16}, 0x1141},
		{"c.j backwards", Inst{Op: JAL, C: C_J, Imm: -2}, 0xbffd},
		{"c.beqz forwards", Inst{Op: BEQ, C: C_BEQZ, Rs1: 10, Imm: 254}, 0xcd7d},
		{"c.sdsp", Inst{Op: SD, C: C_SDSP, Rs1: 2, Rs2: 27, Imm: 504}, 0xffee},
		{"c.nop HINT with an immediate", Inst{Op: ADDI, C: C_NOP, Imm: -1}, 0x107d},
		{"an ILLEGAL 16-bit instruction encodes as its Raw bits", Inst{Op: ILLEGAL, Len: 2, Raw: 0x8000}, 0x8000},
		{"an ILLEGAL 32-bit instruction encodes as its Raw bits", Inst{Op: ILLEGAL, Len: 4, Raw: 0x20b52533}, 0x20b52533},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(tt.in)
			if err != nil {
				t.Fatalf("Encode(%+v): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Encode(%+v) = %#x, want %#x", tt.in, got, tt.want)
			}
		})
	}
}

// TestEncodeErrors checks that Encode refuses fields that do not fit, and
// says which op and field.
func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   Inst
		want string // substring of the error
	}{
		{"an immediate one past the I-type range", Inst{Op: ADDI, Rd: 1, Imm: 2048}, "addi: immediate 2048 does not fit (range -2048..2047)"},
		{"an odd branch offset", Inst{Op: BEQ, Imm: 3}, "beq: immediate 3 does not fit (range -4096..4095, a multiple of 2)"},
		{"a lui value with low bits set", Inst{Op: LUI, Rd: 1, Imm: 0x1001}, "lui: immediate 4097 does not fit"},
		{"a shift by 64", Inst{Op: SLLI, Imm: 64}, "slli: immediate 64 does not fit (range 0..63)"},
		{"a *W shift by 32", Inst{Op: SLLIW, Imm: 32}, "slliw: immediate 32 does not fit (range 0..31)"},
		{"register 32", Inst{Op: ADD, Rd: 32}, "add: register rd=32 is not below 32"},
		{"a field the op does not use", Inst{Op: ADD, Imm: 5}, "add: field imm=5 is not part of the encoding"},
		{"a rounding mode on an op without one", Inst{Op: FSGNJ_S, RM: 1}, "fsgnj.s: field rm=1"},
		{"aq on a non-atomic op", Inst{Op: LW, AQ: true}, "lw: field aq/rl"},
		{"a Zalasr load without aq", Inst{Op: LW_AQ, Rd: 1, RL: true}, "lw.aq: a Zalasr load needs aq"},
		{"a Zalasr store without rl", Inst{Op: SD_RL, Rs2: 1, AQ: true}, "sd.rl: a Zalasr load needs aq and a store rl"},
		{"a Zalasr store with rd", Inst{Op: SW_RL, Rd: 1, RL: true}, "sw.rl: field rd=1"},
		{"a CSR number over 12 bits", Inst{Op: CSRRS, CSR: 0x1000}, "csrrs: CSR number 0x1000 does not fit in 12 bits"},
		{"a zimm over 5 bits", Inst{Op: CSRRWI, Rs1: 32}, "csrrwi: zimm 32 does not fit in 5 bits"},
		{"a rounding mode over 3 bits", Inst{Op: FADD_D, RM: 8}, "fadd.d: rounding mode 8 does not fit"},
		{"an op out of range", Inst{Op: NumOps}, "out of range"},
		{"an ILLEGAL instruction without a length", Inst{Op: ILLEGAL}, "illegal instruction with Len 0"},
		{"an ILLEGAL 16-bit instruction whose Raw is 32-bit", Inst{Op: ILLEGAL, Len: 2, Raw: 0x13}, "Raw is not an instruction of that length"},
		{"a compressed form of another op", Inst{Op: ADD, C: C_ADDI}, "c.addi expands to addi, not add"},
		{"c.lw with a register outside x8..x15", Inst{Op: LW, C: C_LW, Rd: 5, Rs1: 8}, "c.lw: register rd=x5 is not one of x8..x15"},
		{"c.lwsp with a misaligned offset", Inst{Op: LW, C: C_LWSP, Rd: 1, Rs1: 2, Imm: 2}, "c.lwsp: immediate 2 does not fit (range 0..255, a multiple of 4)"},
		{"c.lwsp with a base other than sp", Inst{Op: LW, C: C_LWSP, Rd: 1, Rs1: 3}, "c.lwsp: field rs1=3 cannot be expressed; the form implies rs1=2"},
		{"c.addi with rs1 != rd", Inst{Op: ADDI, C: C_ADDI, Rd: 10, Rs1: 11, Imm: 1}, "field rs1=11 cannot be expressed; the form implies rs1=10"},
		{"c.addi to x0, which is c.nop", Inst{Op: ADDI, C: C_ADDI, Imm: 1}, "which is c.nop, not c.addi"},
		{"c.addi4spn with a zero immediate (reserved)", Inst{Op: ADDI, C: C_ADDI4SPN, Rd: 8, Rs1: 2}, "which is reserved"},
		{"c.lui with a zero immediate (reserved)", Inst{Op: LUI, C: C_LUI, Rd: 10}, "which is reserved"},
		{"c.lui to sp, which is c.addi16sp", Inst{Op: LUI, C: C_LUI, Rd: 2, Imm: 0x1000}, "which is c.addi16sp"},
		{"c.jr x0 (reserved)", Inst{Op: JALR, C: C_JR}, "which is reserved"},
		{"c.ldsp to x0 (reserved)", Inst{Op: LD, C: C_LDSP, Rs1: 2}, "which is reserved"},
		{"c.j linking to ra (that is RV32's c.jal)", Inst{Op: JAL, C: C_J, Rd: 1}, "the form implies rd=0"},
		{"c.jalr with an offset", Inst{Op: JALR, C: C_JALR, Rd: 1, Rs1: 10, Imm: 4}, "the form implies imm=0"},
		{"a c.li immediate out of range", Inst{Op: ADDI, C: C_LI, Rd: 10, Imm: 32}, "c.li: immediate 32 does not fit (range -32..31)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Encode(tt.in)
			if err == nil {
				t.Fatalf("Encode(%+v) = %#x, want an error", tt.in, w)
			}
			if !errors.Is(err, ErrEncode) {
				t.Errorf("error %v does not wrap ErrEncode", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Encode(%+v) error %q does not contain %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestCompress checks the choice of compressed form.
func TestCompress(t *testing.T) {
	tests := []struct {
		name string
		in   Inst
		want COp // CNone: no compressed form
	}{
		{"addi sp,sp,-16 prefers c.addi, the earlier form", Inst{Op: ADDI, Rd: 2, Rs1: 2, Imm: -16}, C_ADDI},
		{"addi sp,sp,-64 needs c.addi16sp", Inst{Op: ADDI, Rd: 2, Rs1: 2, Imm: -64}, C_ADDI16SP},
		{"addi a0,sp,16 is c.addi4spn", Inst{Op: ADDI, Rd: 10, Rs1: 2, Imm: 16}, C_ADDI4SPN},
		{"addi x0,x0,0 is c.nop", Inst{Op: ADDI}, C_NOP},
		{"addi a0,x0,5 is c.li", Inst{Op: ADDI, Rd: 10, Imm: 5}, C_LI},
		{"addi a0,a1,0 (mv) has no compressed form", Inst{Op: ADDI, Rd: 10, Rs1: 11}, CNone},
		{"add a0,x0,a1 is c.mv", Inst{Op: ADD, Rd: 10, Rs2: 11}, C_MV},
		{"ld a0,8(sp) is c.ldsp", Inst{Op: LD, Rd: 10, Rs1: 2, Imm: 8}, C_LDSP},
		{"ld s0,8(s1) is c.ld", Inst{Op: LD, Rd: 8, Rs1: 9, Imm: 8}, C_LD},
		{"ld a0,4(sp) is misaligned for c.ldsp", Inst{Op: LD, Rd: 10, Rs1: 2, Imm: 4}, CNone},
		{"jalr x0,0(ra) is c.jr", Inst{Op: JALR, Rs1: 1}, C_JR},
		{"jal ra has no RV64 compressed form", Inst{Op: JAL, Rd: 1, Imm: 8}, CNone},
		{"mul has no compressed form", Inst{Op: MUL, Rd: 8, Rs1: 8, Rs2: 9}, CNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Compress(tt.in)
			if tt.want == CNone {
				if ok {
					t.Errorf("Compress(%+v) = %+v, want none", tt.in, got)
				}
				return
			}
			if !ok || got.C != tt.want || got.Len != 2 {
				t.Errorf("Compress(%+v) = %+v, %v, want form %v", tt.in, got, ok, tt.want)
			}
		})
	}
}
