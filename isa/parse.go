package isa

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrParse is wrapped by every error Parse returns.
var ErrParse = errors.New("cannot assemble")

// Parse assembles one instruction from the text Disasm prints, so that
// tests can go from text to Inst to Encode. It accepts:
//
//   - everything Disasm prints, including objdump's aliases (li, mv, ret,
//     csrr, fmv.s, sext.w, add with an immediate, ...), optional rounding
//     modes, .aq/.rl/.aqrl suffixes, ".4byte 0x…", ".2byte 0x…" and
//     "hypercall";
//   - the Zalasr loads and stores (lw.aq a0,(a1); sd.aqrl a0,(a1)), whose
//     memory operand, like an AMO's, has no offset (or offset 0);
//   - the canonical mnemonics with all operands (addi a0,zero,5; csrrwi
//     a0,mstatus,5; jalr ra,0(a0)) and the assembler aliases objdump does
//     not print (bgt, ble, bgtu, bleu, csrwi, csrsi, csrci);
//   - compressed forms with a c. mnemonic in assembler syntax (c.addi
//     sp,-16; c.lwsp a0,12(sp); c.addi4spn a0,sp,16; c.unimp), which choose
//     the compressed encoding. Without the c. prefix the result is a 32-bit
//     instruction; use Compress for its compressed equivalent.
//
// Registers are ABI names (a0, fs1, also fp) or x0..x31 and f0..f31. CSRs
// are names or numbers. Immediates are decimal or 0x-prefixed hex; the
// operand of lui and auipc is the 20-bit upper immediate. Branch and jump
// targets are absolute addresses in hex, with or without 0x, as Disasm
// prints them; the offset is target - pc.
//
// The result is what Decode returns for the encoded word (Len and Raw
// set). Errors wrap ErrParse and name the operand that failed.
func Parse(text string, pc uint64) (Inst, error) {
	mnem, rest, _ := strings.Cut(strings.TrimSpace(text), "\t")
	if m, r, ok := strings.Cut(mnem, " "); ok {
		mnem, rest = m, r+" "+rest
	}
	mnem = strings.ToLower(mnem)
	var ops []string
	if rest = strings.TrimSpace(rest); rest != "" {
		ops = strings.Split(rest, ",")
		for i := range ops {
			ops[i] = strings.TrimSpace(ops[i])
		}
	}
	in, err := parse(mnem, ops, pc)
	if err != nil {
		return Inst{}, fmt.Errorf("%w %q: %w", ErrParse, text, err)
	}
	return in, nil
}

func parse(mnem string, ops []string, pc uint64) (Inst, error) {
	switch mnem {
	case ".4byte", ".2byte":
		return parseRaw(mnem, ops)
	case "c.unimp":
		if len(ops) != 0 {
			return Inst{}, errors.New("c.unimp takes no operands")
		}
		return Decode(0), nil
	}
	aq, rl := false, false
	cands := synByMnem[mnem]
	if cands == nil {
		for _, suf := range [...]string{".aqrl", ".aq", ".rl"} {
			if base, ok := strings.CutSuffix(mnem, suf); ok && takesOrdering(base) {
				cands = synByMnem[base]
				aq, rl = suf != ".rl", suf != ".aq"
				break
			}
		}
	}
	if cands == nil {
		return Inst{}, fmt.Errorf("unknown mnemonic %q", mnem)
	}
	compressed := strings.HasPrefix(mnem, "c.")
	// Several entries may share a mnemonic (add is add and addi, csrw is
	// csrrw and csrrwi). If none fits, report the error of the entries that
	// got furthest, joined if there are several.
	var errs []string
	best := -1
	for _, i := range cands {
		s := &syntaxTable[i]
		if (s.c != CNone) != compressed {
			continue // objdump's spelling of a compressed form: parse as 32-bit
		}
		if (aq || rl) && !hasOrdering(opTable[s.op].fmt) {
			continue // lw.aq is the Zalasr load, never lw
		}
		in, progress, err := s.parse(ops, pc)
		if err == nil {
			in.AQ, in.RL = aq, rl
			var w uint32
			if w, err = Encode(in); err == nil {
				return Decode(w), nil
			}
			progress = len(ops) + 1
		}
		switch {
		case progress > best:
			best, errs = progress, []string{err.Error()}
		case progress == best && !slices.Contains(errs, err.Error()):
			errs = append(errs, err.Error())
		}
	}
	if errs == nil {
		return Inst{}, fmt.Errorf("unknown mnemonic %q", mnem)
	}
	return Inst{}, errors.New(strings.Join(errs, "; or "))
}

// takesOrdering reports whether mnem is an LR, SC or AMO mnemonic, or the
// load or store of a Zalasr op, which take the .aq/.rl/.aqrl suffixes.
func takesOrdering(mnem string) bool {
	for _, i := range synByMnem[mnem] {
		if hasOrdering(opTable[syntaxTable[i].op].fmt) {
			return true
		}
	}
	return false
}

// hasOrdering reports whether instructions of format f have aq and rl bits.
func hasOrdering(f format) bool {
	return f == fmtAMO || f == fmtLR || f == fmtLAQ || f == fmtSRL
}

// parseRaw handles ".4byte 0x…" and ".2byte 0x…": the word decodes to
// whatever it is (usually ILLEGAL).
func parseRaw(mnem string, ops []string) (Inst, error) {
	if len(ops) != 1 {
		return Inst{}, fmt.Errorf("%s takes one operand", mnem)
	}
	v, err := strconv.ParseUint(ops[0], 0, 32)
	if err != nil {
		return Inst{}, fmt.Errorf("%s operand: %w", mnem, err)
	}
	if mnem == ".2byte" {
		if v > 0xffff || v&3 == 3 {
			return Inst{}, fmt.Errorf(".2byte %#x is not a 16-bit instruction", v)
		}
		return Decode(uint32(v)), nil
	}
	if v&3 != 3 {
		return Inst{}, fmt.Errorf(".4byte %#x is not a 32-bit instruction (low bits are not 11)", v)
	}
	return Decode(uint32(v)), nil
}

// parser holds one attempt to read operands with one syntax entry.
type parser struct {
	s     *syn
	in    Inst
	fixed uint8 // fields the entry fixes (1 << field)
	set   uint8 // fields an operand has assigned
	pc    uint64
}

// parse reads operands with this entry's pattern. progress says how far it
// got before an error: 0 if the operand count is wrong, else the number of
// operands read.
func (s *syn) parse(ops []string, pc uint64) (in Inst, progress int, err error) {
	var toks []string
	if s.args != "" {
		toks = strings.Split(s.args, ",")
	}
	p := parser{s: s, in: Inst{Op: s.op, C: s.c}, pc: pc}
	if len(toks) > 0 && toks[len(toks)-1] == "rm" && len(ops) == len(toks)-1 {
		toks = toks[:len(toks)-1]
		p.in.RM = DYN
	}
	if len(ops) != len(toks) {
		return Inst{}, 0, fmt.Errorf("%s takes %d operands (%s), not %d", s.mnem, len(toks), s.args, len(ops))
	}
	for _, f := range s.fix {
		setField(&p.in, f.f, f.v)
		p.fixed |= 1 << f.f
	}
	for i, tok := range toks {
		if err := p.operand(tok, ops[i]); err != nil {
			return Inst{}, i + 1, fmt.Errorf("operand %d (%s) of %s: %w", i+1, tok, s.mnem, err)
		}
	}
	if s.flags&synTieRs1 != 0 {
		if p.set&(1<<fieldRs1) != 0 && p.in.Rs1 != p.in.Rd {
			return Inst{}, len(toks), fmt.Errorf("%s needs rs1 equal to rd", s.mnem)
		}
		p.in.Rs1 = p.in.Rd
	}
	if s.flags&synTieRs2 != 0 {
		p.in.Rs2 = p.in.Rs1
	}
	return p.in, len(toks), nil
}

// assign sets field f from operand tok, checking it against the entry's
// fixed value if it has one (c.lwsp's base must be sp).
func (p *parser) assign(f field, v int64, tok string) error {
	if p.fixed&(1<<f) != 0 && value(&p.in, f) != v {
		return fmt.Errorf("%s must be %d in %s", tok, value(&p.in, f), p.s.mnem)
	}
	setField(&p.in, f, v)
	p.set |= 1 << f
	return nil
}

// setField sets field f of in.
func setField(in *Inst, f field, v int64) {
	switch f {
	case fieldRd:
		in.Rd = uint8(v)
	case fieldRs1:
		in.Rs1 = uint8(v)
	case fieldRs2:
		in.Rs2 = uint8(v)
	case fieldRs3:
		in.Rs3 = uint8(v)
	case fieldImm:
		in.Imm = v
	case fieldCSR:
		in.CSR = uint16(v)
	case fieldRM:
		in.RM = uint8(v)
	}
}

// regField maps a register token to the field it sets.
func regField(tok string) field {
	switch tok {
	case "rd", "fd":
		return fieldRd
	case "rs1", "fs1":
		return fieldRs1
	case "rs2", "fs2":
		return fieldRs2
	}
	return fieldRs3
}

// operand parses one operand text for pattern token tok.
func (p *parser) operand(tok, text string) error {
	switch tok {
	case "rd", "rs1", "rs2":
		r, err := xReg(text)
		if err != nil {
			return err
		}
		return p.assign(regField(tok), int64(r), tok)
	case "fd", "fs1", "fs2", "fs3":
		r, err := fReg(text)
		if err != nil {
			return err
		}
		return p.assign(regField(tok), int64(r), tok)
	case "imm", "shamt":
		v, err := strconv.ParseInt(text, 0, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", text)
		}
		return p.assign(fieldImm, v, tok)
	case "hi":
		v, err := strconv.ParseInt(text, 0, 64)
		if err != nil || v < -0x80000 || v > 0xfffff {
			return fmt.Errorf("%q is not a 20-bit upper immediate", text)
		}
		return p.assign(fieldImm, int64(int32(uint32(v)<<12)), tok)
	case "mem", "amem":
		off, base, ok := strings.Cut(text, "(")
		if !ok || !strings.HasSuffix(base, ")") {
			return fmt.Errorf("%q is not of the form offset(register)", text)
		}
		r, err := xReg(strings.TrimSuffix(base, ")"))
		if err != nil {
			return err
		}
		var v int64
		if off = strings.TrimSpace(off); off != "" {
			if v, err = strconv.ParseInt(off, 0, 64); err != nil {
				return fmt.Errorf("offset %q is not an integer", off)
			}
		}
		if tok == "amem" && v != 0 {
			return fmt.Errorf("%q: an atomic memory operand has no offset", text)
		}
		if tok == "mem" {
			if err := p.assign(fieldImm, v, "offset"); err != nil {
				return err
			}
		}
		return p.assign(fieldRs1, int64(r), "base register")
	case "target":
		t, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(text), "0x"), 16, 64)
		if err != nil {
			return fmt.Errorf("%q is not a hex address", text)
		}
		return p.assign(fieldImm, int64(t-p.pc), tok)
	case "csr":
		n, ok := csrByName[strings.ToLower(text)]
		if !ok {
			v, err := strconv.ParseUint(text, 0, 16)
			if err != nil || v > 0xfff {
				return fmt.Errorf("%q is not a CSR name or 12-bit number", text)
			}
			n = uint16(v)
		}
		return p.assign(fieldCSR, int64(n), tok)
	case "zimm":
		v, err := strconv.ParseUint(text, 0, 8)
		if err != nil || v > 31 {
			return fmt.Errorf("%q is not a 5-bit unsigned immediate", text)
		}
		return p.assign(fieldRs1, int64(v), tok)
	case "pred", "succ":
		v, err := parseFenceSet(text)
		if err != nil {
			return err
		}
		if tok == "pred" {
			return p.assign(fieldImm, p.in.Imm&^0xf0|v<<4, tok)
		}
		return p.assign(fieldImm, p.in.Imm&^0xf|v, tok)
	case "rm":
		for v, name := range rmNames {
			if text == name && name != "unknown" {
				return p.assign(fieldRM, int64(v), tok)
			}
		}
		return fmt.Errorf("%q is not a rounding mode (rne, rtz, rdn, rup, rmm, dyn)", text)
	}
	return fmt.Errorf("internal error: unknown operand token %q", tok)
}

// parseFenceSet parses a FENCE predecessor or successor set.
func parseFenceSet(text string) (int64, error) {
	if text == "unknown" || text == "0" {
		return 0, nil
	}
	var v int64
	for _, ch := range text {
		i := strings.IndexRune(fenceBits, ch)
		if i < 0 || v>>(3-i)&1 != 0 {
			return 0, fmt.Errorf("%q is not a fence set (a subset of iorw)", text)
		}
		v |= 1 << (3 - i)
	}
	return v, nil
}

// regNumber looks a register name up in names, also accepting the
// architectural name prefix followed by a number (x5, f5).
func regNumber(text string, names *[32]string, prefix string) (uint8, error) {
	t := strings.ToLower(text)
	for i, n := range names {
		if t == n {
			return uint8(i), nil
		}
	}
	if n, ok := strings.CutPrefix(t, prefix); ok {
		if v, err := strconv.Atoi(n); err == nil && v >= 0 && v < 32 && strconv.Itoa(v) == n {
			return uint8(v), nil
		}
	}
	return 0, fmt.Errorf("%q is not an %s register", text, prefix)
}

func xReg(text string) (uint8, error) {
	if strings.ToLower(text) == "fp" {
		return 8, nil // fp is s0 (Unprivileged §25, table 25.1)
	}
	return regNumber(text, &xNames, "x")
}

func fReg(text string) (uint8, error) {
	return regNumber(text, &fNames, "f")
}
