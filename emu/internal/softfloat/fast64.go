package softfloat

import "math"

// The binary64 fast paths. For round-to-nearest-even, the host's IEEE 754
// hardware computes the correctly rounded sum, product, quotient and square
// root (Go on every supported architecture performs float64 +, −, ×, ÷ and
// math.Sqrt as single IEEE operations; explicit float64 conversions below
// forbid the compiler from fusing a product into a later addition). What the
// hardware result does not give is the exception flags, so each fast path
// accepts only operands for which
//
//   - no operand is a NaN or an infinity and the result neither overflows nor
//     comes near the subnormal range, so the only possible flag is Inexact;
//     and
//   - the rounding error is exactly representable and computed exactly by
//     an error-free transformation, so the result is inexact if and only if
//     that error is nonzero.
//
// Anything else (NaNs, infinities, zeros, subnormals, tiny or huge results,
// other rounding modes) returns ok = false and takes the general path. The
// tests check every fast path against the general path on many millions of
// operands.

const (
	// fastMin bounds results and operands away from the subnormal range:
	// with |x×y| ≥ 2^-969 the product's error x×y − RN(x×y) is a multiple of
	// 2^-1074 and so is representable; similar margins serve ÷ and √.
	fastMin = 0x1p-969
	// sqrtFastMin keeps r = √x at or above 2^-450, so x − r² is a multiple
	// of 2^-1074 (r's quantum squared) with at most 53 significant bits.
	sqrtFastMin = 0x1p-900
)

// addFast64 computes a + b under RNE. The sum's rounding error is exactly
// representable whenever the sum does not overflow (IEEE 754-2008 §5.4.1 and
// Knuth's TwoSum), and a sum is never tiny and inexact, so Underflow cannot
// arise; the bound 2^1023 keeps TwoSum's intermediates finite.
func addFast64(a, b uint64) (uint64, Flags, bool) {
	x, y := math.Float64frombits(a), math.Float64frombits(b)
	s := float64(x + y)
	if !(math.Abs(s) < 0x1p1023) { // also false for NaN
		return 0, 0, false
	}
	// TwoSum: s + e = x + y exactly.
	bv := float64(s - x)
	av := float64(s - bv)
	e := float64(x-av) + float64(y-bv)
	if e != 0 {
		return math.Float64bits(s), Inexact, true
	}
	return math.Float64bits(s), 0, true
}

// mulFast64 computes a × b under RNE. With the product in [2^-969, max] the
// error x×y − p is representable, so math.FMA(x, y, −p) computes it exactly.
func mulFast64(a, b uint64) (uint64, Flags, bool) {
	x, y := math.Float64frombits(a), math.Float64frombits(b)
	p := float64(x * y)
	if ap := math.Abs(p); !(ap >= fastMin && ap <= math.MaxFloat64) {
		return 0, 0, false
	}
	if math.FMA(x, y, -p) != 0 {
		return math.Float64bits(p), Inexact, true
	}
	return math.Float64bits(p), 0, true
}

// divFast64 computes a ÷ b under RNE. With x, q = RN(x/y) at least 2^-969
// and y normal, the remainder x − q×y is a multiple of 2^-1074 with at most
// 53 significant bits, so math.FMA(−q, y, x) computes it exactly, and it is
// zero exactly when the quotient is exact.
func divFast64(a, b uint64) (uint64, Flags, bool) {
	x, y := math.Float64frombits(a), math.Float64frombits(b)
	ax, ay := math.Abs(x), math.Abs(y)
	if !(ax >= fastMin && ax <= math.MaxFloat64 && ay >= 0x1p-1022 && ay <= math.MaxFloat64) {
		return 0, 0, false
	}
	q := float64(x / y)
	if aq := math.Abs(q); !(aq >= fastMin && aq <= math.MaxFloat64) {
		return 0, 0, false
	}
	if math.FMA(-q, y, x) != 0 {
		return math.Float64bits(q), Inexact, true
	}
	return math.Float64bits(q), 0, true
}

// sqrtFast64 computes √a under RNE for a in [2^-900, max]. The residual
// x − r×r of r = RN(√x) is then exactly representable, so math.FMA(−r, r, x)
// computes it exactly.
func sqrtFast64(a uint64) (uint64, Flags, bool) {
	x := math.Float64frombits(a)
	if !(x >= sqrtFastMin && x <= math.MaxFloat64) {
		return 0, 0, false
	}
	r := math.Sqrt(x)
	if math.FMA(-r, r, x) != 0 {
		return math.Float64bits(r), Inexact, true
	}
	return math.Float64bits(r), 0, true
}

// mulAddFast64 computes a × b + c under RNE. math.FMA gives the correctly
// rounded r; the question is only whether r is exact. With ph = RN(x×y) and
// its exact error pl (so x×y = ph + pl), and d1 = RN(r − z) with its exact
// TwoSum error d2 (so r − z = d1 + d2), x×y + z = r holds exactly if and only
// if ph = d1 and pl = d2: if the two exact sums are equal, ph and d1 are both
// the RNE rounding of that one number, so they are equal, and then so are
// the errors. The bounds keep x×y's error representable, every intermediate
// finite, and r far from the subnormal range.
func mulAddFast64(a, b, c uint64) (uint64, Flags, bool) {
	x, y, z := math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(c)
	r := math.FMA(x, y, z)
	ph := float64(x * y)
	ar, ap, az := math.Abs(r), math.Abs(ph), math.Abs(z)
	if !(ar >= fastMin && ar < 0x1p1000 && ap >= fastMin && ap < 0x1p1000 && az < 0x1p1000) {
		return 0, 0, false
	}
	pl := math.FMA(x, y, -ph)
	d1 := float64(r - z)
	rv := float64(d1 + z) // TwoSum of r and −z
	zv := float64(d1 - rv)
	d2 := float64(r-rv) + float64(-z-zv)
	if ph == d1 && pl == d2 {
		return math.Float64bits(r), 0, true
	}
	return math.Float64bits(r), Inexact, true
}
