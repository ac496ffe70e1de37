package softfloat

import (
	"math"
	"math/big"
)

// This file is the independent oracle the tests compare the library with.
// It computes every finite result exactly (or, for ÷ and √, rounded to odd
// with 60 or more extra bits) with math/big, and rounds it into the format
// with big.Float's own rounding modes, handling the exponent range itself:
// overflow from the result rounded with an unbounded exponent, subnormals
// by rounding at the subnormal quantum, tininess after rounding
// (Unprivileged §11.4). Special operands follow the IEEE 754-2008 and
// RISC-V rules written out case by case. It shares no code with the
// library.

// format describes an IEEE 754 binary interchange format
// (IEEE 754-2008 §3.6).
type format struct {
	name     string
	prec     uint // significand bits, hidden bit included
	emin     int
	emax     int
	expBits  uint
	fracBits uint
}

var (
	binary32 = format{name: "f32", prec: 24, emin: -126, emax: 127, expBits: 8, fracBits: 23}
	binary64 = format{name: "f64", prec: 53, emin: -1022, emax: 1023, expBits: 11, fracBits: 52}
)

func (f format) width() uint          { return f.expBits + f.fracBits + 1 }
func (f format) mask() uint64         { return 1<<f.width() - 1 }
func (f format) signBit() uint64      { return 1 << (f.width() - 1) }
func (f format) infBits() uint64      { return (1<<f.expBits - 1) << f.fracBits }
func (f format) maxBits() uint64      { return f.infBits() - 1 }
func (f format) canonicalNaN() uint64 { return f.infBits() | 1<<(f.fracBits-1) }
func (f format) bias() int            { return 1<<(f.expBits-1) - 1 }

// value is a decoded operand. x is exact (and signed, for zeros) when the
// operand is neither NaN nor infinite.
type value struct {
	nan, snan, inf, neg bool
	x                   *big.Float
}

func (v value) zero() bool { return v.x != nil && v.x.Sign() == 0 }

func (f format) decode(b uint64) value {
	neg := b&f.signBit() != 0
	e := b >> f.fracBits & (1<<f.expBits - 1)
	frac := b & (1<<f.fracBits - 1)
	if e == 1<<f.expBits-1 {
		if frac == 0 {
			return value{inf: true, neg: neg}
		}
		return value{nan: true, snan: frac>>(f.fracBits-1) == 0, neg: neg}
	}
	m, q := frac, f.emin-int(f.fracBits)
	if e != 0 {
		m |= 1 << f.fracBits
		q = int(e) - f.bias() - int(f.fracBits)
	}
	x := new(big.Float).SetUint64(m)
	x.SetMantExp(x, q)
	if neg {
		x.Neg(x)
	}
	return value{neg: neg, x: x}
}

var bigModes = [5]big.RoundingMode{big.ToNearestEven, big.ToZero, big.ToNegativeInf, big.ToPositiveInf, big.ToNearestAway}

// pow2 returns 2^e.
func pow2(e int) *big.Float {
	return new(big.Float).SetMantExp(big.NewFloat(0.5), e+1)
}

// mustExact panics unless acc is big.Exact: the oracle's exact steps must be.
func mustExact(acc big.Accuracy) {
	if acc != big.Exact {
		panic("oracle: inexact intermediate")
	}
}

// exactAdd returns x + y exactly.
func exactAdd(x, y *big.Float) *big.Float {
	z := new(big.Float).SetPrec(8192).Add(x, y)
	mustExact(z.Acc())
	return z
}

// exactMul returns x × y exactly.
func exactMul(x, y *big.Float) *big.Float {
	z := new(big.Float).SetPrec(256).Mul(x, y)
	mustExact(z.Acc())
	return z
}

func (f format) signed(neg bool, mag uint64) uint64 {
	if neg {
		return mag | f.signBit()
	}
	return mag
}

// round rounds x, a nonzero finite number that is exact or rounded to odd
// with at least prec+2 significant bits, into f under rm.
func (f format) round(x *big.Float, rm uint8) (uint64, Flags) {
	mode := bigModes[rm]
	neg := x.Signbit()
	// Rounded with an unbounded exponent range (IEEE 754-2008 §7.4, §7.5).
	u := new(big.Float).SetPrec(f.prec).SetMode(mode).Set(x)
	absU := new(big.Float).Abs(u)
	if absU.Cmp(pow2(f.emax+1)) >= 0 {
		// IEEE 754-2008 §7.4: nearest modes carry all overflows to ∞;
		// directed modes go to ∞ only in their own direction.
		toInf := rm == RNE || rm == RMM || (rm == RDN && neg) || (rm == RUP && !neg)
		if toInf {
			return f.signed(neg, f.infBits()), Overflow | Inexact
		}
		return f.signed(neg, f.maxBits()), Overflow | Inexact
	}
	tiny := absU.Cmp(pow2(f.emin)) < 0
	r := u
	if new(big.Float).Abs(x).Cmp(pow2(f.emin)) < 0 {
		// Round at the subnormal quantum 2^(emin−prec+1): shifting x by
		// ±2^emin (its own sign, so magnitudes and ties are unchanged)
		// into [2^emin, 2^(emin+1)) makes prec bits land exactly on it.
		off := pow2(f.emin)
		if neg {
			off.Neg(off)
		}
		xexp := x.MantExp(nil)
		need := uint(f.emin-(xexp-int(x.MinPrec()))) + 4
		y := new(big.Float).SetPrec(need).Add(x, off)
		mustExact(y.Acc())
		y.SetMode(mode).SetPrec(f.prec)
		r = new(big.Float).SetPrec(f.prec).Sub(y, off)
		mustExact(r.Acc())
	}
	var flags Flags
	if r.Cmp(x) != 0 {
		flags |= Inexact
		if tiny {
			flags |= Underflow
		}
	}
	if r.Sign() == 0 {
		return f.signed(neg, 0), flags
	}
	if f.prec == 53 {
		v, acc := r.Float64()
		mustExact(acc)
		return math.Float64bits(v), flags
	}
	v, acc := r.Float32()
	mustExact(acc)
	return uint64(math.Float32bits(v)), flags
}

// nanOf returns the canonical NaN with Invalid if any operand is signaling
// (Unprivileged §11.3).
func (f format) nanOf(vs ...value) (uint64, Flags) {
	for _, v := range vs {
		if v.snan {
			return f.canonicalNaN(), Invalid
		}
	}
	return f.canonicalNaN(), 0
}

func anyNaN(vs ...value) bool {
	for _, v := range vs {
		if v.nan {
			return true
		}
	}
	return false
}

// exactZeroSum is the bits of an exact zero sum of addends with signs n1
// and n2 (IEEE 754-2008 §6.3).
func (f format) exactZeroSum(n1, n2 bool, rm uint8) uint64 {
	if n1 == n2 {
		return f.signed(n1, 0)
	}
	return f.signed(rm == RDN, 0)
}

func (f format) oracleAdd(a, b uint64, rm uint8) (uint64, Flags) {
	x, y := f.decode(a), f.decode(b)
	switch {
	case anyNaN(x, y):
		return f.nanOf(x, y)
	case x.inf && y.inf && x.neg != y.neg:
		return f.canonicalNaN(), Invalid
	case x.inf:
		return f.signed(x.neg, f.infBits()), 0
	case y.inf:
		return f.signed(y.neg, f.infBits()), 0
	}
	s := exactAdd(x.x, y.x)
	if s.Sign() == 0 {
		return f.exactZeroSum(x.neg, y.neg, rm), 0
	}
	return f.round(s, rm)
}

func (f format) oracleSub(a, b uint64, rm uint8) (uint64, Flags) {
	return f.oracleAdd(a, b^f.signBit(), rm)
}

func (f format) oracleMul(a, b uint64, rm uint8) (uint64, Flags) {
	x, y := f.decode(a), f.decode(b)
	neg := x.neg != y.neg
	switch {
	case anyNaN(x, y):
		return f.nanOf(x, y)
	case (x.inf && y.zero()) || (x.zero() && y.inf):
		return f.canonicalNaN(), Invalid
	case x.inf || y.inf:
		return f.signed(neg, f.infBits()), 0
	case x.zero() || y.zero():
		return f.signed(neg, 0), 0
	}
	return f.round(exactMul(x.x, y.x), rm)
}

// mantExp returns x = m × 2^e with m a big.Int, for finite x.
func mantExp(x *big.Float) (*big.Int, int) {
	mant := new(big.Float)
	e := x.MantExp(mant)
	p := int(x.MinPrec())
	mant.SetMantExp(mant, p)
	m, acc := mant.Int(nil)
	mustExact(acc)
	return m, e - p
}

// roundedToOdd returns (2q + s) × 2^e as a big.Float, s = 1 if sticky.
func roundedToOdd(q *big.Int, sticky bool, e int) *big.Float {
	q = new(big.Int).Lsh(q, 1)
	if sticky {
		q.SetBit(q, 0, 1)
	}
	z := new(big.Float).SetPrec(uint(q.BitLen()) + 1).SetInt(q)
	return z.SetMantExp(z, e-1)
}

func (f format) oracleDiv(a, b uint64, rm uint8) (uint64, Flags) {
	x, y := f.decode(a), f.decode(b)
	neg := x.neg != y.neg
	switch {
	case anyNaN(x, y):
		return f.nanOf(x, y)
	case (x.inf && y.inf) || (x.zero() && y.zero()):
		return f.canonicalNaN(), Invalid
	case x.inf:
		return f.signed(neg, f.infBits()), 0
	case y.inf || x.zero():
		return f.signed(neg, 0), 0
	case y.zero():
		return f.signed(neg, f.infBits()), DivByZero
	}
	mx, ex := mantExp(x.x)
	my, ey := mantExp(y.x)
	mx.Abs(mx)
	my.Abs(my)
	// q = ⌊mx·2^k / my⌋ has at least 64 bits.
	k := 64 + my.BitLen() - mx.BitLen() + 1
	num := new(big.Int).Lsh(mx, uint(k))
	q, rem := new(big.Int).QuoRem(num, my, new(big.Int))
	z := roundedToOdd(q, rem.Sign() != 0, ex-ey-k)
	if neg {
		z.Neg(z)
	}
	return f.round(z, rm)
}

func (f format) oracleSqrt(a uint64, rm uint8) (uint64, Flags) {
	x := f.decode(a)
	switch {
	case x.nan:
		return f.nanOf(x)
	case x.zero():
		return a, 0 // √±0 = ±0 (IEEE 754-2008 §5.4.1)
	case x.neg:
		return f.canonicalNaN(), Invalid
	case x.inf:
		return a, 0
	}
	m, e := mantExp(x.x)
	if e%2 != 0 {
		m.Lsh(m, 1)
		e--
	}
	// s = ⌊√(m·2^(2j))⌋ has at least 64 bits.
	j := 64
	n := new(big.Int).Lsh(m, uint(2*j))
	s := new(big.Int).Sqrt(n)
	rem := new(big.Int).Sub(n, new(big.Int).Mul(s, s))
	return f.round(roundedToOdd(s, rem.Sign() != 0, e/2-j), rm)
}

// oracleMulAdd is a×b + c with one rounding (IEEE 754-2008 §5.4.1), with
// RISC-V's Invalid for ∞×0 even when c is a quiet NaN (Unprivileged §11.6).
func (f format) oracleMulAdd(a, b, c uint64, rm uint8) (uint64, Flags) {
	x, y, z := f.decode(a), f.decode(b), f.decode(c)
	pneg := x.neg != y.neg
	switch {
	case (x.inf && y.zero()) || (x.zero() && y.inf):
		return f.canonicalNaN(), Invalid
	case anyNaN(x, y, z):
		return f.nanOf(x, y, z)
	case (x.inf || y.inf) && z.inf && z.neg != pneg:
		return f.canonicalNaN(), Invalid
	case x.inf || y.inf:
		return f.signed(pneg, f.infBits()), 0
	case z.inf:
		return f.signed(z.neg, f.infBits()), 0
	}
	p := exactMul(x.x, y.x)
	s := exactAdd(p, z.x)
	if s.Sign() == 0 {
		return f.exactZeroSum(pneg, z.neg, rm), 0
	}
	return f.round(s, rm)
}

// oracleConvert converts a from format src into f.
func (f format) oracleConvert(src format, a uint64, rm uint8) (uint64, Flags) {
	x := src.decode(a)
	switch {
	case x.nan:
		return f.nanOf(x)
	case x.inf:
		return f.signed(x.neg, f.infBits()), 0
	case x.zero():
		return f.signed(x.neg, 0), 0
	}
	return f.round(x.x, rm)
}

// oracleFromInt converts the integer i into f.
func (f format) oracleFromInt(i *big.Int, rm uint8) (uint64, Flags) {
	if i.Sign() == 0 {
		return 0, 0
	}
	return f.round(new(big.Float).SetPrec(64).SetInt(i), rm)
}

// roundToInteger rounds the finite x to an integer under rm.
func roundToInteger(x *big.Float, rm uint8) *big.Int {
	if new(big.Float).Abs(x).Cmp(pow2(70)) >= 0 {
		i, acc := x.Int(nil) // a float this large is an integer
		mustExact(acc)
		return i
	}
	// Shifted by ±2^70 into [2^70, 2^71), 71 bits of precision put the
	// quantum at 1.
	off := pow2(70)
	if x.Signbit() {
		off.Neg(off)
	}
	y := exactAdd(x, off)
	y.SetMode(bigModes[rm]).SetPrec(71)
	y.SetPrec(8192).Sub(y, off)
	i, acc := y.Int(nil)
	mustExact(acc)
	return i
}

// oracleToInt converts a to an n-bit integer, signed or not, under rm, and
// returns the RV64 register value (32-bit results sign-extended) with the
// flags of Unprivileged §11.7, table 11.4.
func (f format) oracleToInt(a uint64, rm uint8, n uint, signed bool) (uint64, Flags) {
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), n)
	if signed {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	hi.Sub(hi, big.NewInt(1))
	reg := func(i *big.Int) uint64 {
		v := new(big.Int).And(i, new(big.Int).SetUint64(1<<64-1)).Uint64()
		if n == 32 {
			v = uint64(int64(int32(uint32(v))))
		}
		return v
	}
	x := f.decode(a)
	switch {
	case x.nan:
		return reg(hi), Invalid
	case x.inf && x.neg:
		return reg(lo), Invalid
	case x.inf:
		return reg(hi), Invalid
	case x.zero():
		return 0, 0
	}
	i := roundToInteger(x.x, rm)
	if i.Cmp(lo) < 0 {
		return reg(lo), Invalid
	}
	if i.Cmp(hi) > 0 {
		return reg(hi), Invalid
	}
	if new(big.Float).SetInt(i).Cmp(x.x) != 0 {
		return reg(i), Inexact
	}
	return reg(i), 0
}

// oracleMinMax is minimumNumber or maximumNumber (IEEE 754-2019 §9.6) with
// RISC-V's canonical NaN (Unprivileged §11.6).
func (f format) oracleMinMax(a, b uint64, max bool) (uint64, Flags) {
	x, y := f.decode(a), f.decode(b)
	var flags Flags
	if x.snan || y.snan {
		flags = Invalid
	}
	switch {
	case x.nan && y.nan:
		return f.canonicalNaN(), flags
	case x.nan:
		return b, flags
	case y.nan:
		return a, flags
	}
	c := f.compare(x, y)
	if c == 0 && x.neg != y.neg { // ±0: −0 < +0
		if x.neg != max {
			return a, 0
		}
		return b, 0
	}
	if (c < 0) != max {
		return a, 0
	}
	return b, 0
}

// compare compares non-NaN x and y numerically (−0 = +0).
func (f format) compare(x, y value) int {
	switch {
	case x.inf && y.inf && x.neg == y.neg:
		return 0
	case x.inf:
		if x.neg {
			return -1
		}
		return 1
	case y.inf:
		if y.neg {
			return 1
		}
		return -1
	}
	return x.x.Cmp(y.x)
}

// oracleCompare is FEQ (quiet), FLT and FLE (signaling) (Unprivileged §11.8).
func (f format) oracleCompare(a, b uint64, op string) (bool, Flags) {
	x, y := f.decode(a), f.decode(b)
	if x.nan || y.nan {
		if op != "eq" || x.snan || y.snan {
			return false, Invalid
		}
		return false, 0
	}
	c := f.compare(x, y)
	switch op {
	case "eq":
		return c == 0, 0
	case "lt":
		return c < 0, 0
	}
	return c <= 0, 0
}

// oracleClass is FCLASS (Unprivileged §11.9, table 11.5).
func (f format) oracleClass(a uint64) uint64 {
	x := f.decode(a)
	var bit uint
	switch {
	case x.nan && x.snan:
		return 1 << 8
	case x.nan:
		return 1 << 9
	case x.inf:
		bit = 7
	case x.zero():
		bit = 4
	case new(big.Float).Abs(x.x).Cmp(pow2(f.emin)) < 0:
		bit = 5
	default:
		bit = 6
	}
	if x.neg {
		bit = 7 - bit
	}
	return 1 << bit
}
