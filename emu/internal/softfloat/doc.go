// Package softfloat is a bit-exact software implementation of IEEE 754-2008
// binary32 and binary64 arithmetic with the semantics the RISC-V F and D
// extensions require. Operands and results are raw bit patterns (uint32 for
// single precision, uint64 for double precision), so the emulator can move
// them between registers and memory without any host floating-point state.
//
// References are to "The RISC-V Instruction Set Manual, Volume I:
// Unprivileged ISA" (20191213), chapter 11 ("F" Standard Extension) and
// chapter 12 ("D" Standard Extension), and to IEEE 754-2008.
//
// Every operation takes the static rounding mode rm (Unprivileged §11.2,
// table 11.1: 0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM) and returns its result with
// the exception Flags it raised (§11.2, table 11.2). The caller resolves the
// dynamic mode (rm=7) from frm and rejects the reserved modes 5 and 6 before
// calling; rm > 4 is a bug in the caller, and an operation that has to round
// panics on it. The caller ORs the returned flags into fflags.
//
// RISC-V choices this package implements:
//
//   - Every operation that produces a NaN produces the canonical NaN
//     (§11.3); payloads are never propagated. A signaling NaN operand raises
//     Invalid.
//   - Subnormal operands and results are fully supported; tininess is
//     detected after rounding (§11.4), and Underflow is raised only for a
//     tiny result that is also inexact (IEEE 754-2008 §7.5).
//   - Fused multiply-add raises Invalid for ∞×0 even when the addend is a
//     quiet NaN (§11.6).
//   - Min and max follow IEEE 754-2019 minimumNumber/maximumNumber (§11.6);
//     Eq is a quiet comparison, Lt and Le are signaling (§11.8).
//   - Float-to-integer conversions saturate per §11.7 table 11.4.
//
// Single-precision operands and results are the 32-bit values themselves;
// NaN-boxing them in 64-bit registers (§12.2) is the caller's business.
//
// The general path of every operation works on integers only (math/bits),
// and one core serves both formats: it computes the exact result rounded to
// odd in 64 bits, which then rounds correctly into either format. For
// round-to-nearest-even, add, sub, mul, div, sqrt and fused multiply-add of
// both formats first try a fast path that uses the host's IEEE 754 hardware
// and detects inexactness with error-free transformations, giving up on
// anything that could raise a flag other than Inexact; see fast64.go and
// fast32.go. RATIONALE.md explains the choices.
//
// The package allocates nothing and keeps no state, so it is safe for
// concurrent use and deterministic.
package softfloat
