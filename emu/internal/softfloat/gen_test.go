package softfloat

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// Operand generators biased towards the cases where arithmetic goes wrong:
// specials, subnormals, the edges of the exponent range, powers of two,
// significands with few bits set (exact results and exact ties), and
// related operands that cancel or land near a rounding boundary.

// pack assembles bits from a sign, a biased exponent (clamped into the
// finite range) and a fraction.
func (f format) pack(neg bool, e int, frac uint64) uint64 {
	if e < 0 {
		e = 0
	}
	if e > 1<<f.expBits-2 {
		e = 1<<f.expBits - 2
	}
	return f.signed(neg, uint64(e)<<f.fracBits|frac&(1<<f.fracBits-1))
}

// randFrac returns a fraction: uniform, few bits set, or near 0 or all ones.
func (f format) randFrac(r *rand.Rand) uint64 {
	all := uint64(1)<<f.fracBits - 1
	switch r.IntN(6) {
	case 0:
		var v uint64
		for i := r.IntN(4); i >= 0; i-- {
			v |= 1 << r.UintN(f.fracBits)
		}
		if r.IntN(2) == 0 {
			v &^= 1<<r.UintN(f.fracBits) - 1 // only high bits: short significands
		}
		return v
	case 1:
		return r.Uint64N(8)
	case 2:
		return all - r.Uint64N(8)
	case 3:
		// A run of ones or zeros at the bottom: near ties after shifts.
		n := r.UintN(f.fracBits)
		if r.IntN(2) == 0 {
			return r.Uint64()&all&^(1<<n-1) | (1<<n-1)&^(1<<(n/2))
		}
		return r.Uint64() & all &^ (1<<n - 1)
	}
	return r.Uint64() & all
}

// special returns one of the special or extreme encodings.
func (f format) special(r *rand.Rand) uint64 {
	frac := uint64(1)<<f.fracBits - 1
	one := uint64(f.bias()) << f.fracBits
	var v uint64
	switch r.IntN(12) {
	case 0:
		v = 0
	case 1:
		v = f.infBits()
	case 2:
		v = f.canonicalNaN()
	case 3:
		v = f.canonicalNaN() | r.Uint64()&(frac>>1) // quiet, any payload
	case 4:
		v = f.infBits() | (r.Uint64()&(frac>>1) | 1) // signaling
	case 5:
		v = 1 // smallest subnormal
	case 6:
		v = frac // largest subnormal
	case 7:
		v = 1 << f.fracBits // smallest normal
	case 8:
		v = f.maxBits()
	case 9:
		v = one
	case 10:
		v = one + 1<<f.fracBits // 2
	case 11:
		v = one - 1<<f.fracBits | frac // just below 1
	}
	if r.IntN(2) == 0 {
		v |= f.signBit()
	}
	return v
}

// operand returns one random operand.
func (f format) operand(r *rand.Rand) uint64 {
	neg := r.IntN(2) == 0
	emaxField := 1<<f.expBits - 2
	switch r.IntN(14) {
	case 0, 1:
		return r.Uint64() & f.mask()
	case 2:
		return f.special(r)
	case 3:
		return f.pack(neg, 0, f.randFrac(r)) // subnormal (or zero)
	case 4:
		return f.pack(neg, 1+r.IntN(int(f.prec)+2), f.randFrac(r)) // just above the subnormals
	case 5:
		return f.pack(neg, emaxField-r.IntN(4), f.randFrac(r)) // near overflow
	case 6, 7:
		return f.pack(neg, f.bias()-8+r.IntN(17), f.randFrac(r)) // near 1
	}
	return f.pack(neg, 1+r.IntN(emaxField), f.randFrac(r))
}

// fieldExp returns the biased exponent field of a.
func (f format) fieldExp(a uint64) int { return int(a >> f.fracBits & (1<<f.expBits - 1)) }

// near returns a plus or minus a few units in the last place (as integers,
// so it can cross binades and reach the specials).
func (f format) near(r *rand.Rand, a uint64) uint64 {
	d := uint64(r.IntN(5))
	if r.IntN(2) == 0 {
		return (a - d) & f.mask()
	}
	return (a + d) & f.mask()
}

// related returns an operand whose exponent is close to that of a, so that
// sums cancel or carry and products and quotients stay in range.
func (f format) related(r *rand.Rand, a uint64) uint64 {
	d := r.IntN(2*int(f.prec)+8) - int(f.prec) - 4
	if r.IntN(3) == 0 {
		d = r.IntN(5) - 2
	}
	b := f.pack(r.IntN(2) == 0, f.fieldExp(a)+d, f.randFrac(r))
	if r.IntN(4) == 0 {
		b = f.pack(r.IntN(2) == 0, f.fieldExp(a)+d, a&(1<<f.fracBits-1)) // same significand
	}
	return b
}

// scaledPartner returns b such that a·b (or a/b if quotient) lands near the
// subnormal range or near overflow.
func (f format) scaledPartner(r *rand.Rand, a uint64, quotient bool) uint64 {
	bias := f.bias()
	var target int // unbiased exponent of the result
	if r.IntN(2) == 0 {
		target = f.emin - r.IntN(int(f.prec)+3) + 1
	} else {
		target = f.emax - r.IntN(3) + 1
	}
	ea := f.fieldExp(a) - bias
	eb := target - ea
	if quotient {
		eb = ea - target
	}
	return f.pack(r.IntN(2) == 0, eb+bias, f.randFrac(r))
}

// binaryOperands returns operands for +, −, ×, ÷ and min/max.
func (f format) binaryOperands(r *rand.Rand, op string) (uint64, uint64) {
	a := f.operand(r)
	switch r.IntN(8) {
	case 0, 1, 2:
		return a, f.operand(r)
	case 3:
		return a, f.near(r, a) // equal or adjacent magnitudes
	case 4:
		return a, f.near(r, a) ^ f.signBit()
	case 5:
		if op == "mul" || op == "div" {
			return a, f.scaledPartner(r, a, op == "div")
		}
		return a, f.related(r, a)
	case 6:
		if op == "div" {
			// An exact quotient: a = b·q for a short q.
			b := f.operand(r)
			q := f.pack(r.IntN(2) == 0, f.bias()-4+r.IntN(9), f.randFrac(r)&^(1<<(f.fracBits-4)-1))
			p, _ := f.lib("mul")(b, q, 0, RNE)
			return f.near(r, p), b
		}
		return a, f.related(r, a)
	}
	return a, f.related(r, a)
}

// fmaOperands returns operands for a×b + c, often with c close to −a×b so
// that the sum cancels deeply, or with c just below the rounding boundary.
func (f format) fmaOperands(r *rand.Rand) (uint64, uint64, uint64) {
	a, b := f.binaryOperands(r, "mul")
	switch r.IntN(6) {
	case 0, 1:
		return a, b, f.operand(r)
	case 2:
		return a, b, f.related(r, a)
	}
	// c ≈ ±a·b: round the product under some mode, then nudge it.
	p, _ := f.lib("mul")(a, b, 0, uint8(r.IntN(5)))
	c := f.near(r, p)
	if r.IntN(2) == 0 {
		c ^= f.signBit()
	}
	if r.IntN(4) == 0 {
		// Shift c's exponent by up to prec+2 so the sum lands on ties.
		c = f.pack(c&f.signBit() != 0, f.fieldExp(c)-r.IntN(int(f.prec)+3), c)
	}
	return a, b, c
}

// sqrtOperand returns an operand for √, often a perfect square or close to
// one.
func (f format) sqrtOperand(r *rand.Rand) uint64 {
	if r.IntN(3) != 0 {
		a := f.operand(r)
		if r.IntN(2) == 0 {
			a &^= f.signBit()
		}
		return a
	}
	// s with at most half the significand bits, squared exactly.
	s := f.pack(false, f.bias()-f.bias()/2+r.IntN(f.bias()), r.Uint64()&^(1<<(f.fracBits/2+1)-1))
	sq, _ := f.lib("mul")(s, s, 0, RNE)
	return f.near(r, sq)
}

// intBoundaries are the integers where float-to-integer conversions change
// behaviour, as magnitudes.
var intBoundaries = []float64{0, 0.5, 1, 1.5, 2, 2.5, 0x1p31 - 1, 0x1p31, 0x1p32 - 1, 0x1p32, 0x1p63, 0x1p64, 0x1p52, 0x1p53, 0x1p23, 0x1p24}

// convOperand returns a float operand for a conversion to an integer.
func (f format) convOperand(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return f.operand(r)
	case 1:
		// A value with a few fraction bits around a random magnitude.
		e := r.IntN(70) - 3
		return f.pack(r.IntN(2) == 0, e+f.bias(), f.randFrac(r))
	}
	v := intBoundaries[r.IntN(len(intBoundaries))]
	if r.IntN(2) == 0 {
		v += float64(r.IntN(7)-3) * 0.25
	}
	var a uint64
	if f.prec == 24 {
		a = uint64(math.Float32bits(float32(v)))
	} else {
		a = math.Float64bits(v)
	}
	a = f.near(r, a)
	if r.IntN(2) == 0 {
		a ^= f.signBit()
	}
	return a
}

// intOperand returns an integer operand for a conversion to float, as 64
// bits (the caller truncates to 32 for the 32-bit conversions).
func intOperand(r *rand.Rand, n uint) uint64 {
	var v uint64
	switch r.IntN(5) {
	case 0:
		v = r.Uint64()
	case 1:
		v = r.Uint64() >> r.UintN(64) // random width
	case 2:
		v = 1<<r.UintN(64) + uint64(r.IntN(9)) - 4 // near a power of two
	case 3:
		// Few bits set: exact, ties, and just-off ties.
		a, b, c := r.UintN(64), r.UintN(64), r.UintN(64)
		v = 1<<a | 1<<b | 1<<c
	default:
		v = uint64(r.IntN(17)) - 8
		if r.IntN(2) == 0 {
			v ^= 1 << (n - 1) // near the most negative value
		}
	}
	if r.IntN(2) == 0 {
		v = -v
	}
	if n == 32 {
		v = uint64(uint32(v))
	}
	return v
}

// bigIntOf interprets x as an n-bit integer, signed or not.
func bigIntOf(x uint64, n uint, signed bool) *big.Int {
	switch {
	case n == 32 && signed:
		return big.NewInt(int64(int32(uint32(x))))
	case n == 32:
		return new(big.Int).SetUint64(uint64(uint32(x)))
	case signed:
		return big.NewInt(int64(x))
	}
	return new(big.Int).SetUint64(x)
}
