package emu

import (
	"fmt"
	"strconv"
	"strings"
)

// Observing traps. A TrapObserver sees every trap a hart takes
// (exceptions and interrupts) and every xRET, on the trap path only: the interpreter's hot loop
// never looks at it. It is an observation, like coverage: it is not part
// of the machine's state, never changes what the guest does, and a
// snapshot neither saves nor restores it.

// Trap is one trap as a hart takes it.
type Trap struct {
	// ICount is the machine's instruction count including the trapping
	// slot: running the machine to ICount-1 stops before the trap, running
	// it to ICount takes it.
	ICount uint64
	Hart   int
	Priv   uint8  // the privilege the hart trapped from
	To     uint8  // the privilege that handles it (PrivM or PrivS)
	PC     uint64 // the instruction that trapped (the new xepc)
	Cause  uint64 // the exception code, or the interrupt number
	Tval   uint64 // the new xtval
	// Interrupt is set for an interrupt: it is taken between
	// instructions, after ICount of them, and uses no slot.
	Interrupt bool
}

// TrapObserver is told of traps and trap returns.
type TrapObserver interface {
	// Trap is called after trap t has been delivered (the hart is in its
	// handler).
	Trap(t Trap)
	// Return is called after an mret or sret on hart: the hart now runs
	// at privilege priv from pc. from is the privilege it returned from.
	Return(hart int, from, priv uint8, pc uint64)
}

// ObserveTraps installs o (nil removes it).
func (m *Machine) ObserveTraps(o TrapObserver) { m.trapObs = o }

// observeTrap delivers an exception to the observer (h.pc still points at
// the trapping instruction).
func (h *Hart) observeTrap(cause, tval uint64) {
	t := Trap{ICount: h.m.icount + uint64(h.pos) + 1, Hart: h.ID, Priv: h.priv, PC: h.pc, Cause: cause, Tval: tval}
	h.takeTrap(cause, tval, false)
	t.To = h.priv
	h.m.trapObs.Trap(t)
}

// observeInterrupt delivers interrupt irq to the observer.
func (h *Hart) observeInterrupt(irq uint64) {
	t := Trap{ICount: h.m.icount + uint64(h.pos), Hart: h.ID, Priv: h.priv, PC: h.pc, Cause: irq, Interrupt: true}
	h.takeTrap(irq, 0, true)
	t.To = h.priv
	h.m.trapObs.Trap(t)
}

// Running returns the hart executing now, or nil between slices: for a
// device write, the hart whose store reached the device.
func (m *Machine) Running() *Hart { return m.cur }

// causeNames are the readable names of the exception codes (Privileged ISA
// §3.1.15, table 3.6), as trap predicates and reports spell them.
var causeNames = [...]string{
	CauseMisalignedFetch: "misaligned-fetch",
	CauseFetchAccess:     "fetch-access-fault",
	CauseIllegalInst:     "illegal-instruction",
	CauseBreakpoint:      "breakpoint",
	CauseMisalignedLoad:  "misaligned-load",
	CauseLoadAccess:      "load-access-fault",
	CauseMisalignedStore: "misaligned-store",
	CauseStoreAccess:     "store-access-fault",
	CauseEcallU:          "ecall-u",
	CauseEcallS:          "ecall-s",
	10:                   "",
	CauseEcallM:          "ecall-m",
	CauseFetchPageFault:  "fetch-page-fault",
	CauseLoadPageFault:   "load-page-fault",
	14:                   "",
	CauseStorePageFault:  "store-page-fault",
}

// CauseName names an exception code: "load-page-fault", or "cause-N" for
// a code without a name.
func CauseName(cause uint64) string {
	if cause < uint64(len(causeNames)) && causeNames[cause] != "" {
		return causeNames[cause]
	}
	return "cause-" + strconv.FormatUint(cause, 10)
}

// ParseCause reads an exception code given by name (as CauseName spells
// it) or by number (decimal or 0x hex).
func ParseCause(s string) (uint64, error) {
	for i, n := range causeNames {
		if n != "" && n == s {
			return uint64(i), nil
		}
	}
	if v, err := strconv.ParseUint(strings.TrimPrefix(s, "cause-"), 0, 64); err == nil && v < 64 {
		return v, nil
	}
	return 0, fmt.Errorf("unknown exception %q (want a name such as load-page-fault, or a number below 64)", s)
}

// PrivName is the one-letter name of a privilege level: U, S or M.
func PrivName(p uint8) string {
	switch p {
	case PrivU:
		return "U"
	case PrivS:
		return "S"
	case PrivM:
		return "M"
	}
	return strconv.Itoa(int(p))
}
