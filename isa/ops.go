package isa

import "strconv"

// This file holds the one table that ties each Op to its 32-bit encoding:
// the canonical mnemonic, the fixed bits ("match"), the instruction format
// that says which bits the operands fill, and which operands name
// floating-point registers. Decode validates against it, Encode builds from
// it, and the disassembler and assembler read mnemonics and register files
// from it.

// format says which bits of a 32-bit instruction an op's operands occupy
// (Unprivileged §2.2-2.3 and figure 2.3, §5.2, §8.2, §11.2, §24 "RV32/64G
// Instruction Set Listings"). Every bit that no operand occupies is fixed by
// the op's match value; Decode rejects a word whose fixed bits differ.
type format uint8

const (
	fmtR      format = iota // rd, rs1, rs2 (R-type)
	fmtI                    // rd, rs1, imm[11:0] sign-extended (I-type)
	fmtFence                // rd, rs1, fm|pred|succ in imm[11:0], zero-extended (§2.7)
	fmtShift6               // rd, rs1, shamt[5:0] in bits 25:20 (§5.2, RV64 shifts)
	fmtShift5               // rd, rs1, shamt[4:0] in bits 24:20 (§5.2, *W shifts)
	fmtS                    // rs1, rs2, imm[11:0] split over bits 31:25 and 11:7 (S-type)
	fmtB                    // rs1, rs2, imm[12:1] (B-type)
	fmtU                    // rd, imm[31:12] (U-type)
	fmtJ                    // rd, imm[20:1] (J-type)
	fmtFixed                // no operands: every bit is fixed
	fmtCSR                  // rd, rs1, csr in bits 31:20 (§9.1)
	fmtCSRI                 // rd, zimm[4:0] in the rs1 field, csr in bits 31:20 (§9.1)
	fmtSfence               // rs1 (vaddr), rs2 (asid) (Privileged §4.2.1)
	fmtAMO                  // rd, rs1, rs2, aq, rl (§8.2-8.4)
	fmtLR                   // rd, rs1, aq, rl; rs2 fixed at zero (§8.2)
	fmtRrm                  // rd, rs1, rs2, rm in funct3 (§11.6)
	fmtR2rm                 // rd, rs1, rm in funct3; rs2 fixed (§11.6-11.7)
	fmtR2                   // rd, rs1; rs2 and funct3 fixed (§11.7-11.9)
	fmtR4                   // rd, rs1, rs2, rs3 in bits 31:27, rm in funct3 (R4-type, §11.6)
	fmtLAQ                  // rd, rs1, rl; aq fixed at 1, rs2 at 0 (Zalasr load-acquire)
	fmtSRL                  // rs1, rs2, aq; rl fixed at 1, rd at 0 (Zalasr store-release)
	numFormats
)

// Bit fields of a 32-bit instruction (Unprivileged figure 2.3).
const (
	bitsRd     = 0x1f << 7
	bitsFunct3 = 7 << 12
	bitsRs1    = 0x1f << 15
	bitsRs2    = 0x1f << 20
	bitsRs3    = 0x1f << 27
	bitsImmI   = 0xfff << 20
	bitsImmS   = 0x7f<<25 | 0x1f<<7
	bitsImmU   = 0xfffff << 12
	bitsShamt6 = 0x3f << 20
	bitsShamt5 = 0x1f << 20
	bitsAqRl   = 3 << 25
	bitsAq     = 1 << 26
	bitsRl     = 1 << 25
)

// formatBits is, for each format, the set of instruction bits its operands
// fill. The complement is fixed by the op's match value.
var formatBits = [numFormats]uint32{
	fmtR:      bitsRd | bitsRs1 | bitsRs2,
	fmtI:      bitsRd | bitsRs1 | bitsImmI,
	fmtFence:  bitsRd | bitsRs1 | bitsImmI,
	fmtShift6: bitsRd | bitsRs1 | bitsShamt6,
	fmtShift5: bitsRd | bitsRs1 | bitsShamt5,
	fmtS:      bitsRs1 | bitsRs2 | bitsImmS,
	fmtB:      bitsRs1 | bitsRs2 | bitsImmS,
	fmtU:      bitsRd | bitsImmU,
	fmtJ:      bitsRd | bitsImmU,
	fmtFixed:  0,
	fmtCSR:    bitsRd | bitsRs1 | bitsImmI,
	fmtCSRI:   bitsRd | bitsRs1 | bitsImmI,
	fmtSfence: bitsRs1 | bitsRs2,
	fmtAMO:    bitsRd | bitsRs1 | bitsRs2 | bitsAqRl,
	fmtLR:     bitsRd | bitsRs1 | bitsAqRl,
	fmtRrm:    bitsRd | bitsRs1 | bitsRs2 | bitsFunct3,
	fmtR2rm:   bitsRd | bitsRs1 | bitsFunct3,
	fmtR2:     bitsRd | bitsRs1,
	fmtR4:     bitsRd | bitsRs1 | bitsRs2 | bitsRs3 | bitsFunct3,
	fmtLAQ:    bitsRd | bitsRs1 | bitsRl,
	fmtSRL:    bitsRs1 | bitsRs2 | bitsAq,
}

// Register-file flags of an opSpec: which operands name f registers
// rather than x registers.
const (
	fRd  = 1 << iota // rd is an f register
	fRs1             // rs1 is an f register
	fRs2             // rs2 is an f register
	fRs3             // rs3 is an f register

	fAll = fRd | fRs1 | fRs2 | fRs3
)

// opSpec describes one op's 32-bit encoding.
type opSpec struct {
	name  string // canonical mnemonic, as the specification writes it in lower case
	match uint32 // the fixed bits; operand bits are zero
	fmt   format
	fregs uint8 // fRd|fRs1|fRs2|fRs3
}

// Major opcodes (Unprivileged table 24.1, "RISC-V base opcode map").
const (
	opcLoad    = 0x03
	opcLoadFP  = 0x07
	opcCustom0 = 0x0b
	opcMiscMem = 0x0f
	opcOpImm   = 0x13
	opcAuipc   = 0x17
	opcOpImm32 = 0x1b
	opcStore   = 0x23
	opcStoreFP = 0x27
	opcAMO     = 0x2f
	opcOp      = 0x33
	opcLui     = 0x37
	opcOp32    = 0x3b
	opcMadd    = 0x43
	opcMsub    = 0x47
	opcNmsub   = 0x4b
	opcNmadd   = 0x4f
	opcOpFP    = 0x53
	opcBranch  = 0x63
	opcJalr    = 0x67
	opcJal     = 0x6f
	opcSystem  = 0x73
)

// enc assembles a match value from opcode, funct3 and funct7 (R-type layout).
func enc(opcode, funct3, funct7 uint32) uint32 {
	return funct7<<25 | funct3<<12 | opcode
}

// amo assembles the match value of an A-extension op from funct5 and the
// width funct3 (2 = .w, 3 = .d), Unprivileged §8.2-8.4 and table 24.3.
func amo(funct5, width uint32) uint32 {
	return funct5<<27 | width<<12 | opcAMO
}

// lasr assembles the match value of a Zalasr op from funct5 (0x06
// load-acquire, 0x07 store-release), the width funct3 (0 b, 1 h, 2 w, 3 d)
// and the ordering bit the op always has (aq for loads, rl for stores):
// the other bit is the instruction's, and an encoding without the fixed
// one is reserved.
func lasr(funct5, width, fixed uint32) uint32 {
	return amo(funct5, width) | fixed
}

// fp assembles the match value of an OP-FP op from funct7, a fixed rs2 and
// a fixed funct3 (zero where the format fills them), Unprivileged §11-12.
func fp(funct7, rs2, funct3 uint32) uint32 {
	return funct7<<25 | rs2<<20 | funct3<<12 | opcOpFP
}

// opTable is indexed by Op. The match values follow the RV32/64G
// instruction listings (Unprivileged §24, tables 24.2-24.4) and the
// privileged instruction listing (Privileged §9, "RISC-V Privileged
// Instruction Set Listings").
var opTable = [NumOps]opSpec{
	ILLEGAL: {name: "illegal", fmt: fmtFixed},

	// RV32I and RV64I (Unprivileged §2, §5, table 24.2).
	LUI:     {"lui", opcLui, fmtU, 0},
	AUIPC:   {"auipc", opcAuipc, fmtU, 0},
	JAL:     {"jal", opcJal, fmtJ, 0},
	JALR:    {"jalr", enc(opcJalr, 0, 0), fmtI, 0},
	BEQ:     {"beq", enc(opcBranch, 0, 0), fmtB, 0},
	BNE:     {"bne", enc(opcBranch, 1, 0), fmtB, 0},
	BLT:     {"blt", enc(opcBranch, 4, 0), fmtB, 0},
	BGE:     {"bge", enc(opcBranch, 5, 0), fmtB, 0},
	BLTU:    {"bltu", enc(opcBranch, 6, 0), fmtB, 0},
	BGEU:    {"bgeu", enc(opcBranch, 7, 0), fmtB, 0},
	LB:      {"lb", enc(opcLoad, 0, 0), fmtI, 0},
	LH:      {"lh", enc(opcLoad, 1, 0), fmtI, 0},
	LW:      {"lw", enc(opcLoad, 2, 0), fmtI, 0},
	LD:      {"ld", enc(opcLoad, 3, 0), fmtI, 0},
	LBU:     {"lbu", enc(opcLoad, 4, 0), fmtI, 0},
	LHU:     {"lhu", enc(opcLoad, 5, 0), fmtI, 0},
	LWU:     {"lwu", enc(opcLoad, 6, 0), fmtI, 0},
	SB:      {"sb", enc(opcStore, 0, 0), fmtS, 0},
	SH:      {"sh", enc(opcStore, 1, 0), fmtS, 0},
	SW:      {"sw", enc(opcStore, 2, 0), fmtS, 0},
	SD:      {"sd", enc(opcStore, 3, 0), fmtS, 0},
	ADDI:    {"addi", enc(opcOpImm, 0, 0), fmtI, 0},
	SLTI:    {"slti", enc(opcOpImm, 2, 0), fmtI, 0},
	SLTIU:   {"sltiu", enc(opcOpImm, 3, 0), fmtI, 0},
	XORI:    {"xori", enc(opcOpImm, 4, 0), fmtI, 0},
	ORI:     {"ori", enc(opcOpImm, 6, 0), fmtI, 0},
	ANDI:    {"andi", enc(opcOpImm, 7, 0), fmtI, 0},
	SLLI:    {"slli", enc(opcOpImm, 1, 0), fmtShift6, 0},
	SRLI:    {"srli", enc(opcOpImm, 5, 0), fmtShift6, 0},
	SRAI:    {"srai", enc(opcOpImm, 5, 0x20), fmtShift6, 0},
	ADD:     {"add", enc(opcOp, 0, 0), fmtR, 0},
	SUB:     {"sub", enc(opcOp, 0, 0x20), fmtR, 0},
	SLL:     {"sll", enc(opcOp, 1, 0), fmtR, 0},
	SLT:     {"slt", enc(opcOp, 2, 0), fmtR, 0},
	SLTU:    {"sltu", enc(opcOp, 3, 0), fmtR, 0},
	XOR:     {"xor", enc(opcOp, 4, 0), fmtR, 0},
	SRL:     {"srl", enc(opcOp, 5, 0), fmtR, 0},
	SRA:     {"sra", enc(opcOp, 5, 0x20), fmtR, 0},
	OR:      {"or", enc(opcOp, 6, 0), fmtR, 0},
	AND:     {"and", enc(opcOp, 7, 0), fmtR, 0},
	ADDIW:   {"addiw", enc(opcOpImm32, 0, 0), fmtI, 0},
	SLLIW:   {"slliw", enc(opcOpImm32, 1, 0), fmtShift5, 0},
	SRLIW:   {"srliw", enc(opcOpImm32, 5, 0), fmtShift5, 0},
	SRAIW:   {"sraiw", enc(opcOpImm32, 5, 0x20), fmtShift5, 0},
	ADDW:    {"addw", enc(opcOp32, 0, 0), fmtR, 0},
	SUBW:    {"subw", enc(opcOp32, 0, 0x20), fmtR, 0},
	SLLW:    {"sllw", enc(opcOp32, 1, 0), fmtR, 0},
	SRLW:    {"srlw", enc(opcOp32, 5, 0), fmtR, 0},
	SRAW:    {"sraw", enc(opcOp32, 5, 0x20), fmtR, 0},
	FENCE:   {"fence", enc(opcMiscMem, 0, 0), fmtFence, 0},
	FENCE_I: {"fence.i", enc(opcMiscMem, 1, 0), fmtI, 0}, // Zifencei §3: imm, rs1, rd are ignored
	ECALL:   {"ecall", opcSystem, fmtFixed, 0},
	EBREAK:  {"ebreak", 1<<20 | opcSystem, fmtFixed, 0},

	// Zicsr (Unprivileged §9.1).
	CSRRW:  {"csrrw", enc(opcSystem, 1, 0), fmtCSR, 0},
	CSRRS:  {"csrrs", enc(opcSystem, 2, 0), fmtCSR, 0},
	CSRRC:  {"csrrc", enc(opcSystem, 3, 0), fmtCSR, 0},
	CSRRWI: {"csrrwi", enc(opcSystem, 5, 0), fmtCSRI, 0},
	CSRRSI: {"csrrsi", enc(opcSystem, 6, 0), fmtCSRI, 0},
	CSRRCI: {"csrrci", enc(opcSystem, 7, 0), fmtCSRI, 0},

	// Privileged instructions (Privileged §3.3.2 mret/sret, §3.3.3 wfi,
	// §4.2.1 sfence.vma).
	MRET:       {"mret", 0x302<<20 | opcSystem, fmtFixed, 0},
	SRET:       {"sret", 0x102<<20 | opcSystem, fmtFixed, 0},
	WFI:        {"wfi", 0x105<<20 | opcSystem, fmtFixed, 0},
	SFENCE_VMA: {"sfence.vma", enc(opcSystem, 0, 0x09), fmtSfence, 0},

	// M (Unprivileged §7).
	MUL:    {"mul", enc(opcOp, 0, 1), fmtR, 0},
	MULH:   {"mulh", enc(opcOp, 1, 1), fmtR, 0},
	MULHSU: {"mulhsu", enc(opcOp, 2, 1), fmtR, 0},
	MULHU:  {"mulhu", enc(opcOp, 3, 1), fmtR, 0},
	DIV:    {"div", enc(opcOp, 4, 1), fmtR, 0},
	DIVU:   {"divu", enc(opcOp, 5, 1), fmtR, 0},
	REM:    {"rem", enc(opcOp, 6, 1), fmtR, 0},
	REMU:   {"remu", enc(opcOp, 7, 1), fmtR, 0},
	MULW:   {"mulw", enc(opcOp32, 0, 1), fmtR, 0},
	DIVW:   {"divw", enc(opcOp32, 4, 1), fmtR, 0},
	DIVUW:  {"divuw", enc(opcOp32, 5, 1), fmtR, 0},
	REMW:   {"remw", enc(opcOp32, 6, 1), fmtR, 0},
	REMUW:  {"remuw", enc(opcOp32, 7, 1), fmtR, 0},

	// A (Unprivileged §8, funct5 in bits 31:27).
	LR_W:      {"lr.w", amo(0x02, 2), fmtLR, 0},
	SC_W:      {"sc.w", amo(0x03, 2), fmtAMO, 0},
	AMOSWAP_W: {"amoswap.w", amo(0x01, 2), fmtAMO, 0},
	AMOADD_W:  {"amoadd.w", amo(0x00, 2), fmtAMO, 0},
	AMOXOR_W:  {"amoxor.w", amo(0x04, 2), fmtAMO, 0},
	AMOAND_W:  {"amoand.w", amo(0x0c, 2), fmtAMO, 0},
	AMOOR_W:   {"amoor.w", amo(0x08, 2), fmtAMO, 0},
	AMOMIN_W:  {"amomin.w", amo(0x10, 2), fmtAMO, 0},
	AMOMAX_W:  {"amomax.w", amo(0x14, 2), fmtAMO, 0},
	AMOMINU_W: {"amominu.w", amo(0x18, 2), fmtAMO, 0},
	AMOMAXU_W: {"amomaxu.w", amo(0x1c, 2), fmtAMO, 0},
	LR_D:      {"lr.d", amo(0x02, 3), fmtLR, 0},
	SC_D:      {"sc.d", amo(0x03, 3), fmtAMO, 0},
	AMOSWAP_D: {"amoswap.d", amo(0x01, 3), fmtAMO, 0},
	AMOADD_D:  {"amoadd.d", amo(0x00, 3), fmtAMO, 0},
	AMOXOR_D:  {"amoxor.d", amo(0x04, 3), fmtAMO, 0},
	AMOAND_D:  {"amoand.d", amo(0x0c, 3), fmtAMO, 0},
	AMOOR_D:   {"amoor.d", amo(0x08, 3), fmtAMO, 0},
	AMOMIN_D:  {"amomin.d", amo(0x10, 3), fmtAMO, 0},
	AMOMAX_D:  {"amomax.d", amo(0x14, 3), fmtAMO, 0},
	AMOMINU_D: {"amominu.d", amo(0x18, 3), fmtAMO, 0},
	AMOMAXU_D: {"amomaxu.d", amo(0x1c, 3), fmtAMO, 0},

	// F (Unprivileged §11). The fmt field (bits 26:25) is 0 for S.
	FLW:       {"flw", enc(opcLoadFP, 2, 0), fmtI, fRd},
	FSW:       {"fsw", enc(opcStoreFP, 2, 0), fmtS, fRs2},
	FMADD_S:   {"fmadd.s", opcMadd, fmtR4, fAll},
	FMSUB_S:   {"fmsub.s", opcMsub, fmtR4, fAll},
	FNMSUB_S:  {"fnmsub.s", opcNmsub, fmtR4, fAll},
	FNMADD_S:  {"fnmadd.s", opcNmadd, fmtR4, fAll},
	FADD_S:    {"fadd.s", fp(0x00, 0, 0), fmtRrm, fAll},
	FSUB_S:    {"fsub.s", fp(0x04, 0, 0), fmtRrm, fAll},
	FMUL_S:    {"fmul.s", fp(0x08, 0, 0), fmtRrm, fAll},
	FDIV_S:    {"fdiv.s", fp(0x0c, 0, 0), fmtRrm, fAll},
	FSQRT_S:   {"fsqrt.s", fp(0x2c, 0, 0), fmtR2rm, fAll},
	FSGNJ_S:   {"fsgnj.s", fp(0x10, 0, 0), fmtR, fAll},
	FSGNJN_S:  {"fsgnjn.s", fp(0x10, 0, 1), fmtR, fAll},
	FSGNJX_S:  {"fsgnjx.s", fp(0x10, 0, 2), fmtR, fAll},
	FMIN_S:    {"fmin.s", fp(0x14, 0, 0), fmtR, fAll},
	FMAX_S:    {"fmax.s", fp(0x14, 0, 1), fmtR, fAll},
	FCVT_W_S:  {"fcvt.w.s", fp(0x60, 0, 0), fmtR2rm, fRs1},
	FCVT_WU_S: {"fcvt.wu.s", fp(0x60, 1, 0), fmtR2rm, fRs1},
	FCVT_L_S:  {"fcvt.l.s", fp(0x60, 2, 0), fmtR2rm, fRs1},
	FCVT_LU_S: {"fcvt.lu.s", fp(0x60, 3, 0), fmtR2rm, fRs1},
	FMV_X_W:   {"fmv.x.w", fp(0x70, 0, 0), fmtR2, fRs1},
	FEQ_S:     {"feq.s", fp(0x50, 0, 2), fmtR, fRs1 | fRs2},
	FLT_S:     {"flt.s", fp(0x50, 0, 1), fmtR, fRs1 | fRs2},
	FLE_S:     {"fle.s", fp(0x50, 0, 0), fmtR, fRs1 | fRs2},
	FCLASS_S:  {"fclass.s", fp(0x70, 0, 1), fmtR2, fRs1},
	FCVT_S_W:  {"fcvt.s.w", fp(0x68, 0, 0), fmtR2rm, fRd},
	FCVT_S_WU: {"fcvt.s.wu", fp(0x68, 1, 0), fmtR2rm, fRd},
	FCVT_S_L:  {"fcvt.s.l", fp(0x68, 2, 0), fmtR2rm, fRd},
	FCVT_S_LU: {"fcvt.s.lu", fp(0x68, 3, 0), fmtR2rm, fRd},
	FMV_W_X:   {"fmv.w.x", fp(0x78, 0, 0), fmtR2, fRd},

	// D (Unprivileged §12). The fmt field (bits 26:25) is 1 for D.
	FLD:       {"fld", enc(opcLoadFP, 3, 0), fmtI, fRd},
	FSD:       {"fsd", enc(opcStoreFP, 3, 0), fmtS, fRs2},
	FMADD_D:   {"fmadd.d", 1<<25 | opcMadd, fmtR4, fAll},
	FMSUB_D:   {"fmsub.d", 1<<25 | opcMsub, fmtR4, fAll},
	FNMSUB_D:  {"fnmsub.d", 1<<25 | opcNmsub, fmtR4, fAll},
	FNMADD_D:  {"fnmadd.d", 1<<25 | opcNmadd, fmtR4, fAll},
	FADD_D:    {"fadd.d", fp(0x01, 0, 0), fmtRrm, fAll},
	FSUB_D:    {"fsub.d", fp(0x05, 0, 0), fmtRrm, fAll},
	FMUL_D:    {"fmul.d", fp(0x09, 0, 0), fmtRrm, fAll},
	FDIV_D:    {"fdiv.d", fp(0x0d, 0, 0), fmtRrm, fAll},
	FSQRT_D:   {"fsqrt.d", fp(0x2d, 0, 0), fmtR2rm, fAll},
	FSGNJ_D:   {"fsgnj.d", fp(0x11, 0, 0), fmtR, fAll},
	FSGNJN_D:  {"fsgnjn.d", fp(0x11, 0, 1), fmtR, fAll},
	FSGNJX_D:  {"fsgnjx.d", fp(0x11, 0, 2), fmtR, fAll},
	FMIN_D:    {"fmin.d", fp(0x15, 0, 0), fmtR, fAll},
	FMAX_D:    {"fmax.d", fp(0x15, 0, 1), fmtR, fAll},
	FCVT_S_D:  {"fcvt.s.d", fp(0x20, 1, 0), fmtR2rm, fAll},
	FCVT_D_S:  {"fcvt.d.s", fp(0x21, 0, 0), fmtR2rm, fAll},
	FEQ_D:     {"feq.d", fp(0x51, 0, 2), fmtR, fRs1 | fRs2},
	FLT_D:     {"flt.d", fp(0x51, 0, 1), fmtR, fRs1 | fRs2},
	FLE_D:     {"fle.d", fp(0x51, 0, 0), fmtR, fRs1 | fRs2},
	FCLASS_D:  {"fclass.d", fp(0x71, 0, 1), fmtR2, fRs1},
	FCVT_W_D:  {"fcvt.w.d", fp(0x61, 0, 0), fmtR2rm, fRs1},
	FCVT_WU_D: {"fcvt.wu.d", fp(0x61, 1, 0), fmtR2rm, fRs1},
	FCVT_L_D:  {"fcvt.l.d", fp(0x61, 2, 0), fmtR2rm, fRs1},
	FCVT_LU_D: {"fcvt.lu.d", fp(0x61, 3, 0), fmtR2rm, fRs1},
	FMV_X_D:   {"fmv.x.d", fp(0x71, 0, 0), fmtR2, fRs1},
	FCVT_D_W:  {"fcvt.d.w", fp(0x69, 0, 0), fmtR2rm, fRd},
	FCVT_D_WU: {"fcvt.d.wu", fp(0x69, 1, 0), fmtR2rm, fRd},
	FCVT_D_L:  {"fcvt.d.l", fp(0x69, 2, 0), fmtR2rm, fRd},
	FCVT_D_LU: {"fcvt.d.lu", fp(0x69, 3, 0), fmtR2rm, fRd},
	FMV_D_X:   {"fmv.d.x", fp(0x79, 0, 0), fmtR2, fRd},

	// everett's guest-SDK instruction (custom-0, Unprivileged table 24.1).
	HYPERCALL: {"hypercall", opcCustom0, fmtFixed, 0},

	// Zalasr ("Zalasr" Atomic Load-Acquire and Store-Release Instructions,
	// version 1.0): the AMO major opcode, funct5 00110 (load-acquire, rs2
	// 0) or 00111 (store-release, rd 0), the width in funct3.
	LB_AQ: {"lb.aq", lasr(0x06, 0, bitsAq), fmtLAQ, 0},
	LH_AQ: {"lh.aq", lasr(0x06, 1, bitsAq), fmtLAQ, 0},
	LW_AQ: {"lw.aq", lasr(0x06, 2, bitsAq), fmtLAQ, 0},
	LD_AQ: {"ld.aq", lasr(0x06, 3, bitsAq), fmtLAQ, 0},
	SB_RL: {"sb.rl", lasr(0x07, 0, bitsRl), fmtSRL, 0},
	SH_RL: {"sh.rl", lasr(0x07, 1, bitsRl), fmtSRL, 0},
	SW_RL: {"sw.rl", lasr(0x07, 2, bitsRl), fmtSRL, 0},
	SD_RL: {"sd.rl", lasr(0x07, 3, bitsRl), fmtSRL, 0},
}

// String returns the op's canonical mnemonic as the specification writes
// it, in lower case: "addi", "fcvt.w.s", "amoadd.w", "lr.d", "sfence.vma".
// ILLEGAL is "illegal"; an out-of-range value prints as "op(N)".
func (o Op) String() string {
	if o < NumOps {
		return opTable[o].name
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}
