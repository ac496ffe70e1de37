//go:build !riscv64

package everett

import "unsafe"

// Enabled reports whether the package issues hypercalls: never on this
// architecture, where every call takes the portable fallback.
func Enabled() bool { return false }

func hypercall(op, arg uint64, msg unsafe.Pointer, n uint64) uint64 {
	panic("everett: hypercall on an architecture without one")
}

func message(op uint64, cond bool, msg string) {
	panic("everett: hypercall on an architecture without one")
}

func drainOutput() {}
