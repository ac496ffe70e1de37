package explorer

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"everett/emu"
)

// Boot once, explore after. A spec with a setup point (setup.at: init or
// sdk) has one boot universe: the root of setup.seed, with the boot plan
// (no faults, the fixed schedule) unless setup.perturb asks for that seed's
// own plan. It runs until the first window boundary after the setup point
// and is frozen there. Every root universe of a search or sweep then starts
// from that snapshot with its own seed and its own seed's plan, so its fork
// path is [{0, setup seed, boot}, {setup time, seed, seed}]: replay,
// bisection and shrinking follow that path like any other, booting once
// and forking at the same instant.

// Boot is a spec's boot universe, run to its setup point and frozen.
type Boot struct {
	// Snap is the universe at the setup point; nil when the spec has none
	// or the boot did not reach it (then every universe boots).
	Snap    *UniverseSnapshot
	At      string        // the setup point: init or sdk ("" when off)
	Time    uint64        // virtual time of the snapshot (ns)
	ICount  uint64        // instructions of the boot, all nodes
	Elapsed time.Duration // host time of the boot
	JIT     emu.JITStats  // what the JIT did for the boot's machines (host bookkeeping)
	// Note says why there is no snapshot when the spec asked for one.
	Note string
	cov  *emu.Coverage // the boot's coverage, with Snap (nil: coverage off)
	// cancelled: the search's wall-time budget was spent during the boot.
	cancelled bool
}

// String describes the boot in a line.
func (b *Boot) String() string {
	switch {
	case b == nil || b.At == "":
		return "setup point off: every universe boots"
	case b.Snap == nil:
		return fmt.Sprintf("setup point %s not reached (%s): every universe boots", b.At, b.Note)
	}
	return fmt.Sprintf("booted once to the setup point (%s) at %.3f virtual s, %d instructions, in %v: every root universe starts there",
		b.At, float64(b.Time)/1e9, b.ICount, b.Elapsed.Round(time.Millisecond))
}

// BootOnce runs the spec's boot universe to its setup point. With the setup
// point off it returns an empty Boot; when the boot fails, finishes or
// spends its budget before the setup point, a Boot without a snapshot that
// says why. echo, when set, receives the boot's consoles.
func BootOnce(spec *Spec, echo func(node int) io.Writer) (*Boot, error) {
	return bootOnce(spec, echo, nil)
}

// bootOnce is BootOnce that stops, without a snapshot, once cancel (when
// set) is true: a search whose wall-time budget is spent during the boot.
func bootOnce(spec *Spec, echo func(node int) io.Writer, cancel *atomic.Bool) (*Boot, error) {
	b := &Boot{}
	if spec.Setup.At == "" || spec.Setup.At == SetupOff {
		return b, nil
	}
	start := time.Now()
	b.At = spec.Setup.At
	first := Fork{Seed: spec.Setup.Seed, Plan: PlanBoot}
	if spec.Setup.Perturb {
		first.Plan = ""
	}
	u, err := newUniverseWith(spec, first, nil, func(u *Universe) {
		u.echo = echo
		u.maxSnaps = 0
		u.stopAtSetup = true
	})
	if err != nil {
		return nil, fmt.Errorf("boot universe: %w", err)
	}
	if cancel != nil {
		u.setCancel(cancel)
	}
	u.runTo(0)
	b.Time, b.ICount, b.JIT = u.t, u.ICount(), u.JITStats()
	switch {
	case u.cancelled:
		b.cancelled = true
		b.Note = "the wall-time budget was spent first"
	case u.failure != nil:
		b.Note = "the boot failed: " + u.failure.Signature()
	case u.finished:
		b.Note = "the boot ended first: " + u.reason
	case !u.setupReached():
		b.Note = "the boot stopped first"
	default:
		b.Snap = u.Snapshot("setup point (" + b.At + ")")
		b.cov = u.cov
	}
	b.Elapsed = time.Since(start)
	return b, nil
}

// rootFork is how a root universe of seed starts: from the boot snapshot
// when there is one (nil: it boots).
func (b *Boot) rootFork(seed uint64) (*UniverseSnapshot, Fork) {
	if b == nil || b.Snap == nil {
		return nil, Fork{Seed: seed}
	}
	return b.Snap, Fork{Seed: seed, Plan: PlanSeed}
}

// inBootStep reports whether the universe is in the first step of a fork
// path whose plan is the boot's (PlanBoot): the boot universe itself, or a
// replay (bisection, shrinking, a sweep's re-run) of a root universe that
// started from its snapshot, before the fork at the setup point. What a
// universe does differently while booting must be decided by this, a
// function of its path, and never by how it was built (stopAtSetup is
// the boot universe's only): a replay has to do exactly what the boot did.
// A perturbed boot (setup.perturb) is its seed's root: not a boot step.
func (u *Universe) inBootStep() bool {
	return len(u.path) == 1 && u.path[0].Plan == PlanBoot
}

// setupReached reports whether the universe has passed its spec's setup
// point. It is checked at window boundaries; for init, a node counts once
// any of its harts has entered user mode.
func (u *Universe) setupReached() bool {
	switch u.spec.Setup.At {
	case SetupSDK:
		return u.setupDone
	case SetupInit:
		all := true
		for _, n := range u.nodes {
			if n.b != nil && !n.down && n.b.EnteredUser() {
				n.enteredUser = true
			}
			all = all && n.enteredUser
		}
		return all
	}
	return false
}
