package softfloat

import (
	"math"
	"math/bits"
)

// This file holds the format-independent general path of the arithmetic
// operations: each takes unpacked operands and returns the exact result
// rounded to odd (see result), which pack32 or pack64 then rounds once.

// zeroSum is the sign of an exact zero sum of operands with opposite signs:
// +0 in every rounding mode but RDN, where it is −0 (IEEE 754-2008 §6.3).
func zeroSum(rm uint8) result {
	return result{kind: kZero, sign: rm == RDN}
}

// add returns x + y (IEEE 754-2008 §5.4.1, Unprivileged §11.6 FADD).
func add(x, y num, rm uint8) result {
	if x.isNaN() || y.isNaN() {
		return nanResult(x, y)
	}
	if x.cls == clsInf {
		if y.cls == clsInf && x.sign != y.sign {
			return invalidResult // ∞ − ∞, IEEE 754-2008 §7.2(b)
		}
		return result{kind: kInf, sign: x.sign}
	}
	if y.cls == clsInf {
		return result{kind: kInf, sign: y.sign}
	}
	if x.cls == clsZero {
		if y.cls == clsZero {
			if x.sign == y.sign {
				return result{kind: kZero, sign: x.sign}
			}
			return zeroSum(rm)
		}
		return y.finite()
	}
	if y.cls == clsZero {
		return x.finite()
	}
	return addFinite(x, y, rm)
}

// addFinite returns x + y for finite nonzero x and y.
func addFinite(x, y num, rm uint8) result {
	if x.exp < y.exp || (x.exp == y.exp && x.sig < y.sig) {
		x, y = y, x
	}
	// |x| ≥ |y|. Both significands get 10 bits of headroom below; y is
	// aligned to x rounding to odd. Subtracting an odd-rounded y from the
	// even x gives the odd-rounded difference, and when bits were lost the
	// exponents differ by 2 or more, so at most one bit cancels.
	a := x.sig << 10
	b := shiftRightJam64(y.sig<<10, x.exp-y.exp)
	var s uint64
	if x.sign == y.sign {
		s = a + b
	} else {
		s = a - b
		if s == 0 {
			return zeroSum(rm)
		}
	}
	lz := bits.LeadingZeros64(s)
	return result{kind: kFinite, sign: x.sign, exp: x.exp + 1 - lz, m: s << uint(lz)}
}

// mul returns x × y (IEEE 754-2008 §5.4.1, Unprivileged §11.6 FMUL).
func mul(x, y num) result {
	if x.isNaN() || y.isNaN() {
		return nanResult(x, y)
	}
	sign := x.sign != y.sign
	if x.cls == clsInf || y.cls == clsInf {
		if x.cls == clsZero || y.cls == clsZero {
			return invalidResult // 0 × ∞, IEEE 754-2008 §7.2(c)
		}
		return result{kind: kInf, sign: sign}
	}
	if x.cls == clsZero || y.cls == clsZero {
		return result{kind: kZero, sign: sign}
	}
	return mulFinite(x, y, sign)
}

// mulFinite returns x × y with the given sign for finite nonzero x and y.
func mulFinite(x, y num, sign bool) result {
	// The 106-bit product of the two 53-bit significands, placed at the top
	// of 128 bits: bit 127 or bit 126 is its leading bit.
	hi, lo := bits.Mul64(x.sig<<11, y.sig<<11)
	e := x.exp + y.exp + 1
	if hi>>63 == 0 {
		hi = hi<<1 | lo>>63
		lo <<= 1
		e--
	}
	if lo != 0 {
		hi |= 1
	}
	return result{kind: kFinite, sign: sign, exp: e, m: hi}
}

// div returns x ÷ y (IEEE 754-2008 §5.4.1, Unprivileged §11.6 FDIV).
func div(x, y num) result {
	if x.isNaN() || y.isNaN() {
		return nanResult(x, y)
	}
	sign := x.sign != y.sign
	switch {
	case x.cls == clsInf && y.cls == clsInf:
		return invalidResult // ∞ ÷ ∞, IEEE 754-2008 §7.2(e)
	case x.cls == clsInf:
		return result{kind: kInf, sign: sign}
	case y.cls == clsInf:
		return result{kind: kZero, sign: sign}
	case x.cls == clsZero && y.cls == clsZero:
		return invalidResult // 0 ÷ 0, IEEE 754-2008 §7.2(e)
	case y.cls == clsZero:
		return result{kind: kInf, sign: sign, flags: DivByZero} // IEEE 754-2008 §7.3
	case x.cls == clsZero:
		return result{kind: kZero, sign: sign}
	}
	// q = ⌊a·2^63 / b⌋ for a, b the significands with bit 63 set, so a/b in
	// (1/2, 2) puts q in (2^62, 2^64): 63 or 64 quotient bits.
	a := x.sig << 11
	b := y.sig << 11
	q, rem := bits.Div64(a>>1, a<<63, b)
	e := x.exp - y.exp
	if q>>63 == 0 {
		q <<= 1
		e--
	}
	if rem != 0 {
		q |= 1
	}
	return result{kind: kFinite, sign: sign, exp: e, m: q}
}

// sqrt returns √x (IEEE 754-2008 §5.4.1, Unprivileged §11.6 FSQRT).
func sqrt(x num) result {
	switch {
	case x.isNaN():
		return nanResult(x, x)
	case x.cls == clsZero:
		return result{kind: kZero, sign: x.sign} // √−0 = −0, IEEE 754-2008 §6.3
	case x.sign:
		return invalidResult // √x for x < 0, IEEE 754-2008 §7.2(g)
	case x.cls == clsInf:
		return result{kind: kInf}
	}
	// n = sig·2^(64+k) with k ∈ {8, 9} chosen so that the remaining power of
	// two, 2^t with t = exp−116−k, has an even exponent; n is in
	// [2^124, 2^126), so r = ⌊√n⌋ is in [2^62, 2^63) and √x = √n·2^(t/2).
	k := 8 + x.exp&1
	hi := x.sig << uint(k)
	r := isqrt128(hi)
	sqHi, sqLo := bits.Mul64(r, r)
	m := r << 1
	if sqHi != hi || sqLo != 0 {
		m |= 1
	}
	t := x.exp - 116 - k
	return result{kind: kFinite, exp: t/2 + 62, m: m}
}

// isqrt128 returns ⌊√(hi·2^64)⌋ for hi in [2^60, 2^62).
func isqrt128(hi uint64) uint64 {
	// hi has at most 53 significant bits, so float64(hi) is exact and the
	// host's correctly rounded square root is within 2^-52 relative of √hi;
	// one integer Newton step from it lands within one of ⌊√n⌋, and the
	// loop below finishes the job.
	r := uint64(math.Sqrt(float64(hi)) * (1 << 32))
	if r>>62 == 0 {
		r = 1 << 62 // √n ≥ 2^62; keeps hi < r for Div64
	}
	q, _ := bits.Div64(hi, 0, r)
	sum, carry := bits.Add64(r, q, 0)
	r = sum>>1 | carry<<63
	for i := 0; ; i++ {
		if i > 4 {
			panic("softfloat: isqrt128 did not converge")
		}
		sqHi, sqLo := bits.Mul64(r, r)
		if sqHi > hi || (sqHi == hi && sqLo != 0) {
			r-- // r² > n
			continue
		}
		// r² ≤ n; check (r+1)² = r² + 2r + 1 > n.
		lo, c := bits.Add64(sqLo, r, 0)
		h := sqHi + c
		lo, c = bits.Add64(lo, r+1, 0)
		h += c
		if h < hi || (h == hi && lo == 0) {
			r++ // (r+1)² ≤ n
			continue
		}
		return r
	}
}

// mulAdd returns x × y + z with a single rounding (IEEE 754-2008 §5.4.1
// fusedMultiplyAdd, Unprivileged §11.6 FMADD).
func mulAdd(x, y, z num, rm uint8) result {
	// "The fused multiply-add instructions must set the invalid operation
	// exception flag when the multiplicands are ∞ and zero, even when the
	// addend is a quiet NaN." (Unprivileged §11.6)
	if (x.cls == clsInf && y.cls == clsZero) || (x.cls == clsZero && y.cls == clsInf) {
		return invalidResult
	}
	if x.isNaN() || y.isNaN() || z.isNaN() {
		r := nanResult(x, y)
		if z.cls == clsSNaN {
			r.flags = Invalid
		}
		return r
	}
	sign := x.sign != y.sign
	if x.cls == clsInf || y.cls == clsInf {
		if z.cls == clsInf && z.sign != sign {
			return invalidResult // ∞ − ∞, IEEE 754-2008 §7.2(b)
		}
		return result{kind: kInf, sign: sign}
	}
	if z.cls == clsInf {
		return result{kind: kInf, sign: z.sign}
	}
	if x.cls == clsZero || y.cls == clsZero {
		if z.cls == clsZero {
			if z.sign == sign {
				return result{kind: kZero, sign: sign}
			}
			return zeroSum(rm)
		}
		return z.finite()
	}
	if z.cls == clsZero {
		return mulFinite(x, y, sign)
	}

	// p = x.sig·y.sig·2^21 in [2^125, 2^127), so x×y = p·2^gp; c =
	// z.sig·2^74 in [2^126, 2^127), so z = c·2^gc. Both have zero low bits:
	// 21 for p, 74 for c. The operand on the finer grid is shifted right onto
	// the coarser one, rounding to odd. It loses bits only when it is
	// smaller by more than 2^20, so cancellation then removes at most one
	// leading bit and the odd-rounded sum still carries 60+ bits.
	ph, pl := bits.Mul64(x.sig<<10, y.sig<<11)
	gp := x.exp + y.exp - 125
	ch, cl := z.sig<<10, uint64(0)
	gc := z.exp - 126
	g := gp
	if gp >= gc {
		ch, cl = shiftRightJam128(ch, cl, gp-gc)
	} else {
		ph, pl = shiftRightJam128(ph, pl, gc-gp)
		g = gc
	}
	var rh, rl uint64
	if sign == z.sign {
		var c uint64
		rl, c = bits.Add64(pl, cl, 0)
		rh = ph + ch + c
	} else {
		if ph < ch || (ph == ch && pl < cl) {
			ph, pl, ch, cl = ch, cl, ph, pl
			sign = z.sign
		}
		var b uint64
		rl, b = bits.Sub64(pl, cl, 0)
		rh = ph - ch - b
		if rh|rl == 0 {
			return zeroSum(rm)
		}
	}
	var lz int
	if rh != 0 {
		lz = bits.LeadingZeros64(rh)
		if lz != 0 {
			rh = rh<<uint(lz) | rl>>uint(64-lz)
			rl <<= uint(lz)
		}
	} else {
		lz = 64 + bits.LeadingZeros64(rl)
		rh = rl << uint(lz-64)
		rl = 0
	}
	if rl != 0 {
		rh |= 1
	}
	return result{kind: kFinite, sign: sign, exp: 127 + g - lz, m: rh}
}
