package softfloat

// Flags is a set of IEEE 754 exception flags in the layout of the RISC-V
// fflags CSR (Unprivileged §11.2, table 11.2), so the caller can OR it into
// fflags unchanged.
type Flags uint8

// The exception flags (Unprivileged §11.2, table 11.2; IEEE 754-2008 §7).
const (
	// Inexact (NX): the rounded result differs from the exact result
	// (IEEE 754-2008 §7.6).
	Inexact Flags = 1 << 0
	// Underflow (UF): the result is tiny after rounding and inexact
	// (IEEE 754-2008 §7.5; Unprivileged §11.4).
	Underflow Flags = 1 << 1
	// Overflow (OF): the result rounded with an unbounded exponent exceeds
	// the largest finite number (IEEE 754-2008 §7.4).
	Overflow Flags = 1 << 2
	// DivByZero (DZ): a finite nonzero number divided by zero
	// (IEEE 754-2008 §7.3).
	DivByZero Flags = 1 << 3
	// Invalid (NV): an invalid operation or a signaling NaN operand
	// (IEEE 754-2008 §7.2).
	Invalid Flags = 1 << 4
)

// String returns the flags as fflags mnemonics, most significant first,
// e.g. "NV|NX", or "0" for no flags.
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	names := [...]string{"NX", "UF", "OF", "DZ", "NV"}
	s := ""
	for i := len(names) - 1; i >= 0; i-- {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += names[i]
		}
	}
	if f>>5 != 0 {
		s += "|?"
	}
	return s
}

// The rounding modes of the rm field and the frm CSR (Unprivileged §11.2,
// table 11.1). Modes 5 and 6 are reserved and 7 (DYN) selects frm; the
// caller resolves both before calling into this package.
const (
	RNE uint8 = 0 // round to nearest, ties to even
	RTZ uint8 = 1 // round towards zero
	RDN uint8 = 2 // round down, towards −∞
	RUP uint8 = 3 // round up, towards +∞
	RMM uint8 = 4 // round to nearest, ties to max magnitude
)

// The canonical NaNs (Unprivileged §11.3 for single precision, §12.2 for
// double precision): positive sign, quiet bit set, all other fraction bits
// clear. Every operation that produces a NaN produces one of these.
const (
	CanonicalNaN32 uint32 = 0x7fc00000
	CanonicalNaN64 uint64 = 0x7ff8000000000000
)
