package softfloat

import (
	"math"
	"testing"
)

// Fuzz targets comparing the library with the math/big oracle. Run one with
// e.g. go test ./emu/internal/softfloat -fuzz FuzzF64MulAdd.

func addMulAddSeeds(f *testing.F, one, inf, nan, snan, minSub, max uint64) {
	for _, s := range [][3]uint64{
		{one, one, one}, {inf, 0, nan}, {0, inf, snan}, {minSub, minSub, 0},
		{max, max, inf ^ one}, {one, minSub, one}, {max, one, max},
	} {
		for rm := uint8(0); rm < 5; rm++ {
			f.Add(s[0], s[1], s[2], rm)
		}
	}
}

func FuzzF64MulAdd(f *testing.F) {
	addMulAddSeeds(f, math.Float64bits(1), inf64, qNaN64, sNaN64, minS64, max64)
	f.Fuzz(func(t *testing.T, a, b, c uint64, rm uint8) {
		rm %= 5
		got, gotFlags := F64MulAdd(a, b, c, rm)
		want, wantFlags := binary64.oracleMulAdd(a, b, c, rm)
		if got != want || gotFlags != wantFlags {
			t.Errorf("F64MulAdd(%#016x, %#016x, %#016x, %d) = %#016x %v, oracle %#016x %v", a, b, c, rm, got, gotFlags, want, wantFlags)
		}
	})
}

func FuzzF32MulAdd(f *testing.F) {
	addMulAddSeeds(f, s(1), inf32, qNaN32, sNaN32, minS32, max32)
	f.Fuzz(func(t *testing.T, a, b, c uint64, rm uint8) {
		rm %= 5
		a, b, c = a&0xffffffff, b&0xffffffff, c&0xffffffff
		r, gotFlags := F32MulAdd(uint32(a), uint32(b), uint32(c), rm)
		want, wantFlags := binary32.oracleMulAdd(a, b, c, rm)
		if uint64(r) != want || gotFlags != wantFlags {
			t.Errorf("F32MulAdd(%#08x, %#08x, %#08x, %d) = %#08x %v, oracle %#08x %v", a, b, c, rm, r, gotFlags, want, wantFlags)
		}
	})
}

// FuzzF64Arith covers the binary64 operations with fast paths: op selects
// add, sub, mul, div or sqrt.
func FuzzF64Arith(f *testing.F) {
	for op := uint8(0); op < 5; op++ {
		f.Add(op, math.Float64bits(1), math.Float64bits(3), RNE)
		f.Add(op, uint64(maxS64), math.Float64bits(1+0x1p-52), RTZ)
		f.Add(op, uint64(max64), uint64(max64), RMM)
	}
	f.Fuzz(func(t *testing.T, op uint8, a, b uint64, rm uint8) {
		rm %= 5
		var got, want uint64
		var gotFlags, wantFlags Flags
		switch op % 5 {
		case 0:
			got, gotFlags = F64Add(a, b, rm)
			want, wantFlags = binary64.oracleAdd(a, b, rm)
		case 1:
			got, gotFlags = F64Sub(a, b, rm)
			want, wantFlags = binary64.oracleSub(a, b, rm)
		case 2:
			got, gotFlags = F64Mul(a, b, rm)
			want, wantFlags = binary64.oracleMul(a, b, rm)
		case 3:
			got, gotFlags = F64Div(a, b, rm)
			want, wantFlags = binary64.oracleDiv(a, b, rm)
		case 4:
			got, gotFlags = F64Sqrt(a, rm)
			want, wantFlags = binary64.oracleSqrt(a, rm)
		}
		if got != want || gotFlags != wantFlags {
			t.Errorf("op %d (%#016x, %#016x, rm %d) = %#016x %v, oracle %#016x %v", op%5, a, b, rm, got, gotFlags, want, wantFlags)
		}
	})
}
