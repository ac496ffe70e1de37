package softfloat

import (
	"math/rand/v2"
)

// testOp is one instruction's worth of library function, oracle and operand
// generator, all on 64-bit operands (binary32 bits in the low half) so one
// driver serves them all. Names are the RISC-V mnemonics, which the qemu
// differential test also uses.
type testOp struct {
	name   string
	f      format // the format of the floating-point operands
	usesRM bool
	gen    func(r *rand.Rand) (a, b, c uint64)
	lib    func(a, b, c uint64, rm uint8) (uint64, Flags)
	oracle func(a, b, c uint64, rm uint8) (uint64, Flags)
}

type fn3 = func(a, b, c uint64, rm uint8) (uint64, Flags)

// lib returns the library's binary operation op ("mul" only, for the
// generators) in f.
func (f format) lib(op string) fn3 {
	if op != "mul" {
		panic(op)
	}
	if f.prec == 24 {
		return func(a, b, _ uint64, rm uint8) (uint64, Flags) {
			r, fl := F32Mul(uint32(a), uint32(b), rm)
			return uint64(r), fl
		}
	}
	return func(a, b, _ uint64, rm uint8) (uint64, Flags) { return F64Mul(a, b, rm) }
}

func boolBits(b bool, fl Flags) (uint64, Flags) {
	if b {
		return 1, fl
	}
	return 0, fl
}

// allOps returns every operation of both formats.
func allOps() []testOp {
	var ops []testOp
	for _, f := range []format{binary32, binary64} {
		ops = append(ops, formatOps(f)...)
	}
	return ops
}

func formatOps(f format) []testOp {
	s := ".s"
	var (
		add, sub, mul, div func(a, b uint64, rm uint8) (uint64, Flags)
		sqrt               func(a uint64, rm uint8) (uint64, Flags)
		fma                func(a, b, c uint64, rm uint8) (uint64, Flags)
		min, max           func(a, b uint64) (uint64, Flags)
		eq, lt, le         func(a, b uint64) (bool, Flags)
		class              func(a uint64) uint64
		toI32, toI64       func(a uint64, rm uint8) (int64, Flags)
		toU32, toU64       func(a uint64, rm uint8) (uint64, Flags)
		fromI32, fromU32   func(x uint64, rm uint8) (uint64, Flags)
		fromI64, fromU64   func(x uint64, rm uint8) (uint64, Flags)
		other              format
		convert            func(a uint64, rm uint8) (uint64, Flags)
		convName           string
	)
	if f.prec == 24 {
		w := func(g func(a, b uint32, rm uint8) (uint32, Flags)) func(a, b uint64, rm uint8) (uint64, Flags) {
			return func(a, b uint64, rm uint8) (uint64, Flags) {
				r, fl := g(uint32(a), uint32(b), rm)
				return uint64(r), fl
			}
		}
		add, sub, mul, div = w(F32Add), w(F32Sub), w(F32Mul), w(F32Div)
		sqrt = func(a uint64, rm uint8) (uint64, Flags) { r, fl := F32Sqrt(uint32(a), rm); return uint64(r), fl }
		fma = func(a, b, c uint64, rm uint8) (uint64, Flags) {
			r, fl := F32MulAdd(uint32(a), uint32(b), uint32(c), rm)
			return uint64(r), fl
		}
		min = func(a, b uint64) (uint64, Flags) { r, fl := F32Min(uint32(a), uint32(b)); return uint64(r), fl }
		max = func(a, b uint64) (uint64, Flags) { r, fl := F32Max(uint32(a), uint32(b)); return uint64(r), fl }
		eq = func(a, b uint64) (bool, Flags) { return F32Eq(uint32(a), uint32(b)) }
		lt = func(a, b uint64) (bool, Flags) { return F32Lt(uint32(a), uint32(b)) }
		le = func(a, b uint64) (bool, Flags) { return F32Le(uint32(a), uint32(b)) }
		class = func(a uint64) uint64 { return F32Class(uint32(a)) }
		toI32 = func(a uint64, rm uint8) (int64, Flags) { return F32ToI32(uint32(a), rm) }
		toI64 = func(a uint64, rm uint8) (int64, Flags) { return F32ToI64(uint32(a), rm) }
		toU32 = func(a uint64, rm uint8) (uint64, Flags) { return F32ToU32(uint32(a), rm) }
		toU64 = func(a uint64, rm uint8) (uint64, Flags) { return F32ToU64(uint32(a), rm) }
		fromI32 = func(x uint64, rm uint8) (uint64, Flags) { r, fl := I32ToF32(int32(x), rm); return uint64(r), fl }
		fromU32 = func(x uint64, rm uint8) (uint64, Flags) { r, fl := U32ToF32(uint32(x), rm); return uint64(r), fl }
		fromI64 = func(x uint64, rm uint8) (uint64, Flags) { r, fl := I64ToF32(int64(x), rm); return uint64(r), fl }
		fromU64 = func(x uint64, rm uint8) (uint64, Flags) { r, fl := U64ToF32(x, rm); return uint64(r), fl }
		other, convName = binary64, "fcvt.d.s"
		convert = func(a uint64, _ uint8) (uint64, Flags) { return F32ToF64(uint32(a)) }
	} else {
		s = ".d"
		add, sub, mul, div, sqrt, fma = F64Add, F64Sub, F64Mul, F64Div, F64Sqrt, F64MulAdd
		min, max, eq, lt, le, class = F64Min, F64Max, F64Eq, F64Lt, F64Le, F64Class
		toI32, toI64, toU32, toU64 = F64ToI32, F64ToI64, F64ToU32, F64ToU64
		fromI32 = func(x uint64, rm uint8) (uint64, Flags) { return I32ToF64(int32(x), rm) }
		fromU32 = func(x uint64, rm uint8) (uint64, Flags) { return U32ToF64(uint32(x), rm) }
		fromI64 = func(x uint64, rm uint8) (uint64, Flags) { return I64ToF64(int64(x), rm) }
		fromU64 = U64ToF64
		other, convName = binary32, "fcvt.s.d"
		convert = func(a uint64, rm uint8) (uint64, Flags) { r, fl := F64ToF32(a, rm); return uint64(r), fl }
	}
	sb := f.signBit()
	gen2 := func(op string) func(r *rand.Rand) (a, b, c uint64) {
		return func(r *rand.Rand) (uint64, uint64, uint64) { a, b := f.binaryOperands(r, op); return a, b, 0 }
	}
	lib2 := func(g func(a, b uint64, rm uint8) (uint64, Flags)) fn3 {
		return func(a, b, _ uint64, rm uint8) (uint64, Flags) { return g(a, b, rm) }
	}
	ora2 := func(g func(a, b uint64, rm uint8) (uint64, Flags)) fn3 {
		return func(a, b, _ uint64, rm uint8) (uint64, Flags) { return g(a, b, rm) }
	}
	// fma variants: the caller's sign flips (Unprivileged §11.6).
	fmaVariant := func(name string, negA, negC bool) testOp {
		flip := func(a, c uint64) (uint64, uint64) {
			if negA {
				a ^= sb
			}
			if negC {
				c ^= sb
			}
			return a, c
		}
		return testOp{
			name: name + s, f: f, usesRM: true,
			gen: func(r *rand.Rand) (uint64, uint64, uint64) { return f.fmaOperands(r) },
			lib: func(a, b, c uint64, rm uint8) (uint64, Flags) { a, c = flip(a, c); return fma(a, b, c, rm) },
			oracle: func(a, b, c uint64, rm uint8) (uint64, Flags) {
				a, c = flip(a, c)
				return f.oracleMulAdd(a, b, c, rm)
			},
		}
	}
	cmp := func(name string, g func(a, b uint64) (bool, Flags)) testOp {
		return testOp{
			name: name + s, f: f, gen: gen2("cmp"),
			lib: func(a, b, _ uint64, _ uint8) (uint64, Flags) { return boolBits(g(a, b)) },
			oracle: func(a, b, _ uint64, _ uint8) (uint64, Flags) {
				return boolBits(f.oracleCompare(a, b, name[1:]))
			},
		}
	}
	toInt := func(name string, n uint, signed bool, g func(a uint64, rm uint8) (uint64, Flags)) testOp {
		return testOp{
			name: name + s, f: f, usesRM: true,
			gen:    func(r *rand.Rand) (uint64, uint64, uint64) { return f.convOperand(r), 0, 0 },
			lib:    func(a, _, _ uint64, rm uint8) (uint64, Flags) { return g(a, rm) },
			oracle: func(a, _, _ uint64, rm uint8) (uint64, Flags) { return f.oracleToInt(a, rm, n, signed) },
		}
	}
	signedTo := func(g func(a uint64, rm uint8) (int64, Flags)) func(a uint64, rm uint8) (uint64, Flags) {
		return func(a uint64, rm uint8) (uint64, Flags) { v, fl := g(a, rm); return uint64(v), fl }
	}
	fromInt := func(name string, n uint, signed bool, g func(x uint64, rm uint8) (uint64, Flags)) testOp {
		return testOp{
			name: name, f: f, usesRM: true,
			gen: func(r *rand.Rand) (uint64, uint64, uint64) { return intOperand(r, n), 0, 0 },
			lib: func(a, _, _ uint64, rm uint8) (uint64, Flags) { return g(a, rm) },
			oracle: func(a, _, _ uint64, rm uint8) (uint64, Flags) {
				return f.oracleFromInt(bigIntOf(a, n, signed), rm)
			},
		}
	}
	return []testOp{
		{name: "fadd" + s, f: f, usesRM: true, gen: gen2("add"), lib: lib2(add), oracle: ora2(f.oracleAdd)},
		{name: "fsub" + s, f: f, usesRM: true, gen: gen2("add"), lib: lib2(sub), oracle: ora2(f.oracleSub)},
		{name: "fmul" + s, f: f, usesRM: true, gen: gen2("mul"), lib: lib2(mul), oracle: ora2(f.oracleMul)},
		{name: "fdiv" + s, f: f, usesRM: true, gen: gen2("div"), lib: lib2(div), oracle: ora2(f.oracleDiv)},
		{
			name: "fsqrt" + s, f: f, usesRM: true,
			gen:    func(r *rand.Rand) (uint64, uint64, uint64) { return f.sqrtOperand(r), 0, 0 },
			lib:    func(a, _, _ uint64, rm uint8) (uint64, Flags) { return sqrt(a, rm) },
			oracle: func(a, _, _ uint64, rm uint8) (uint64, Flags) { return f.oracleSqrt(a, rm) },
		},
		fmaVariant("fmadd", false, false),
		fmaVariant("fmsub", false, true),
		fmaVariant("fnmsub", true, false),
		fmaVariant("fnmadd", true, true),
		{
			name: "fmin" + s, f: f, gen: gen2("min"),
			lib:    func(a, b, _ uint64, _ uint8) (uint64, Flags) { return min(a, b) },
			oracle: func(a, b, _ uint64, _ uint8) (uint64, Flags) { return f.oracleMinMax(a, b, false) },
		},
		{
			name: "fmax" + s, f: f, gen: gen2("max"),
			lib:    func(a, b, _ uint64, _ uint8) (uint64, Flags) { return max(a, b) },
			oracle: func(a, b, _ uint64, _ uint8) (uint64, Flags) { return f.oracleMinMax(a, b, true) },
		},
		cmp("feq", eq), cmp("flt", lt), cmp("fle", le),
		{
			name: "fclass" + s, f: f,
			gen:    func(r *rand.Rand) (uint64, uint64, uint64) { return f.operand(r), 0, 0 },
			lib:    func(a, _, _ uint64, _ uint8) (uint64, Flags) { return class(a), 0 },
			oracle: func(a, _, _ uint64, _ uint8) (uint64, Flags) { return f.oracleClass(a), 0 },
		},
		toInt("fcvt.w", 32, true, signedTo(toI32)),
		toInt("fcvt.wu", 32, false, toU32),
		toInt("fcvt.l", 64, true, signedTo(toI64)),
		toInt("fcvt.lu", 64, false, toU64),
		fromInt("fcvt"+s+".w", 32, true, fromI32),
		fromInt("fcvt"+s+".wu", 32, false, fromU32),
		fromInt("fcvt"+s+".l", 64, true, fromI64),
		fromInt("fcvt"+s+".lu", 64, false, fromU64),
		{
			name: convName, f: f, usesRM: f.prec == 53,
			gen:    func(r *rand.Rand) (uint64, uint64, uint64) { return f.operand(r), 0, 0 },
			lib:    func(a, _, _ uint64, rm uint8) (uint64, Flags) { return convert(a, rm) },
			oracle: func(a, _, _ uint64, rm uint8) (uint64, Flags) { return other.oracleConvert(f, a, rm) },
		},
	}
}
