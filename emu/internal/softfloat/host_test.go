package softfloat

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The host's IEEE 754 hardware as a second oracle: for round to nearest,
// ties to even, Go's float64 and float32 +, −, ×, ÷, math.Sqrt and math.FMA
// are correctly rounded, so their results (not their flags, which Go does
// not expose) must equal the library's general path bit for bit. NaN
// results only need to be NaNs: the host does not produce RISC-V's canonical
// NaN.

// hostOperands64 returns binary64 operands: biased ones, or plain random
// bits.
func hostOperands64(r *rand.Rand) (uint64, uint64, uint64) {
	if r.IntN(2) == 0 {
		return r.Uint64(), r.Uint64(), r.Uint64()
	}
	a, b, c := binary64.fmaOperands(r)
	if r.IntN(2) == 0 {
		b, _ = binary64.binaryOperands(r, "div")
	}
	return a, b, c
}

func sameOrBothNaN64(got, want uint64) bool {
	return got == want || (isNaN64(got) && isNaN64(want))
}

func sameOrBothNaN32(got, want uint32) bool {
	return got == want || (isNaN32(got) && isNaN32(want))
}

func TestRNEGeneralPathMatchesHostFloat64(t *testing.T) {
	f := math.Float64frombits
	b := math.Float64bits
	cases := []struct {
		name string
		lib  func(a, b, c uint64) uint64
		host func(a, b, c uint64) uint64
	}{
		{"add", func(x, y, _ uint64) uint64 { r, _ := f64AddGeneral(x, y, RNE); return r },
			func(x, y, _ uint64) uint64 { return b(float64(f(x) + f(y))) }},
		{"mul", func(x, y, _ uint64) uint64 { r, _ := f64MulGeneral(x, y, RNE); return r },
			func(x, y, _ uint64) uint64 { return b(float64(f(x) * f(y))) }},
		{"div", func(x, y, _ uint64) uint64 { r, _ := f64DivGeneral(x, y, RNE); return r },
			func(x, y, _ uint64) uint64 { return b(float64(f(x) / f(y))) }},
		{"sqrt", func(x, _, _ uint64) uint64 { r, _ := f64SqrtGeneral(x, RNE); return r },
			func(x, _, _ uint64) uint64 { return b(math.Sqrt(f(x))) }},
		{"fma", func(x, y, z uint64) uint64 { r, _ := f64MulAddGeneral(x, y, z, RNE); return r },
			func(x, y, z uint64) uint64 { return b(math.FMA(f(x), f(y), f(z))) }},
	}
	for _, tc := range cases {
		t.Run(tc.name+" of random binary64 operands rounds like the host", func(t *testing.T) {
			t.Parallel()
			r := rngFor("host64" + tc.name)
			fails := 0
			for i, n := 0, sweepCount(1_000_000); i < n; i++ {
				x, y, z := hostOperands64(r)
				if tc.name == "sqrt" && r.IntN(2) == 0 {
					x &^= 1 << 63
				}
				got, want := tc.lib(x, y, z), tc.host(x, y, z)
				if !sameOrBothNaN64(got, want) {
					t.Errorf("%s(%#016x, %#016x, %#016x) = %#016x, host %#016x", tc.name, x, y, z, got, want)
					if fails++; fails >= 10 {
						break
					}
				}
			}
		})
	}
}

func TestRNEGeneralPathMatchesHostFloat32(t *testing.T) {
	f := math.Float32frombits
	b := math.Float32bits
	cases := []struct {
		name string
		lib  func(a, b uint32) uint32
		host func(a, b uint32) uint32
	}{
		{"add", func(x, y uint32) uint32 { r, _ := f32AddGeneral(x, y, RNE); return r },
			func(x, y uint32) uint32 { return b(float32(f(x) + f(y))) }},
		{"mul", func(x, y uint32) uint32 { r, _ := f32MulGeneral(x, y, RNE); return r },
			func(x, y uint32) uint32 { return b(float32(f(x) * f(y))) }},
		{"div", func(x, y uint32) uint32 { r, _ := f32DivGeneral(x, y, RNE); return r },
			func(x, y uint32) uint32 { return b(float32(f(x) / f(y))) }},
		// √ in binary64 then narrowed is correctly rounded: 53 ≥ 2·24+2
		// makes the double rounding innocuous.
		{"sqrt", func(x, _ uint32) uint32 { r, _ := f32SqrtGeneral(x, RNE); return r },
			func(x, _ uint32) uint32 { return b(float32(math.Sqrt(float64(f(x))))) }},
		{"narrow", func(x, y uint32) uint32 {
			r, _ := F64ToF32(uint64(x)<<32|uint64(y), RNE)
			return r
		}, func(x, y uint32) uint32 { return b(float32(math.Float64frombits(uint64(x)<<32 | uint64(y)))) }},
	}
	for _, tc := range cases {
		t.Run(tc.name+" of random binary32 operands rounds like the host", func(t *testing.T) {
			t.Parallel()
			r := rngFor("host32" + tc.name)
			fails := 0
			for i, n := 0, sweepCount(1_000_000); i < n; i++ {
				var x, y uint32
				if r.IntN(2) == 0 {
					x, y = r.Uint32(), r.Uint32()
				} else {
					xx, yy := binary32.binaryOperands(r, tc.name)
					x, y = uint32(xx), uint32(yy)
				}
				got, want := tc.lib(x, y), tc.host(x, y)
				if !sameOrBothNaN32(got, want) {
					t.Errorf("%s(%#08x, %#08x) = %#08x, host %#08x", tc.name, x, y, got, want)
					if fails++; fails >= 10 {
						break
					}
				}
			}
		})
	}
}

// TestFastPathsMatchGeneralPath checks that every fast path returns exactly
// what the general path does, flags included, and that the sweep takes it
// often enough to mean something.
func TestFastPathsMatchGeneralPath(t *testing.T) {
	type fastFn = func(a, b, c uint64) (uint64, Flags, bool)
	type generalFn = func(a, b, c uint64) (uint64, Flags)
	w32 := func(fast func(a, b, c uint32) (uint32, Flags, bool)) fastFn {
		return func(a, b, c uint64) (uint64, Flags, bool) {
			r, fl, ok := fast(uint32(a), uint32(b), uint32(c))
			return uint64(r), fl, ok
		}
	}
	g32 := func(general func(a, b, c uint32) (uint32, Flags)) generalFn {
		return func(a, b, c uint64) (uint64, Flags) {
			r, fl := general(uint32(a), uint32(b), uint32(c))
			return uint64(r), fl
		}
	}
	cases := []struct {
		name    string
		f       format
		fast    fastFn
		general generalFn
	}{
		{"f64 add", binary64, func(a, b, _ uint64) (uint64, Flags, bool) { return addFast64(a, b) },
			func(a, b, _ uint64) (uint64, Flags) { return f64AddGeneral(a, b, RNE) }},
		{"f64 mul", binary64, func(a, b, _ uint64) (uint64, Flags, bool) { return mulFast64(a, b) },
			func(a, b, _ uint64) (uint64, Flags) { return f64MulGeneral(a, b, RNE) }},
		{"f64 div", binary64, func(a, b, _ uint64) (uint64, Flags, bool) { return divFast64(a, b) },
			func(a, b, _ uint64) (uint64, Flags) { return f64DivGeneral(a, b, RNE) }},
		{"f64 sqrt", binary64, func(a, _, _ uint64) (uint64, Flags, bool) { return sqrtFast64(a) },
			func(a, _, _ uint64) (uint64, Flags) { return f64SqrtGeneral(a, RNE) }},
		{"f64 fma", binary64, mulAddFast64,
			func(a, b, c uint64) (uint64, Flags) { return f64MulAddGeneral(a, b, c, RNE) }},
		{"f32 add", binary32, w32(func(a, b, _ uint32) (uint32, Flags, bool) { return addFast32(a, b) }),
			g32(func(a, b, _ uint32) (uint32, Flags) { return f32AddGeneral(a, b, RNE) })},
		{"f32 mul", binary32, w32(func(a, b, _ uint32) (uint32, Flags, bool) { return mulFast32(a, b) }),
			g32(func(a, b, _ uint32) (uint32, Flags) { return f32MulGeneral(a, b, RNE) })},
		{"f32 div", binary32, w32(func(a, b, _ uint32) (uint32, Flags, bool) { return divFast32(a, b) }),
			g32(func(a, b, _ uint32) (uint32, Flags) { return f32DivGeneral(a, b, RNE) })},
		{"f32 sqrt", binary32, w32(func(a, _, _ uint32) (uint32, Flags, bool) { return sqrtFast32(a) }),
			g32(func(a, _, _ uint32) (uint32, Flags) { return f32SqrtGeneral(a, RNE) })},
		{"f32 fma", binary32, w32(mulAddFast32),
			g32(func(a, b, c uint32) (uint32, Flags) { return f32MulAddGeneral(a, b, c, RNE) })},
	}
	for _, tc := range cases {
		t.Run(tc.name+" fast path agrees with the general path", func(t *testing.T) {
			t.Parallel()
			r := rngFor("fast" + tc.name)
			f := tc.f
			n := sweepCount(3_000_000)
			taken, inexact, fails := 0, 0, 0
			for i := 0; i < n; i++ {
				var a, b, c uint64
				switch i % 4 {
				case 0:
					a, b, c = r.Uint64()&f.mask(), r.Uint64()&f.mask(), r.Uint64()&f.mask()
				case 1:
					a, b, c = f.fmaOperands(r)
				default:
					a, b = f.binaryOperands(r, tc.name[4:])
					c = f.related(r, a)
				}
				if strings.HasSuffix(tc.name, "sqrt") && r.IntN(4) != 0 {
					a &^= f.signBit()
				}
				got, gotFlags, ok := tc.fast(a, b, c)
				if !ok {
					continue
				}
				taken++
				if gotFlags != 0 {
					inexact++
				}
				want, wantFlags := tc.general(a, b, c)
				if got != want || gotFlags != wantFlags {
					t.Errorf("%s(%#x, %#x, %#x): fast %#x %v, general %#x %v", tc.name, a, b, c, got, gotFlags, want, wantFlags)
					if fails++; fails >= 10 {
						break
					}
				}
			}
			t.Logf("%d cases, %d on the fast path, %d of them inexact", n, taken, inexact)
			if taken < n/5 || inexact == 0 || inexact == taken {
				t.Errorf("the sweep does not exercise the fast path: %d of %d taken, %d inexact", taken, n, inexact)
			}
		})
	}
}
