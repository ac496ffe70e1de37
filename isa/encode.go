package isa

import (
	"errors"
	"fmt"
)

// ErrEncode is wrapped by every error Encode returns, so callers can test
// for it with errors.Is.
var ErrEncode = errors.New("cannot encode")

// Encode returns the instruction word for in: the 32-bit word if in.C is
// CNone, otherwise the 16-bit compressed form in.C (in the low 16 bits).
// Raw and Len are ignored, except that an ILLEGAL instruction encodes as
// its Raw bits so that tests can produce illegal words (Len must then be 2
// or 4 and agree with Raw's low two bits).
//
// Encode checks that every field fits its place in the encoding, that the
// fields the op does not use are zero, and, for a compressed form, that the
// instruction is one the form can express (Unprivileged §16.8). It returns
// an error wrapping ErrEncode that names the op and the field otherwise.
// For every Inst that Decode returns other than ILLEGAL, Encode returns the
// word it was decoded from.
func Encode(in Inst) (uint32, error) {
	if in.Op == ILLEGAL {
		return encodeIllegal(in)
	}
	if in.Op >= NumOps {
		return 0, fmt.Errorf("%w: op %d is out of range", ErrEncode, in.Op)
	}
	if in.C != CNone {
		return encodeCompressed(in)
	}
	s := &opTable[in.Op]
	used, err := checkRegs(in, s)
	if err != nil {
		return 0, err
	}
	w := s.match
	var imm immLayout
	switch s.fmt {
	case fmtR, fmtSfence, fmtR2:
	case fmtI:
		imm = immI
	case fmtFence:
		imm = uimm12
	case fmtShift6:
		imm = shamt6
	case fmtShift5:
		imm = shamt5
	case fmtS:
		imm = immS
	case fmtB:
		imm = immB
	case fmtU:
		imm = immU
	case fmtJ:
		imm = immJ
	case fmtCSR, fmtCSRI:
		used |= useCSR
		if in.CSR > 0xfff {
			return 0, fmt.Errorf("%w: %s: CSR number %#x does not fit in 12 bits", ErrEncode, in.Op, in.CSR)
		}
		w |= uint32(in.CSR) << 20
	case fmtAMO, fmtLR:
		used |= useAqRl
		if in.AQ {
			w |= 1 << 26
		}
		if in.RL {
			w |= 1 << 25
		}
	case fmtLAQ, fmtSRL:
		// The ordering bit the op always has is in its match value; an
		// instruction without it would be a reserved encoding.
		used |= useAqRl
		if s.fmt == fmtLAQ && !in.AQ || s.fmt == fmtSRL && !in.RL {
			return 0, fmt.Errorf("%w: %s: a Zalasr load needs aq and a store rl", ErrEncode, in.Op)
		}
		if in.AQ {
			w |= 1 << 26
		}
		if in.RL {
			w |= 1 << 25
		}
	case fmtRrm, fmtR2rm, fmtR4:
		used |= useRM
		if in.RM > 7 {
			return 0, fmt.Errorf("%w: %s: rounding mode %d does not fit in 3 bits", ErrEncode, in.Op, in.RM)
		}
		w |= uint32(in.RM) << 12
	}
	if imm.segs != nil {
		used |= useImm
		bits, ok := imm.put(in.Imm)
		if !ok {
			return 0, fmt.Errorf("%w: %s: immediate %d does not fit (%s)", ErrEncode, in.Op, in.Imm, immRange(&imm))
		}
		w |= bits
	}
	if err := checkUnused(in, used); err != nil {
		return 0, err
	}
	w |= uint32(in.Rd)<<7 | uint32(in.Rs1)<<15 | uint32(in.Rs2)<<20 | uint32(in.Rs3)<<27
	return w, nil
}

// Field-use flags: which Inst fields an encoding reads.
const (
	useRd = 1 << iota
	useRs1
	useRs2
	useRs3
	useImm
	useCSR
	useRM
	useAqRl
)

// regUse lists, for each format, the register fields it encodes.
var regUse = [numFormats]uint8{
	fmtR:      useRd | useRs1 | useRs2,
	fmtI:      useRd | useRs1,
	fmtFence:  useRd | useRs1,
	fmtShift6: useRd | useRs1,
	fmtShift5: useRd | useRs1,
	fmtS:      useRs1 | useRs2,
	fmtB:      useRs1 | useRs2,
	fmtU:      useRd,
	fmtJ:      useRd,
	fmtFixed:  0,
	fmtCSR:    useRd | useRs1,
	fmtCSRI:   useRd | useRs1,
	fmtSfence: useRs1 | useRs2,
	fmtAMO:    useRd | useRs1 | useRs2,
	fmtLR:     useRd | useRs1,
	fmtRrm:    useRd | useRs1 | useRs2,
	fmtR2rm:   useRd | useRs1,
	fmtR2:     useRd | useRs1,
	fmtR4:     useRd | useRs1 | useRs2 | useRs3,
	fmtLAQ:    useRd | useRs1,
	fmtSRL:    useRs1 | useRs2,
}

// checkRegs checks that the register fields the op uses are below 32 and
// returns the use flags of its format's registers.
func checkRegs(in Inst, s *opSpec) (uint8, error) {
	used := regUse[s.fmt]
	regs := [4]struct {
		flag uint8
		name string
		v    uint8
	}{{useRd, "rd", in.Rd}, {useRs1, "rs1", in.Rs1}, {useRs2, "rs2", in.Rs2}, {useRs3, "rs3", in.Rs3}}
	for _, r := range regs {
		if used&r.flag != 0 && r.v > 31 {
			if s.fmt == fmtCSRI && r.flag == useRs1 {
				return 0, fmt.Errorf("%w: %s: zimm %d does not fit in 5 bits", ErrEncode, in.Op, r.v)
			}
			return 0, fmt.Errorf("%w: %s: register %s=%d is not below 32", ErrEncode, in.Op, r.name, r.v)
		}
	}
	return used, nil
}

// checkUnused reports the first field that is set although the encoding
// does not use it.
func checkUnused(in Inst, used uint8) error {
	bad := ""
	switch {
	case used&useRd == 0 && in.Rd != 0:
		bad = fmt.Sprintf("rd=%d", in.Rd)
	case used&useRs1 == 0 && in.Rs1 != 0:
		bad = fmt.Sprintf("rs1=%d", in.Rs1)
	case used&useRs2 == 0 && in.Rs2 != 0:
		bad = fmt.Sprintf("rs2=%d", in.Rs2)
	case used&useRs3 == 0 && in.Rs3 != 0:
		bad = fmt.Sprintf("rs3=%d", in.Rs3)
	case used&useImm == 0 && in.Imm != 0:
		bad = fmt.Sprintf("imm=%d", in.Imm)
	case used&useCSR == 0 && in.CSR != 0:
		bad = fmt.Sprintf("csr=%#x", in.CSR)
	case used&useRM == 0 && in.RM != 0:
		bad = fmt.Sprintf("rm=%d", in.RM)
	case used&useAqRl == 0 && (in.AQ || in.RL):
		bad = "aq/rl"
	default:
		return nil
	}
	name := in.Op.String()
	if in.C != CNone {
		name = in.C.String()
	}
	return fmt.Errorf("%w: %s: field %s is not part of the encoding and must be zero", ErrEncode, name, bad)
}

// immRange describes the values an immediate layout can hold, for errors.
func immRange(l *immLayout) string {
	var maxBit, minBit uint8 = 0, 64
	for _, s := range l.segs {
		if top := s.at + s.hi - s.lo; top > maxBit {
			maxBit = top
		}
		if s.at < minBit {
			minBit = s.at
		}
	}
	align := ""
	if minBit > 0 {
		align = fmt.Sprintf(", a multiple of %d", 1<<minBit)
	}
	if l.sign != 0 {
		return fmt.Sprintf("range %d..%d%s", -(int64(1) << l.sign), int64(1)<<l.sign-1, align)
	}
	return fmt.Sprintf("range 0..%d%s", int64(1)<<(maxBit+1)-1, align)
}

// encodeIllegal returns the raw bits of an ILLEGAL instruction.
func encodeIllegal(in Inst) (uint32, error) {
	switch {
	case in.Len == 2 && in.Raw <= 0xffff && in.Raw&3 != 3:
		return in.Raw, nil
	case in.Len == 4 && in.Raw&3 == 3:
		return in.Raw, nil
	}
	return 0, fmt.Errorf("%w: illegal instruction with Len %d and Raw %#x: Raw is not an instruction of that length", ErrEncode, in.Len, in.Raw)
}
