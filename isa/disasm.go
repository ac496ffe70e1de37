package isa

import (
	"fmt"
	"strconv"
	"strings"
)

// ABI register names (Unprivileged §25, table 25.1), as objdump prints them
// by default (s0 rather than fp).
var (
	xNames = [32]string{
		"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
		"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
		"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
		"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
	}
	fNames = [32]string{
		"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7",
		"fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5",
		"fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
		"fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
	}
)

// rmNames are the rounding-mode operand names (Unprivileged §11.2, table
// 11.1). objdump prints the reserved values 5 and 6 as "unknown".
var rmNames = [8]string{"rne", "rtz", "rdn", "rup", "rmm", "unknown", "unknown", "dyn"}

// fenceBits are the FENCE predecessor/successor set letters, most
// significant first (Unprivileged §2.7: PI PO PR PW).
const fenceBits = "iorw"

// Disasm returns the instruction as GNU objdump 2.40 (binutils 2.40 as in
// Debian bookworm, riscv64-unknown-elf-objdump -d) prints it in its
// instruction column: the mnemonic, then a tab and comma-separated
// operands if there are any. It uses objdump's default aliases (li, mv,
// ret, beqz, csrr, frflags, fmv.s, sext.w, ...) and its quirks: addi,
// andi, ori, xori and the immediate shifts print with the register-form
// mnemonic (add a0,a1,4; sll a0,a0,0x3); csrrwi and friends print as
// csrrw with an immediate; an empty fence set prints as "unknown"; the
// rounding mode is printed unless it is DYN, and 5 and 6 print as
// "unknown".
//
// A compressed instruction prints as objdump prints it: as the expanded
// instruction with those aliases, or with a c. mnemonic for the HINTs
// objdump names that way (c.li zero,1; c.nop 5; c.slli64 a0).
//
// Branch and jump targets print as the absolute address pc+Imm in hex
// without 0x, as objdump does, without objdump's trailing " <symbol>".
// CSRs print by name (see CSRName), unknown ones as a hex number.
//
// ILLEGAL instructions print as objdump prints words it does not know:
// ".4byte\t0x…" or ".2byte\t0x…" with the value in hex without leading
// zeros, and the 16-bit zero word as "unimp". Valid encodings that objdump
// 2.40 does not accept also print that way: a FENCE with nonzero rd or rs1
// or a reserved fm, a FENCE.I with nonzero imm, rs1 or rd, and fcvt.d.s,
// fcvt.d.w, fcvt.d.wu with a rounding mode other than RNE.
//
// The one deliberate difference from objdump is HYPERCALL, which prints as
// "hypercall" where objdump prints ".4byte\t0xb".
func Disasm(in Inst, pc uint64) string {
	if in.Op == ILLEGAL || in.Op >= NumOps {
		return rawWord(in.Raw, in.Len)
	}
	w, err := Encode(in)
	if err != nil {
		return fmt.Sprintf("(invalid %v: %v)", in.Op, err)
	}
	if objdumpUnknown(in) {
		return rawWord(w, in.Len)
	}
	for _, i := range synByOp[in.Op] {
		s := &syntaxTable[i]
		if s.c != in.C || s.flags&synAsmOnly != 0 || !s.holds(&in) {
			continue
		}
		return s.format(&in, pc)
	}
	// Every op has an unconditional syntax (syntax_test.go checks it).
	panic(fmt.Sprintf("isa: no syntax for %v (%v)", in.Op, in.C))
}

// rawWord prints an instruction word objdump does not know.
func rawWord(raw uint32, length uint8) string {
	if length == 2 {
		if raw == 0 {
			return "unimp" // c.unimp: the all-zero word (§16.1)
		}
		return ".2byte\t0x" + strconv.FormatUint(uint64(raw&0xffff), 16)
	}
	return ".4byte\t0x" + strconv.FormatUint(uint64(raw), 16)
}

// objdumpUnknown reports valid encodings that objdump 2.40 prints as raw
// words: HINT and ignored-field variants that its opcode table has no
// entry for.
func objdumpUnknown(in Inst) bool {
	switch in.Op {
	case FENCE:
		// Only fm = 0000, or fm = 1000 with pred = succ = RW (fence.tso),
		// and rd = rs1 = x0 (Unprivileged §2.7).
		fm := in.Imm >> 8
		return in.Rd != 0 || in.Rs1 != 0 || !(fm == 0 || fm == 8 && in.Imm&0xff == 0x33)
	case FENCE_I:
		return in.Rd != 0 || in.Rs1 != 0 || in.Imm != 0
	case FCVT_D_S, FCVT_D_W, FCVT_D_WU:
		return in.RM != 0
	}
	return false
}

// value returns the field f of in.
func value(in *Inst, f field) int64 {
	switch f {
	case fieldRd:
		return int64(in.Rd)
	case fieldRs1:
		return int64(in.Rs1)
	case fieldRs2:
		return int64(in.Rs2)
	case fieldRs3:
		return int64(in.Rs3)
	case fieldImm:
		return in.Imm
	case fieldCSR:
		return int64(in.CSR)
	case fieldRM:
		return int64(in.RM)
	}
	return 0
}

// holds reports whether the entry's conditions hold for in.
func (s *syn) holds(in *Inst) bool {
	for _, f := range s.fix {
		if value(in, f.f) != f.v {
			return false
		}
	}
	if s.flags&synTieRs1 != 0 && in.Rs1 != in.Rd {
		return false
	}
	if s.flags&synTieRs2 != 0 && in.Rs2 != in.Rs1 {
		return false
	}
	return true
}

// format prints in with this entry.
func (s *syn) format(in *Inst, pc uint64) string {
	var b strings.Builder
	b.WriteString(s.mnem)
	b.WriteString(aqrlSuffix(in))
	if s.args == "" {
		return b.String()
	}
	b.WriteByte('\t')
	for i, tok := range strings.Split(s.args, ",") {
		if tok == "rm" && in.RM == DYN {
			continue // objdump omits the dynamic rounding mode
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(operand(tok, in, pc))
	}
	return b.String()
}

// aqrlSuffix is the ordering suffix of an LR/SC/AMO mnemonic (Unprivileged
// §8.2) or a Zalasr one: "", ".aq", ".rl" or ".aqrl".
func aqrlSuffix(in *Inst) string {
	if !hasOrdering(opTable[in.Op].fmt) {
		return ""
	}
	switch {
	case in.AQ && in.RL:
		return ".aqrl"
	case in.AQ:
		return ".aq"
	case in.RL:
		return ".rl"
	}
	return ""
}

// operand prints one operand token of a syntax pattern.
func operand(tok string, in *Inst, pc uint64) string {
	switch tok {
	case "rd":
		return xNames[in.Rd]
	case "rs1":
		return xNames[in.Rs1]
	case "rs2":
		return xNames[in.Rs2]
	case "fd":
		return fNames[in.Rd]
	case "fs1":
		return fNames[in.Rs1]
	case "fs2":
		return fNames[in.Rs2]
	case "fs3":
		return fNames[in.Rs3]
	case "imm":
		return strconv.FormatInt(in.Imm, 10)
	case "shamt":
		return "0x" + strconv.FormatInt(in.Imm, 16)
	case "hi":
		return "0x" + strconv.FormatUint(uint64(in.Imm>>12)&0xfffff, 16)
	case "mem":
		return strconv.FormatInt(in.Imm, 10) + "(" + xNames[in.Rs1] + ")"
	case "amem":
		return "(" + xNames[in.Rs1] + ")"
	case "target":
		return strconv.FormatUint(pc+uint64(in.Imm), 16)
	case "csr":
		return CSRName(in.CSR)
	case "zimm":
		return strconv.Itoa(int(in.Rs1))
	case "pred":
		return fenceSet(in.Imm >> 4 & 0xf)
	case "succ":
		return fenceSet(in.Imm & 0xf)
	case "rm":
		return rmNames[in.RM&7]
	}
	panic("isa: unknown operand token " + tok)
}

// fenceSet prints a FENCE predecessor or successor set; objdump 2.40
// prints the empty set as "unknown".
func fenceSet(v int64) string {
	if v == 0 {
		return "unknown"
	}
	var b []byte
	for i := range 4 {
		if v>>(3-i)&1 != 0 {
			b = append(b, fenceBits[i])
		}
	}
	return string(b)
}

// synByOp indexes syntaxTable by op; synByMnem by mnemonic.
var (
	synByOp   [NumOps][]int
	synByMnem = map[string][]int{}
)

func init() {
	for i := range syntaxTable {
		s := &syntaxTable[i]
		synByOp[s.op] = append(synByOp[s.op], i)
		synByMnem[s.mnem] = append(synByMnem[s.mnem], i)
	}
}
