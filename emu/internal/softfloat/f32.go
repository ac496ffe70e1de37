package softfloat

// Binary32 arithmetic (Unprivileged §11.6). Each function tries the fast
// path of fast32.go first when rm is RNE. On the general path the operands
// are unpacked into the representation shared with binary64, so both formats
// run the same code and differ only in the final rounding.

// F32Add returns a + b rounded under rm (FADD.S).
func F32Add(a, b uint32, rm uint8) (uint32, Flags) {
	if rm == RNE {
		if r, f, ok := addFast32(a, b); ok {
			return r, f
		}
	}
	return f32AddGeneral(a, b, rm)
}

func f32AddGeneral(a, b uint32, rm uint8) (uint32, Flags) {
	return pack32(add(unpack32(a), unpack32(b), rm), rm)
}

// F32Sub returns a − b rounded under rm (FSUB.S).
func F32Sub(a, b uint32, rm uint8) (uint32, Flags) {
	return F32Add(a, b^(1<<31), rm)
}

// F32Mul returns a × b rounded under rm (FMUL.S).
func F32Mul(a, b uint32, rm uint8) (uint32, Flags) {
	if rm == RNE {
		if r, f, ok := mulFast32(a, b); ok {
			return r, f
		}
	}
	return f32MulGeneral(a, b, rm)
}

func f32MulGeneral(a, b uint32, rm uint8) (uint32, Flags) {
	return pack32(mul(unpack32(a), unpack32(b)), rm)
}

// F32Div returns a ÷ b rounded under rm (FDIV.S). A finite nonzero a divided
// by zero raises DivByZero (IEEE 754-2008 §7.3).
func F32Div(a, b uint32, rm uint8) (uint32, Flags) {
	if rm == RNE {
		if r, f, ok := divFast32(a, b); ok {
			return r, f
		}
	}
	return f32DivGeneral(a, b, rm)
}

func f32DivGeneral(a, b uint32, rm uint8) (uint32, Flags) {
	return pack32(div(unpack32(a), unpack32(b)), rm)
}

// F32Sqrt returns √a rounded under rm (FSQRT.S); √−0 is −0 and the square
// root of any other negative number is invalid (IEEE 754-2008 §5.4.1).
func F32Sqrt(a uint32, rm uint8) (uint32, Flags) {
	if rm == RNE {
		if r, f, ok := sqrtFast32(a); ok {
			return r, f
		}
	}
	return f32SqrtGeneral(a, rm)
}

func f32SqrtGeneral(a uint32, rm uint8) (uint32, Flags) {
	return pack32(sqrt(unpack32(a)), rm)
}

// F32MulAdd returns a × b + c with a single rounding under rm (FMADD.S).
// The caller implements FMSUB.S, FNMSUB.S and FNMADD.S, which the
// Unprivileged ISA §11.6 defines as (a×b)−c, −(a×b)+c and −(a×b)−c, by
// flipping the sign bit of c, of a, or of both. ∞×0 raises Invalid even when
// c is a quiet NaN (§11.6).
func F32MulAdd(a, b, c uint32, rm uint8) (uint32, Flags) {
	if rm == RNE {
		if r, f, ok := mulAddFast32(a, b, c); ok {
			return r, f
		}
	}
	return f32MulAddGeneral(a, b, c, rm)
}

func f32MulAddGeneral(a, b, c uint32, rm uint8) (uint32, Flags) {
	return pack32(mulAdd(unpack32(a), unpack32(b), unpack32(c), rm), rm)
}
