package emu

import (
	"fmt"
	"slices"

	"everett/isa"
)

// Debugger support: software breakpoints on any number of addresses,
// watchpoints on ranges of virtual addresses, and a stop after a hart's
// next instruction slot. Like the bisection breakpoint (SetBreakpoint) a
// Debug observes the run without changing it: Run stops with StopBreak,
// StopWatch or StopStep, and Run again continues exactly the run that did
// not stop.
//
// Nothing of it is on the fast path. With breakpoints or a step target the
// machine runs under the interpreter (translated code has no exits for
// them) and a breakpoint costs one search per block. A watched virtual page
// never enters a soft TLB, so that every access to it takes the slow path,
// where the watch is checked; translated code reaches that path through
// its TLB misses, so watchpoints alone keep the JIT.

// WatchKind says which accesses a watchpoint sees.
type WatchKind uint8

// Watch kinds (bits).
const (
	WatchLoad  WatchKind = 1 << iota // loads, LR, the load half of AMOs
	WatchStore                       // stores, SC, AMOs
)

// Watchpoint watches Len bytes of virtual memory from Addr.
type Watchpoint struct {
	Addr, Len uint64
	Kind      WatchKind
}

// WatchHit is one access to watched memory.
type WatchHit struct {
	Hart  int
	PC    uint64 // the accessing instruction
	Addr  uint64 // virtual address of the access
	Size  int
	Store bool
	// Slot is the machine's instruction count before the access: the
	// instruction that made it used slot number Slot (counting from 0),
	// so the machine is at Slot+1 right after it.
	Slot uint64
}

// maxHits bounds the hits a Debug keeps between two reads of Hits: a stop
// comes at the end of the block of the first one.
const maxHits = 64

// Debug is a debugger's set of stop conditions, attached to a machine with
// SetDebug. Change it only while the machine is not running.
type Debug struct {
	m        *Machine
	breaks   []uint64 // sorted, unique
	watches  []Watchpoint
	wpages   []uint64 // virtual page numbers the watches touch, sorted
	stepHart int      // -1: no step target
	stepTo   uint64   // stop once that hart's Steps reach this
	hits     []WatchHit
	pending  bool // a hit in the current block: stop after it
	lost     int  // hits beyond maxHits
	stopHart int  // the hart that stopped at a breakpoint or step
}

// NewDebug returns an empty Debug.
func NewDebug() *Debug { return &Debug{stepHart: -1, stopHart: -1} }

// SetDebug attaches d to the machine (nil detaches). The machine keeps it
// across snapshots and restores: it is a host setting, never state.
func (m *Machine) SetDebug(d *Debug) {
	if m.dbg != nil {
		m.dbg.m = nil
	}
	m.dbg = d
	if d != nil {
		d.m = m
	}
	m.debugBlocks()
	m.debugChanged()
}

// debugBlocks says whether blocks must be checked before they run (brk.on):
// for the bisection breakpoint, a debugger's breakpoints or its step
// target.
func (m *Machine) debugBlocks() {
	d := m.dbg
	m.brk.on = m.brk.set || d != nil && (len(d.breaks) > 0 || d.stepHart >= 0)
}

// Debug returns the attached Debug, or nil.
func (m *Machine) Debug() *Debug { return m.dbg }

// debugChanged drops soft TLB entries that a new watch must see through.
func (m *Machine) debugChanged() {
	for _, h := range m.harts {
		if h.c != nil {
			h.flushTLB()
		}
	}
}

// SetBreakpoints replaces the breakpoint addresses (virtual): a hart about to
// execute one of them stops the machine with StopBreak, before the
// instruction; Run again executes it.
func (d *Debug) SetBreakpoints(pcs []uint64) {
	d.breaks = slices.Clone(pcs)
	slices.Sort(d.breaks)
	d.breaks = slices.Compact(d.breaks)
	if d.m != nil {
		d.m.debugBlocks()
	}
}

// Breakpoints returns the breakpoint addresses, sorted.
func (d *Debug) Breakpoints() []uint64 { return slices.Clone(d.breaks) }

// SetWatchpoints replaces the watchpoints. A watched access stops the
// machine with StopWatch at the end of the accessing instruction's block
// (right after the instruction for a store); Hits says which accesses
// there were.
func (d *Debug) SetWatchpoints(ws []Watchpoint) error {
	d.wpages = d.wpages[:0]
	for _, w := range ws {
		if w.Len == 0 || w.Len > 1<<20 || w.Addr+w.Len < w.Addr {
			return fmt.Errorf("watchpoint of %d bytes at %#x: want 1 byte to 1 MiB, not wrapping", w.Len, w.Addr)
		}
		for p := w.Addr >> pageShift; p <= (w.Addr+w.Len-1)>>pageShift; p++ {
			d.wpages = append(d.wpages, p)
		}
	}
	d.watches = slices.Clone(ws)
	slices.Sort(d.wpages)
	d.wpages = slices.Compact(d.wpages)
	if d.m != nil {
		d.m.debugChanged()
	}
	return nil
}

// StepHart makes the machine stop with StopStep when hart is about to use
// an instruction slot and has used steps of them (as Hart.Steps counts):
// right before its slot number steps+1, in the state a breakpoint there
// would stop it in. hart < 0 removes the step target; a stop removes it
// too.
func (d *Debug) StepHart(hart int, steps uint64) {
	d.stepHart, d.stepTo = hart, steps
	if d.m != nil {
		d.m.debugBlocks()
	}
}

// StopHart returns the hart that stopped the machine at a breakpoint or a
// step, or -1.
func (d *Debug) StopHart() int { return d.stopHart }

// Hits returns the watched accesses since the last call, oldest first, and
// how many more there were than it kept.
func (d *Debug) Hits() ([]WatchHit, int) {
	h, lost := d.hits, d.lost
	d.hits, d.lost = nil, 0
	return h, lost
}

// watchedPage reports whether virtual address va is on a watched page, so
// that it must not enter a soft TLB.
func (d *Debug) watchedPage(va uint64) bool {
	_, ok := slices.BinarySearch(d.wpages, va>>pageShift)
	return ok
}

// access checks an access of size bytes at va by h (h.pc and h.pos say
// which instruction) against the watchpoints.
func (d *Debug) access(h *Hart, va uint64, size int, store bool) {
	kind := WatchLoad
	if store {
		kind = WatchStore
	}
	for _, w := range d.watches {
		if w.Kind&kind == 0 || va+uint64(size) <= w.Addr || va >= w.Addr+w.Len {
			continue
		}
		d.pending = true
		if len(d.hits) == maxHits {
			d.lost++
			return
		}
		d.hits = append(d.hits, WatchHit{Hart: h.ID, PC: h.pc, Addr: va, Size: size, Store: store, Slot: h.m.icount + uint64(h.pos)})
		return
	}
}

// firstBreak returns the first breakpoint in [pc, pc+size), if any.
func (d *Debug) firstBreak(pc, size uint64) (uint64, bool) {
	i, _ := slices.BinarySearch(d.breaks, pc)
	if i < len(d.breaks) && d.breaks[i]-pc < size {
		return d.breaks[i], true
	}
	return 0, false
}

// debugBlock applies the stop conditions to hart h's block b at pc before it
// runs: it returns how many of its n ops may run (capped by a breakpoint or
// the step target), or stop=true when the machine stopped before the first.
func (m *Machine) debugBlock(h *Hart, b *block, pc uint64, n int) (int, bool) {
	bp, ok := m.brk.pc, m.brk.set && m.brk.pc-pc < b.size
	if d := m.dbg; d != nil {
		if p, found := d.firstBreak(pc, b.size); found && (!ok || p < bp) {
			bp, ok = p, true
		}
		if h.ID == d.stepHart && d.stepTo > h.cnt.steps {
			n = int(min(uint64(n), d.stepTo-h.cnt.steps))
		}
	}
	if !ok {
		m.brk.passed = false
		return n, false
	}
	k := 0
	for k < n && pc+uint64(b.ops[k].off) != bp {
		k++
	}
	if k == 0 && !m.passed() {
		m.pass() // Run again executes it
		if m.dbg != nil {
			m.dbg.stopHart = h.ID
		}
		m.stop(StopBreak)
		return 0, true
	}
	m.brk.passed = false
	if k > 0 {
		n = min(n, k)
	}
	return n, false
}

// debugStep stops the machine before hart h's next slot if the step
// target says so.
func (m *Machine) debugStep(h *Hart) bool {
	d := m.dbg
	if d == nil || h.ID != d.stepHart || h.cnt.steps < d.stepTo {
		return false
	}
	if m.passed() {
		return false // stopped here already: Run again goes on
	}
	d.stepHart = -1
	d.stopHart = h.ID
	m.debugBlocks()
	m.pass()
	m.stop(StopStep)
	return true
}

// pass records a stop before the next slot: Run again runs it rather than
// stopping there again.
func (m *Machine) pass() { m.brk.passed, m.brk.at = true, m.icount }

// passed reports whether the machine stopped before the slot it is at.
// The position says it: a run to elsewhere in between (with no conditions
// checked) leaves a stale mark that no longer applies.
func (m *Machine) passed() bool { return m.brk.passed && m.brk.at == m.icount }

// debugAfter stops the machine after hart h's block if it made a watched
// access.
func (m *Machine) debugAfter(h *Hart) bool {
	if d := m.dbg; d != nil && d.pending {
		d.pending = false
		m.stop(StopWatch)
		return true
	}
	return false
}

// Debugger reports whether r is a stop of a debugger's condition: the
// machine can go on from it with Run as if it had not stopped.
func (r StopReason) Debugger() bool { return r == StopBreak || r == StopWatch || r == StopStep }

// peekPA translates virtual address va as the debugger sees it: through
// the hart's page tables at its privilege, with no permission checks and no
// side effect (no A/D update, no TLB fill). A hart in M-mode with paging
// set up for S-mode (a kernel's hart inside the firmware) sees addresses
// that are not RAM through its S-mode translation, so that a kernel's
// symbols can be read whichever mode the hart is in.
func (h *Hart) peekPA(va uint64) (uint64, bool) {
	priv := h.priv
	if priv == PrivM && h.csr.satp>>60 != satpBare && !h.ram.Contains(va, 1) {
		priv = PrivS
	}
	h.peekWalk = [4]uint64{}
	pa, _, ok := h.translate(va, accPeek, priv)
	return pa, ok
}

// PeekVirt reads guest virtual memory at va as a debugger does (see peekPA:
// no side effects, no permission checks; RAM only). It returns how many
// bytes it read; err says why it stopped short.
func (h *Hart) PeekVirt(va uint64, b []byte) (int, error) {
	done := 0
	for done < len(b) {
		pa, ok := h.peekPA(va)
		if !ok {
			return done, fmt.Errorf("%#x is not mapped", va)
		}
		n := int(min(uint64(len(b)-done), pageSize-va&pageMask))
		if !h.ram.Contains(pa, uint64(n)) {
			return done, fmt.Errorf("%#x (physical %#x) is not RAM", va, pa)
		}
		h.ram.Read(pa, b[done:done+n])
		done += n
		va += uint64(n)
	}
	return done, nil
}

// PokeVirt writes guest virtual memory at va as a debugger does: through
// the translation of PeekVirt, into RAM only, invalidating decoded code.
// Nothing is written unless all of it can be.
func (h *Hart) PokeVirt(va uint64, b []byte) error {
	type piece struct{ pa, off, n uint64 }
	var ps []piece
	for off := uint64(0); off < uint64(len(b)); {
		a := va + off
		pa, ok := h.peekPA(a)
		n := min(uint64(len(b))-off, pageSize-a&pageMask)
		if !ok || !h.ram.Contains(pa, n) {
			return fmt.Errorf("%#x is not mapped to RAM", a)
		}
		ps = append(ps, piece{pa, off, n})
		off += n
	}
	for _, p := range ps {
		if err := h.m.WritePhys(p.pa, b[p.off:p.off+p.n]); err != nil {
			return err
		}
	}
	return nil
}

// PeekWalk translates va as PeekVirt does and also returns the physical
// addresses of the page-table entries the walk read (none for a bare
// translation): a debugger that knows those pages and the data page did not
// change between two snapshots knows the mapping did not either.
func (h *Hart) PeekWalk(va uint64) (pa uint64, ptes []uint64, ok bool) {
	pa, ok = h.peekPA(va)
	for _, a := range h.peekWalk {
		if a != 0 {
			ptes = append(ptes, a)
		}
	}
	return pa, ptes, ok
}

// PeekCSR reads a CSR as a debugger does: any CSR the hart has, whatever
// its privilege and mstatus.FS, with no side effect.
func (h *Hart) PeekCSR(csr uint16) (uint64, bool) {
	switch csr {
	case isa.CSRFflags:
		return h.csr.fflags, true
	case isa.CSRFrm:
		return h.csr.frm, true
	case isa.CSRFcsr:
		return h.csr.frm<<5 | h.csr.fflags, true
	case isa.CSRCycle:
		return h.Cycle(), true
	case isa.CSRTime:
		return h.m.mtime(), true
	case isa.CSRInstret:
		return h.Instret(), true
	case isa.CSRSatp:
		return h.csr.satp, true
	}
	return h.readCSR(csr)
}

// SetF sets floating-point register i (as stored: NaN-boxed singles).
func (h *Hart) SetF(i int, v uint64) { h.f[i&31] = v }
