package softfloat

import "math"

// The binary32 fast paths, for RNE. Every binary32 operation is computed in
// binary64 on the host and narrowed with float32(). A binary32 product is
// exact in binary64 (48 ≤ 53 bits), and for +, ÷ and √ the binary64 result
// rounded again to binary32 equals the directly rounded result because
// 53 ≥ 2·24+2 makes double rounding innocuous (Figueroa, "When is double
// rounding innocuous?", 1995). Exactness is decided with exact binary64
// arithmetic: a binary32 × binary32 product is exact in binary64, so a
// quotient or square root is exact if and only if multiplying back
// reproduces the operand.
//
// As for binary64, the fast path gives up on NaNs, infinities, zeros and
// results that overflow or come within reach of the subnormal range, so the
// only flag it can raise is Inexact. Results of at least 2^-126 in binary64
// are not tiny after rounding: rounding the exact result to 24 bits with an
// unbounded exponent cannot land below 2^-126 when rounding it to 53 bits
// did not.

const (
	f32MinNormal = 0x1p-126
	f32Max       = math.MaxFloat32
)

func f32s(a uint32) float64 { return float64(math.Float32frombits(a)) }

// inRange32 reports whether v, a result rounded to binary32 and widened, is
// finite and a binary64 result r is at least the smallest normal.
func inRange32(v, r float64) bool {
	return math.Abs(v) <= f32Max && math.Abs(r) >= f32MinNormal
}

func addFast32(a, b uint32) (uint32, Flags, bool) {
	x, y := f32s(a), f32s(b)
	s := float64(x + y)
	v := float32(s)
	if !inRange32(float64(v), s) {
		return 0, 0, false
	}
	// TwoSum: s is exact if the error is zero.
	bv := float64(s - x)
	av := float64(s - bv)
	e := float64(x-av) + float64(y-bv)
	if e != 0 || float64(v) != s {
		return math.Float32bits(v), Inexact, true
	}
	return math.Float32bits(v), 0, true
}

func mulFast32(a, b uint32) (uint32, Flags, bool) {
	x, y := f32s(a), f32s(b)
	p := float64(x * y) // exact
	v := float32(p)
	if !inRange32(float64(v), p) {
		return 0, 0, false
	}
	if float64(v) != p {
		return math.Float32bits(v), Inexact, true
	}
	return math.Float32bits(v), 0, true
}

func divFast32(a, b uint32) (uint32, Flags, bool) {
	x, y := f32s(a), f32s(b)
	q := float64(x / y)
	v := float32(q)
	if !inRange32(float64(v), q) || math.Abs(y) > f32Max {
		return 0, 0, false
	}
	if float64(float64(v)*y) != x { // the product is exact
		return math.Float32bits(v), Inexact, true
	}
	return math.Float32bits(v), 0, true
}

func sqrtFast32(a uint32) (uint32, Flags, bool) {
	x := f32s(a)
	if !(x > 0 && x <= f32Max) {
		return 0, 0, false
	}
	v := float32(math.Sqrt(x))
	if w := float64(v); float64(w*w) != x { // the product is exact
		return math.Float32bits(v), Inexact, true
	}
	return math.Float32bits(v), 0, true
}

// mulAddFast32 computes a × b + c: the product is exact in binary64, the sum
// p + z is rounded to odd in binary64 (RNE sum, then its last bit forced to
// 1 towards the exact sum when TwoSum shows an error), and rounding that to
// binary32 is correct because round-to-odd with 29 extra bits commutes with
// any later rounding.
func mulAddFast32(a, b, c uint32) (uint32, Flags, bool) {
	x, y, z := f32s(a), f32s(b), f32s(c)
	p := float64(x * y) // exact
	s := float64(p + z)
	if !(math.Abs(s) >= f32MinNormal && math.Abs(s) <= 0x1p200) {
		return 0, 0, false
	}
	bv := float64(s - p)
	av := float64(s - bv)
	e := float64(p-av) + float64(z-bv)
	so := s
	if e != 0 {
		sb := math.Float64bits(s)
		if sb&1 == 0 {
			if (e > 0) == (s > 0) {
				sb++ // the exact sum is larger in magnitude
			} else {
				sb--
			}
		}
		so = math.Float64frombits(sb)
	}
	v := float32(so)
	if math.Abs(float64(v)) > f32Max {
		return 0, 0, false
	}
	if e != 0 || float64(v) != so {
		return math.Float32bits(v), Inexact, true
	}
	return math.Float32bits(v), 0, true
}
