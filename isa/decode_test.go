package isa

import (
	"math/rand/v2"
	"testing"
)

// TestDecode checks decodes that are easy to get wrong: scrambled
// compressed immediates, sign extension, RV64 shift amounts, CSR and
// rounding-mode fields, AMO ordering bits, HINTs, and reserved encodings.
// want leaves Len and Raw zero; the test fills them in from the word.
func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		word uint32
		want Inst
	}{
		// Compressed immediates (Unprivileged §16.3-16.5, table 16.5-16.7).
		{"c.addi16sp scatters nzimm[9|4|6|8:7|5] and scales by 16 (§16.5)", 0x717d,
			Inst{Op: ADDI, C: C_ADDI16SP, Rd: 2, Rs1: 2, Imm: -16}},
		{"c.addi16sp reaches its minimum -512", 0x7101, Inst{Op: ADDI, C: C_ADDI16SP, Rd: 2, Rs1: 2, Imm: -512}},
		{"c.addi16sp reaches its maximum 496", 0x617d, Inst{Op: ADDI, C: C_ADDI16SP, Rd: 2, Rs1: 2, Imm: 496}},
		{"c.addi4spn zero-extends nzuimm[5:4|9:6|2|3] up to 1020 (§16.5)", 0x1fe0,
			Inst{Op: ADDI, C: C_ADDI4SPN, Rd: 8, Rs1: 2, Imm: 1020}},
		{"c.addi4spn with the smallest offset 4", 0x0048, Inst{Op: ADDI, C: C_ADDI4SPN, Rd: 10, Rs1: 2, Imm: 4}},
		{"c.lwsp scales uimm[5|4:2|7:6] by 4 up to 252 (§16.3)", 0x5ffe, Inst{Op: LW, C: C_LWSP, Rd: 31, Rs1: 2, Imm: 252}},
		{"c.ldsp scales uimm[5|4:3|8:6] by 8 up to 504", 0x7dfe, Inst{Op: LD, C: C_LDSP, Rd: 27, Rs1: 2, Imm: 504}},
		{"c.fldsp loads an f register relative to sp", 0x3ffe, Inst{Op: FLD, C: C_FLDSP, Rd: 31, Rs1: 2, Imm: 504}},
		{"c.sdsp scatters uimm[5:3|8:6] up to 504 (§16.3)", 0xffee, Inst{Op: SD, C: C_SDSP, Rs1: 2, Rs2: 27, Imm: 504}},
		{"c.swsp scatters uimm[5:2|7:6] up to 252", 0xdffe, Inst{Op: SW, C: C_SWSP, Rs1: 2, Rs2: 31, Imm: 252}},
		{"c.fsdsp stores an f register relative to sp", 0xa02a, Inst{Op: FSD, C: C_FSDSP, Rs1: 2, Rs2: 10}},
		{"c.lw takes x8..x15 and uimm[5:3|2|6]", 0x5fe0, Inst{Op: LW, C: C_LW, Rd: 8, Rs1: 15, Imm: 124}},
		{"c.ld takes uimm[5:3|7:6]", 0x7fe4, Inst{Op: LD, C: C_LD, Rd: 9, Rs1: 15, Imm: 248}},
		{"c.fld loads an f register", 0x3fe0, Inst{Op: FLD, C: C_FLD, Rd: 8, Rs1: 15, Imm: 248}},
		{"c.sw stores rs2' at rs1'+uimm", 0xdfe4, Inst{Op: SW, C: C_SW, Rs1: 15, Rs2: 9, Imm: 124}},
		{"c.sd stores rs2' at rs1'+uimm", 0xffe0, Inst{Op: SD, C: C_SD, Rs1: 15, Rs2: 8, Imm: 248}},
		{"c.fsd stores an f register", 0xbc7c, Inst{Op: FSD, C: C_FSD, Rs1: 8, Rs2: 15, Imm: 248}},
		{"c.j scatters offset[11|4|9:8|10|6|7|3:1|5] up to +2046 (§16.4)", 0xaffd, Inst{Op: JAL, C: C_J, Imm: 2046}},
		{"c.j reaches back to -2048", 0xb001, Inst{Op: JAL, C: C_J, Imm: -2048}},
		{"c.beqz scatters offset[8|4:3|7:6|2:1|5] up to +254 (§16.4)", 0xcd7d, Inst{Op: BEQ, C: C_BEQZ, Rs1: 10, Imm: 254}},
		{"c.bnez reaches back to -256", 0xf001, Inst{Op: BNE, C: C_BNEZ, Rs1: 8, Imm: -256}},
		{"c.lui sign-extends nzimm[17] into the upper bits", 0x7081, Inst{Op: LUI, C: C_LUI, Rd: 1, Imm: -0x20000}},
		{"c.lui with nzimm 0x1f000", 0x6ffd, Inst{Op: LUI, C: C_LUI, Rd: 31, Imm: 0x1f000}},
		{"c.li sign-extends imm[5]", 0x5f81, Inst{Op: ADDI, C: C_LI, Rd: 31, Imm: -32}},
		{"c.addi adds to rd in place", 0x1f81, Inst{Op: ADDI, C: C_ADDI, Rd: 31, Rs1: 31, Imm: -32}},
		{"c.addiw with imm 0 is sext.w", 0x2501, Inst{Op: ADDIW, C: C_ADDIW, Rd: 10, Rs1: 10}},
		{"c.andi sign-extends its immediate", 0x9801, Inst{Op: ANDI, C: C_ANDI, Rd: 8, Rs1: 8, Imm: -32}},
		{"c.srli shifts by 32 on RV64 (shamt[5] set)", 0x9381, Inst{Op: SRLI, C: C_SRLI, Rd: 15, Rs1: 15, Imm: 32}},
		{"c.srai shifts by 63", 0x94fd, Inst{Op: SRAI, C: C_SRAI, Rd: 9, Rs1: 9, Imm: 63}},
		{"c.slli shifts by 63", 0x1ffe, Inst{Op: SLLI, C: C_SLLI, Rd: 31, Rs1: 31, Imm: 63}},
		{"c.sub operates on x8..x15", 0x8d0d, Inst{Op: SUB, C: C_SUB, Rd: 10, Rs1: 10, Rs2: 11}},
		{"c.subw operates on x8..x15", 0x9d1d, Inst{Op: SUBW, C: C_SUBW, Rd: 10, Rs1: 10, Rs2: 15}},
		{"c.addw operates on x8..x15", 0x9c21, Inst{Op: ADDW, C: C_ADDW, Rd: 8, Rs1: 8, Rs2: 8}},
		{"c.jr expands to jalr x0, 0(rs1)", 0x8082, Inst{Op: JALR, C: C_JR, Rs1: 1}},
		{"c.jalr expands to jalr ra, 0(rs1)", 0x9502, Inst{Op: JALR, C: C_JALR, Rd: 1, Rs1: 10}},
		{"c.mv expands to add rd, x0, rs2", 0x852e, Inst{Op: ADD, C: C_MV, Rd: 10, Rs2: 11}},
		{"c.add expands to add rd, rd, rs2", 0x952e, Inst{Op: ADD, C: C_ADD, Rd: 10, Rs1: 10, Rs2: 11}},
		{"c.ebreak expands to ebreak", 0x9002, Inst{Op: EBREAK, C: C_EBREAK}},
		{"high bits of a compressed word are ignored", 0xffff0001, Inst{Op: ADDI, C: C_NOP}},

		// HINTs decode as their ordinary op (§2.9, §16.7).
		{"c.nop with a nonzero immediate is a HINT", 0x107d, Inst{Op: ADDI, C: C_NOP, Imm: -1}},
		{"c.addi with a zero immediate is a HINT", 0x0501, Inst{Op: ADDI, C: C_ADDI, Rd: 10, Rs1: 10}},
		{"c.li to x0 is a HINT", 0x4005, Inst{Op: ADDI, C: C_LI, Imm: 1}},
		{"c.lui to x0 is a HINT", 0x6005, Inst{Op: LUI, C: C_LUI, Imm: 0x1000}},
		{"c.slli to x0 is a HINT", 0x0006, Inst{Op: SLLI, C: C_SLLI, Imm: 1}},
		{"c.slli by 0 is a HINT", 0x0502, Inst{Op: SLLI, C: C_SLLI, Rd: 10, Rs1: 10}},
		{"c.srli by 0 is a HINT", 0x8001, Inst{Op: SRLI, C: C_SRLI, Rd: 8, Rs1: 8}},
		{"c.mv to x0 is a HINT", 0x8006, Inst{Op: ADD, C: C_MV, Rs2: 1}},
		{"c.add to x0 is a HINT", 0x9006, Inst{Op: ADD, C: C_ADD, Rs2: 1}},
		{"addi x0, x0, 5 is a HINT", 0x00500013, Inst{Op: ADDI, Imm: 5}},
		{"a fence with nonzero rd and rs1 is a HINT that keeps them (§2.7)", 0x0ff5000f,
			Inst{Op: FENCE, Rs1: 10, Imm: 0x0ff}},
		{"a fence with fm=1000 but not rw,rw is a plain fence (§2.7)", 0x8ff0000f, Inst{Op: FENCE, Imm: 0x8ff}},
		{"fence.i keeps its ignored imm, rs1 and rd fields (§3)", 0x0015100f, Inst{Op: FENCE_I, Rs1: 10, Imm: 1}},

		// Sign extension of 32-bit immediates (§2.3).
		{"addi sign-extends imm[11]", 0x80058513, Inst{Op: ADDI, Rd: 10, Rs1: 11, Imm: -2048}},
		{"lui keeps the value shifted, sign-extended from bit 31", 0x800000b7, Inst{Op: LUI, Rd: 1, Imm: -0x80000000}},
		{"lui 0xfffff is -4096", 0xffffffb7, Inst{Op: LUI, Rd: 31, Imm: -4096}},
		{"auipc 0x7ffff is the largest positive offset", 0x7fffff97, Inst{Op: AUIPC, Rd: 31, Imm: 0x7ffff000}},
		{"jal reaches back 1 MiB", 0x80000fef, Inst{Op: JAL, Rd: 31, Imm: -0x100000}},
		{"jal reaches forward 1 MiB - 2", 0x7ffff56f, Inst{Op: JAL, Rd: 10, Imm: 0xffffe}},
		{"beq reaches forward 4094", 0x7eb50fe3, Inst{Op: BEQ, Rs1: 10, Rs2: 11, Imm: 4094}},
		{"bltu reaches back 4096", 0x81f06063, Inst{Op: BLTU, Rs2: 31, Imm: -4096}},
		{"sd splits its offset over two fields", 0xffb43c23, Inst{Op: SD, Rs1: 8, Rs2: 27, Imm: -8}},
		{"lb sign-extends its offset", 0x80010503, Inst{Op: LB, Rd: 10, Rs1: 2, Imm: -2048}},
		{"jalr sign-extends its offset", 0xfffd8fe7, Inst{Op: JALR, Rd: 31, Rs1: 27, Imm: -1}},

		// RV64 shifts (§5.2).
		{"slli takes a 6-bit shift amount up to 63", 0x03fd1d93, Inst{Op: SLLI, Rd: 27, Rs1: 26, Imm: 63}},
		{"srli by 33 uses shamt[5]", 0x0215d513, Inst{Op: SRLI, Rd: 10, Rs1: 11, Imm: 33}},
		{"srai by 32 keeps bit 30 as the arithmetic flag", 0x4205d513, Inst{Op: SRAI, Rd: 10, Rs1: 11, Imm: 32}},
		{"sraiw by 31", 0x41f5d51b, Inst{Op: SRAIW, Rd: 10, Rs1: 11, Imm: 31}},

		// CSR fields (§9.1).
		{"csrrw keeps the CSR number and rs1", 0x30059573, Inst{Op: CSRRW, Rd: 10, Rs1: 11, CSR: CSRMstatus}},
		{"csrrwi keeps zimm in Rs1", 0x180fd073, Inst{Op: CSRRWI, Rs1: 31, CSR: CSRSatp}},
		{"csrrs with the highest CSR number", 0xfff5a573, Inst{Op: CSRRS, Rd: 10, Rs1: 11, CSR: 0xfff}},
		{"csrrw x0, cycle, x0 is objdump's unimp but decodes as csrrw", 0xc0001073, Inst{Op: CSRRW, CSR: CSRCycle}},

		// Rounding modes (§11.2): kept raw, including the reserved 5 and 6.
		{"fadd.s with rm=rne", 0x00208053, Inst{Op: FADD_S, Rs1: 1, Rs2: 2, RM: RNE}},
		{"fadd.s with rm=dyn", 0x0020f053, Inst{Op: FADD_S, Rs1: 1, Rs2: 2, RM: DYN}},
		{"fadd.s with the reserved rm 5 decodes; execution traps", 0x0020d053, Inst{Op: FADD_S, Rs1: 1, Rs2: 2, RM: 5}},
		{"fmadd.d keeps rs3 and rm", 0x6ac59547, Inst{Op: FMSUB_D, Rd: 10, Rs1: 11, Rs2: 12, Rs3: 13, RM: RTZ}},
		{"fcvt.w.s with rm=rtz", 0xc0051553, Inst{Op: FCVT_W_S, Rd: 10, Rs1: 10, RM: RTZ}},
		{"fcvt.d.s with rm=dyn decodes although objdump knows only rne", 0x4200f053, Inst{Op: FCVT_D_S, Rs1: 1, RM: DYN}},
		{"fcvt.s.d selects by rs2=1", 0x40158553, Inst{Op: FCVT_S_D, Rd: 10, Rs1: 11, RM: RNE}},

		// AMO ordering bits (§8.2).
		{"lr.w.aqrl sets both bits", 0x1605a52f, Inst{Op: LR_W, Rd: 10, Rs1: 11, AQ: true, RL: true}},
		{"amoadd.d.aq sets aq only", 0x04b6352f, Inst{Op: AMOADD_D, Rd: 10, Rs1: 12, Rs2: 11, AQ: true}},
		{"sc.w.rl sets rl only", 0x1bff202f, Inst{Op: SC_W, Rs1: 30, Rs2: 31, RL: true}},
		{"amomaxu.w has funct5 11100", 0xe0b6252f, Inst{Op: AMOMAXU_W, Rd: 10, Rs1: 12, Rs2: 11}},

		// Zalasr: funct5 00110 loads, 00111 stores; the load always has
		// aq, the store rl, and the other bit is the instruction's.
		{"lw.aq has funct5 00110 and aq", 0x3405a52f, Inst{Op: LW_AQ, Rd: 10, Rs1: 11, AQ: true}},
		{"ld.aqrl sets rl too", 0x36013faf, Inst{Op: LD_AQ, Rd: 31, Rs1: 2, AQ: true, RL: true}},
		{"sb.rl has funct5 00111 and rl", 0x3aa5802f, Inst{Op: SB_RL, Rs1: 11, Rs2: 10, RL: true}},
		{"sw.aqrl sets aq too", 0x3ff1202f, Inst{Op: SW_RL, Rs1: 2, Rs2: 31, AQ: true, RL: true}},
		{"a load-acquire without aq is reserved", 0x3005a52f, Inst{Op: ILLEGAL}},
		{"a store-release without rl is reserved", 0x3ca5a02f, Inst{Op: ILLEGAL}},
		{"a load-acquire with rs2 set is reserved", 0x3415a52f, Inst{Op: ILLEGAL}},
		{"a store-release with rd set is reserved", 0x3aa5a0af, Inst{Op: ILLEGAL}},
		{"a load-acquire wider than d is reserved", 0x3405c52f, Inst{Op: ILLEGAL}},

		{"0x0000000b is the hypercall", 0x0000000b, Inst{Op: HYPERCALL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			want.Len, want.Raw = 4, tt.word
			if tt.word&3 != 3 {
				want.Len, want.Raw = 2, tt.word&0xffff
			}
			if got := Decode(tt.word); got != want {
				t.Errorf("Decode(%#x) =\n  %+v, want\n  %+v", tt.word, got, want)
			}
		})
	}
}

// TestDecodeIllegal checks that reserved encodings and encodings outside
// RV64IMAFDC+Zicsr+Zifencei+privileged decode to ILLEGAL.
func TestDecodeIllegal(t *testing.T) {
	tests := []struct {
		name string
		word uint32
	}{
		{"the all-zero 16-bit word is defined illegal (§16.1)", 0x0000},
		{"c.addi4spn with nzuimm=0 is reserved (§16.5)", 0x0004},
		{"c.addi16sp with nzimm=0 is reserved (§16.5)", 0x6101},
		{"c.lui with nzimm=0 is reserved", 0x6081},
		{"c.lui to x0 with nzimm=0 is reserved", 0x6001},
		{"c.jr with rs1=x0 is reserved (§16.4)", 0x8002},
		{"c.lwsp with rd=x0 is reserved (§16.3)", 0x4002},
		{"c.ldsp with rd=x0 is reserved", 0x6002},
		{"c.addiw with rd=x0 is reserved", 0x2001},
		{"quadrant 0 funct3 100 is reserved", 0x8000},
		{"CA funct2 10 with bit 12 set is reserved", 0x9c41},
		{"CA funct2 11 with bit 12 set is reserved", 0x9c61},
		{"a 48-bit or longer encoding is not decoded (§1.5)", 0x0000001f},
		{"the all-ones word is a longer encoding", 0xffffffff},
		{"load funct3 111 (RV128 ldu) is not RV64", 0x00007003},
		{"store funct3 100 (RV128 sq) is not RV64", 0x00004023},
		{"branch funct3 010 is reserved", 0x00002063},
		{"jalr with funct3 1 is reserved", 0x00001067},
		{"slli with shamt bit 6 (imm[6]) set is reserved", 0x04051513},
		{"srai with a funct6 other than 010000 is reserved", 0x6035d513},
		{"slliw with shamt[5] set is reserved on RV64 (§5.2)", 0x0205151b},
		{"sraiw with shamt[5] set is reserved", 0x4205d51b},
		{"add with funct7 0000010 is not RV64GC", 0x04b50533},
		{"sub with funct3 001 is not RV64GC", 0x40b51533},
		{"Zba sh1add is not implemented", 0x20b52533},
		{"ecall with nonzero rd is reserved", 0x000000f3},
		{"mret with nonzero rs1 is reserved", 0x30208073},
		{"sfence.vma with nonzero rd is reserved", 0x12000173},
		{"SYSTEM funct3 100 (hypervisor loads) is not implemented", 0x00004073},
		{"lr.w with rs2 != 0 is reserved (§8.2)", 0x10b5a52f},
		{"an AMO with funct3 100 is not RV64", 0x0000402f},
		{"an AMO with funct5 00101 is not defined", 0x2800202f},
		{"flh (fmt/width 001) is not RV64GC", 0x00001007},
		{"fmadd with fmt=10 (half precision) is not implemented", 0x04c5f543},
		{"fmadd with fmt=11 (quad precision) is not implemented", 0x06c5f543},
		{"fadd.h (fmt=10) is not implemented", 0x04000053},
		{"fsqrt.s with rs2 != 0 is reserved", 0x58158553},
		{"fcvt.w.s with rs2=4 is not defined", 0xc0458553},
		{"fcvt.d.s with rs2=1 is not defined", 0x42158553},
		{"fmv.x.w with funct3 010 is not defined", 0xe0052553},
		{"fsgnj.s with funct3 011 is not defined", 0x20003053},
		{"fmin.s with funct3 010 is not defined", 0x28002053},
		{"feq.s with funct3 011 is not defined", 0xa0003053},
		{"other custom-0 words are illegal", 0x0000100b},
		{"custom-0 with rd set is not the hypercall", 0x0000008b},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode(tt.word)
			want := Inst{Op: ILLEGAL, Len: 4, Raw: tt.word}
			if tt.word&3 != 3 {
				want = Inst{Op: ILLEGAL, Len: 2, Raw: tt.word & 0xffff}
			}
			if got != want {
				t.Errorf("Decode(%#x) = %+v, want %+v", tt.word, got, want)
			}
		})
	}
}

// TestDecodeDoesNotAllocate checks the decoder's contract with the
// emulator's block builder.
func TestDecodeDoesNotAllocate(t *testing.T) {
	words := []uint32{0x00c58533, 0x717d, 0x6ac59547, 0x1605a52f, 0x30059573, 0x0000}
	allocs := testing.AllocsPerRun(100, func() {
		for _, w := range words {
			_ = Decode(w)
		}
	})
	if allocs != 0 {
		t.Errorf("Decode allocates %.1f times per run, want 0", allocs)
	}
}

func BenchmarkDecode(b *testing.B) {
	words := sweepWords(rand.New(rand.NewPCG(1, 1)))
	b.ResetTimer()
	for i := range b.N {
		_ = Decode(words[i%len(words)])
	}
}
