package softfloat

// Binary64 arithmetic (Unprivileged §12.4). Each function tries the fast
// path of fast64.go first when rm is RNE and falls back to the general path.

// F64Add returns a + b rounded under rm (FADD.D).
func F64Add(a, b uint64, rm uint8) (uint64, Flags) {
	if rm == RNE {
		if r, f, ok := addFast64(a, b); ok {
			return r, f
		}
	}
	return f64AddGeneral(a, b, rm)
}

// F64Sub returns a − b rounded under rm (FSUB.D).
func F64Sub(a, b uint64, rm uint8) (uint64, Flags) {
	return F64Add(a, b^(1<<63), rm)
}

// F64Mul returns a × b rounded under rm (FMUL.D).
func F64Mul(a, b uint64, rm uint8) (uint64, Flags) {
	if rm == RNE {
		if r, f, ok := mulFast64(a, b); ok {
			return r, f
		}
	}
	return f64MulGeneral(a, b, rm)
}

// F64Div returns a ÷ b rounded under rm (FDIV.D). A finite nonzero a divided
// by zero raises DivByZero (IEEE 754-2008 §7.3).
func F64Div(a, b uint64, rm uint8) (uint64, Flags) {
	if rm == RNE {
		if r, f, ok := divFast64(a, b); ok {
			return r, f
		}
	}
	return f64DivGeneral(a, b, rm)
}

// F64Sqrt returns √a rounded under rm (FSQRT.D); √−0 is −0 and the square
// root of any other negative number is invalid (IEEE 754-2008 §5.4.1).
func F64Sqrt(a uint64, rm uint8) (uint64, Flags) {
	if rm == RNE {
		if r, f, ok := sqrtFast64(a); ok {
			return r, f
		}
	}
	return f64SqrtGeneral(a, rm)
}

// F64MulAdd returns a × b + c with a single rounding under rm (FMADD.D).
// The caller implements FMSUB.D, FNMSUB.D and FNMADD.D, which the
// Unprivileged ISA §11.6 defines as (a×b)−c, −(a×b)+c and −(a×b)−c, by
// flipping the sign bit of c, of a, or of both. ∞×0 raises Invalid even when
// c is a quiet NaN (§11.6).
func F64MulAdd(a, b, c uint64, rm uint8) (uint64, Flags) {
	if rm == RNE {
		if r, f, ok := mulAddFast64(a, b, c); ok {
			return r, f
		}
	}
	return f64MulAddGeneral(a, b, c, rm)
}

func f64MulAddGeneral(a, b, c uint64, rm uint8) (uint64, Flags) {
	return pack64(mulAdd(unpack64(a), unpack64(b), unpack64(c), rm), rm)
}

func f64AddGeneral(a, b uint64, rm uint8) (uint64, Flags) {
	return pack64(add(unpack64(a), unpack64(b), rm), rm)
}

func f64MulGeneral(a, b uint64, rm uint8) (uint64, Flags) {
	return pack64(mul(unpack64(a), unpack64(b)), rm)
}

func f64DivGeneral(a, b uint64, rm uint8) (uint64, Flags) {
	return pack64(div(unpack64(a), unpack64(b)), rm)
}

func f64SqrtGeneral(a uint64, rm uint8) (uint64, Flags) {
	return pack64(sqrt(unpack64(a)), rm)
}
