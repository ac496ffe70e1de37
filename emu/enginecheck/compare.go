package enginecheck

import (
	"fmt"

	"everett/emu"
)

// The lockstep harness: the interpreter stays the reference, and this
// proves the JIT agrees with it, state hash for state hash (RATIONALE.md,
// "Why a JIT that leaves everything hard to the interpreter?").
// CompareEngines runs an interpreter machine and a JIT machine built from
// the same inputs side by side and compares their state hashes at
// checkpoints; when a checkpoint differs, it narrows the difference down to
// the first instruction slot after which the two states differ, by
// rebuilding both machines and re-running them to the last equal point in
// ever smaller strides (Run stops at exact instruction counts, so any count
// can be reached again). See RATIONALE.md, "Why narrow a divergence by
// re-running rather than by snapshots?".

// corrupt, when set (by tests only), is called on the JIT machine after
// every Run the harness makes: a test turns a correct engine into a
// deliberately wrong one with it, to prove the harness finds and names the
// instruction at which the two differ.
var corrupt func(*emu.Machine)

// narrowStrides is how many strides each narrowing pass cuts the interval
// between the last equal and the first differing count into; narrowSingle
// is the interval below which a pass steps one instruction at a time.
const (
	narrowStrides = 32
	narrowSingle  = 64
)

// MaxDiffs bounds the differences a Divergence lists.
const MaxDiffs = 16

// defaultEvery is the checkpoint interval when none is given.
const defaultEvery = 1_000_000

// Compared is what CompareEngines ran: why the machines stopped, and how
// many instructions the JIT's machine ran as host code. A comparison in
// which no host code ran compared the interpreter with itself, so tests
// of the JIT assert HostInsns > 0.
type Compared struct {
	Reason    emu.StopReason
	HostInsns uint64
}

// CompareEngines is the lockstep harness: it builds two machines from the
// same inputs with build, runs one under the interpreter and one under the
// JIT side by side, and compares their state hashes every `every`
// instructions (0: a million) until both stop or reach limit (0: no
// limit). It returns the stop reason and host-code count (Compared) and
// nil, or the first divergence. Any divergence is a bug in the JIT (the
// interpreter is the reference, side A).
//
// build is called first for the interpreter's machine, then for the
// JIT's; after a divergence it is called again in the same order, once per
// narrowing pass, so it must build the same machine every time (console
// writers and the like may be fresh each time). The divergence then names
// the first differing instruction slot (Divergence.Narrowed).
func CompareEngines(build func() (*emu.Machine, error), every, limit uint64) (Compared, *Divergence, error) {
	a, b, err := buildEngines(build)
	if err != nil {
		return Compared{}, nil, err
	}
	if every == 0 {
		every = defaultEvery
	}
	r, d, at := compareRuns(a, b, every, limit, corrupt)
	c := Compared{Reason: r, HostInsns: b.JITStats().Insns}
	if d == nil {
		return c, nil, nil
	}
	d.Sides = [2]string{emu.EngineInterp.String(), emu.EngineJIT.String()}
	if err := narrow(build, every, d.LastEqual, at, d); err != nil {
		return c, d, err
	}
	return c, d, nil
}

// buildEngines builds the interpreter's machine and the JIT's.
func buildEngines(build func() (*emu.Machine, error)) (a, b *emu.Machine, err error) {
	if a, err = build(); err != nil {
		return nil, nil, err
	}
	if b, err = build(); err != nil {
		return nil, nil, err
	}
	if err := a.SetEngine(emu.EngineInterp); err != nil {
		return nil, nil, err
	}
	if err := b.SetEngine(emu.EngineJIT); err != nil {
		return nil, nil, err
	}
	// Translate every block from its second run, so that short programs
	// (the fuzzers', the tests') run as host code, not only hot loops.
	b.TranslateEagerly()
	return a, b, nil
}

// CompareRuns runs a and b (two machines built from the same inputs) side by
// side, comparing their state hashes every `every` instructions (0: a
// million) until both stop or reach limit (0: no limit). It returns the
// stop reason and nil, or the first divergence (checkpoints only, not
// narrowed). Use it to find determinism leaks: any difference is a bug in
// everett.
func CompareRuns(a, b *emu.Machine, every, limit uint64) (emu.StopReason, *Divergence) {
	r, d, _ := compareRuns(a, b, every, limit, nil)
	return r, d
}

// compareRuns is CompareRuns; it also returns the Run limit of the
// differing checkpoint, and calls after (when set) on b after every Run.
func compareRuns(a, b *emu.Machine, every, limit uint64, after func(*emu.Machine)) (emu.StopReason, *Divergence, uint64) {
	if every == 0 {
		every = defaultEvery
	}
	var last uint64
	for at := every; ; at += every {
		if limit != 0 && at > limit {
			at = limit
		}
		ra, rb := a.Run(at), b.Run(at)
		if after != nil {
			after(b)
		}
		diff := DiffHashes(a.StateHashes(), b.StateHashes())
		if ra != rb || a.ICount() != b.ICount() {
			diff = append(diff, fmt.Sprintf("stop (%v at %d vs %v at %d)", ra, a.ICount(), rb, b.ICount()))
		}
		if len(diff) > 0 {
			return ra, &Divergence{ICount: a.ICount(), Components: diff, LastEqual: last}, at
		}
		last = a.ICount()
		if ra != emu.StopLimit || (limit != 0 && at >= limit) {
			return ra, nil, at
		}
	}
}

// runPair runs a and b to count at and reports whether they differ there.
func runPair(a, b *emu.Machine, at uint64, corrupt func(*emu.Machine)) (ra, rb emu.StopReason, differ bool) {
	ra, rb = a.Run(at), b.Run(at)
	if corrupt != nil {
		corrupt(b)
	}
	if ra != rb || a.ICount() != b.ICount() {
		return ra, rb, true
	}
	return ra, rb, statesDiffer(a, b)
}

// statesDiffer reports whether a and b's states differ, comparing the cheap
// parts first.
func statesDiffer(a, b *emu.Machine) bool {
	if len(DiffHarts(a, b, 1)) > 0 {
		return true // no hashing needed
	}
	return len(DiffHashes(a.StateHashes(), b.StateHashes())) > 0
}

// narrow finds the first instruction count in (lo, hi] after which freshly
// built machines differ, given that they were equal at lo and differed at
// hi, and records it in d. Each pass rebuilds both machines, runs them to
// lo through the checkpoints of the original comparison (so that the runs
// are cut where they were cut before), and then steps towards hi in
// narrowStrides strides; the last pass steps one instruction at a time.
func narrow(build func() (*emu.Machine, error), every, lo, hi uint64, d *Divergence) error {
	corrupt := corrupt
	for pass := 0; hi > lo; pass++ {
		if pass > 64 {
			return fmt.Errorf("lockstep: narrowing (%d, %d] does not converge", lo, hi)
		}
		a, b, err := buildEngines(build)
		if err != nil {
			return fmt.Errorf("lockstep: rebuild to narrow the divergence: %w", err)
		}
		d.Replays++
		for at := every; at < lo; at += every {
			if _, _, differ := runPair(a, b, at, corrupt); differ {
				d.Note = fmt.Sprintf("rebuilt machines already differ at %d, before the last equal count %d: build is not deterministic", at, lo)
				return nil
			}
		}
		if lo == 0 && statesDiffer(a, b) {
			d.Note = "the two machines differ before the first instruction: build does not build the same machine twice"
			return nil
		}
		if lo > 0 {
			ra, _, differ := runPair(a, b, lo, corrupt)
			if differ || ra != emu.StopLimit {
				d.Note = fmt.Sprintf("rebuilt machines do not reach %d equal (%v): build is not deterministic", lo, ra)
				return nil
			}
		}
		if hi-lo <= narrowSingle {
			step(a, b, lo, hi, corrupt, d)
			return nil
		}
		stride := (hi - lo + narrowStrides - 1) / narrowStrides
		next := hi
		for at := lo + stride; at < hi; at += stride {
			ra, _, differ := runPair(a, b, at, corrupt)
			if differ {
				next = at
				break
			}
			if ra != emu.StopLimit {
				d.Note = fmt.Sprintf("both runs stop equal (%v) at %d, before the differing checkpoint %d, when re-run in smaller steps", ra, a.ICount(), hi)
				return nil
			}
			lo = at
		}
		hi = next
	}
	return nil
}

// step runs a and b, equal at lo, one instruction slot at a time up to hi
// and records the first slot after which they differ.
func step(a, b *emu.Machine, lo, hi uint64, corrupt func(*emu.Machine), d *Divergence) {
	var slot struct {
		ok      bool
		hart    int
		pc      uint64
		raw     uint32
		trapped bool
	}
	prev := a.Tracer
	a.Tracer = func(h *emu.Hart, pc uint64, raw uint32, trapped bool) {
		slot.ok, slot.hart, slot.pc, slot.raw, slot.trapped = true, h.ID, pc, raw, trapped
		if prev != nil {
			prev(h, pc, raw, trapped)
		}
	}
	defer func() { a.Tracer = prev }()
	for at := lo + 1; at <= hi; at++ {
		slot.ok = false
		ra, rb, differ := runPair(a, b, at, corrupt)
		if !differ {
			if ra != emu.StopLimit {
				break
			}
			continue
		}
		d.Narrowed = true
		d.First = at
		d.Hart = -1
		if slot.ok {
			d.Hart, d.PC, d.Insn, d.Trapped = slot.hart, slot.pc, slot.raw, slot.trapped
			d.PCAfter = [2]uint64{a.Hart(slot.hart).PC(), b.Hart(slot.hart).PC()}
		}
		if ra != rb || a.ICount() != b.ICount() {
			d.Diffs = append(d.Diffs, StateDiff{Name: "icount", A: a.ICount(), B: b.ICount()})
			d.Stops = [2]emu.StopReason{ra, rb}
		}
		d.Diffs = append(d.Diffs, DiffHarts(a, b, MaxDiffs)...)
		if len(d.Diffs) < MaxDiffs {
			d.Diffs = append(d.Diffs, DiffRAM(a, b, MaxDiffs-len(d.Diffs))...)
		}
		d.Components = DiffHashes(a.StateHashes(), b.StateHashes())
		return
	}
	d.Note = fmt.Sprintf("re-run one instruction at a time from %d, the runs agree up to %d: the divergence depends on where runs stop", lo, hi)
}
