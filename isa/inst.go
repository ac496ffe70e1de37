// Package isa describes RV64IMAFDC + Zicsr + Zifencei + Zalasr instructions: their
// formats, a decoder, an encoder (used by tests and fuzzers), a disassembler
// that prints what GNU objdump prints, and CSR numbers and names.
//
// References are to "The RISC-V Instruction Set Manual, Volume I: Unprivileged
// ISA" (20191213) and "Volume II: Privileged Architecture" (20211203).
//
// Decode turns an instruction word into an Inst without allocating; Encode
// and Compress go back (for tests and fuzzers); Disasm prints an Inst
// exactly as GNU objdump 2.40 does and Parse reads that text back; CSRName
// names CSR numbers. testdata/isa/golden.txt lists one instruction of every
// kind as objdump prints it, and the tests compare the package with the
// GNU toolchain word by word.
//
// The package knows nothing of harts or memory. The emulator lowers an Inst
// into its own compact op, and dispatches on Inst.Op, which is a small dense
// integer so that a switch over it compiles to a jump table.
package isa

// Op names one instruction, independent of its encoding. A compressed
// instruction decodes to the Op of the base instruction it expands to
// (Unprivileged ISA §16: "each RVC instruction expands into a single base
// instruction"); Inst.C records which compressed form it came from.
type Op uint8

// The ops. ILLEGAL is the zero value so that a zeroed Inst is never mistaken
// for a real instruction.
const (
	ILLEGAL Op = iota

	// RV64I (Unprivileged §2, §5).
	LUI
	AUIPC
	JAL
	JALR
	BEQ
	BNE
	BLT
	BGE
	BLTU
	BGEU
	LB
	LH
	LW
	LD
	LBU
	LHU
	LWU
	SB
	SH
	SW
	SD
	ADDI
	SLTI
	SLTIU
	XORI
	ORI
	ANDI
	SLLI
	SRLI
	SRAI
	ADD
	SUB
	SLL
	SLT
	SLTU
	XOR
	SRL
	SRA
	OR
	AND
	ADDIW
	SLLIW
	SRLIW
	SRAIW
	ADDW
	SUBW
	SLLW
	SRLW
	SRAW
	FENCE
	FENCE_I // Zifencei (§3)
	ECALL
	EBREAK

	// Zicsr (§9).
	CSRRW
	CSRRS
	CSRRC
	CSRRWI
	CSRRSI
	CSRRCI

	// Privileged instructions (Privileged §3.3, §4.2).
	MRET
	SRET
	WFI
	SFENCE_VMA

	// M (§7).
	MUL
	MULH
	MULHSU
	MULHU
	DIV
	DIVU
	REM
	REMU
	MULW
	DIVW
	DIVUW
	REMW
	REMUW

	// A (§8).
	LR_W
	SC_W
	AMOSWAP_W
	AMOADD_W
	AMOXOR_W
	AMOAND_W
	AMOOR_W
	AMOMIN_W
	AMOMAX_W
	AMOMINU_W
	AMOMAXU_W
	LR_D
	SC_D
	AMOSWAP_D
	AMOADD_D
	AMOXOR_D
	AMOAND_D
	AMOOR_D
	AMOMIN_D
	AMOMAX_D
	AMOMINU_D
	AMOMAXU_D

	// F (§11).
	FLW
	FSW
	FMADD_S
	FMSUB_S
	FNMSUB_S
	FNMADD_S
	FADD_S
	FSUB_S
	FMUL_S
	FDIV_S
	FSQRT_S
	FSGNJ_S
	FSGNJN_S
	FSGNJX_S
	FMIN_S
	FMAX_S
	FCVT_W_S
	FCVT_WU_S
	FCVT_L_S
	FCVT_LU_S
	FMV_X_W
	FEQ_S
	FLT_S
	FLE_S
	FCLASS_S
	FCVT_S_W
	FCVT_S_WU
	FCVT_S_L
	FCVT_S_LU
	FMV_W_X

	// D (§12).
	FLD
	FSD
	FMADD_D
	FMSUB_D
	FNMSUB_D
	FNMADD_D
	FADD_D
	FSUB_D
	FMUL_D
	FDIV_D
	FSQRT_D
	FSGNJ_D
	FSGNJN_D
	FSGNJX_D
	FMIN_D
	FMAX_D
	FCVT_S_D
	FCVT_D_S
	FEQ_D
	FLT_D
	FLE_D
	FCLASS_D
	FCVT_W_D
	FCVT_WU_D
	FCVT_L_D
	FCVT_LU_D
	FMV_X_D
	FCVT_D_W
	FCVT_D_WU
	FCVT_D_L
	FCVT_D_LU
	FMV_D_X

	// HYPERCALL is everett's guest-SDK instruction in the custom-0 major
	// opcode (0b0001011) with all other bits zero: 0x0000000b. See
	// RATIONALE.md, "Why a custom-0 hypercall?".
	HYPERCALL

	// Zalasr: load-acquire and store-release ("Zalasr" Atomic
	// Load-Acquire and Store-Release Instructions, version 1.0, in the
	// Unprivileged ISA). A load always has aq and may have rl; a store
	// always has rl and may have aq (Inst.AQ, Inst.RL).
	LB_AQ
	LH_AQ
	LW_AQ
	LD_AQ
	SB_RL
	SH_RL
	SW_RL
	SD_RL

	// NumOps is one past the last op; tables indexed by Op have this length.
	NumOps
)

// COp names the compressed form an instruction was decoded from
// (Unprivileged §16). CNone means a 32-bit instruction.
type COp uint8

// The compressed forms, in the order of the RVC opcode map (§16.8, table 16.5-16.7).
const (
	CNone COp = iota
	C_ADDI4SPN
	C_FLD
	C_LW
	C_LD
	C_FSD
	C_SW
	C_SD
	C_NOP
	C_ADDI
	C_ADDIW
	C_LI
	C_ADDI16SP
	C_LUI
	C_SRLI
	C_SRAI
	C_ANDI
	C_SUB
	C_XOR
	C_OR
	C_AND
	C_SUBW
	C_ADDW
	C_J
	C_BEQZ
	C_BNEZ
	C_SLLI
	C_FLDSP
	C_LWSP
	C_LDSP
	C_JR
	C_MV
	C_EBREAK
	C_JALR
	C_ADD
	C_FSDSP
	C_SWSP
	C_SDSP

	NumCOps
)

// Inst is one decoded instruction. Fields an Op does not use are zero.
//
// Field use by format:
//   - Rd, Rs1, Rs2, Rs3: register numbers (x or f registers as the op implies).
//   - Imm: the sign-extended immediate; for shifts the shift amount; for
//     LUI/AUIPC the value already shifted left by 12; for branches and jumps
//     the byte offset from the instruction's pc; for CSR ops the CSR number
//     is in CSR and the 5-bit zimm of the *I forms is in Rs1; for FENCE the
//     12-bit immediate field (instruction bits 31:20: fm in Imm[11:8],
//     pred in Imm[7:4], succ in Imm[3:0]), zero-extended; FENCE and FENCE.I
//     also keep their rd and rs1 fields, which are reserved for HINTs.
//   - RM: the rounding-mode field of FP ops (7 = dynamic), kept raw: the
//     reserved values 5 and 6 decode, and the emulator raises an
//     illegal-instruction exception when it executes them (§11.2).
//   - AQ, RL: the ordering bits of LR/SC/AMO and of the Zalasr
//     load-acquires (AQ always set) and store-releases (RL always set).
//   - Len: 2 for a compressed instruction, 4 otherwise.
//   - C: the compressed form, or CNone.
//   - Raw: the instruction bits (low 16 bits for a compressed instruction).
type Inst struct {
	Op  Op
	C   COp
	Len uint8
	Rd  uint8
	Rs1 uint8
	Rs2 uint8
	Rs3 uint8
	RM  uint8
	AQ  bool
	RL  bool
	CSR uint16
	Imm int64
	Raw uint32
}

// Rounding modes (Unprivileged §11.2, table 11.1).
const (
	RNE = 0 // round to nearest, ties to even
	RTZ = 1 // round towards zero
	RDN = 2 // round down (towards -inf)
	RUP = 3 // round up (towards +inf)
	RMM = 4 // round to nearest, ties to max magnitude
	DYN = 7 // dynamic: use frm
)
