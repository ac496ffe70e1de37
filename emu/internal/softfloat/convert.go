package softfloat

import (
	"math"
	"math/bits"
)

// Conversions between the formats and between floating point and integers
// (Unprivileged §11.7 and §12.5).

// F32ToF64 widens a to binary64 (FCVT.D.S). Every binary32 value is exactly
// representable, so only a NaN operand is special: it becomes the canonical
// NaN, raising Invalid if it is signaling (§12.5, §11.3).
func F32ToF64(a uint32) (uint64, Flags) {
	if a&^f32SignMask <= f32Inf {
		// Not a NaN: the host's widening is exact.
		return math.Float64bits(float64(math.Float32frombits(a))), 0
	}
	return pack64(unpack32(a).exact(), RNE)
}

// F64ToF32 narrows a to binary32 rounded under rm (FCVT.S.D), raising
// Overflow, Underflow and Inexact as the rounding requires (§12.5).
func F64ToF32(a uint64, rm uint8) (uint32, Flags) {
	if rm == RNE {
		// The host narrows with RNE. An operand of at least 2^-126 is not
		// tiny after rounding, and a finite result did not overflow.
		x := math.Float64frombits(a)
		v := float32(x)
		if ax := math.Abs(x); ax >= 0x1p-126 && math.Abs(float64(v)) <= math.MaxFloat32 {
			if float64(v) != x {
				return math.Float32bits(v), Inexact
			}
			return math.Float32bits(v), 0
		}
	}
	return pack32(unpack64(a).exact(), rm)
}

// exact returns n as a result: itself for numbers, the canonical NaN (and
// Invalid for a signaling NaN) for NaNs.
func (n num) exact() result {
	switch n.cls {
	case clsZero:
		return result{kind: kZero, sign: n.sign}
	case clsInf:
		return result{kind: kInf, sign: n.sign}
	case clsQNaN, clsSNaN:
		return nanResult(n, n)
	}
	return n.finite()
}

// Integer conversions of a NaN or an out-of-range value saturate and raise
// Invalid (§11.7, table 11.4). An in-range value that is not an integer
// raises Inexact.
//
// The 32-bit conversions return the value that FCVT.W[U].{S,D} writes to an
// RV64 register: for XLEN > 32 these instructions sign-extend the 32-bit
// result to the register width, the unsigned ones included (§11.7). So
// F64ToI32 returns an int64 in [−2^31, 2^31−1], and F64ToU32 returns
// uint64(int64(int32(v))) for the 32-bit unsigned result v: 2^32−1, the
// saturated result, is returned as 0xffff_ffff_ffff_ffff. The caller writes
// uint64(result) to rd as it is.

// F64ToI32 converts a to a signed 32-bit integer rounded under rm
// (FCVT.W.D), sign-extended to int64.
func F64ToI32(a uint64, rm uint8) (int64, Flags) {
	return toI32(unpack64(a), rm)
}

// F64ToU32 converts a to an unsigned 32-bit integer rounded under rm
// (FCVT.WU.D) and returns it sign-extended from bit 31, as RV64 writes it
// to rd.
func F64ToU32(a uint64, rm uint8) (uint64, Flags) {
	return toU32(unpack64(a), rm)
}

// F64ToI64 converts a to a signed 64-bit integer rounded under rm
// (FCVT.L.D).
func F64ToI64(a uint64, rm uint8) (int64, Flags) {
	return toI64(unpack64(a), rm)
}

// F64ToU64 converts a to an unsigned 64-bit integer rounded under rm
// (FCVT.LU.D).
func F64ToU64(a uint64, rm uint8) (uint64, Flags) {
	return toU64(unpack64(a), rm)
}

// F32ToI32 converts a to a signed 32-bit integer rounded under rm
// (FCVT.W.S), sign-extended to int64.
func F32ToI32(a uint32, rm uint8) (int64, Flags) {
	return toI32(unpack32(a), rm)
}

// F32ToU32 converts a to an unsigned 32-bit integer rounded under rm
// (FCVT.WU.S) and returns it sign-extended from bit 31, as RV64 writes it
// to rd.
func F32ToU32(a uint32, rm uint8) (uint64, Flags) {
	return toU32(unpack32(a), rm)
}

// F32ToI64 converts a to a signed 64-bit integer rounded under rm
// (FCVT.L.S).
func F32ToI64(a uint32, rm uint8) (int64, Flags) {
	return toI64(unpack32(a), rm)
}

// F32ToU64 converts a to an unsigned 64-bit integer rounded under rm
// (FCVT.LU.S).
func F32ToU64(a uint32, rm uint8) (uint64, Flags) {
	return toU64(unpack32(a), rm)
}

// roundToInt rounds the finite nonzero x to an integer under rm and returns
// its magnitude; huge reports a magnitude of 2^64 or more, beyond every
// destination.
func roundToInt(x num, rm uint8) (mag uint64, inexact, huge bool) {
	switch {
	case x.exp >= 64:
		return 0, false, true
	case x.exp >= 52:
		return x.sig << uint(x.exp-52), false, false
	}
	// frac holds the fraction bits with the ½ bit at bit 63, rounded to odd.
	var ip, frac uint64
	if x.exp >= 0 {
		sh := uint(52 - x.exp)
		ip = x.sig >> sh
		frac = x.sig << (64 - sh)
	} else if x.exp >= -12 {
		frac = x.sig << uint(x.exp+12)
	} else {
		frac = shiftRightJam64(x.sig, -(x.exp + 12))
	}
	if roundsUp(frac, 1<<63, ip&1 != 0, x.sign, rm) {
		ip++
	}
	return ip, frac != 0, false
}

// inexactFlag is Inexact if inexact is set.
func inexactFlag(inexact bool) Flags {
	if inexact {
		return Inexact
	}
	return 0
}

func toI32(x num, rm uint8) (int64, Flags) {
	const maxI32, minI32 = 1<<31 - 1, -1 << 31
	switch x.cls {
	case clsZero:
		return 0, 0
	case clsQNaN, clsSNaN:
		return maxI32, Invalid
	case clsInf:
		if x.sign {
			return minI32, Invalid
		}
		return maxI32, Invalid
	}
	mag, inexact, huge := roundToInt(x, rm)
	if x.sign {
		if huge || mag > 1<<31 {
			return minI32, Invalid
		}
		return -int64(mag), inexactFlag(inexact)
	}
	if huge || mag > maxI32 {
		return maxI32, Invalid
	}
	return int64(mag), inexactFlag(inexact)
}

func toU32(x num, rm uint8) (uint64, Flags) {
	const maxU32 = 1<<64 - 1 // 2^32−1 sign-extended from bit 31
	switch x.cls {
	case clsZero:
		return 0, 0
	case clsQNaN, clsSNaN:
		return maxU32, Invalid
	case clsInf:
		if x.sign {
			return 0, Invalid
		}
		return maxU32, Invalid
	}
	mag, inexact, huge := roundToInt(x, rm)
	if x.sign {
		// A negative number that rounds to zero is in range (table 11.4
		// bounds the rounded result, not the operand).
		if huge || mag != 0 {
			return 0, Invalid
		}
		return 0, inexactFlag(inexact)
	}
	if huge || mag > 1<<32-1 {
		return maxU32, Invalid
	}
	return uint64(int64(int32(uint32(mag)))), inexactFlag(inexact)
}

func toI64(x num, rm uint8) (int64, Flags) {
	const maxI64, minI64 = 1<<63 - 1, -1 << 63
	switch x.cls {
	case clsZero:
		return 0, 0
	case clsQNaN, clsSNaN:
		return maxI64, Invalid
	case clsInf:
		if x.sign {
			return minI64, Invalid
		}
		return maxI64, Invalid
	}
	mag, inexact, huge := roundToInt(x, rm)
	if x.sign {
		if huge || mag > 1<<63 {
			return minI64, Invalid
		}
		return int64(-mag), inexactFlag(inexact)
	}
	if huge || mag > maxI64 {
		return maxI64, Invalid
	}
	return int64(mag), inexactFlag(inexact)
}

func toU64(x num, rm uint8) (uint64, Flags) {
	const maxU64 = 1<<64 - 1
	switch x.cls {
	case clsZero:
		return 0, 0
	case clsQNaN, clsSNaN:
		return maxU64, Invalid
	case clsInf:
		if x.sign {
			return 0, Invalid
		}
		return maxU64, Invalid
	}
	mag, inexact, huge := roundToInt(x, rm)
	if x.sign {
		if huge || mag != 0 {
			return 0, Invalid
		}
		return 0, inexactFlag(inexact)
	}
	if huge {
		return maxU64, Invalid
	}
	return mag, inexactFlag(inexact)
}

// fromInt returns the integer (−1)^sign × mag as an exact result.
func fromInt(sign bool, mag uint64) result {
	if mag == 0 {
		return result{kind: kZero}
	}
	lz := bits.LeadingZeros64(mag)
	return result{kind: kFinite, sign: sign, exp: 63 - lz, m: mag << uint(lz)}
}

// fromSigned returns x as an exact result.
func fromSigned(x int64) result {
	if x < 0 {
		return fromInt(true, -uint64(x))
	}
	return fromInt(false, uint64(x))
}

// Integer-to-float conversions of integers of at most 24 bits (binary32) or
// 53 bits (binary64) are exact in every rounding mode, so they use the
// host's conversion; wider ones take the general path.

// I32ToF32 converts x to binary32 rounded under rm (FCVT.S.W).
func I32ToF32(x int32, rm uint8) (uint32, Flags) {
	if -1<<24 <= x && x <= 1<<24 {
		return math.Float32bits(float32(x)), 0
	}
	return pack32(fromSigned(int64(x)), rm)
}

// U32ToF32 converts x to binary32 rounded under rm (FCVT.S.WU).
func U32ToF32(x uint32, rm uint8) (uint32, Flags) {
	if x <= 1<<24 {
		return math.Float32bits(float32(x)), 0
	}
	return pack32(fromInt(false, uint64(x)), rm)
}

// I64ToF32 converts x to binary32 rounded under rm (FCVT.S.L).
func I64ToF32(x int64, rm uint8) (uint32, Flags) {
	if -1<<24 <= x && x <= 1<<24 {
		return math.Float32bits(float32(x)), 0
	}
	return pack32(fromSigned(x), rm)
}

// U64ToF32 converts x to binary32 rounded under rm (FCVT.S.LU).
func U64ToF32(x uint64, rm uint8) (uint32, Flags) {
	if x <= 1<<24 {
		return math.Float32bits(float32(x)), 0
	}
	return pack32(fromInt(false, x), rm)
}

// I32ToF64 converts x to binary64 (FCVT.D.W); the result is always exact.
// rm is accepted for uniformity with the other conversions.
func I32ToF64(x int32, rm uint8) (uint64, Flags) {
	return math.Float64bits(float64(x)), 0
}

// U32ToF64 converts x to binary64 (FCVT.D.WU); the result is always exact.
// rm is accepted for uniformity with the other conversions.
func U32ToF64(x uint32, rm uint8) (uint64, Flags) {
	return math.Float64bits(float64(x)), 0
}

// I64ToF64 converts x to binary64 rounded under rm (FCVT.D.L).
func I64ToF64(x int64, rm uint8) (uint64, Flags) {
	if -1<<53 <= x && x <= 1<<53 {
		return math.Float64bits(float64(x)), 0
	}
	return pack64(fromSigned(x), rm)
}

// U64ToF64 converts x to binary64 rounded under rm (FCVT.D.LU).
func U64ToF64(x uint64, rm uint8) (uint64, Flags) {
	if x <= 1<<53 {
		return math.Float64bits(float64(x)), 0
	}
	return pack64(fromInt(false, x), rm)
}
