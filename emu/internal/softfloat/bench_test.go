package softfloat

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Benchmarks of the binary64 operations on typical operands (normal
// numbers of moderate magnitude, as a guest's arithmetic mostly sees):
// "fast" is the public function under RNE, which takes the fast path for
// these operands; "general" is the integer path alone; "RTZ" is the public
// function under a mode without a fast path.

var benchSink uint64

func benchOperands() [][3]uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	ops := make([][3]uint64, 1024)
	for i := range ops {
		for j := range ops[i] {
			v := (r.Float64() + 0.5) * math.Pow(2, float64(r.IntN(64)-32))
			if r.IntN(2) == 0 {
				v = -v
			}
			ops[i][j] = math.Float64bits(v)
		}
	}
	return ops
}

func benchBinary(b *testing.B, fn func(a, b uint64, rm uint8) (uint64, Flags), rm uint8) {
	ops := benchOperands()
	b.ResetTimer()
	var acc uint64
	for i := 0; i < b.N; i++ {
		o := &ops[i&1023]
		r, fl := fn(o[0], o[1], rm)
		acc += r + uint64(fl)
	}
	benchSink = acc
}

func benchUnary(b *testing.B, fn func(a uint64, rm uint8) (uint64, Flags), rm uint8) {
	ops := benchOperands()
	b.ResetTimer()
	var acc uint64
	for i := 0; i < b.N; i++ {
		r, fl := fn(ops[i&1023][0]&^(1<<63), rm)
		acc += r + uint64(fl)
	}
	benchSink = acc
}

func BenchmarkF64Add(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchBinary(b, F64Add, RNE) })
	b.Run("general", func(b *testing.B) { benchBinary(b, f64AddGeneral, RNE) })
	b.Run("RTZ", func(b *testing.B) { benchBinary(b, F64Add, RTZ) })
}

func BenchmarkF64Mul(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchBinary(b, F64Mul, RNE) })
	b.Run("general", func(b *testing.B) { benchBinary(b, f64MulGeneral, RNE) })
	b.Run("RTZ", func(b *testing.B) { benchBinary(b, F64Mul, RTZ) })
}

func BenchmarkF64Div(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchBinary(b, F64Div, RNE) })
	b.Run("general", func(b *testing.B) { benchBinary(b, f64DivGeneral, RNE) })
	b.Run("RTZ", func(b *testing.B) { benchBinary(b, F64Div, RTZ) })
}

func BenchmarkF64Sqrt(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchUnary(b, F64Sqrt, RNE) })
	b.Run("general", func(b *testing.B) { benchUnary(b, f64SqrtGeneral, RNE) })
	b.Run("RTZ", func(b *testing.B) { benchUnary(b, F64Sqrt, RTZ) })
}

func BenchmarkF64MulAdd(b *testing.B) {
	run := func(b *testing.B, fn func(a, b, c uint64, rm uint8) (uint64, Flags), rm uint8) {
		ops := benchOperands()
		b.ResetTimer()
		var acc uint64
		for i := 0; i < b.N; i++ {
			o := &ops[i&1023]
			r, fl := fn(o[0], o[1], o[2], rm)
			acc += r + uint64(fl)
		}
		benchSink = acc
	}
	b.Run("RNE", func(b *testing.B) { run(b, F64MulAdd, RNE) })
	b.Run("RTZ", func(b *testing.B) { run(b, F64MulAdd, RTZ) })
}

func BenchmarkF32(b *testing.B) { benchF32(b, RNE) }

// benchOperands32 is benchOperands rounded to binary32.
func benchOperands32() [][3]uint32 {
	ops := benchOperands()
	ops32 := make([][3]uint32, len(ops))
	for i, o := range ops {
		for j := range o {
			ops32[i][j] = math.Float32bits(float32(math.Float64frombits(o[j])))
		}
	}
	return ops32
}

// BenchmarkF32RTZ is BenchmarkF32 under RTZ, which has no fast path: the
// integer path with binary32 unpacking and rounding.
func BenchmarkF32RTZ(b *testing.B) { benchF32(b, RTZ) }

// benchF32 runs the binary32 arithmetic under rm.
func benchF32(b *testing.B, rm uint8) {
	ops32 := benchOperands32()
	fns := []struct {
		name string
		fn   func(a, b, c uint32) (uint32, Flags)
	}{
		{"add", func(a, b, _ uint32) (uint32, Flags) { return F32Add(a, b, rm) }},
		{"mul", func(a, b, _ uint32) (uint32, Flags) { return F32Mul(a, b, rm) }},
		{"div", func(a, b, _ uint32) (uint32, Flags) { return F32Div(a, b, rm) }},
		{"sqrt", func(a, _, _ uint32) (uint32, Flags) { return F32Sqrt(a&^(1<<31), rm) }},
		{"fma", func(a, b, c uint32) (uint32, Flags) { return F32MulAdd(a, b, c, rm) }},
	}
	for _, f := range fns {
		b.Run(f.name, func(b *testing.B) {
			var acc uint32
			for i := 0; i < b.N; i++ {
				o := &ops32[i&1023]
				r, fl := f.fn(o[0], o[1], o[2])
				acc += r + uint32(fl)
			}
			benchSink = uint64(acc)
		})
	}
}

// BenchmarkCompare measures the operations that compare or classify
// without rounding (compare.go), in both formats.
func BenchmarkCompare(b *testing.B) {
	ops := benchOperands()
	ops32 := benchOperands32()
	b.Run("F64Min", func(b *testing.B) {
		var acc uint64
		for i := 0; i < b.N; i++ {
			r, fl := F64Min(ops[i&1023][0], ops[i&1023][1])
			acc += r + uint64(fl)
		}
		benchSink = acc
	})
	b.Run("F64Lt", func(b *testing.B) {
		var acc uint64
		for i := 0; i < b.N; i++ {
			r, fl := F64Lt(ops[i&1023][0], ops[i&1023][1])
			if r {
				acc++
			}
			acc += uint64(fl)
		}
		benchSink = acc
	})
	b.Run("F64Class", func(b *testing.B) {
		var acc uint64
		for i := 0; i < b.N; i++ {
			acc += F64Class(ops[i&1023][0])
		}
		benchSink = acc
	})
	b.Run("F32Max", func(b *testing.B) {
		var acc uint32
		for i := 0; i < b.N; i++ {
			r, fl := F32Max(ops32[i&1023][0], ops32[i&1023][1])
			acc += r + uint32(fl)
		}
		benchSink = uint64(acc)
	})
	b.Run("F32Le", func(b *testing.B) {
		var acc uint64
		for i := 0; i < b.N; i++ {
			r, fl := F32Le(ops32[i&1023][0], ops32[i&1023][1])
			if r {
				acc++
			}
			acc += uint64(fl)
		}
		benchSink = acc
	})
	b.Run("F32Class", func(b *testing.B) {
		var acc uint64
		for i := 0; i < b.N; i++ {
			acc += F32Class(ops32[i&1023][0])
		}
		benchSink = acc
	})
}

func BenchmarkConvert(b *testing.B) {
	ops := benchOperands()
	b.Run("F64ToI64 RTZ", func(b *testing.B) {
		var acc int64
		for i := 0; i < b.N; i++ {
			r, fl := F64ToI64(ops[i&1023][0], RTZ)
			acc += r + int64(fl)
		}
		benchSink = uint64(acc)
	})
	b.Run("F64ToF32 RTZ", func(b *testing.B) {
		var acc uint32
		for i := 0; i < b.N; i++ {
			r, fl := F64ToF32(ops[i&1023][0], RTZ)
			acc += r + uint32(fl)
		}
		benchSink = uint64(acc)
	})
	b.Run("I64ToF64 RNE", func(b *testing.B) {
		var acc uint64
		for i := 0; i < b.N; i++ {
			r, fl := I64ToF64(int64(ops[i&1023][0]), RNE)
			acc += r + uint64(fl)
		}
		benchSink = acc
	})
}

// TestNoAllocations checks that the hot operations do not allocate.
func TestNoAllocations(t *testing.T) {
	a, bb, c := math.Float64bits(1.5), math.Float64bits(-0.3), math.Float64bits(7)
	allocs := testing.AllocsPerRun(100, func() {
		for rm := uint8(0); rm < 5; rm++ {
			F64Add(a, bb, rm)
			F64Mul(a, bb, rm)
			F64Div(a, bb, rm)
			F64Sqrt(a, rm)
			F64MulAdd(a, bb, c, rm)
			F32MulAdd(uint32(a>>32), uint32(bb>>32), uint32(c>>32), rm)
			F64ToI32(a, rm)
			F64ToF32(a, rm)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}
