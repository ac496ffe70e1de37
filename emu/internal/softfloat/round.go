package softfloat

import "math/bits"

// class is the kind of an unpacked operand.
type class uint8

const (
	clsZero class = iota
	clsFinite
	clsInf
	clsQNaN
	clsSNaN
)

// num is an unpacked operand of either format. For clsFinite the value is
// (−1)^sign × sig × 2^(exp−52) with sig normalized into [2^52, 2^53), so a
// subnormal operand gets an exponent below the format's minimum and both
// formats share one representation: every binary32 value is exactly a num.
type num struct {
	cls  class
	sign bool
	exp  int
	sig  uint64
}

// isNaN reports whether n is a quiet or signaling NaN.
func (n num) isNaN() bool { return n.cls >= clsQNaN }

// kind is the kind of an operation's result before rounding.
type kind uint8

const (
	kZero   kind = iota // an exact zero with the given sign
	kFinite             // a nonzero finite value still to be rounded
	kInf                // an infinity with the given sign
	kNaN                // the canonical NaN
)

// result is an operation's result before rounding into a format. For kFinite
// the value is (−1)^sign × m × 2^(exp−63) with bit 63 of m set, where m is
// the exact result rounded to odd at bit 0 (or at a higher bit, with zeros
// below): the lowest bit is set whenever nonzero bits were discarded below
// it. Every operation keeps at least 60 significant bits before that bit,
// so m has at least 7 more than a 53-bit significand needs, and rounding a
// value rounded to odd with 2 or more extra bits once more gives the
// correctly rounded exact value in every rounding mode; the same holds for
// the unbounded-exponent rounding that decides tininess. So one operation
// core serves binary32 and binary64 alike.
type result struct {
	kind  kind
	sign  bool
	exp   int
	m     uint64
	flags Flags
}

// finite returns n (clsFinite) as an exact result.
func (n num) finite() result {
	return result{kind: kFinite, sign: n.sign, exp: n.exp, m: n.sig << 11}
}

// nanResult returns the canonical NaN for an operation with a NaN operand,
// raising Invalid if x or y is a signaling NaN (Unprivileged §11.3).
func nanResult(x, y num) result {
	r := result{kind: kNaN}
	if x.cls == clsSNaN || y.cls == clsSNaN {
		r.flags = Invalid
	}
	return r
}

// invalidResult is the default result of an invalid operation: the
// canonical NaN and Invalid (IEEE 754-2008 §7.2, Unprivileged §11.3).
var invalidResult = result{kind: kNaN, flags: Invalid}

// unpack64 unpacks binary64 bits.
func unpack64(a uint64) num {
	sign := a>>63 != 0
	e := int(a>>52) & 0x7ff
	f := a & (1<<52 - 1)
	switch {
	case e == 0x7ff && f == 0:
		return num{cls: clsInf, sign: sign}
	case e == 0x7ff && f&(1<<51) != 0:
		return num{cls: clsQNaN, sign: sign}
	case e == 0x7ff:
		return num{cls: clsSNaN, sign: sign}
	case e != 0:
		return num{cls: clsFinite, sign: sign, exp: e - 1023, sig: f | 1<<52}
	case f == 0:
		return num{cls: clsZero, sign: sign}
	}
	// Subnormal: normalize so that bit 52 is set.
	s := bits.LeadingZeros64(f) - 11
	return num{cls: clsFinite, sign: sign, exp: -1022 - s, sig: f << s}
}

// unpack32 unpacks binary32 bits into the shared representation.
func unpack32(a uint32) num {
	sign := a>>31 != 0
	e := int(a>>23) & 0xff
	f := uint64(a & (1<<23 - 1))
	switch {
	case e == 0xff && f == 0:
		return num{cls: clsInf, sign: sign}
	case e == 0xff && f&(1<<22) != 0:
		return num{cls: clsQNaN, sign: sign}
	case e == 0xff:
		return num{cls: clsSNaN, sign: sign}
	case e != 0:
		return num{cls: clsFinite, sign: sign, exp: e - 127, sig: (f | 1<<23) << 29}
	case f == 0:
		return num{cls: clsZero, sign: sign}
	}
	s := bits.LeadingZeros64(f) - 11
	return num{cls: clsFinite, sign: sign, exp: -126 - (s - 29), sig: f << s}
}

// roundsUp reports whether a significand whose discarded bits are low (with
// half the weight of its last kept bit) and whose last kept bit is odd must
// be incremented in magnitude under rounding mode rm for a value of the given
// sign (IEEE 754-2008 §4.3).
func roundsUp(low, half uint64, odd, sign bool, rm uint8) bool {
	switch rm {
	case RNE:
		return low > half || (low == half && odd)
	case RTZ:
		return false
	case RDN:
		return low != 0 && sign
	case RUP:
		return low != 0 && !sign
	case RMM:
		return low >= half
	}
	panic("softfloat: rounding mode > 4; the caller must resolve DYN and reject reserved modes")
}

// overflowsToInf reports whether an overflowing result of the given sign becomes
// infinity under rm rather than the largest finite number
// (IEEE 754-2008 §7.4).
func overflowsToInf(sign bool, rm uint8) bool {
	switch rm {
	case RNE, RMM:
		return true
	case RTZ:
		return false
	case RDN:
		return sign
	case RUP:
		return !sign
	}
	panic("softfloat: rounding mode > 4; the caller must resolve DYN and reject reserved modes")
}

// shiftRightJam64 shifts m right by n ≥ 0 bits, ORing every bit shifted out
// into bit 0 (rounding to odd).
func shiftRightJam64(m uint64, n int) uint64 {
	switch {
	case n == 0:
		return m
	case n >= 64:
		if m != 0 {
			return 1
		}
		return 0
	}
	r := m >> uint(n)
	if m<<uint(64-n) != 0 {
		r |= 1
	}
	return r
}

// shiftRightJam128 shifts hi:lo right by n ≥ 0 bits, ORing every bit shifted
// out into bit 0.
func shiftRightJam128(hi, lo uint64, n int) (uint64, uint64) {
	switch {
	case n == 0:
		return hi, lo
	case n < 64:
		jam := lo<<uint(64-n) != 0
		lo = lo>>uint(n) | hi<<uint(64-n)
		hi >>= uint(n)
		if jam {
			lo |= 1
		}
		return hi, lo
	case n < 128:
		jam := lo != 0 || hi<<uint(128-n) != 0 // hi<<64 is 0 for n == 64
		lo = hi >> uint(n-64)
		if jam {
			lo |= 1
		}
		return 0, lo
	}
	if hi|lo != 0 {
		return 0, 1
	}
	return 0, 0
}

// Binary64 parameters (IEEE 754-2008 §3.3, table 3.2).
const (
	f64EminExp = -1022
	f64EmaxExp = 1023
	f64Inf     = uint64(0x7ff) << 52
	f64MaxBits = f64Inf - 1
)

// Binary32 parameters (IEEE 754-2008 §3.3, table 3.2).
const (
	f32EminExp = -126
	f32EmaxExp = 127
	f32Inf     = uint32(0xff) << 23
	f32MaxBits = f32Inf - 1
)

// pack64 rounds r into binary64 under rm and returns its bits with every flag
// raised.
func pack64(r result, rm uint8) (uint64, Flags) {
	var s uint64
	if r.sign {
		s = 1 << 63
	}
	switch r.kind {
	case kZero:
		return s, r.flags
	case kInf:
		return s | f64Inf, r.flags
	case kNaN:
		return CanonicalNaN64, r.flags
	}
	return round64(s, r.exp, r.m, rm, r.flags)
}

// round64 rounds (−1)^s × m × 2^(e−63), bit 63 of m set, into binary64
// (IEEE 754-2008 §4.3, §7.4, §7.5). s is the sign bit in place.
func round64(s uint64, e int, m uint64, rm uint8, flags Flags) (uint64, Flags) {
	const lowBits = 64 - 53
	const lowMask = 1<<lowBits - 1
	const half = 1 << (lowBits - 1)
	sign := s != 0
	if e > f64EmaxExp {
		return overflow64(s, rm), flags | Overflow | Inexact
	}
	tiny := false
	if e < f64EminExp {
		// Tininess after rounding (Unprivileged §11.4): the value is tiny
		// unless rounding it to 53 bits with an unbounded exponent carries
		// it up to 2^emin.
		tiny = e < f64EminExp-1 || m>>lowBits != 1<<53-1 ||
			!roundsUp(m&lowMask, half, true, sign, rm)
		m = shiftRightJam64(m, f64EminExp-e)
		e = f64EminExp
	}
	low := m & lowMask
	sig := m >> lowBits
	if roundsUp(low, half, sig&1 != 0, sign, rm) {
		sig++
	}
	// For a normal result sig's bit 52 adds one to the biased exponent
	// e+1022; a carry out of the significand adds one more. A subnormal has
	// e+1022 = 0 and no bit 52 unless it rounded up to the smallest normal.
	b := uint64(e+f64EmaxExp-1)<<52 + sig
	if b >= f64Inf {
		return overflow64(s, rm), flags | Overflow | Inexact
	}
	if low != 0 {
		flags |= Inexact
		if tiny {
			flags |= Underflow
		}
	}
	return s | b, flags
}

// overflow64 is the binary64 result of an overflow of sign bit s under rm.
func overflow64(s uint64, rm uint8) uint64 {
	if overflowsToInf(s != 0, rm) {
		return s | f64Inf
	}
	return s | f64MaxBits
}

// pack32 rounds r into binary32 under rm and returns its bits with every flag
// raised.
func pack32(r result, rm uint8) (uint32, Flags) {
	var s uint32
	if r.sign {
		s = 1 << 31
	}
	switch r.kind {
	case kZero:
		return s, r.flags
	case kInf:
		return s | f32Inf, r.flags
	case kNaN:
		return CanonicalNaN32, r.flags
	}
	return round32(s, r.exp, r.m, rm, r.flags)
}

// round32 rounds (−1)^s × m × 2^(e−63), bit 63 of m set, into binary32
// (IEEE 754-2008 §4.3, §7.4, §7.5). s is the sign bit in place.
func round32(s uint32, e int, m uint64, rm uint8, flags Flags) (uint32, Flags) {
	const lowBits = 64 - 24
	const lowMask = 1<<lowBits - 1
	const half = 1 << (lowBits - 1)
	sign := s != 0
	if e > f32EmaxExp {
		return overflow32(s, rm), flags | Overflow | Inexact
	}
	tiny := false
	if e < f32EminExp {
		// Tininess after rounding (Unprivileged §11.4).
		tiny = e < f32EminExp-1 || m>>lowBits != 1<<24-1 ||
			!roundsUp(m&lowMask, half, true, sign, rm)
		m = shiftRightJam64(m, f32EminExp-e)
		e = f32EminExp
	}
	low := m & lowMask
	sig := uint32(m >> lowBits)
	if roundsUp(low, half, sig&1 != 0, sign, rm) {
		sig++
	}
	b := uint32(e+f32EmaxExp-1)<<23 + sig
	if b >= f32Inf {
		return overflow32(s, rm), flags | Overflow | Inexact
	}
	if low != 0 {
		flags |= Inexact
		if tiny {
			flags |= Underflow
		}
	}
	return s | b, flags
}

// overflow32 is the binary32 result of an overflow of sign bit s under rm.
func overflow32(s uint32, rm uint8) uint32 {
	if overflowsToInf(s != 0, rm) {
		return s | f32Inf
	}
	return s | f32MaxBits
}
