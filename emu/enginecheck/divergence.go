// Package enginecheck checks a machine's runs from beside the engine, not
// from inside it: the lockstep harness that proves the JIT agrees with the
// interpreter (CompareEngines), the determinism check that runs the same
// machine twice (CompareRuns), and the differences between two machines'
// states (DiffHarts, DiffHart, DiffRAM) that both use and that the
// explorer's divergence search reports. It reads machines only through
// package emu's exported surface.
package enginecheck

import (
	"fmt"
	"strings"

	"everett/emu"
	"everett/isa"
)

// Divergence describes the first checkpoint at which two runs that should be
// identical differ and, when the search could narrow it (CompareEngines
// and the explorer's Diverge do), the first instruction slot after which
// they differ.
type Divergence struct {
	ICount     uint64   // instruction count of the first differing checkpoint
	Components []string // the parts of the state that differ there (after First when Narrowed)
	LastEqual  uint64   // the last checkpoint at which they agreed
	// From is the instruction count at which the two runs started from
	// one state (0 for machines built fresh).
	From uint64

	// Sides names run A and run B ("interp" and "jit"; empty: "a" and "b").
	Sides [2]string

	// Narrowed says the fields below are set: the two runs, rebuilt and
	// re-run, were equal after First-1 instruction slots and differ after
	// First.
	Narrowed bool
	First    uint64 // the first instruction count at which the states differ
	// Hart is the hart that used slot First (-1: no hart did, e.g. the
	// runs stopped differently, or the search does not know); PC, Insn and
	// Trapped describe that slot as the reference (run A) executed it: the
	// instruction's address (the same on both sides, since they were equal
	// before it), its raw bits, and whether it trapped.
	Hart    int
	PC      uint64
	Insn    uint32
	Trapped bool
	PCAfter [2]uint64 // that hart's pc after the slot in run A and run B
	// Stops are the stop reasons of the two runs' last step, when the
	// difference is where or why they stopped (otherwise zero).
	Stops [2]emu.StopReason
	Diffs []StateDiff // what differs after slot First: registers, CSRs, RAM words (bounded)
	// Replays counts the re-runs the search made to narrow the difference.
	Replays int

	// Note says why narrowing stopped short, when it did (the checkpoint
	// fields still hold).
	Note string
}

// StateDiff is one piece of state that differs between two runs: a
// register ("x10", "f3", "pc"; "hart1.x10" on SMP machines), a CSR
// ("mstatus"), a counter ("retired"), a RAM word ("ram[0x80001000]") or the
// instruction count ("icount"), with its value in run A and in run B.
type StateDiff struct {
	Name string
	A, B uint64
}

// String is the difference as "name: A vs B".
func (x StateDiff) String() string { return fmt.Sprintf("%s: %#x vs %#x", x.Name, x.A, x.B) }

// Error describes the divergence: the checkpoints and, when narrowed, the
// first differing instruction and what differs after it, one item a line.
func (d *Divergence) Error() string {
	if !d.Narrowed {
		s := fmt.Sprintf("runs diverge by instruction %d (equal at %d): %v differ", d.ICount, d.LastEqual, d.Components)
		if d.Note != "" {
			s += " (" + d.Note + ")"
		}
		return s
	}
	sa, sb := d.Sides[0], d.Sides[1]
	if sa == "" {
		sa, sb = "a", "b"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s and %s diverge at instruction %d (checkpoints: equal at %d, differ at %d)", sa, sb, d.First, d.LastEqual, d.ICount)
	if d.Hart >= 0 {
		fmt.Fprintf(&b, "\n  hart %d pc %#x: %08x %s", d.Hart, d.PC, d.Insn, insnText(d.Insn, d.PC))
		if d.Trapped {
			b.WriteString(" (trapped)")
		}
		fmt.Fprintf(&b, "\n  pc after: %s %#x, %s %#x", sa, d.PCAfter[0], sb, d.PCAfter[1])
	}
	if d.Stops != [2]emu.StopReason{} {
		fmt.Fprintf(&b, "\n  stopped: %s %v, %s %v", sa, d.Stops[0], sb, d.Stops[1])
	}
	w := len(sa)
	for _, x := range d.Diffs {
		fmt.Fprintf(&b, "\n  %-12s %s %#016x  %-*s %#016x", x.Name, sa, x.A, w, sb, x.B)
	}
	if len(d.Components) > 0 {
		fmt.Fprintf(&b, "\n  components differing: %s", strings.Join(d.Components, ", "))
	}
	return b.String()
}

// insnText disassembles raw bits for a divergence report.
func insnText(raw uint32, pc uint64) string {
	return strings.ReplaceAll(isa.Disasm(isa.Decode(raw), pc), "\t", " ")
}
