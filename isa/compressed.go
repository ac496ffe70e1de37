package isa

import "fmt"

// This file describes the RVC forms (Unprivileged §16): for each COp the
// base op it expands to, its fixed bits, where its register operands sit
// and how its immediate is scattered. The decoder (decodeCompressed) is a
// hand-written switch for speed; the encoder is driven by this table and
// checked against the decoder.

// cReg says where a compressed form keeps one register operand.
type cReg uint8

const (
	cNone cReg = iota // not encoded: implied by the form (and checked)
	cR117             // full 5-bit register number in bits 11:7
	cR62              // full 5-bit register number in bits 6:2
	cP97              // x8..x15 as a 3-bit number in bits 9:7 (rs1', rd')
	cP42              // x8..x15 as a 3-bit number in bits 4:2 (rs2', rd')
)

// cSpec describes one compressed form.
type cSpec struct {
	name  string
	op    Op     // the base op the form expands to
	match uint16 // quadrant, funct3 and any other fixed bits
	// rd, rs1, rs2 say where the expanded instruction's register fields
	// come from; cNone means the form implies the value (x0, x2, or a copy
	// of rd, see decodeCompressed).
	rd, rs1, rs2 cReg
	imm          *immLayout // nil if the form has no immediate
}

// cTable is indexed by COp, in the order of the RVC opcode map
// (Unprivileged §16.8, tables 16.5-16.7), for RV64C.
var cTable = [NumCOps]cSpec{
	CNone: {name: "none"},

	// Quadrant 0 (table 16.5).
	C_ADDI4SPN: {"c.addi4spn", ADDI, 0x0000, cP42, cNone, cNone, &cImmAddi4spn},
	C_FLD:      {"c.fld", FLD, 0x2000, cP42, cP97, cNone, &cImmD},
	C_LW:       {"c.lw", LW, 0x4000, cP42, cP97, cNone, &cImmW},
	C_LD:       {"c.ld", LD, 0x6000, cP42, cP97, cNone, &cImmD},
	C_FSD:      {"c.fsd", FSD, 0xa000, cNone, cP97, cP42, &cImmD},
	C_SW:       {"c.sw", SW, 0xc000, cNone, cP97, cP42, &cImmW},
	C_SD:       {"c.sd", SD, 0xe000, cNone, cP97, cP42, &cImmD},

	// Quadrant 1 (table 16.6).
	C_NOP:      {"c.nop", ADDI, 0x0001, cNone, cNone, cNone, &cImm6},
	C_ADDI:     {"c.addi", ADDI, 0x0001, cR117, cNone, cNone, &cImm6},
	C_ADDIW:    {"c.addiw", ADDIW, 0x2001, cR117, cNone, cNone, &cImm6},
	C_LI:       {"c.li", ADDI, 0x4001, cR117, cNone, cNone, &cImm6},
	C_ADDI16SP: {"c.addi16sp", ADDI, 0x6001 | 2<<7, cNone, cNone, cNone, &cImmAddi16sp},
	C_LUI:      {"c.lui", LUI, 0x6001, cR117, cNone, cNone, &cImmLui},
	C_SRLI:     {"c.srli", SRLI, 0x8001, cP97, cNone, cNone, &cShamt},
	C_SRAI:     {"c.srai", SRAI, 0x8401, cP97, cNone, cNone, &cShamt},
	C_ANDI:     {"c.andi", ANDI, 0x8801, cP97, cNone, cNone, &cImm6},
	C_SUB:      {"c.sub", SUB, 0x8c01, cP97, cNone, cP42, nil},
	C_XOR:      {"c.xor", XOR, 0x8c21, cP97, cNone, cP42, nil},
	C_OR:       {"c.or", OR, 0x8c41, cP97, cNone, cP42, nil},
	C_AND:      {"c.and", AND, 0x8c61, cP97, cNone, cP42, nil},
	C_SUBW:     {"c.subw", SUBW, 0x9c01, cP97, cNone, cP42, nil},
	C_ADDW:     {"c.addw", ADDW, 0x9c21, cP97, cNone, cP42, nil},
	C_J:        {"c.j", JAL, 0xa001, cNone, cNone, cNone, &cImmJ},
	C_BEQZ:     {"c.beqz", BEQ, 0xc001, cNone, cP97, cNone, &cImmB},
	C_BNEZ:     {"c.bnez", BNE, 0xe001, cNone, cP97, cNone, &cImmB},

	// Quadrant 2 (table 16.7).
	C_SLLI:   {"c.slli", SLLI, 0x0002, cR117, cNone, cNone, &cShamt},
	C_FLDSP:  {"c.fldsp", FLD, 0x2002, cR117, cNone, cNone, &cImmLdsp},
	C_LWSP:   {"c.lwsp", LW, 0x4002, cR117, cNone, cNone, &cImmLwsp},
	C_LDSP:   {"c.ldsp", LD, 0x6002, cR117, cNone, cNone, &cImmLdsp},
	C_JR:     {"c.jr", JALR, 0x8002, cNone, cR117, cNone, nil},
	C_MV:     {"c.mv", ADD, 0x8002, cR117, cNone, cR62, nil},
	C_EBREAK: {"c.ebreak", EBREAK, 0x9002, cNone, cNone, cNone, nil},
	C_JALR:   {"c.jalr", JALR, 0x9002, cNone, cR117, cNone, nil},
	C_ADD:    {"c.add", ADD, 0x9002, cR117, cNone, cR62, nil},
	C_FSDSP:  {"c.fsdsp", FSD, 0xa002, cNone, cNone, cR62, &cImmSdsp},
	C_SWSP:   {"c.swsp", SW, 0xc002, cNone, cNone, cR62, &cImmSwsp},
	C_SDSP:   {"c.sdsp", SD, 0xe002, cNone, cNone, cR62, &cImmSdsp},
}

// String returns the compressed form's mnemonic as the specification
// writes it, e.g. "c.addi4spn"; CNone is "none".
func (c COp) String() string {
	if c < NumCOps {
		return cTable[c].name
	}
	return fmt.Sprintf("cop(%d)", uint8(c))
}

// placeReg puts register r where the form keeps it.
func placeReg(where cReg, r uint8, c COp, field string) (uint32, error) {
	switch where {
	case cR117, cR62:
		if r > 31 {
			return 0, fmt.Errorf("%w: %s: register %s=%d is not below 32", ErrEncode, c, field, r)
		}
		if where == cR117 {
			return uint32(r) << 7, nil
		}
		return uint32(r) << 2, nil
	case cP97, cP42:
		if r < 8 || r > 15 {
			return 0, fmt.Errorf("%w: %s: register %s=x%d is not one of x8..x15", ErrEncode, c, field, r)
		}
		if where == cP97 {
			return uint32(r-8) << 7, nil
		}
		return uint32(r-8) << 2, nil
	}
	return 0, nil
}

// encodeCompressed encodes in as the compressed form in.C. It places the
// operands the form encodes, then decodes the result and requires it to be
// exactly in: that one check enforces the implied operands (c.addi's
// rs1 = rd, c.lwsp's x2 base, ...), the fields the form does not have, and
// the reserved encodings (c.lui with a zero immediate, c.jr x0, ...).
func encodeCompressed(in Inst) (uint32, error) {
	c := in.C
	if c >= NumCOps {
		return 0, fmt.Errorf("%w: compressed form %d is out of range", ErrEncode, uint8(c))
	}
	s := &cTable[c]
	if in.Op != s.op {
		return 0, fmt.Errorf("%w: %s expands to %s, not %s", ErrEncode, c, s.op, in.Op)
	}
	w := uint32(s.match)
	for _, r := range [3]struct {
		where cReg
		v     uint8
		name  string
	}{{s.rd, in.Rd, "rd"}, {s.rs1, in.Rs1, "rs1"}, {s.rs2, in.Rs2, "rs2"}} {
		bits, err := placeReg(r.where, r.v, c, r.name)
		if err != nil {
			return 0, err
		}
		w |= bits
	}
	if s.imm != nil {
		bits, ok := s.imm.put(in.Imm)
		if !ok {
			return 0, fmt.Errorf("%w: %s: immediate %d does not fit (%s)", ErrEncode, c, in.Imm, immRange(s.imm))
		}
		w |= bits
	}
	got := Decode(w)
	if got.C != c {
		return 0, fmt.Errorf("%w: %s: these operands give %#04x, which is %s, not %s (a reserved or different form; §16.8)",
			ErrEncode, c, w, describeForm(got), c)
	}
	if err := sameFields(in, got); err != nil {
		return 0, err
	}
	return w, nil
}

// describeForm names what a decoded compressed word is, for errors.
func describeForm(in Inst) string {
	if in.Op == ILLEGAL {
		return "reserved"
	}
	return in.C.String()
}

// sameFields reports the first operand field in which want (what the
// caller asked to encode) differs from got (what the encoding decodes to).
func sameFields(want, got Inst) error {
	type field struct {
		name      string
		want, got int64
	}
	b := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	for _, f := range [...]field{
		{"rd", int64(want.Rd), int64(got.Rd)},
		{"rs1", int64(want.Rs1), int64(got.Rs1)},
		{"rs2", int64(want.Rs2), int64(got.Rs2)},
		{"rs3", int64(want.Rs3), int64(got.Rs3)},
		{"imm", want.Imm, got.Imm},
		{"csr", int64(want.CSR), int64(got.CSR)},
		{"rm", int64(want.RM), int64(got.RM)},
		{"aq", b(want.AQ), b(got.AQ)},
		{"rl", b(want.RL), b(got.RL)},
	} {
		if f.want != f.got {
			return fmt.Errorf("%w: %s: field %s=%d cannot be expressed; the form implies %s=%d",
				ErrEncode, want.C, f.name, f.want, f.name, f.got)
		}
	}
	return nil
}

// Compress returns the compressed equivalent of a 32-bit instruction: the
// first form in COp order (the order of the RVC opcode map) that can
// express it exactly, decoded, so that Len is 2 and Raw is set. ok is false
// if no form can. Where two forms can (addi sp, sp, 16 is both c.addi and
// c.addi16sp), the earlier one wins; set C by hand to choose.
func Compress(in Inst) (out Inst, ok bool) {
	for c := COp(1); c < NumCOps; c++ {
		if cTable[c].op != in.Op {
			continue
		}
		try := in
		try.C = c
		if w, err := encodeCompressed(try); err == nil {
			return Decode(w), true
		}
	}
	return Inst{}, false
}
