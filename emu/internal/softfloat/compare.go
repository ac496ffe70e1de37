package softfloat

// Sign injection needs no help from this package (it is pure bit
// manipulation); this file holds the operations that compare or classify
// without rounding (Unprivileged §11.6 FMIN/FMAX, §11.8, §11.9).

// Binary64 field masks.
const (
	f64SignMask  = uint64(1) << 63
	f64QuietMask = uint64(1) << 51
)

// Binary32 field masks.
const (
	f32SignMask  = uint32(1) << 31
	f32QuietMask = uint32(1) << 22
)

func isNaN64(a uint64) bool  { return a&^f64SignMask > f64Inf }
func isSNaN64(a uint64) bool { return isNaN64(a) && a&f64QuietMask == 0 }
func isNaN32(a uint32) bool  { return a&^f32SignMask > f32Inf }
func isSNaN32(a uint32) bool { return isNaN32(a) && a&f32QuietMask == 0 }

// orderKey64 maps the bits of a non-NaN binary64 to a key whose unsigned
// order is the numeric order with −0 < +0.
func orderKey64(a uint64) uint64 {
	if a&f64SignMask != 0 {
		return ^a
	}
	return a | f64SignMask
}

// orderKey32 is orderKey64 for binary32.
func orderKey32(a uint32) uint32 {
	if a&f32SignMask != 0 {
		return ^a
	}
	return a | f32SignMask
}

// snanFlag64 is Invalid if a or b is a signaling NaN.
func snanFlag64(a, b uint64) Flags {
	if isSNaN64(a) || isSNaN64(b) {
		return Invalid
	}
	return 0
}

// snanFlag32 is Invalid if a or b is a signaling NaN.
func snanFlag32(a, b uint32) Flags {
	if isSNaN32(a) || isSNaN32(b) {
		return Invalid
	}
	return 0
}

// F64Min returns the smaller of a and b (FMIN.D, Unprivileged §11.6): the
// IEEE 754-2019 minimumNumber operation, with −0 < +0. If one operand is a
// NaN the result is the other; if both are, the canonical NaN. Invalid is
// raised only for a signaling NaN operand.
func F64Min(a, b uint64) (uint64, Flags) {
	return minMax64(a, b, false)
}

// F64Max returns the larger of a and b (FMAX.D, Unprivileged §11.6): the
// IEEE 754-2019 maximumNumber operation, with −0 < +0. NaNs are treated as
// in F64Min.
func F64Max(a, b uint64) (uint64, Flags) {
	return minMax64(a, b, true)
}

func minMax64(a, b uint64, max bool) (uint64, Flags) {
	an, bn := isNaN64(a), isNaN64(b)
	switch {
	case an && bn:
		return CanonicalNaN64, snanFlag64(a, b)
	case an:
		return b, snanFlag64(a, b)
	case bn:
		return a, snanFlag64(a, b)
	}
	if (orderKey64(a) < orderKey64(b)) != max {
		return a, 0
	}
	return b, 0
}

// F32Min is F64Min for binary32 (FMIN.S, Unprivileged §11.6).
func F32Min(a, b uint32) (uint32, Flags) {
	return minMax32(a, b, false)
}

// F32Max is F64Max for binary32 (FMAX.S, Unprivileged §11.6).
func F32Max(a, b uint32) (uint32, Flags) {
	return minMax32(a, b, true)
}

func minMax32(a, b uint32, max bool) (uint32, Flags) {
	an, bn := isNaN32(a), isNaN32(b)
	switch {
	case an && bn:
		return CanonicalNaN32, snanFlag32(a, b)
	case an:
		return b, snanFlag32(a, b)
	case bn:
		return a, snanFlag32(a, b)
	}
	if (orderKey32(a) < orderKey32(b)) != max {
		return a, 0
	}
	return b, 0
}

// F64Eq reports whether a = b (FEQ.D, Unprivileged §11.8). It is a quiet
// comparison: a NaN compares unequal and raises Invalid only if signaling.
// −0 = +0.
func F64Eq(a, b uint64) (bool, Flags) {
	if isNaN64(a) || isNaN64(b) {
		return false, snanFlag64(a, b)
	}
	return a == b || (a|b)&^f64SignMask == 0, 0
}

// F64Lt reports whether a < b (FLT.D, Unprivileged §11.8). It is a
// signaling comparison: any NaN operand gives false and raises Invalid.
func F64Lt(a, b uint64) (bool, Flags) {
	if isNaN64(a) || isNaN64(b) {
		return false, Invalid
	}
	if (a|b)&^f64SignMask == 0 {
		return false, 0 // ±0 < ±0 is false
	}
	return orderKey64(a) < orderKey64(b), 0
}

// F64Le reports whether a ≤ b (FLE.D, Unprivileged §11.8). It is a
// signaling comparison: any NaN operand gives false and raises Invalid.
func F64Le(a, b uint64) (bool, Flags) {
	if isNaN64(a) || isNaN64(b) {
		return false, Invalid
	}
	if (a|b)&^f64SignMask == 0 {
		return true, 0 // ±0 ≤ ±0 is true
	}
	return orderKey64(a) <= orderKey64(b), 0
}

// F32Eq is F64Eq for binary32 (FEQ.S, Unprivileged §11.8).
func F32Eq(a, b uint32) (bool, Flags) {
	if isNaN32(a) || isNaN32(b) {
		return false, snanFlag32(a, b)
	}
	return a == b || (a|b)&^f32SignMask == 0, 0
}

// F32Lt is F64Lt for binary32 (FLT.S, Unprivileged §11.8).
func F32Lt(a, b uint32) (bool, Flags) {
	if isNaN32(a) || isNaN32(b) {
		return false, Invalid
	}
	if (a|b)&^f32SignMask == 0 {
		return false, 0
	}
	return orderKey32(a) < orderKey32(b), 0
}

// F32Le is F64Le for binary32 (FLE.S, Unprivileged §11.8).
func F32Le(a, b uint32) (bool, Flags) {
	if isNaN32(a) || isNaN32(b) {
		return false, Invalid
	}
	if (a|b)&^f32SignMask == 0 {
		return true, 0
	}
	return orderKey32(a) <= orderKey32(b), 0
}

// The bits of the FCLASS result (Unprivileged §11.9, table 11.5). Exactly
// one is set.
const (
	ClassNegInf       uint64 = 1 << 0
	ClassNegNormal    uint64 = 1 << 1
	ClassNegSubnormal uint64 = 1 << 2
	ClassNegZero      uint64 = 1 << 3
	ClassPosZero      uint64 = 1 << 4
	ClassPosSubnormal uint64 = 1 << 5
	ClassPosNormal    uint64 = 1 << 6
	ClassPosInf       uint64 = 1 << 7
	ClassSNaN         uint64 = 1 << 8
	ClassQNaN         uint64 = 1 << 9
)

// classify returns the FCLASS mask from the sign, whether the exponent field
// is all zeros or all ones, and whether the fraction is zero or quiet.
func classify(neg, expZero, expOnes, fracZero, quiet bool) uint64 {
	var i uint // the bit of the positive class; the negative one is 7−i
	switch {
	case expOnes && fracZero:
		i = 7
	case expOnes && quiet:
		return ClassQNaN
	case expOnes:
		return ClassSNaN
	case expZero && fracZero:
		i = 4
	case expZero:
		i = 5
	default:
		i = 6
	}
	if neg {
		i = 7 - i
	}
	return 1 << i
}

// F64Class returns the FCLASS.D mask of a (Unprivileged §11.9, §12.7).
func F64Class(a uint64) uint64 {
	e := a >> 52 & 0x7ff
	f := a & (1<<52 - 1)
	return classify(a>>63 != 0, e == 0, e == 0x7ff, f == 0, a&f64QuietMask != 0)
}

// F32Class returns the FCLASS.S mask of a (Unprivileged §11.9).
func F32Class(a uint32) uint64 {
	e := a >> 23 & 0xff
	f := a & (1<<23 - 1)
	return classify(a>>31 != 0, e == 0, e == 0xff, f == 0, a&f32QuietMask != 0)
}
