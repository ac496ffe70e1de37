package softfloat

import (
	"math"
	"testing"
)

// Named corner cases, each with the rule it checks. The random sweeps cover
// these too, but a table names the rule that broke.

func d(x float64) uint64 { return math.Float64bits(x) }
func s(x float32) uint64 { return uint64(math.Float32bits(x)) }

const (
	qNaN64 = CanonicalNaN64
	sNaN64 = 0x7ff0000000000001
	pNaN64 = 0x7ff800000000dead // quiet NaN with a payload
	inf64  = 0x7ff0000000000000
	ninf64 = 0xfff0000000000000
	max64  = 0x7fefffffffffffff
	minN64 = 0x0010000000000000 // smallest normal
	minS64 = 0x0000000000000001 // smallest subnormal
	maxS64 = 0x000fffffffffffff // largest subnormal
	nz64   = 0x8000000000000000 // −0
	qNaN32 = uint64(CanonicalNaN32)
	sNaN32 = 0x7f800001
	pNaN32 = 0x7fc0beef
	inf32  = 0x7f800000
	ninf32 = 0xff800000
	max32  = 0x7f7fffff
	minN32 = 0x00800000
	minS32 = 0x00000001
	nz32   = 0x80000000
)

// Adapters from the typed API to one signature for the table.
func f32op2(f func(a, b uint32, rm uint8) (uint32, Flags), a, b uint64, rm uint8) (uint64, Flags) {
	r, fl := f(uint32(a), uint32(b), rm)
	return uint64(r), fl
}

func TestCornerCases(t *testing.T) {
	cases := []struct {
		name  string
		run   func() (uint64, Flags)
		want  uint64
		flags Flags
	}{
		// NaN generation and propagation (Unprivileged §11.3).
		{"0/0 gives the canonical NaN and NV (§11.3, IEEE 754 §7.2)",
			func() (uint64, Flags) { return F64Div(0, 0, RNE) }, qNaN64, Invalid},
		{"a signaling NaN operand gives the canonical NaN and NV (§11.3)",
			func() (uint64, Flags) { return F64Add(sNaN64, d(1), RNE) }, qNaN64, Invalid},
		{"a quiet NaN payload is not propagated and raises nothing (§11.3)",
			func() (uint64, Flags) { return F64Mul(pNaN64, d(2), RNE) }, qNaN64, 0},
		{"a binary32 quiet NaN payload is not propagated (§11.3)",
			func() (uint64, Flags) { return f32op2(F32Add, pNaN32, s(1), RNE) }, qNaN32, 0},
		{"a binary32 signaling NaN raises NV (§11.3)",
			func() (uint64, Flags) { return f32op2(F32Sub, s(1), sNaN32, RNE) }, qNaN32, Invalid},
		{"∞ − ∞ is invalid (IEEE 754 §7.2)",
			func() (uint64, Flags) { return F64Sub(inf64, inf64, RNE) }, qNaN64, Invalid},
		{"0 × ∞ is invalid (IEEE 754 §7.2)",
			func() (uint64, Flags) { return F64Mul(nz64, inf64, RNE) }, qNaN64, Invalid},
		{"∞ ÷ ∞ is invalid (IEEE 754 §7.2)",
			func() (uint64, Flags) { return f32op2(F32Div, ninf32, inf32, RNE) }, qNaN32, Invalid},

		// Fused multiply-add (§11.6).
		{"fmadd ∞×0 + qNaN raises NV even though the addend is a quiet NaN (§11.6)",
			func() (uint64, Flags) { return F64MulAdd(inf64, 0, qNaN64, RNE) }, qNaN64, Invalid},
		{"fmadd.s 0×∞ + qNaN raises NV too (§11.6)",
			func() (uint64, Flags) {
				r, fl := F32MulAdd(0, inf32, uint32(qNaN32), RNE)
				return uint64(r), fl
			}, qNaN32, Invalid},
		{"fmadd qNaN×1 + 1 gives the canonical NaN quietly (§11.3)",
			func() (uint64, Flags) { return F64MulAdd(pNaN64, d(1), d(1), RNE) }, qNaN64, 0},
		{"fmadd 1×1 + sNaN raises NV (§11.3)",
			func() (uint64, Flags) { return F64MulAdd(d(1), d(1), sNaN64, RNE) }, qNaN64, Invalid},
		{"fmadd ∞×1 + −∞ is invalid (IEEE 754 §7.2)",
			func() (uint64, Flags) { return F64MulAdd(inf64, d(1), ninf64, RNE) }, qNaN64, Invalid},
		{"fmadd rounds once: (1+2^-52)(1−2^-53) − 1 is exactly 2^-53 − 2^-105",
			func() (uint64, Flags) { return F64MulAdd(d(1+0x1p-52), d(1-0x1p-53), d(-1), RNE) },
			d(0x1p-53 - 0x1p-105), 0},
		{"fnmadd is −(a×b)−c by sign flips: −(1×1)−(−1) is +0 under RNE (§11.6)",
			func() (uint64, Flags) { return F64MulAdd(d(1)^1<<63, d(1), d(-1)^1<<63, RNE) }, 0, 0},
		{"fnmadd is −(a×b)−c by sign flips: −(1×1)−(−1) is −0 under RDN (§11.6, IEEE 754 §6.3)",
			func() (uint64, Flags) { return F64MulAdd(d(1)^1<<63, d(1), d(-1)^1<<63, RDN) }, nz64, 0},
		{"fmadd of a zero product and −0 keeps −0 when the product is −0 (IEEE 754 §6.3)",
			func() (uint64, Flags) { return F64MulAdd(nz64, d(1), nz64, RNE) }, nz64, 0},

		// Division by zero (IEEE 754 §7.3).
		{"1 ÷ +0 is +∞ with DZ (IEEE 754 §7.3)",
			func() (uint64, Flags) { return F64Div(d(1), 0, RNE) }, inf64, DivByZero},
		{"−1 ÷ +0 is −∞ with DZ (IEEE 754 §7.3)",
			func() (uint64, Flags) { return f32op2(F32Div, s(-1), 0, RNE) }, ninf32, DivByZero},
		{"∞ ÷ 0 is ∞ without DZ (IEEE 754 §7.3: finite dividends only)",
			func() (uint64, Flags) { return F64Div(inf64, nz64, RNE) }, ninf64, 0},

		// Square root (IEEE 754 §5.4.1, §6.3).
		{"√−0 is −0 without flags (IEEE 754 §6.3)",
			func() (uint64, Flags) { return F64Sqrt(nz64, RNE) }, nz64, 0},
		{"√−1 is invalid (IEEE 754 §7.2)",
			func() (uint64, Flags) { return F64Sqrt(d(-1), RNE) }, qNaN64, Invalid},
		{"√−∞ is invalid (IEEE 754 §7.2)",
			func() (uint64, Flags) { r, fl := F32Sqrt(ninf32, RNE); return uint64(r), fl }, qNaN32, Invalid},
		{"√+∞ is +∞", func() (uint64, Flags) { return F64Sqrt(inf64, RNE) }, inf64, 0},
		{"√2 is inexact and rounds to math.Sqrt2 under RNE", func() (uint64, Flags) { return F64Sqrt(d(2), RNE) }, d(math.Sqrt2), Inexact},
		{"√2 rounded up is math.Sqrt2, which RNE rounded up", func() (uint64, Flags) { return F64Sqrt(d(2), RUP) }, d(math.Sqrt2), Inexact},
		{"√2 truncated is one ulp below math.Sqrt2", func() (uint64, Flags) { return F64Sqrt(d(2), RTZ) }, d(math.Sqrt2) - 1, Inexact},
		{"√ of the smallest subnormal is exact", func() (uint64, Flags) { return F64Sqrt(minS64, RNE) }, d(0x1p-537), 0},

		// Signed zeros (IEEE 754 §6.3).
		{"x + (−x) is +0 under RNE (IEEE 754 §6.3)",
			func() (uint64, Flags) { return F64Add(d(3), d(-3), RNE) }, 0, 0},
		{"x + (−x) is −0 under RDN (IEEE 754 §6.3)",
			func() (uint64, Flags) { return F64Add(d(3), d(-3), RDN) }, nz64, 0},
		{"−0 + −0 is −0 (IEEE 754 §6.3)",
			func() (uint64, Flags) { return F64Add(nz64, nz64, RNE) }, nz64, 0},
		{"+0 − +0 is −0 under RDN (IEEE 754 §6.3)",
			func() (uint64, Flags) { return f32op2(F32Sub, 0, 0, RDN) }, nz32, 0},

		// Overflow (IEEE 754 §7.4).
		{"max + max overflows to +∞ under RNE (IEEE 754 §7.4)",
			func() (uint64, Flags) { return F64Add(max64, max64, RNE) }, inf64, Overflow | Inexact},
		{"max + max overflows to max under RTZ (IEEE 754 §7.4)",
			func() (uint64, Flags) { return F64Add(max64, max64, RTZ) }, max64, Overflow | Inexact},
		{"max + max overflows to max under RDN (IEEE 754 §7.4)",
			func() (uint64, Flags) { return F64Add(max64, max64, RDN) }, max64, Overflow | Inexact},
		{"−max − max overflows to −max under RUP (IEEE 754 §7.4)",
			func() (uint64, Flags) { return F64Sub(max64|1<<63, max64, RUP) }, max64 | 1<<63, Overflow | Inexact},
		{"−max − max overflows to −∞ under RMM (IEEE 754 §7.4)",
			func() (uint64, Flags) { return f32op2(F32Sub, max32|1<<31, max32, RMM) }, ninf32, Overflow | Inexact},
		{"max + half an ulp rounds to max without overflow under RTZ",
			func() (uint64, Flags) { return F64Add(max64, d(0x1p970), RTZ) }, max64, Inexact},
		{"max + half an ulp is a tie that overflows under RNE",
			func() (uint64, Flags) { return F64Add(max64, d(0x1p970), RNE) }, inf64, Overflow | Inexact},

		// Subnormals and tininess after rounding (§11.4, IEEE 754 §7.5).
		{"a product rounding up to the smallest normal is not tiny after rounding: no UF (§11.4)",
			func() (uint64, Flags) { return F64Mul(maxS64, d(1+0x1p-52), RNE) }, minN64, Inexact},
		{"the same product under RTZ stays subnormal and underflows (§11.4)",
			func() (uint64, Flags) { return F64Mul(maxS64, d(1+0x1p-52), RTZ) }, maxS64, Underflow | Inexact},
		{"an exact subnormal result raises nothing, not even UF (IEEE 754 §7.5)",
			func() (uint64, Flags) { return F64Div(minN64, d(2), RNE) }, minN64 >> 1, 0},
		{"the smallest subnormal halved ties to +0 under RNE with UF and NX (§11.4)",
			func() (uint64, Flags) { return F64Mul(minS64, d(0.5), RNE) }, 0, Underflow | Inexact},
		{"the smallest subnormal halved rounds away to itself under RMM (§11.4)",
			func() (uint64, Flags) { return F64Mul(minS64, d(0.5), RMM) }, minS64, Underflow | Inexact},
		{"−(smallest subnormal)/3 rounds to −0 under RUP with UF and NX",
			func() (uint64, Flags) { return F64Div(minS64|1<<63, d(3), RUP) }, nz64, Underflow | Inexact},
		{"binary32 subnormal operands are not flushed: smallest × 2^23 = smallest normal",
			func() (uint64, Flags) { return f32op2(F32Mul, minS32, s(0x1p23), RNE) }, minN32, 0},
		{"binary32 subnormal sums are exact",
			func() (uint64, Flags) { return f32op2(F32Add, minS32, minS32, RNE) }, 2, 0},
		{"fmadd rounds a subnormal sum once: (1−2^-53)·2^-1022 − 2^-1074 ties to even with UF (§11.4)",
			func() (uint64, Flags) { return F64MulAdd(d(1-0x1p-53), minN64, minS64|1<<63, RNE) }, maxS64 - 1, Underflow | Inexact},

		// Rounding modes (§11.2, IEEE 754 §4.3).
		{"RNE ties to even: 2^24+1 converts to 2^24 (§11.2)",
			func() (uint64, Flags) { r, fl := I32ToF32(1<<24+1, RNE); return uint64(r), fl }, s(0x1p24), Inexact},
		{"RMM ties away: 2^24+1 converts to 2^24+2 (§11.2)",
			func() (uint64, Flags) { r, fl := I32ToF32(1<<24+1, RMM); return uint64(r), fl }, s(0x1p24 + 2), Inexact},
		{"RMM ties away for negative values too: −(2^24+1) converts to −(2^24+2)",
			func() (uint64, Flags) { r, fl := I32ToF32(-(1<<24 + 1), RMM); return uint64(r), fl }, s(-0x1p24 - 2), Inexact},
		{"RDN rounds a negative inexact sum away from zero",
			func() (uint64, Flags) { return F64Add(d(-1), d(-0x1p-60), RDN) }, d(-1) + 1, Inexact},
		{"RUP rounds a negative inexact sum towards zero",
			func() (uint64, Flags) { return F64Add(d(-1), d(-0x1p-60), RUP) }, d(-1), Inexact},
		{"U64ToF64 of 2^64−1 rounds up to 2^64 under RNE",
			func() (uint64, Flags) { return U64ToF64(1<<64-1, RNE) }, d(0x1p64), Inexact},
		{"U64ToF64 of 2^64−1 truncates under RTZ",
			func() (uint64, Flags) { return U64ToF64(1<<64-1, RTZ) }, d(0x1p64) - 1, Inexact},
		{"I64ToF64 of −2^63 is exact", func() (uint64, Flags) { return I64ToF64(-1<<63, RNE) }, d(-0x1p63), 0},
		{"I32ToF64 of −1 is exact", func() (uint64, Flags) { return I32ToF64(-1, RNE) }, d(-1), 0},
		{"U32ToF64 of 2^32−1 is exact", func() (uint64, Flags) { return U32ToF64(1<<32-1, RNE) }, d(0x1p32 - 1), 0},
		{"U32ToF32 of 2^32−1 rounds to 2^32", func() (uint64, Flags) { r, fl := U32ToF32(1<<32-1, RNE); return uint64(r), fl }, s(0x1p32), Inexact},
		{"I64ToF32 of 0 is +0", func() (uint64, Flags) { r, fl := I64ToF32(0, RDN); return uint64(r), fl }, 0, 0},

		// Format conversions (§12.5).
		{"fcvt.s.d of 1e300 overflows to +∞ (§12.5)",
			func() (uint64, Flags) { r, fl := F64ToF32(d(1e300), RNE); return uint64(r), fl }, inf32, Overflow | Inexact},
		{"fcvt.s.d of 1e300 under RTZ gives the largest binary32",
			func() (uint64, Flags) { r, fl := F64ToF32(d(1e300), RTZ); return uint64(r), fl }, max32, Overflow | Inexact},
		{"fcvt.s.d of 2^-150 ties to +0 with UF and NX",
			func() (uint64, Flags) { r, fl := F64ToF32(d(0x1p-150), RNE); return uint64(r), fl }, 0, Underflow | Inexact},
		{"fcvt.s.d of a signaling NaN gives the canonical NaN and NV (§12.5)",
			func() (uint64, Flags) { r, fl := F64ToF32(sNaN64, RNE); return uint64(r), fl }, qNaN32, Invalid},
		{"fcvt.s.d of a quiet NaN drops the payload quietly",
			func() (uint64, Flags) { r, fl := F64ToF32(pNaN64, RNE); return uint64(r), fl }, qNaN32, 0},
		{"fcvt.d.s of a signaling NaN gives the canonical NaN and NV (§12.5)",
			func() (uint64, Flags) { return F32ToF64(sNaN32) }, qNaN64, Invalid},
		{"fcvt.d.s of the smallest binary32 subnormal is exact",
			func() (uint64, Flags) { return F32ToF64(minS32) }, d(0x1p-149), 0},
		{"fcvt.d.s keeps −0", func() (uint64, Flags) { return F32ToF64(nz32) }, nz64, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, flags := tc.run()
			if got != tc.want || flags != tc.flags {
				t.Errorf("got %#x %v, want %#x %v", got, flags, tc.want, tc.flags)
			}
		})
	}
}

func TestMinMaxCompareClass(t *testing.T) {
	cases := []struct {
		name  string
		run   func() (uint64, Flags)
		want  uint64
		flags Flags
	}{
		{"fmin(−0, +0) is −0 (§11.6)", func() (uint64, Flags) { return F64Min(0, nz64) }, nz64, 0},
		{"fmax(−0, +0) is +0 (§11.6)", func() (uint64, Flags) { return F64Max(nz64, 0) }, 0, 0},
		{"fmin.s(+0, −0) is −0 (§11.6)", func() (uint64, Flags) { r, fl := F32Min(0, nz32); return uint64(r), fl }, nz32, 0},
		{"fmin with one quiet NaN returns the other operand quietly (§11.6)",
			func() (uint64, Flags) { return F64Min(pNaN64, d(5)) }, d(5), 0},
		{"fmax with one signaling NaN returns the other operand and raises NV (§11.6)",
			func() (uint64, Flags) { return F64Max(d(-5), sNaN64) }, d(-5), Invalid},
		{"fmin of two quiet NaNs is the canonical NaN (§11.6)",
			func() (uint64, Flags) { return F64Min(pNaN64, pNaN64) }, qNaN64, 0},
		{"fmax.s of a signaling and a quiet NaN is the canonical NaN with NV (§11.6)",
			func() (uint64, Flags) { r, fl := F32Max(sNaN32, pNaN32); return uint64(r), fl }, qNaN32, Invalid},
		{"fmin(−∞, max) is −∞", func() (uint64, Flags) { return F64Min(max64, ninf64) }, ninf64, 0},
		{"fmax of negative numbers picks the smaller magnitude", func() (uint64, Flags) { return F64Max(d(-2), d(-3)) }, d(-2), 0},

		{"feq(−0, +0) is true (§11.8)", func() (uint64, Flags) { return boolBits(F64Eq(nz64, 0)) }, 1, 0},
		{"feq with a quiet NaN is false and quiet (§11.8)", func() (uint64, Flags) { return boolBits(F64Eq(pNaN64, pNaN64)) }, 0, 0},
		{"feq with a signaling NaN raises NV (§11.8)", func() (uint64, Flags) { return boolBits(F64Eq(d(1), sNaN64)) }, 0, Invalid},
		{"flt with a quiet NaN raises NV (§11.8)", func() (uint64, Flags) { return boolBits(F64Lt(pNaN64, d(1))) }, 0, Invalid},
		{"fle.s with a quiet NaN raises NV (§11.8)", func() (uint64, Flags) { return boolBits(F32Le(uint32(s(1)), uint32(pNaN32))) }, 0, Invalid},
		{"flt(−0, +0) is false (§11.8)", func() (uint64, Flags) { return boolBits(F64Lt(nz64, 0)) }, 0, 0},
		{"fle(+0, −0) is true (§11.8)", func() (uint64, Flags) { return boolBits(F64Le(0, nz64)) }, 1, 0},
		{"flt(−1, −0.5) is true", func() (uint64, Flags) { return boolBits(F64Lt(d(-1), d(-0.5))) }, 1, 0},
		{"flt.s(−∞, −max) is true", func() (uint64, Flags) { return boolBits(F32Lt(uint32(ninf32), uint32(max32|1<<31))) }, 1, 0},

		{"fclass of −∞ sets bit 0 (§11.9)", func() (uint64, Flags) { return F64Class(ninf64), 0 }, 1 << 0, 0},
		{"fclass of a negative normal sets bit 1 (§11.9)", func() (uint64, Flags) { return F64Class(d(-1)), 0 }, 1 << 1, 0},
		{"fclass of a negative subnormal sets bit 2 (§11.9)", func() (uint64, Flags) { return F32Class(uint32(minS32 | 1<<31)), 0 }, 1 << 2, 0},
		{"fclass of −0 sets bit 3 (§11.9)", func() (uint64, Flags) { return F64Class(nz64), 0 }, 1 << 3, 0},
		{"fclass of +0 sets bit 4 (§11.9)", func() (uint64, Flags) { return F32Class(0), 0 }, 1 << 4, 0},
		{"fclass of a positive subnormal sets bit 5 (§11.9)", func() (uint64, Flags) { return F64Class(maxS64), 0 }, 1 << 5, 0},
		{"fclass of a positive normal sets bit 6 (§11.9)", func() (uint64, Flags) { return F64Class(minN64), 0 }, 1 << 6, 0},
		{"fclass of +∞ sets bit 7 (§11.9)", func() (uint64, Flags) { return F32Class(inf32), 0 }, 1 << 7, 0},
		{"fclass of a signaling NaN sets bit 8 (§11.9)", func() (uint64, Flags) { return F64Class(sNaN64 | 1<<63), 0 }, 1 << 8, 0},
		{"fclass of a quiet NaN sets bit 9 (§11.9)", func() (uint64, Flags) { return F32Class(pNaN32), 0 }, 1 << 9, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, flags := tc.run()
			if got != tc.want || flags != tc.flags {
				t.Errorf("got %#x %v, want %#x %v", got, flags, tc.want, tc.flags)
			}
		})
	}
}

// TestFloatToIntegerTable11_4 checks the saturation rules of Unprivileged
// §11.7, table 11.4, and the Inexact rules around them. Results are RV64
// register values: 32-bit results sign-extended.
func TestFloatToIntegerTable11_4(t *testing.T) {
	i := func(v int64, fl Flags) (uint64, Flags) { return uint64(v), fl }
	cases := []struct {
		name  string
		run   func() (uint64, Flags)
		want  uint64
		flags Flags
	}{
		{"fcvt.w.d of NaN is 2^31−1 with NV", func() (uint64, Flags) { return i(F64ToI32(qNaN64, RNE)) }, 1<<31 - 1, Invalid},
		{"fcvt.w.d of −NaN is 2^31−1 too", func() (uint64, Flags) { return i(F64ToI32(qNaN64|1<<63, RNE)) }, 1<<31 - 1, Invalid},
		{"fcvt.w.d of +∞ is 2^31−1 with NV", func() (uint64, Flags) { return i(F64ToI32(inf64, RNE)) }, 1<<31 - 1, Invalid},
		{"fcvt.w.d of −∞ is −2^31 with NV", func() (uint64, Flags) { return i(F64ToI32(ninf64, RNE)) }, 0xffffffff80000000, Invalid},
		{"fcvt.w.d of 2^31−1 is exact", func() (uint64, Flags) { return i(F64ToI32(d(0x1p31-1), RNE)) }, 1<<31 - 1, 0},
		{"fcvt.w.d of 2^31 saturates with NV", func() (uint64, Flags) { return i(F64ToI32(d(0x1p31), RNE)) }, 1<<31 - 1, Invalid},
		{"fcvt.w.d of 2^31−0.5 rounds to 2^31 under RNE and saturates",
			func() (uint64, Flags) { return i(F64ToI32(d(0x1p31-0.5), RNE)) }, 1<<31 - 1, Invalid},
		{"fcvt.w.d of 2^31−0.5 truncates under RTZ with NX",
			func() (uint64, Flags) { return i(F64ToI32(d(0x1p31-0.5), RTZ)) }, 1<<31 - 1, Inexact},
		{"fcvt.w.d of −2^31 is exact", func() (uint64, Flags) { return i(F64ToI32(d(-0x1p31), RNE)) }, 0xffffffff80000000, 0},
		{"fcvt.w.d of −2^31−0.5 ties to even −2^31 under RNE with NX",
			func() (uint64, Flags) { return i(F64ToI32(d(-0x1p31-0.5), RNE)) }, 0xffffffff80000000, Inexact},
		{"fcvt.w.d of −2^31−0.5 ties away to −2^31−1 under RMM and saturates",
			func() (uint64, Flags) { return i(F64ToI32(d(-0x1p31-0.5), RMM)) }, 0xffffffff80000000, Invalid},
		{"fcvt.w.d of −2^31−0.5 rounds down out of range under RDN",
			func() (uint64, Flags) { return i(F64ToI32(d(-0x1p31-0.5), RDN)) }, 0xffffffff80000000, Invalid},
		{"fcvt.w.s of −0 is 0 without flags", func() (uint64, Flags) { return i(F32ToI32(nz32, RNE)) }, 0, 0},
		{"fcvt.w.s of 2.5 ties to even 2", func() (uint64, Flags) { return i(F32ToI32(uint32(s(2.5)), RNE)) }, 2, Inexact},
		{"fcvt.w.s of −2.5 ties away to −3 under RMM", func() (uint64, Flags) { return i(F32ToI32(uint32(s(-2.5)), RMM)) }, 1<<64 - 3, Inexact},
		{"fcvt.w.s of 0.1 rounds up to 1 under RUP", func() (uint64, Flags) { return i(F32ToI32(uint32(s(0.1)), RUP)) }, 1, Inexact},

		{"fcvt.wu.d of −0.5 rounds to 0 under RNE: NX, not NV",
			func() (uint64, Flags) { return F64ToU32(d(-0.5), RNE) }, 0, Inexact},
		{"fcvt.wu.d of −0.9 truncates to 0 under RTZ: NX, not NV",
			func() (uint64, Flags) { return F64ToU32(d(-0.9), RTZ) }, 0, Inexact},
		{"fcvt.wu.d of −0.5 ties away to −1 under RMM: NV",
			func() (uint64, Flags) { return F64ToU32(d(-0.5), RMM) }, 0, Invalid},
		{"fcvt.wu.d of −1 is out of range: 0 with NV",
			func() (uint64, Flags) { return F64ToU32(d(-1), RTZ) }, 0, Invalid},
		{"fcvt.wu.d of −∞ is 0 with NV", func() (uint64, Flags) { return F64ToU32(ninf64, RNE) }, 0, Invalid},
		{"fcvt.wu.d of 2^32−1 is exact and sign-extended into rd",
			func() (uint64, Flags) { return F64ToU32(d(0x1p32-1), RNE) }, 1<<64 - 1, 0},
		{"fcvt.wu.d of 2^31 is sign-extended into rd",
			func() (uint64, Flags) { return F64ToU32(d(0x1p31), RNE) }, 0xffffffff80000000, 0},
		{"fcvt.wu.d of 2^32 saturates to 2^32−1 (sign-extended) with NV",
			func() (uint64, Flags) { return F64ToU32(d(0x1p32), RNE) }, 1<<64 - 1, Invalid},
		{"fcvt.wu.s of NaN is 2^32−1 (sign-extended) with NV",
			func() (uint64, Flags) { return F32ToU32(uint32(qNaN32), RNE) }, 1<<64 - 1, Invalid},
		{"fcvt.wu.s of 1.5 is 2 under RNE", func() (uint64, Flags) { return F32ToU32(uint32(s(1.5)), RNE) }, 2, Inexact},

		{"fcvt.l.d of 2^63 saturates with NV", func() (uint64, Flags) { return i(F64ToI64(d(0x1p63), RNE)) }, 1<<63 - 1, Invalid},
		{"fcvt.l.d of −2^63 is exact", func() (uint64, Flags) { return i(F64ToI64(d(-0x1p63), RNE)) }, 1 << 63, 0},
		{"fcvt.l.d of NaN is 2^63−1 with NV", func() (uint64, Flags) { return i(F64ToI64(sNaN64, RNE)) }, 1<<63 - 1, Invalid},
		{"fcvt.l.d of −∞ is −2^63 with NV", func() (uint64, Flags) { return i(F64ToI64(ninf64, RNE)) }, 1 << 63, Invalid},
		{"fcvt.l.s of 1e30 saturates with NV", func() (uint64, Flags) { return i(F32ToI64(0x7149f2ca, RNE)) }, 1<<63 - 1, Invalid},
		{"fcvt.l.d of 2^-1074 rounds up to 1 under RUP", func() (uint64, Flags) { return i(F64ToI64(minS64, RUP)) }, 1, Inexact},
		{"fcvt.l.d of −2^-1074 rounds down to −1 under RDN", func() (uint64, Flags) { return i(F64ToI64(minS64|1<<63, RDN)) }, 1<<64 - 1, Inexact},

		{"fcvt.lu.d of 2^64 saturates with NV", func() (uint64, Flags) { return F64ToU64(d(0x1p64), RNE) }, 1<<64 - 1, Invalid},
		{"fcvt.lu.d of the largest double below 2^64 is exact",
			func() (uint64, Flags) { return F64ToU64(d(0x1p64)-1, RNE) }, 1<<64 - 2048, 0},
		{"fcvt.lu.d of −0.25 rounds to 0 under RNE: NX, not NV",
			func() (uint64, Flags) { return F64ToU64(d(-0.25), RNE) }, 0, Inexact},
		{"fcvt.lu.d of −0.25 rounds down to −1 under RDN: NV",
			func() (uint64, Flags) { return F64ToU64(d(-0.25), RDN) }, 0, Invalid},
		{"fcvt.lu.s of +∞ is 2^64−1 with NV", func() (uint64, Flags) { return F32ToU64(inf32, RNE) }, 1<<64 - 1, Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, flags := tc.run()
			if got != tc.want || flags != tc.flags {
				t.Errorf("got %#x %v, want %#x %v", got, flags, tc.want, tc.flags)
			}
		})
	}
}

func TestFlagsString(t *testing.T) {
	cases := []struct {
		f    Flags
		want string
	}{
		{0, "0"}, {Inexact, "NX"}, {Invalid | Inexact, "NV|NX"}, {Overflow | Underflow, "OF|UF"}, {DivByZero, "DZ"},
	}
	for _, tc := range cases {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("Flags(%#x).String() = %q, want %q", uint8(tc.f), got, tc.want)
		}
	}
}
