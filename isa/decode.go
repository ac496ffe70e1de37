package isa

// Decode decodes one instruction.
//
// If raw&3 != 3 the instruction is a 16-bit compressed one (Unprivileged
// §1.5, "Base Instruction-Length Encoding") and only the low 16 bits of raw
// are used: the result has Len 2, C set to the compressed form and Op and
// the operand fields set to those of the base instruction it expands to
// (§16, tables 16.5-16.7), for example c.addi4spn becomes ADDI rd, x2, imm
// and c.jr becomes JALR x0, 0(rs1). Otherwise the result has Len 4.
//
// Every encoding that is reserved, or that belongs to none of RV64IMAFDC,
// Zicsr, Zifencei, Zalasr and the privileged instructions mret, sret, wfi
// and sfence.vma, decodes to Op ILLEGAL with Len and Raw set (a Zalasr
// load without aq or store without rl is reserved). Words whose low
// five bits are 11111 (instructions longer than 32 bits, §1.5) decode to
// ILLEGAL with Len 4. The one custom-0 word 0x0000000b decodes to
// HYPERCALL.
//
// c.addi16sp with nzimm = 0 (0x6101) is reserved and decodes to ILLEGAL,
// although objdump 2.40 prints it as add sp,sp,0.
//
// HINTs (§2.9, §16.7), such as addi x0, x0, 1, c.li x0, 1, c.slli with a
// zero shift amount, or a fence with nonzero rd, rs1 or a reserved fm,
// decode as the ordinary op with all their fields, so that they execute as
// the no-ops they are and re-encode to the same word.
//
// The rounding-mode field of FP ops is returned raw in RM, including the
// reserved values 5 and 6 (§11.2, table 11.1): whether an instruction with
// such a rounding mode (or with DYN while frm holds one) is illegal depends
// on execution-time state, so the emulator raises the illegal-instruction
// exception when it executes it.
//
// Decode does not allocate.
func Decode(raw uint32) Inst {
	if raw&3 != 3 {
		return decodeCompressed(uint16(raw))
	}
	op := lookup32(raw)
	s := &opTable[op]
	if op == ILLEGAL || raw&^formatBits[s.fmt] != s.match {
		return Inst{Op: ILLEGAL, Len: 4, Raw: raw}
	}
	in := Inst{Op: op, Len: 4, Raw: raw}
	rd := uint8(raw >> 7 & 0x1f)
	rs1 := uint8(raw >> 15 & 0x1f)
	rs2 := uint8(raw >> 20 & 0x1f)
	switch s.fmt {
	case fmtR, fmtSfence:
		in.Rd, in.Rs1, in.Rs2 = rd, rs1, rs2
	case fmtI:
		in.Rd, in.Rs1, in.Imm = rd, rs1, immI.get(raw)
	case fmtFence:
		in.Rd, in.Rs1, in.Imm = rd, rs1, uimm12.get(raw)
	case fmtShift6:
		in.Rd, in.Rs1, in.Imm = rd, rs1, shamt6.get(raw)
	case fmtShift5:
		in.Rd, in.Rs1, in.Imm = rd, rs1, shamt5.get(raw)
	case fmtS:
		in.Rs1, in.Rs2, in.Imm = rs1, rs2, immS.get(raw)
	case fmtB:
		in.Rs1, in.Rs2, in.Imm = rs1, rs2, immB.get(raw)
	case fmtU:
		in.Rd, in.Imm = rd, immU.get(raw)
	case fmtJ:
		in.Rd, in.Imm = rd, immJ.get(raw)
	case fmtCSR, fmtCSRI:
		in.Rd, in.Rs1, in.CSR = rd, rs1, uint16(raw>>20)
	case fmtAMO:
		in.Rd, in.Rs1, in.Rs2 = rd, rs1, rs2
		in.AQ, in.RL = raw>>26&1 != 0, raw>>25&1 != 0
	case fmtLR:
		in.Rd, in.Rs1 = rd, rs1
		in.AQ, in.RL = raw>>26&1 != 0, raw>>25&1 != 0
	case fmtRrm:
		in.Rd, in.Rs1, in.Rs2, in.RM = rd, rs1, rs2, uint8(raw>>12&7)
	case fmtR2rm:
		in.Rd, in.Rs1, in.RM = rd, rs1, uint8(raw>>12&7)
	case fmtR2:
		in.Rd, in.Rs1 = rd, rs1
	case fmtR4:
		in.Rd, in.Rs1, in.Rs2, in.Rs3, in.RM = rd, rs1, rs2, uint8(raw>>27), uint8(raw>>12&7)
	case fmtLAQ:
		in.Rd, in.Rs1 = rd, rs1
		in.AQ, in.RL = true, raw>>25&1 != 0
	case fmtSRL:
		in.Rs1, in.Rs2 = rs1, rs2
		in.AQ, in.RL = raw>>26&1 != 0, true
	}
	return in
}

// Decode tables indexed by funct3 (Unprivileged table 24.1 and the
// instruction listings of §24).
var (
	branchOps = [8]Op{BEQ, BNE, ILLEGAL, ILLEGAL, BLT, BGE, BLTU, BGEU}
	loadOps   = [8]Op{LB, LH, LW, LD, LBU, LHU, LWU, ILLEGAL}
	storeOps  = [8]Op{SB, SH, SW, SD, ILLEGAL, ILLEGAL, ILLEGAL, ILLEGAL}
	opImmOps  = [8]Op{ADDI, SLLI, SLTI, SLTIU, XORI, SRLI, ORI, ANDI}
	opOps     = [8]Op{ADD, SLL, SLT, SLTU, XOR, SRL, OR, AND}
	mulOps    = [8]Op{MUL, MULH, MULHSU, MULHU, DIV, DIVU, REM, REMU}
	mulwOps   = [8]Op{MULW, ILLEGAL, ILLEGAL, ILLEGAL, DIVW, DIVUW, REMW, REMUW}
	csrOps    = [8]Op{ILLEGAL, CSRRW, CSRRS, CSRRC, ILLEGAL, CSRRWI, CSRRSI, CSRRCI}
	// amoOps is indexed by funct5 (bits 31:27) for the .w forms; the .d
	// form of each is the op 11 places later (LR_D - LR_W).
	amoOps = [32]Op{
		0x00: AMOADD_W, 0x01: AMOSWAP_W, 0x02: LR_W, 0x03: SC_W,
		0x04: AMOXOR_W, 0x08: AMOOR_W, 0x0c: AMOAND_W,
		0x10: AMOMIN_W, 0x14: AMOMAX_W, 0x18: AMOMINU_W, 0x1c: AMOMAXU_W,
	}
	// fmaOps is indexed by (opcode>>2)&3 and then by the fmt field.
	fmaOps = [4][2]Op{
		{FMADD_S, FMADD_D}, {FMSUB_S, FMSUB_D}, {FNMSUB_S, FNMSUB_D}, {FNMADD_S, FNMADD_D},
	}
	// The fcvt tables are indexed by the rs2 field, which selects the
	// integer type: w, wu, l, lu (§11.7, §12.5).
	fcvtToIntS   = [4]Op{FCVT_W_S, FCVT_WU_S, FCVT_L_S, FCVT_LU_S}
	fcvtToIntD   = [4]Op{FCVT_W_D, FCVT_WU_D, FCVT_L_D, FCVT_LU_D}
	fcvtFromIntS = [4]Op{FCVT_S_W, FCVT_S_WU, FCVT_S_L, FCVT_S_LU}
	fcvtFromIntD = [4]Op{FCVT_D_W, FCVT_D_WU, FCVT_D_L, FCVT_D_LU}
)

// lookup32 picks the one op a 32-bit word can be, from its opcode and
// function fields, or ILLEGAL. It does not check the remaining fixed bits
// (a shift's upper imm bits, a fixed rs2, ecall's zero fields): Decode
// compares the whole word against the op's match value afterwards.
func lookup32(raw uint32) Op {
	funct3 := raw >> 12 & 7
	funct7 := raw >> 25
	rs2 := raw >> 20 & 0x1f
	switch raw & 0x7f {
	case opcLui: // lui
		return LUI
	case opcAuipc: // auipc
		return AUIPC
	case opcJal: // jal
		return JAL
	case opcJalr: // jalr
		return JALR
	case opcBranch: // beq bne blt bge bltu bgeu
		return branchOps[funct3]
	case opcLoad: // lb lh lw ld lbu lhu lwu
		return loadOps[funct3]
	case opcStore: // sb sh sw sd
		return storeOps[funct3]
	case opcOpImm: // addi slti sltiu xori ori andi slli srli srai
		if funct3 == 5 && raw>>30&1 != 0 {
			return SRAI
		}
		return opImmOps[funct3]
	case opcOpImm32: // addiw slliw srliw sraiw
		switch funct3 {
		case 0:
			return ADDIW
		case 1:
			return SLLIW
		case 5:
			if raw>>30&1 != 0 {
				return SRAIW
			}
			return SRLIW
		}
	case opcOp: // add sub sll slt sltu xor srl sra or and; mul...remu
		switch funct7 {
		case 0x00:
			return opOps[funct3]
		case 0x01:
			return mulOps[funct3]
		case 0x20:
			switch funct3 {
			case 0:
				return SUB
			case 5:
				return SRA
			}
		}
	case opcOp32: // addw subw sllw srlw sraw; mulw divw divuw remw remuw
		switch funct7 {
		case 0x00:
			switch funct3 {
			case 0:
				return ADDW
			case 1:
				return SLLW
			case 5:
				return SRLW
			}
		case 0x01:
			return mulwOps[funct3]
		case 0x20:
			switch funct3 {
			case 0:
				return SUBW
			case 5:
				return SRAW
			}
		}
	case opcMiscMem: // fence fence.i
		switch funct3 {
		case 0:
			return FENCE
		case 1:
			return FENCE_I
		}
	case opcSystem: // ecall ebreak mret sret wfi sfence.vma; csr*
		if funct3 != 0 {
			return csrOps[funct3]
		}
		if funct7 == 0x09 {
			return SFENCE_VMA
		}
		switch raw >> 20 {
		case 0x000:
			return ECALL
		case 0x001:
			return EBREAK
		case 0x102:
			return SRET
		case 0x105:
			return WFI
		case 0x302:
			return MRET
		}
	case opcAMO: // lr sc amo*.{w,d}; Zalasr l{b,h,w,d}.aq s{b,h,w,d}.rl
		switch raw >> 27 {
		case 0x06:
			if funct3 < 4 {
				return LB_AQ + Op(funct3)
			}
			return ILLEGAL
		case 0x07:
			if funct3 < 4 {
				return SB_RL + Op(funct3)
			}
			return ILLEGAL
		}
		op := amoOps[raw>>27]
		switch {
		case op == ILLEGAL:
		case funct3 == 2:
			return op
		case funct3 == 3:
			return op + (LR_D - LR_W)
		}
	case opcLoadFP: // flw fld
		switch funct3 {
		case 2:
			return FLW
		case 3:
			return FLD
		}
	case opcStoreFP: // fsw fsd
		switch funct3 {
		case 2:
			return FSW
		case 3:
			return FSD
		}
	case opcMadd, opcMsub, opcNmsub, opcNmadd: // fmadd fmsub fnmsub fnmadd
		if f := funct7 & 3; f < 2 {
			return fmaOps[raw>>2&3][f]
		}
	case opcOpFP:
		return lookupOpFP(funct7, funct3, rs2)
	case opcCustom0: // hypercall (0x0000000b only; Decode checks the rest)
		return HYPERCALL
	}
	return ILLEGAL
}

// lookupOpFP decodes the OP-FP major opcode (Unprivileged §11.6-11.9,
// §12.4-12.6). funct7 holds the operation in bits 6:2 and the fmt (S=0,
// D=1) in bits 1:0.
func lookupOpFP(funct7, funct3, rs2 uint32) Op {
	switch funct7 {
	case 0x00: // fadd.s
		return FADD_S
	case 0x01: // fadd.d
		return FADD_D
	case 0x04: // fsub.s
		return FSUB_S
	case 0x05: // fsub.d
		return FSUB_D
	case 0x08: // fmul.s
		return FMUL_S
	case 0x09: // fmul.d
		return FMUL_D
	case 0x0c: // fdiv.s
		return FDIV_S
	case 0x0d: // fdiv.d
		return FDIV_D
	case 0x2c: // fsqrt.s
		return FSQRT_S
	case 0x2d: // fsqrt.d
		return FSQRT_D
	case 0x10: // fsgnj.s fsgnjn.s fsgnjx.s
		if funct3 < 3 {
			return FSGNJ_S + Op(funct3)
		}
	case 0x11: // fsgnj.d fsgnjn.d fsgnjx.d
		if funct3 < 3 {
			return FSGNJ_D + Op(funct3)
		}
	case 0x14: // fmin.s fmax.s
		if funct3 < 2 {
			return FMIN_S + Op(funct3)
		}
	case 0x15: // fmin.d fmax.d
		if funct3 < 2 {
			return FMIN_D + Op(funct3)
		}
	case 0x20: // fcvt.s.d
		return FCVT_S_D
	case 0x21: // fcvt.d.s
		return FCVT_D_S
	case 0x50: // fle.s flt.s feq.s
		if funct3 < 3 {
			return FLE_S - Op(funct3)
		}
	case 0x51: // fle.d flt.d feq.d
		if funct3 < 3 {
			return FLE_D - Op(funct3)
		}
	case 0x60: // fcvt.{w,wu,l,lu}.s
		if rs2 < 4 {
			return fcvtToIntS[rs2]
		}
	case 0x61: // fcvt.{w,wu,l,lu}.d
		if rs2 < 4 {
			return fcvtToIntD[rs2]
		}
	case 0x68: // fcvt.s.{w,wu,l,lu}
		if rs2 < 4 {
			return fcvtFromIntS[rs2]
		}
	case 0x69: // fcvt.d.{w,wu,l,lu}
		if rs2 < 4 {
			return fcvtFromIntD[rs2]
		}
	case 0x70: // fmv.x.w fclass.s
		switch funct3 {
		case 0:
			return FMV_X_W
		case 1:
			return FCLASS_S
		}
	case 0x71: // fmv.x.d fclass.d
		switch funct3 {
		case 0:
			return FMV_X_D
		case 1:
			return FCLASS_D
		}
	case 0x78: // fmv.w.x
		return FMV_W_X
	case 0x79: // fmv.d.x
		return FMV_D_X
	}
	return ILLEGAL
}

// decodeCompressed decodes a 16-bit instruction (Unprivileged §16.8,
// tables 16.5-16.7, for RV64C).
func decodeCompressed(w uint16) Inst {
	raw := uint32(w)
	in := Inst{Len: 2, Raw: raw}
	// Full 5-bit register fields (CR, CI, CSS formats).
	r117 := uint8(raw >> 7 & 0x1f)
	r62 := uint8(raw >> 2 & 0x1f)
	// 3-bit register fields naming x8..x15 (CIW, CL, CS, CA, CB formats).
	r97 := uint8(raw>>7&7) + 8
	r42 := uint8(raw>>2&7) + 8
	funct3 := raw >> 13

	// The case labels are quadrant<<3 | funct3, written as quadrant*8+funct3.
	switch raw&3<<3 | funct3 {
	case 0*8 + 0: // c.addi4spn
		imm := cImmAddi4spn.get(raw)
		if imm == 0 { // includes the all-zero word, "defined illegal" (§16.1)
			return illegal16(raw)
		}
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_ADDI4SPN, ADDI, r42, 2, imm
	case 0*8 + 1: // c.fld
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_FLD, FLD, r42, r97, cImmD.get(raw)
	case 0*8 + 2: // c.lw
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_LW, LW, r42, r97, cImmW.get(raw)
	case 0*8 + 3: // c.ld (RV64; c.flw on RV32)
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_LD, LD, r42, r97, cImmD.get(raw)
	case 0*8 + 5: // c.fsd
		in.C, in.Op, in.Rs1, in.Rs2, in.Imm = C_FSD, FSD, r97, r42, cImmD.get(raw)
	case 0*8 + 6: // c.sw
		in.C, in.Op, in.Rs1, in.Rs2, in.Imm = C_SW, SW, r97, r42, cImmW.get(raw)
	case 0*8 + 7: // c.sd (RV64; c.fsw on RV32)
		in.C, in.Op, in.Rs1, in.Rs2, in.Imm = C_SD, SD, r97, r42, cImmD.get(raw)

	case 1*8 + 0: // c.nop, c.addi
		in.Op, in.Rd, in.Rs1, in.Imm = ADDI, r117, r117, cImm6.get(raw)
		in.C = C_ADDI
		if r117 == 0 {
			in.C = C_NOP
		}
	case 1*8 + 1: // c.addiw (RV64; c.jal on RV32)
		if r117 == 0 { // reserved
			return illegal16(raw)
		}
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_ADDIW, ADDIW, r117, r117, cImm6.get(raw)
	case 1*8 + 2: // c.li
		in.C, in.Op, in.Rd, in.Imm = C_LI, ADDI, r117, cImm6.get(raw)
	case 1*8 + 3: // c.addi16sp (rd = x2), c.lui
		if r117 == 2 {
			imm := cImmAddi16sp.get(raw)
			if imm == 0 { // reserved
				return illegal16(raw)
			}
			in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_ADDI16SP, ADDI, 2, 2, imm
			break
		}
		imm := cImmLui.get(raw)
		if imm == 0 { // reserved
			return illegal16(raw)
		}
		in.C, in.Op, in.Rd, in.Imm = C_LUI, LUI, r117, imm
	case 1*8 + 4: // c.srli c.srai c.andi c.sub c.xor c.or c.and c.subw c.addw
		in.Rd, in.Rs1 = r97, r97
		switch raw >> 10 & 3 {
		case 0:
			in.C, in.Op, in.Imm = C_SRLI, SRLI, cShamt.get(raw)
		case 1:
			in.C, in.Op, in.Imm = C_SRAI, SRAI, cShamt.get(raw)
		case 2:
			in.C, in.Op, in.Imm = C_ANDI, ANDI, cImm6.get(raw)
		case 3:
			c := caOps[raw>>10&4|raw>>5&3]
			if c == CNone { // reserved
				return illegal16(raw)
			}
			in.C, in.Op, in.Rs2 = c, cTable[c].op, r42
		}
	case 1*8 + 5: // c.j
		in.C, in.Op, in.Imm = C_J, JAL, cImmJ.get(raw)
	case 1*8 + 6: // c.beqz
		in.C, in.Op, in.Rs1, in.Imm = C_BEQZ, BEQ, r97, cImmB.get(raw)
	case 1*8 + 7: // c.bnez
		in.C, in.Op, in.Rs1, in.Imm = C_BNEZ, BNE, r97, cImmB.get(raw)

	case 2*8 + 0: // c.slli
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_SLLI, SLLI, r117, r117, cShamt.get(raw)
	case 2*8 + 1: // c.fldsp
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_FLDSP, FLD, r117, 2, cImmLdsp.get(raw)
	case 2*8 + 2: // c.lwsp
		if r117 == 0 { // reserved
			return illegal16(raw)
		}
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_LWSP, LW, r117, 2, cImmLwsp.get(raw)
	case 2*8 + 3: // c.ldsp (RV64; c.flwsp on RV32)
		if r117 == 0 { // reserved
			return illegal16(raw)
		}
		in.C, in.Op, in.Rd, in.Rs1, in.Imm = C_LDSP, LD, r117, 2, cImmLdsp.get(raw)
	case 2*8 + 4: // c.jr c.mv c.ebreak c.jalr c.add
		switch {
		case raw>>12&1 == 0 && r62 == 0: // c.jr
			if r117 == 0 { // reserved
				return illegal16(raw)
			}
			in.C, in.Op, in.Rs1 = C_JR, JALR, r117
		case raw>>12&1 == 0: // c.mv
			in.C, in.Op, in.Rd, in.Rs2 = C_MV, ADD, r117, r62
		case r62 == 0 && r117 == 0: // c.ebreak
			in.C, in.Op = C_EBREAK, EBREAK
		case r62 == 0: // c.jalr
			in.C, in.Op, in.Rd, in.Rs1 = C_JALR, JALR, 1, r117
		default: // c.add
			in.C, in.Op, in.Rd, in.Rs1, in.Rs2 = C_ADD, ADD, r117, r117, r62
		}
	case 2*8 + 5: // c.fsdsp
		in.C, in.Op, in.Rs1, in.Rs2, in.Imm = C_FSDSP, FSD, 2, r62, cImmSdsp.get(raw)
	case 2*8 + 6: // c.swsp
		in.C, in.Op, in.Rs1, in.Rs2, in.Imm = C_SWSP, SW, 2, r62, cImmSwsp.get(raw)
	case 2*8 + 7: // c.sdsp (RV64; c.fswsp on RV32)
		in.C, in.Op, in.Rs1, in.Rs2, in.Imm = C_SDSP, SD, 2, r62, cImmSdsp.get(raw)

	default: // quadrant 0 funct3 4 (reserved)
		return illegal16(raw)
	}
	return in
}

// caOps maps bit 12 and bits 6:5 of a CA-format instruction (quadrant 1,
// funct3 100, bits 11:10 = 11) to its form; CNone marks the reserved
// encodings (§16.8, table 16.6).
var caOps = [8]COp{C_SUB, C_XOR, C_OR, C_AND, C_SUBW, C_ADDW, CNone, CNone}

func illegal16(raw uint32) Inst {
	return Inst{Op: ILLEGAL, Len: 2, Raw: raw}
}
