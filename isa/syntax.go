package isa

// This file holds the assembly syntax of every op: one table of entries,
// each a mnemonic with an operand pattern and the conditions under which it
// applies. Disasm prints an instruction with the first entry of its op (and
// compressed form) whose conditions hold; Parse reads text with the entries
// of its mnemonic. The table therefore fixes both which alias objdump
// prints and what the assembler accepts, in one place.
//
// The order and spelling of the entries follow what GNU objdump 2.40
// (binutils 2.40, Debian bookworm) prints by default, checked word by word
// in objdump_test.go. Some of its choices are surprising and deliberate
// here: it prints addi, andi, ori, xori and the immediate shifts with the
// register-form mnemonic (add a0,a1,4; sll a0,a0,0x3), csrrwi and friends
// as csrrw with an immediate, and a fence set of zero as "unknown".

// field names an Inst field that a syntax entry constrains.
type field uint8

const (
	fieldRd field = iota
	fieldRs1
	fieldRs2
	fieldRs3
	fieldImm
	fieldCSR
	fieldRM
)

// fixv says that field f has value v.
type fixv struct {
	f field
	v int64
}

// Syntax entry flags.
const (
	synAsmOnly = 1 << iota // Parse accepts it; Disasm never prints it
	synTieRs1              // rs1 equals rd (not printed, or printed twice)
	synTieRs2              // rs2 equals rs1 (fmv.s and friends)
)

// syn is one assembly syntax of an op.
//
// args is the operand pattern, comma-separated tokens:
//
//	rd rs1 rs2          x registers          fd fs1 fs2 fs3   f registers
//	imm                 Imm in decimal       shamt            Imm in hex (0x3)
//	hi                  Imm>>12 as 20-bit hex (lui, auipc)
//	mem                 Imm(rs1)             amem             (rs1)
//	target              pc+Imm in hex without 0x, as objdump prints addresses
//	csr                 CSR name, or its number in hex
//	zimm                the 5-bit immediate of csrr*i, kept in Rs1, decimal
//	pred succ           FENCE ordering sets (iorw)
//	rm                  rounding mode; printed only if not DYN, optional in Parse
type syn struct {
	mnem  string
	op    Op
	c     COp // the compressed form the entry prints, or CNone
	args  string
	fix   []fixv
	flags uint8
}

// Shorthands for the fix lists below.
func rd(v int64) fixv   { return fixv{fieldRd, v} }
func rs1(v int64) fixv  { return fixv{fieldRs1, v} }
func rs2(v int64) fixv  { return fixv{fieldRs2, v} }
func imm(v int64) fixv  { return fixv{fieldImm, v} }
func csr(v uint16) fixv { return fixv{fieldCSR, int64(v)} }
func rm(v int64) fixv   { return fixv{fieldRM, v} }

func fx(f ...fixv) []fixv { return f }

// syntaxTable lists every syntax. Within one op (and compressed form) the
// order is the order of preference for Disasm.
var syntaxTable = []syn{
	// RV64I (Unprivileged §2.4-2.8, §5.2-5.3), pseudo-instructions from
	// §25 tables 25.2-25.3 ("RISC-V Assembly Programmer's Handbook").
	{"lui", LUI, 0, "rd,hi", nil, 0},
	{"auipc", AUIPC, 0, "rd,hi", nil, 0},
	{"j", JAL, 0, "target", fx(rd(0)), 0},
	{"jal", JAL, 0, "target", fx(rd(1)), 0},
	{"jal", JAL, 0, "rd,target", nil, 0},
	{"ret", JALR, 0, "", fx(rd(0), rs1(1), imm(0)), 0},
	{"jr", JALR, 0, "rs1", fx(rd(0), imm(0)), 0},
	{"jr", JALR, 0, "mem", fx(rd(0)), 0},
	{"jalr", JALR, 0, "rs1", fx(rd(1), imm(0)), 0},
	{"jalr", JALR, 0, "mem", fx(rd(1)), 0},
	{"jalr", JALR, 0, "rd,rs1", fx(imm(0)), 0},
	{"jalr", JALR, 0, "rd,mem", nil, 0},
	{"jalr", JALR, 0, "rd,rs1,imm", nil, synAsmOnly},
	{"beqz", BEQ, 0, "rs1,target", fx(rs2(0)), 0},
	{"beq", BEQ, 0, "rs1,rs2,target", nil, 0},
	{"bnez", BNE, 0, "rs1,target", fx(rs2(0)), 0},
	{"bne", BNE, 0, "rs1,rs2,target", nil, 0},
	{"bltz", BLT, 0, "rs1,target", fx(rs2(0)), 0},
	{"bgtz", BLT, 0, "rs2,target", fx(rs1(0)), 0},
	{"blt", BLT, 0, "rs1,rs2,target", nil, 0},
	{"bgt", BLT, 0, "rs2,rs1,target", nil, synAsmOnly},
	{"blez", BGE, 0, "rs2,target", fx(rs1(0)), 0},
	{"bgez", BGE, 0, "rs1,target", fx(rs2(0)), 0},
	{"bge", BGE, 0, "rs1,rs2,target", nil, 0},
	{"ble", BGE, 0, "rs2,rs1,target", nil, synAsmOnly},
	{"bltu", BLTU, 0, "rs1,rs2,target", nil, 0},
	{"bgtu", BLTU, 0, "rs2,rs1,target", nil, synAsmOnly},
	{"bgeu", BGEU, 0, "rs1,rs2,target", nil, 0},
	{"bleu", BGEU, 0, "rs2,rs1,target", nil, synAsmOnly},
	{"lb", LB, 0, "rd,mem", nil, 0},
	{"lh", LH, 0, "rd,mem", nil, 0},
	{"lw", LW, 0, "rd,mem", nil, 0},
	{"ld", LD, 0, "rd,mem", nil, 0},
	{"lbu", LBU, 0, "rd,mem", nil, 0},
	{"lhu", LHU, 0, "rd,mem", nil, 0},
	{"lwu", LWU, 0, "rd,mem", nil, 0},
	{"sb", SB, 0, "rs2,mem", nil, 0},
	{"sh", SH, 0, "rs2,mem", nil, 0},
	{"sw", SW, 0, "rs2,mem", nil, 0},
	{"sd", SD, 0, "rs2,mem", nil, 0},
	{"nop", ADDI, 0, "", fx(rd(0), rs1(0), imm(0)), 0},
	{"li", ADDI, 0, "rd,imm", fx(rs1(0)), 0},
	{"mv", ADDI, 0, "rd,rs1", fx(imm(0)), 0},
	{"add", ADDI, 0, "rd,rs1,imm", nil, 0},
	{"addi", ADDI, 0, "rd,rs1,imm", nil, synAsmOnly},
	{"slti", SLTI, 0, "rd,rs1,imm", nil, 0},
	{"seqz", SLTIU, 0, "rd,rs1", fx(imm(1)), 0},
	{"sltiu", SLTIU, 0, "rd,rs1,imm", nil, 0},
	{"not", XORI, 0, "rd,rs1", fx(imm(-1)), 0},
	{"xor", XORI, 0, "rd,rs1,imm", nil, 0},
	{"xori", XORI, 0, "rd,rs1,imm", nil, synAsmOnly},
	{"or", ORI, 0, "rd,rs1,imm", nil, 0},
	{"ori", ORI, 0, "rd,rs1,imm", nil, synAsmOnly},
	{"zext.b", ANDI, 0, "rd,rs1", fx(imm(255)), 0},
	{"and", ANDI, 0, "rd,rs1,imm", nil, 0},
	{"andi", ANDI, 0, "rd,rs1,imm", nil, synAsmOnly},
	{"sll", SLLI, 0, "rd,rs1,shamt", nil, 0},
	{"slli", SLLI, 0, "rd,rs1,shamt", nil, synAsmOnly},
	{"srl", SRLI, 0, "rd,rs1,shamt", nil, 0},
	{"srli", SRLI, 0, "rd,rs1,shamt", nil, synAsmOnly},
	{"sra", SRAI, 0, "rd,rs1,shamt", nil, 0},
	{"srai", SRAI, 0, "rd,rs1,shamt", nil, synAsmOnly},
	{"add", ADD, 0, "rd,rs1,rs2", nil, 0},
	{"neg", SUB, 0, "rd,rs2", fx(rs1(0)), 0},
	{"sub", SUB, 0, "rd,rs1,rs2", nil, 0},
	{"sll", SLL, 0, "rd,rs1,rs2", nil, 0},
	{"sltz", SLT, 0, "rd,rs1", fx(rs2(0)), 0},
	{"sgtz", SLT, 0, "rd,rs2", fx(rs1(0)), 0},
	{"slt", SLT, 0, "rd,rs1,rs2", nil, 0},
	{"snez", SLTU, 0, "rd,rs2", fx(rs1(0)), 0},
	{"sltu", SLTU, 0, "rd,rs1,rs2", nil, 0},
	{"xor", XOR, 0, "rd,rs1,rs2", nil, 0},
	{"srl", SRL, 0, "rd,rs1,rs2", nil, 0},
	{"sra", SRA, 0, "rd,rs1,rs2", nil, 0},
	{"or", OR, 0, "rd,rs1,rs2", nil, 0},
	{"and", AND, 0, "rd,rs1,rs2", nil, 0},
	{"sext.w", ADDIW, 0, "rd,rs1", fx(imm(0)), 0},
	{"addw", ADDIW, 0, "rd,rs1,imm", nil, 0},
	{"addiw", ADDIW, 0, "rd,rs1,imm", nil, synAsmOnly},
	{"sllw", SLLIW, 0, "rd,rs1,shamt", nil, 0},
	{"slliw", SLLIW, 0, "rd,rs1,shamt", nil, synAsmOnly},
	{"srlw", SRLIW, 0, "rd,rs1,shamt", nil, 0},
	{"srliw", SRLIW, 0, "rd,rs1,shamt", nil, synAsmOnly},
	{"sraw", SRAIW, 0, "rd,rs1,shamt", nil, 0},
	{"sraiw", SRAIW, 0, "rd,rs1,shamt", nil, synAsmOnly},
	{"addw", ADDW, 0, "rd,rs1,rs2", nil, 0},
	{"negw", SUBW, 0, "rd,rs2", fx(rs1(0)), 0},
	{"subw", SUBW, 0, "rd,rs1,rs2", nil, 0},
	{"sllw", SLLW, 0, "rd,rs1,rs2", nil, 0},
	{"srlw", SRLW, 0, "rd,rs1,rs2", nil, 0},
	{"sraw", SRAW, 0, "rd,rs1,rs2", nil, 0},
	{"fence.tso", FENCE, 0, "", fx(imm(0x833)), 0},
	{"fence", FENCE, 0, "", fx(imm(0x0ff)), 0},
	{"fence", FENCE, 0, "pred,succ", nil, 0},
	{"ecall", ECALL, 0, "", nil, 0},
	{"ebreak", EBREAK, 0, "", nil, 0},

	// Zifencei (Unprivileged §3).
	{"fence.i", FENCE_I, 0, "", nil, 0},

	// Zicsr (Unprivileged §9.1-9.2; counters §10.1; F CSRs §11.2), with
	// the pseudo-instructions of §25 table 25.3.
	{"unimp", CSRRW, 0, "", fx(rd(0), csr(CSRCycle), rs1(0)), 0},
	{"fsflags", CSRRW, 0, "rs1", fx(rd(0), csr(CSRFflags)), 0},
	{"fsflags", CSRRW, 0, "rd,rs1", fx(csr(CSRFflags)), 0},
	{"fsrm", CSRRW, 0, "rs1", fx(rd(0), csr(CSRFrm)), 0},
	{"fsrm", CSRRW, 0, "rd,rs1", fx(csr(CSRFrm)), 0},
	{"fscsr", CSRRW, 0, "rs1", fx(rd(0), csr(CSRFcsr)), 0},
	{"fscsr", CSRRW, 0, "rd,rs1", fx(csr(CSRFcsr)), 0},
	{"csrw", CSRRW, 0, "csr,rs1", fx(rd(0)), 0},
	{"csrrw", CSRRW, 0, "rd,csr,rs1", nil, 0},
	{"frflags", CSRRS, 0, "rd", fx(csr(CSRFflags), rs1(0)), 0},
	{"frrm", CSRRS, 0, "rd", fx(csr(CSRFrm), rs1(0)), 0},
	{"frcsr", CSRRS, 0, "rd", fx(csr(CSRFcsr), rs1(0)), 0},
	{"rdcycle", CSRRS, 0, "rd", fx(csr(CSRCycle), rs1(0)), 0},
	{"rdtime", CSRRS, 0, "rd", fx(csr(CSRTime), rs1(0)), 0},
	{"rdinstret", CSRRS, 0, "rd", fx(csr(CSRInstret), rs1(0)), 0},
	{"csrr", CSRRS, 0, "rd,csr", fx(rs1(0)), 0},
	{"csrs", CSRRS, 0, "csr,rs1", fx(rd(0)), 0},
	{"csrrs", CSRRS, 0, "rd,csr,rs1", nil, 0},
	{"csrc", CSRRC, 0, "csr,rs1", fx(rd(0)), 0},
	{"csrrc", CSRRC, 0, "rd,csr,rs1", nil, 0},
	{"fsflagsi", CSRRWI, 0, "rd,zimm", fx(csr(CSRFflags)), 0},
	{"fsflagsi", CSRRWI, 0, "zimm", fx(rd(0), csr(CSRFflags)), synAsmOnly},
	{"fsrmi", CSRRWI, 0, "rd,zimm", fx(csr(CSRFrm)), 0},
	{"fsrmi", CSRRWI, 0, "zimm", fx(rd(0), csr(CSRFrm)), synAsmOnly},
	{"csrw", CSRRWI, 0, "csr,zimm", fx(rd(0)), 0},
	{"csrwi", CSRRWI, 0, "csr,zimm", fx(rd(0)), synAsmOnly},
	{"csrrw", CSRRWI, 0, "rd,csr,zimm", nil, 0},
	{"csrrwi", CSRRWI, 0, "rd,csr,zimm", nil, synAsmOnly},
	{"csrs", CSRRSI, 0, "csr,zimm", fx(rd(0)), 0},
	{"csrsi", CSRRSI, 0, "csr,zimm", fx(rd(0)), synAsmOnly},
	{"csrrs", CSRRSI, 0, "rd,csr,zimm", nil, 0},
	{"csrrsi", CSRRSI, 0, "rd,csr,zimm", nil, synAsmOnly},
	{"csrc", CSRRCI, 0, "csr,zimm", fx(rd(0)), 0},
	{"csrci", CSRRCI, 0, "csr,zimm", fx(rd(0)), synAsmOnly},
	{"csrrc", CSRRCI, 0, "rd,csr,zimm", nil, 0},
	{"csrrci", CSRRCI, 0, "rd,csr,zimm", nil, synAsmOnly},

	// Privileged instructions (Privileged §3.3.2, §3.3.3, §4.2.1).
	{"mret", MRET, 0, "", nil, 0},
	{"sret", SRET, 0, "", nil, 0},
	{"wfi", WFI, 0, "", nil, 0},
	{"sfence.vma", SFENCE_VMA, 0, "", fx(rs1(0), rs2(0)), 0},
	{"sfence.vma", SFENCE_VMA, 0, "rs1", fx(rs2(0)), 0},
	{"sfence.vma", SFENCE_VMA, 0, "rs1,rs2", nil, 0},

	// M (Unprivileged §7).
	{"mul", MUL, 0, "rd,rs1,rs2", nil, 0},
	{"mulh", MULH, 0, "rd,rs1,rs2", nil, 0},
	{"mulhsu", MULHSU, 0, "rd,rs1,rs2", nil, 0},
	{"mulhu", MULHU, 0, "rd,rs1,rs2", nil, 0},
	{"div", DIV, 0, "rd,rs1,rs2", nil, 0},
	{"divu", DIVU, 0, "rd,rs1,rs2", nil, 0},
	{"rem", REM, 0, "rd,rs1,rs2", nil, 0},
	{"remu", REMU, 0, "rd,rs1,rs2", nil, 0},
	{"mulw", MULW, 0, "rd,rs1,rs2", nil, 0},
	{"divw", DIVW, 0, "rd,rs1,rs2", nil, 0},
	{"divuw", DIVUW, 0, "rd,rs1,rs2", nil, 0},
	{"remw", REMW, 0, "rd,rs1,rs2", nil, 0},
	{"remuw", REMUW, 0, "rd,rs1,rs2", nil, 0},

	// A (Unprivileged §8). The .aq/.rl/.aqrl suffix is added by Disasm
	// and stripped by Parse.
	{"lr.w", LR_W, 0, "rd,amem", nil, 0},
	{"sc.w", SC_W, 0, "rd,rs2,amem", nil, 0},
	{"amoswap.w", AMOSWAP_W, 0, "rd,rs2,amem", nil, 0},
	{"amoadd.w", AMOADD_W, 0, "rd,rs2,amem", nil, 0},
	{"amoxor.w", AMOXOR_W, 0, "rd,rs2,amem", nil, 0},
	{"amoand.w", AMOAND_W, 0, "rd,rs2,amem", nil, 0},
	{"amoor.w", AMOOR_W, 0, "rd,rs2,amem", nil, 0},
	{"amomin.w", AMOMIN_W, 0, "rd,rs2,amem", nil, 0},
	{"amomax.w", AMOMAX_W, 0, "rd,rs2,amem", nil, 0},
	{"amominu.w", AMOMINU_W, 0, "rd,rs2,amem", nil, 0},
	{"amomaxu.w", AMOMAXU_W, 0, "rd,rs2,amem", nil, 0},
	{"lr.d", LR_D, 0, "rd,amem", nil, 0},
	{"sc.d", SC_D, 0, "rd,rs2,amem", nil, 0},
	{"amoswap.d", AMOSWAP_D, 0, "rd,rs2,amem", nil, 0},
	{"amoadd.d", AMOADD_D, 0, "rd,rs2,amem", nil, 0},
	{"amoxor.d", AMOXOR_D, 0, "rd,rs2,amem", nil, 0},
	{"amoand.d", AMOAND_D, 0, "rd,rs2,amem", nil, 0},
	{"amoor.d", AMOOR_D, 0, "rd,rs2,amem", nil, 0},
	{"amomin.d", AMOMIN_D, 0, "rd,rs2,amem", nil, 0},
	{"amomax.d", AMOMAX_D, 0, "rd,rs2,amem", nil, 0},
	{"amominu.d", AMOMINU_D, 0, "rd,rs2,amem", nil, 0},
	{"amomaxu.d", AMOMAXU_D, 0, "rd,rs2,amem", nil, 0},

	// F (Unprivileged §11.5-11.9) and pseudo-instructions (§25 table 25.2).
	{"flw", FLW, 0, "fd,mem", nil, 0},
	{"fsw", FSW, 0, "fs2,mem", nil, 0},
	{"fmadd.s", FMADD_S, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fmsub.s", FMSUB_S, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fnmsub.s", FNMSUB_S, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fnmadd.s", FNMADD_S, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fadd.s", FADD_S, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fsub.s", FSUB_S, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fmul.s", FMUL_S, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fdiv.s", FDIV_S, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fsqrt.s", FSQRT_S, 0, "fd,fs1,rm", nil, 0},
	{"fmv.s", FSGNJ_S, 0, "fd,fs1", nil, synTieRs2},
	{"fsgnj.s", FSGNJ_S, 0, "fd,fs1,fs2", nil, 0},
	{"fneg.s", FSGNJN_S, 0, "fd,fs1", nil, synTieRs2},
	{"fsgnjn.s", FSGNJN_S, 0, "fd,fs1,fs2", nil, 0},
	{"fabs.s", FSGNJX_S, 0, "fd,fs1", nil, synTieRs2},
	{"fsgnjx.s", FSGNJX_S, 0, "fd,fs1,fs2", nil, 0},
	{"fmin.s", FMIN_S, 0, "fd,fs1,fs2", nil, 0},
	{"fmax.s", FMAX_S, 0, "fd,fs1,fs2", nil, 0},
	{"fcvt.w.s", FCVT_W_S, 0, "rd,fs1,rm", nil, 0},
	{"fcvt.wu.s", FCVT_WU_S, 0, "rd,fs1,rm", nil, 0},
	{"fcvt.l.s", FCVT_L_S, 0, "rd,fs1,rm", nil, 0},
	{"fcvt.lu.s", FCVT_LU_S, 0, "rd,fs1,rm", nil, 0},
	{"fmv.x.w", FMV_X_W, 0, "rd,fs1", nil, 0},
	{"feq.s", FEQ_S, 0, "rd,fs1,fs2", nil, 0},
	{"flt.s", FLT_S, 0, "rd,fs1,fs2", nil, 0},
	{"fle.s", FLE_S, 0, "rd,fs1,fs2", nil, 0},
	{"fclass.s", FCLASS_S, 0, "rd,fs1", nil, 0},
	{"fcvt.s.w", FCVT_S_W, 0, "fd,rs1,rm", nil, 0},
	{"fcvt.s.wu", FCVT_S_WU, 0, "fd,rs1,rm", nil, 0},
	{"fcvt.s.l", FCVT_S_L, 0, "fd,rs1,rm", nil, 0},
	{"fcvt.s.lu", FCVT_S_LU, 0, "fd,rs1,rm", nil, 0},
	{"fmv.w.x", FMV_W_X, 0, "fd,rs1", nil, 0},

	// D (Unprivileged §12). objdump 2.40 knows fcvt.d.s, fcvt.d.w and
	// fcvt.d.wu (which are exact) only with rm = 000 and prints them
	// without a rounding mode; Disasm prints other rm values as raw words.
	{"fld", FLD, 0, "fd,mem", nil, 0},
	{"fsd", FSD, 0, "fs2,mem", nil, 0},
	{"fmadd.d", FMADD_D, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fmsub.d", FMSUB_D, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fnmsub.d", FNMSUB_D, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fnmadd.d", FNMADD_D, 0, "fd,fs1,fs2,fs3,rm", nil, 0},
	{"fadd.d", FADD_D, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fsub.d", FSUB_D, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fmul.d", FMUL_D, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fdiv.d", FDIV_D, 0, "fd,fs1,fs2,rm", nil, 0},
	{"fsqrt.d", FSQRT_D, 0, "fd,fs1,rm", nil, 0},
	{"fmv.d", FSGNJ_D, 0, "fd,fs1", nil, synTieRs2},
	{"fsgnj.d", FSGNJ_D, 0, "fd,fs1,fs2", nil, 0},
	{"fneg.d", FSGNJN_D, 0, "fd,fs1", nil, synTieRs2},
	{"fsgnjn.d", FSGNJN_D, 0, "fd,fs1,fs2", nil, 0},
	{"fabs.d", FSGNJX_D, 0, "fd,fs1", nil, synTieRs2},
	{"fsgnjx.d", FSGNJX_D, 0, "fd,fs1,fs2", nil, 0},
	{"fmin.d", FMIN_D, 0, "fd,fs1,fs2", nil, 0},
	{"fmax.d", FMAX_D, 0, "fd,fs1,fs2", nil, 0},
	{"fcvt.s.d", FCVT_S_D, 0, "fd,fs1,rm", nil, 0},
	{"fcvt.d.s", FCVT_D_S, 0, "fd,fs1", fx(rm(0)), 0},
	{"fcvt.d.s", FCVT_D_S, 0, "fd,fs1,rm", nil, synAsmOnly},
	{"feq.d", FEQ_D, 0, "rd,fs1,fs2", nil, 0},
	{"flt.d", FLT_D, 0, "rd,fs1,fs2", nil, 0},
	{"fle.d", FLE_D, 0, "rd,fs1,fs2", nil, 0},
	{"fclass.d", FCLASS_D, 0, "rd,fs1", nil, 0},
	{"fcvt.w.d", FCVT_W_D, 0, "rd,fs1,rm", nil, 0},
	{"fcvt.wu.d", FCVT_WU_D, 0, "rd,fs1,rm", nil, 0},
	{"fcvt.l.d", FCVT_L_D, 0, "rd,fs1,rm", nil, 0},
	{"fcvt.lu.d", FCVT_LU_D, 0, "rd,fs1,rm", nil, 0},
	{"fmv.x.d", FMV_X_D, 0, "rd,fs1", nil, 0},
	{"fcvt.d.w", FCVT_D_W, 0, "fd,rs1", fx(rm(0)), 0},
	{"fcvt.d.w", FCVT_D_W, 0, "fd,rs1,rm", nil, synAsmOnly},
	{"fcvt.d.wu", FCVT_D_WU, 0, "fd,rs1", fx(rm(0)), 0},
	{"fcvt.d.wu", FCVT_D_WU, 0, "fd,rs1,rm", nil, synAsmOnly},
	{"fcvt.d.l", FCVT_D_L, 0, "fd,rs1,rm", nil, 0},
	{"fcvt.d.lu", FCVT_D_LU, 0, "fd,rs1,rm", nil, 0},
	{"fmv.d.x", FMV_D_X, 0, "fd,rs1", nil, 0},

	// Zalasr. The mnemonic is the plain load's or store's; the suffix
	// (.aq or .aqrl for a load, .rl or .aqrl for a store) is added by
	// Disasm and stripped by Parse, as for the AMOs. objdump 2.40 does
	// not know these and prints .4byte.
	{"lb", LB_AQ, 0, "rd,amem", nil, 0},
	{"lh", LH_AQ, 0, "rd,amem", nil, 0},
	{"lw", LW_AQ, 0, "rd,amem", nil, 0},
	{"ld", LD_AQ, 0, "rd,amem", nil, 0},
	{"sb", SB_RL, 0, "rs2,amem", nil, 0},
	{"sh", SH_RL, 0, "rs2,amem", nil, 0},
	{"sw", SW_RL, 0, "rs2,amem", nil, 0},
	{"sd", SD_RL, 0, "rs2,amem", nil, 0},

	// everett's hypercall. objdump does not know it and prints .4byte 0xb;
	// Disasm names it (the one deliberate difference from objdump).
	{"hypercall", HYPERCALL, 0, "", nil, 0},

	// C (Unprivileged §16), as objdump prints the compressed forms: the
	// expanded instruction with 2.40's alias choices, and HINTs (§16.7)
	// with a c. mnemonic.
	{"add", ADDI, C_ADDI4SPN, "rd,rs1,imm", nil, 0},
	{"fld", FLD, C_FLD, "fd,mem", nil, 0},
	{"lw", LW, C_LW, "rd,mem", nil, 0},
	{"ld", LD, C_LD, "rd,mem", nil, 0},
	{"fsd", FSD, C_FSD, "fs2,mem", nil, 0},
	{"sw", SW, C_SW, "rs2,mem", nil, 0},
	{"sd", SD, C_SD, "rs2,mem", nil, 0},
	{"nop", ADDI, C_NOP, "", fx(imm(0)), 0},
	{"c.nop", ADDI, C_NOP, "imm", fx(rd(0), rs1(0)), 0},
	{"add", ADDI, C_ADDI, "rd,rs1,imm", nil, synTieRs1},
	{"sext.w", ADDIW, C_ADDIW, "rd,rs1", fx(imm(0)), synTieRs1},
	{"addw", ADDIW, C_ADDIW, "rd,rs1,imm", nil, synTieRs1},
	{"c.li", ADDI, C_LI, "rd,imm", fx(rd(0), rs1(0)), 0},
	{"li", ADDI, C_LI, "rd,imm", fx(rs1(0)), 0},
	{"add", ADDI, C_ADDI16SP, "rd,rs1,imm", nil, 0},
	{"c.lui", LUI, C_LUI, "rd,hi", fx(rd(0)), 0},
	{"lui", LUI, C_LUI, "rd,hi", nil, 0},
	{"c.srli64", SRLI, C_SRLI, "rd", fx(imm(0)), synTieRs1},
	{"srl", SRLI, C_SRLI, "rd,rs1,shamt", nil, synTieRs1},
	{"c.srai64", SRAI, C_SRAI, "rd", fx(imm(0)), synTieRs1},
	{"sra", SRAI, C_SRAI, "rd,rs1,shamt", nil, synTieRs1},
	{"and", ANDI, C_ANDI, "rd,rs1,imm", nil, synTieRs1},
	{"sub", SUB, C_SUB, "rd,rs1,rs2", nil, synTieRs1},
	{"xor", XOR, C_XOR, "rd,rs1,rs2", nil, synTieRs1},
	{"or", OR, C_OR, "rd,rs1,rs2", nil, synTieRs1},
	{"and", AND, C_AND, "rd,rs1,rs2", nil, synTieRs1},
	{"subw", SUBW, C_SUBW, "rd,rs1,rs2", nil, synTieRs1},
	{"addw", ADDW, C_ADDW, "rd,rs1,rs2", nil, synTieRs1},
	{"j", JAL, C_J, "target", fx(rd(0)), 0},
	{"beqz", BEQ, C_BEQZ, "rs1,target", fx(rs2(0)), 0},
	{"bnez", BNE, C_BNEZ, "rs1,target", fx(rs2(0)), 0},
	{"c.slli64", SLLI, C_SLLI, "rd", fx(imm(0)), synTieRs1},
	{"c.slli", SLLI, C_SLLI, "rd,shamt", fx(rd(0), rs1(0)), 0},
	{"sll", SLLI, C_SLLI, "rd,rs1,shamt", nil, synTieRs1},
	{"fld", FLD, C_FLDSP, "fd,mem", nil, 0},
	{"lw", LW, C_LWSP, "rd,mem", nil, 0},
	{"ld", LD, C_LDSP, "rd,mem", nil, 0},
	{"ret", JALR, C_JR, "", fx(rd(0), rs1(1), imm(0)), 0},
	{"jr", JALR, C_JR, "rs1", fx(rd(0), imm(0)), 0},
	{"c.mv", ADD, C_MV, "rd,rs2", fx(rd(0), rs1(0)), 0},
	{"mv", ADD, C_MV, "rd,rs2", fx(rs1(0)), 0},
	{"ebreak", EBREAK, C_EBREAK, "", nil, 0},
	{"jalr", JALR, C_JALR, "rs1", fx(rd(1), imm(0)), 0},
	{"c.add", ADD, C_ADD, "rd,rs2", fx(rd(0), rs1(0)), 0},
	{"add", ADD, C_ADD, "rd,rs1,rs2", nil, synTieRs1},
	{"fsd", FSD, C_FSDSP, "fs2,mem", nil, 0},
	{"sw", SW, C_SWSP, "rs2,mem", nil, 0},
	{"sd", SD, C_SDSP, "rs2,mem", nil, 0},

	// C in assembler syntax (c. mnemonics, Unprivileged §16.3-16.5), for
	// Parse to choose a compressed encoding.
	{"c.addi4spn", ADDI, C_ADDI4SPN, "rd,rs1,imm", fx(rs1(2)), synAsmOnly},
	{"c.fld", FLD, C_FLD, "fd,mem", nil, synAsmOnly},
	{"c.lw", LW, C_LW, "rd,mem", nil, synAsmOnly},
	{"c.ld", LD, C_LD, "rd,mem", nil, synAsmOnly},
	{"c.fsd", FSD, C_FSD, "fs2,mem", nil, synAsmOnly},
	{"c.sw", SW, C_SW, "rs2,mem", nil, synAsmOnly},
	{"c.sd", SD, C_SD, "rs2,mem", nil, synAsmOnly},
	{"c.nop", ADDI, C_NOP, "", fx(rd(0), rs1(0), imm(0)), synAsmOnly},
	{"c.addi", ADDI, C_ADDI, "rd,imm", nil, synAsmOnly | synTieRs1},
	{"c.addiw", ADDIW, C_ADDIW, "rd,imm", nil, synAsmOnly | synTieRs1},
	{"c.li", ADDI, C_LI, "rd,imm", fx(rs1(0)), synAsmOnly},
	{"c.addi16sp", ADDI, C_ADDI16SP, "rd,imm", fx(rd(2), rs1(2)), synAsmOnly},
	{"c.lui", LUI, C_LUI, "rd,hi", nil, synAsmOnly},
	{"c.srli", SRLI, C_SRLI, "rd,shamt", nil, synAsmOnly | synTieRs1},
	{"c.srai", SRAI, C_SRAI, "rd,shamt", nil, synAsmOnly | synTieRs1},
	{"c.andi", ANDI, C_ANDI, "rd,imm", nil, synAsmOnly | synTieRs1},
	{"c.sub", SUB, C_SUB, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.xor", XOR, C_XOR, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.or", OR, C_OR, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.and", AND, C_AND, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.subw", SUBW, C_SUBW, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.addw", ADDW, C_ADDW, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.j", JAL, C_J, "target", fx(rd(0)), synAsmOnly},
	{"c.beqz", BEQ, C_BEQZ, "rs1,target", fx(rs2(0)), synAsmOnly},
	{"c.bnez", BNE, C_BNEZ, "rs1,target", fx(rs2(0)), synAsmOnly},
	{"c.slli", SLLI, C_SLLI, "rd,shamt", nil, synAsmOnly | synTieRs1},
	{"c.fldsp", FLD, C_FLDSP, "fd,mem", fx(rs1(2)), synAsmOnly},
	{"c.lwsp", LW, C_LWSP, "rd,mem", fx(rs1(2)), synAsmOnly},
	{"c.ldsp", LD, C_LDSP, "rd,mem", fx(rs1(2)), synAsmOnly},
	{"c.jr", JALR, C_JR, "rs1", fx(rd(0), imm(0)), synAsmOnly},
	{"c.mv", ADD, C_MV, "rd,rs2", fx(rs1(0)), synAsmOnly},
	{"c.ebreak", EBREAK, C_EBREAK, "", nil, synAsmOnly},
	{"c.jalr", JALR, C_JALR, "rs1", fx(rd(1), imm(0)), synAsmOnly},
	{"c.add", ADD, C_ADD, "rd,rs2", nil, synAsmOnly | synTieRs1},
	{"c.fsdsp", FSD, C_FSDSP, "fs2,mem", fx(rs1(2)), synAsmOnly},
	{"c.swsp", SW, C_SWSP, "rs2,mem", fx(rs1(2)), synAsmOnly},
	{"c.sdsp", SD, C_SDSP, "rs2,mem", fx(rs1(2)), synAsmOnly},
}
