package emu

import (
	"fmt"
	"strings"

	"everett/isa"
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

// lockstepCorrupt, when set (by tests only), is called on the JIT machine
// after every Run the harness makes: a test turns a correct engine into a
// deliberately wrong one with it, to prove the harness finds and names the
// instruction at which the two differ.
var lockstepCorrupt func(*Machine)

// narrowStrides is how many strides each narrowing pass cuts the interval
// between the last equal and the first differing count into; narrowSingle
// is the interval below which a pass steps one instruction at a time.
const (
	narrowStrides = 32
	narrowSingle  = 64
)

// maxDiffs bounds the differences a Divergence lists.
const maxDiffs = 16

// CompareEngines is the lockstep harness: it builds two machines from the
// same inputs with build, runs one under the interpreter and one under the
// JIT side by side, and compares their state hashes every `every`
// instructions until both stop or reach limit (0: no limit). It returns the
// stop reason and host-code count (Compared) and nil, or the first
// divergence. Any divergence is a bug in
// the JIT (the interpreter is the reference, side A).
//
// build is called first for the interpreter's machine, then for the
// JIT's; after a divergence it is called again in the same order, once per
// narrowing pass, so it must build the same machine every time (console
// writers and the like may be fresh each time). The divergence then names
// the first differing instruction slot (Divergence.Narrowed).
func CompareEngines(build func() (*Machine, error), every, limit uint64) (Compared, *Divergence, error) {
	a, b, err := buildEngines(build)
	if err != nil {
		return Compared{}, nil, err
	}
	if every == 0 {
		every = defaultEvery
	}
	r, d, at := compareRuns(a, b, every, limit, lockstepCorrupt)
	c := Compared{Reason: r, HostInsns: b.JITStats().Insns}
	if d == nil {
		return c, nil, nil
	}
	d.Sides = [2]string{EngineInterp.String(), EngineJIT.String()}
	if err := narrow(build, every, d.LastEqual, at, d); err != nil {
		return c, d, err
	}
	return c, d, nil
}

// Compared is what CompareEngines ran: why the machines stopped, and how
// many instructions the JIT's machine ran as host code. A comparison in
// which no host code ran compared the interpreter with itself, so tests
// of the JIT assert HostInsns > 0.
type Compared struct {
	Reason    StopReason
	HostInsns uint64
}

// buildEngines builds the interpreter's machine and the JIT's.
func buildEngines(build func() (*Machine, error)) (a, b *Machine, err error) {
	if a, err = build(); err != nil {
		return nil, nil, err
	}
	if b, err = build(); err != nil {
		return nil, nil, err
	}
	if err := a.SetEngine(EngineInterp); err != nil {
		return nil, nil, err
	}
	if err := b.SetEngine(EngineJIT); err != nil {
		return nil, nil, err
	}
	// Translate every block from its second run, so that short programs
	// (the fuzzers', the tests') run as host code, not only hot loops.
	b.jitEager = true
	return a, b, nil
}

// runPair runs a and b to count at and reports whether they differ there.
func runPair(a, b *Machine, at uint64, corrupt func(*Machine)) (ra, rb StopReason, differ bool) {
	ra, rb = a.Run(at), b.Run(at)
	if corrupt != nil {
		corrupt(b)
	}
	if ra != rb || a.icount != b.icount {
		return ra, rb, true
	}
	return ra, rb, statesDiffer(a, b)
}

// statesDiffer reports whether a and b's states differ, comparing the cheap
// parts first.
func statesDiffer(a, b *Machine) bool {
	if len(diffHarts(a, b, 1)) > 0 {
		return true // no hashing needed
	}
	return len(diffHashes(a.StateHashes(), b.StateHashes())) > 0
}

// narrow finds the first instruction count in (lo, hi] after which freshly
// built machines differ, given that they were equal at lo and differed at
// hi, and records it in d. Each pass rebuilds both machines, runs them to
// lo through the checkpoints of the original comparison (so that the runs
// are cut where they were cut before), and then steps towards hi in
// narrowStrides strides; the last pass steps one instruction at a time.
func narrow(build func() (*Machine, error), every, lo, hi uint64, d *Divergence) error {
	corrupt := lockstepCorrupt
	for pass := 0; hi > lo; pass++ {
		if pass > 64 {
			panic(fmt.Sprintf("lockstep: narrowing (%d, %d] does not converge", lo, hi))
		}
		a, b, err := buildEngines(build)
		if err != nil {
			return fmt.Errorf("lockstep: rebuild to narrow the divergence: %w", err)
		}
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
			if differ || ra != StopLimit {
				d.Note = fmt.Sprintf("rebuilt machines do not reach %d equal (%v): build is not deterministic", lo, ra)
				return nil
			}
		}
		if hi-lo <= narrowSingle {
			return step(a, b, lo, hi, corrupt, d)
		}
		stride := (hi - lo + narrowStrides - 1) / narrowStrides
		next := hi
		for at := lo + stride; at < hi; at += stride {
			ra, _, differ := runPair(a, b, at, corrupt)
			if differ {
				next = at
				break
			}
			if ra != StopLimit {
				d.Note = fmt.Sprintf("both runs stop equal (%v) at %d, before the differing checkpoint %d, when re-run in smaller steps", ra, a.icount, hi)
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
func step(a, b *Machine, lo, hi uint64, corrupt func(*Machine), d *Divergence) error {
	var slot struct {
		ok      bool
		hart    int
		pc      uint64
		raw     uint32
		trapped bool
	}
	prev := a.Tracer
	a.Tracer = func(h *Hart, pc uint64, raw uint32, trapped bool) {
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
			if ra != StopLimit {
				break
			}
			continue
		}
		d.Narrowed = true
		d.First = at
		d.Hart = -1
		if slot.ok {
			d.Hart, d.PC, d.Insn, d.Trapped = slot.hart, slot.pc, slot.raw, slot.trapped
			d.PCAfter = [2]uint64{a.harts[slot.hart].pc, b.harts[slot.hart].pc}
		}
		if ra != rb || a.icount != b.icount {
			d.Diffs = append(d.Diffs, StateDiff{Name: "icount", A: a.icount, B: b.icount})
			d.Stops = [2]StopReason{ra, rb}
		}
		d.Diffs = append(d.Diffs, diffHarts(a, b, maxDiffs)...)
		if len(d.Diffs) < maxDiffs {
			d.Diffs = append(d.Diffs, diffRAM(a.RAM, b.RAM, maxDiffs-len(d.Diffs))...)
		}
		d.Components = diffHashes(a.StateHashes(), b.StateHashes())
		return nil
	}
	d.Note = fmt.Sprintf("re-run one instruction at a time from %d, the runs agree up to %d: the divergence depends on where runs stop", lo, hi)
	return nil
}

// diffHashes returns the names of the components whose hashes differ.
func diffHashes(ha, hb []ComponentHash) []string {
	var diff []string
	for i := range ha {
		if i >= len(hb) || ha[i] != hb[i] {
			diff = append(diff, ha[i].Name)
		}
	}
	for i := len(ha); i < len(hb); i++ {
		diff = append(diff, hb[i].Name)
	}
	return diff
}

// hartFields are the cheap parts of a hart's state the harness compares
// before it hashes anything: privilege, the CSRs an engine touches most,
// counters and run state, read straight from the Hart's fields.
var hartFields = []struct {
	name string
	get  func(h *Hart) uint64
}{
	{"pc", func(h *Hart) uint64 { return h.pc }},
	{"priv", func(h *Hart) uint64 { return uint64(h.priv) }},
	{"mstatus", func(h *Hart) uint64 { return h.mstatus }},
	{"mie", func(h *Hart) uint64 { return h.mie }},
	{"mip", func(h *Hart) uint64 { return h.mip }},
	{"mepc", func(h *Hart) uint64 { return h.mepc }},
	{"mcause", func(h *Hart) uint64 { return h.mcause }},
	{"mtval", func(h *Hart) uint64 { return h.mtval }},
	{"mtvec", func(h *Hart) uint64 { return h.mtvec }},
	{"mscratch", func(h *Hart) uint64 { return h.mscratch }},
	{"sepc", func(h *Hart) uint64 { return h.sepc }},
	{"scause", func(h *Hart) uint64 { return h.scause }},
	{"stval", func(h *Hart) uint64 { return h.stval }},
	{"stvec", func(h *Hart) uint64 { return h.stvec }},
	{"sscratch", func(h *Hart) uint64 { return h.sscratch }},
	{"satp", func(h *Hart) uint64 { return h.satp }},
	{"fflags", func(h *Hart) uint64 { return h.fflags }},
	{"frm", func(h *Hart) uint64 { return h.frm }},
	{"retired", func(h *Hart) uint64 { return h.retired }},
	{"steps", func(h *Hart) uint64 { return h.steps }},
	{"local", func(h *Hart) uint64 { return h.local }},
	{"reservation", func(h *Hart) uint64 {
		if h.resValid {
			return h.resAddr
		}
		return ^uint64(0)
	}},
	{"waiting", func(h *Hart) uint64 { return flag(h.waiting) }},
	{"halted", func(h *Hart) uint64 { return flag(h.halted) }},
}

// flag is a bool as a uint64, for hartFields.
func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// diffHarts compares every hart's pc, integer and FP registers and the
// fields of hartFields, returning at most n differences.
func diffHarts(a, b *Machine, n int) []StateDiff {
	var out []StateDiff
	add := func(h int, name string, va, vb uint64) bool {
		if va == vb {
			return true
		}
		if len(a.harts) > 1 {
			name = fmt.Sprintf("hart%d.%s", h, name)
		}
		out = append(out, StateDiff{Name: name, A: va, B: vb})
		return len(out) < n
	}
	for i, ha := range a.harts {
		if i >= len(b.harts) {
			break
		}
		hb := b.harts[i]
		for _, f := range hartFields {
			if !add(i, f.name, f.get(ha), f.get(hb)) {
				return out
			}
		}
		for r := 1; r < 32; r++ {
			if !add(i, fmt.Sprintf("x%d", r), ha.x[r], hb.x[r]) {
				return out
			}
		}
		for r := 0; r < 32; r++ {
			if !add(i, fmt.Sprintf("f%d", r), ha.f[r], hb.f[r]) {
				return out
			}
		}
	}
	return out
}

// diffRAM returns at most n differing aligned 8-byte words of two RAMs of
// the same geometry, named by physical address.
func diffRAM(a, b *RAM, n int) []StateDiff {
	var out []StateDiff
	for li := range a.leaves {
		if li >= len(b.leaves) {
			break
		}
		la, lb := a.leaves[li], b.leaves[li]
		if la == lb {
			continue
		}
		for i := 0; i < leafPages; i++ {
			pa, pb := pageOf(la, i), pageOf(lb, i)
			if pa == pb {
				continue
			}
			for off := 0; off < pageSize; off += 8 {
				wa, wb := word(pa, off), word(pb, off)
				if wa == wb {
					continue
				}
				addr := a.Base + (uint64(li)<<leafShift|uint64(i))<<pageShift + uint64(off)
				out = append(out, StateDiff{Name: fmt.Sprintf("ram[%#x]", addr), A: wa, B: wb})
				if len(out) >= n {
					return out
				}
			}
		}
	}
	return out
}

func pageOf(l *leaf, i int) *page {
	if l == nil {
		return nil
	}
	return l.pages[i]
}

// word reads the little-endian 8-byte word at off of p (nil: zero).
func word(p *page, off int) uint64 {
	if p == nil {
		return 0
	}
	var v uint64
	for k := 7; k >= 0; k-- {
		v = v<<8 | uint64(p[off+k])
	}
	return v
}

// insnText disassembles raw bits for a divergence report.
func insnText(raw uint32, pc uint64) string {
	return strings.ReplaceAll(isa.Disasm(isa.Decode(raw), pc), "\t", " ")
}
