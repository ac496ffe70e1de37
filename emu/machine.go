package emu

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"everett/hw"
	"everett/isa"
)

// Config describes a machine.
type Config struct {
	RAMBase  uint64 // physical address of RAM (0x8000_0000 on virt)
	RAMBytes uint64 // size of RAM, a multiple of 4 KiB
	Harts    int    // number of harts, 1..MaxHarts
	// Quantum is the number of instruction slots a hart runs before the
	// scheduler switches to the next one.
	Quantum uint64
	// Seed seeds the universe's PRNG.
	Seed uint64
	// InsnsPerTick is the number of instruction slots per mtime tick. With
	// the default 100 and a 10 MHz timebase, a hart runs 1e9 instructions
	// per virtual second.
	InsnsPerTick uint64
	// MemoryModel is the memory consistency model (wmo.go): ModelSC, the
	// default, or ModelRVWMO.
	MemoryModel MemoryModel
}

// Limits and defaults.
const (
	MaxHarts            = 64
	DefaultQuantum      = 10000
	DefaultInsnsPerTick = 100
	DefaultRAMBase      = 0x8000_0000
	// TimebaseHz is the frequency of mtime: the device tree's
	// timebase-frequency.
	TimebaseHz = 10_000_000
)

// StopReason says why Run returned.
type StopReason int

// Stop reasons.
const (
	StopNone     StopReason = iota
	StopPowerOff            // the guest powered off (HTIF exit, syscon)
	StopReset               // the guest asked for a reboot
	StopLimit               // the instruction limit was reached
	StopIdle                // every hart waits and nothing is scheduled: the guest hangs
	StopHalted              // every hart is halted
	StopRequest             // the host asked the machine to stop (Stop)
	StopTime                // the virtual-time bound of RunUntil was reached
	StopBreak               // a hart is about to execute the breakpoint address
	StopWatch               // a hart accessed watched memory (see Debug)
	StopStep                // a hart used the instruction slot a Debug waited for
	StopCancel              // the host cancelled the run (SetCancel)
)

func (r StopReason) String() string {
	switch r {
	case StopPowerOff:
		return "power-off"
	case StopReset:
		return "reset"
	case StopLimit:
		return "instruction limit"
	case StopIdle:
		return "idle forever (all harts wait for an interrupt that will never come)"
	case StopHalted:
		return "all harts halted"
	case StopRequest:
		return "stopped"
	case StopTime:
		return "time bound"
	case StopBreak:
		return "breakpoint"
	case StopWatch:
		return "watchpoint"
	case StopStep:
		return "step"
	case StopCancel:
		return "cancelled"
	}
	return "running"
}

// ErrConfig is returned for an invalid machine configuration.
var ErrConfig = errors.New("invalid machine configuration")

type mapping struct {
	base, size uint64
	name       string
	dev        hw.Device
}

type watch struct {
	pn uint64
	w  hw.StoreWatcher
}

// stopState is why and how the machine stopped: the first stop of a run
// (power-off, reset, a breakpoint, a request) sets stopped and reason, and
// the next run clears them; exitCode is the guest's power-off code.
type stopState struct {
	stopped  bool
	reason   StopReason
	exitCode int
}

// engineState is the machine's engine (engine.go): a host setting, never
// saved or hashed.
type engineState struct {
	cur   Engine   // the engine running; EngineInterp under rvwmo
	asked Engine   // the engine SetEngine chose
	stats JITStats // what the JIT did
	mmio  uint64   // device accesses by harts (host bookkeeping: tells exit causes apart)
	eager bool     // translate blocks on their second run (TranslateEagerly)
}

// breakpoint is the machine's breakpoint (see SetBreakpoint). on says it
// or a debugger's stop condition (Machine.dbg) is set, so blocks are
// checked before they run.
type breakpoint struct {
	pc     uint64
	set    bool
	on     bool
	passed bool
	at     uint64 // the instruction count passed is for
}

// coverageState is the machine's edge coverage (see EnableCoverage); c nil:
// off.
type coverageState struct {
	c     *Coverage
	edges []uint8 // c.Edges
	mask  uint64  // slots per half, minus one
	half  uint64  // first slot of the user half
	lo    uint64
	span  uint64
}

// round is the scheduler state of the current round (saved in snapshots,
// so that a run stopped mid-round continues exactly).
type round struct {
	in    bool
	next  int  // index of the hart whose turn it is
	ran   bool // some hart ran in this round
	alive bool // some hart is not halted
}

// Machine is harts, RAM, the bus with its devices, the virtual clock and the
// event queue of one universe. All of it runs on the caller's goroutine.
type Machine struct {
	RAM   *RAM
	harts []*Hart
	devs  []mapping
	cfg   Config

	codePages  []*codeLeaf // by RAM page, in leaves of 512 made on first use
	codeID     uint64      // the owner of the code leaves it may change in place
	slab       *hugeSlab   // where its blocks come from (OnlyMachine), or nil: the heap
	watches    []watch
	components []component

	// PRNG is the universe's only source of entropy.
	PRNG *PRNG

	sched sched

	brk breakpoint
	dbg *Debug // a debugger's stop conditions (debug.go)

	cov coverageState

	// Communication tracking (off unless TrackCommunication): see comm.go.
	comm comm

	// The rvwmo memory model (wmo.go); nil under sc.
	wmo *machineWMO

	// Hypercall handles the guest-SDK instruction (nil: illegal
	// instruction). h.pc already points past the instruction.
	Hypercall func(h *Hart)
	// Tracer, when set, is called after every instruction slot with the
	// instruction's pc, raw bits and whether it trapped. Tracing runs the
	// harts one instruction at a time; results are identical, only slower.
	Tracer func(h *Hart, pc uint64, raw uint32, trapped bool)
	// trapObs sees traps (exceptions and interrupts) and xRETs (see
	// ObserveTraps).
	trapObs TrapObserver

	now      uint64 // virtual time at the start of the current slice
	sliceEnd uint64
	cur      *Hart
	events   eventQueue
	eventSeq uint64
	icount   uint64 // instruction slots used by all harts
	// enteredU: some hart has returned to U-mode (mret or sret with U as
	// the previous privilege) since the machine was built or restored. An
	// observation for the explorer ("init started"), not state: the guest
	// cannot see it, so it is neither saved nor hashed.
	enteredU bool
	mtimeOff uint64 // mtime minus virtual time in ticks (software writes, skew)
	// stateBytes is the size of the state this machine last saved or
	// restored: Snapshot's guess at the next one's, so that its encoder
	// does not grow (and copy) its buffer a dozen times. Not state.
	stateBytes int

	round round

	end stopState

	scratch block // for instructions that straddle a page

	decodeBuf [maxBlockOps]op // buildBlock's: a block's ops before they are copied out

	eng  engineState
	only bool // the only machine of its process (OnlyMachine)

	// cancel, when set and true, ends RunUntil at the next round
	// boundary (SetCancel): the one field another goroutine may write.
	cancel *atomic.Bool

	mg      merge // the merged turn of a one-hart machine (merge.go)
	noMerge bool  // run rounds one by one (tests compare the two)
	// Rounds that joined a merged turn, and device reads that cut one
	// (diagnostics, not state).
	mergedRounds, cutLoads uint64
}

// New builds a machine. Devices are added with Map before Run.
func New(cfg Config) (*Machine, error) {
	if cfg.RAMBase == 0 {
		cfg.RAMBase = DefaultRAMBase
	}
	if cfg.RAMBytes == 0 || cfg.RAMBytes%pageSize != 0 || cfg.RAMBytes > 1<<40 {
		return nil, fmt.Errorf("%w: RAM size %d is not a positive multiple of 4 KiB up to 1 TiB", ErrConfig, cfg.RAMBytes)
	}
	if cfg.Harts < 1 || cfg.Harts > MaxHarts {
		return nil, fmt.Errorf("%w: %d harts (want 1..%d)", ErrConfig, cfg.Harts, MaxHarts)
	}
	if cfg.Quantum == 0 {
		cfg.Quantum = DefaultQuantum
	}
	if cfg.InsnsPerTick == 0 {
		cfg.InsnsPerTick = DefaultInsnsPerTick
	}
	m := &Machine{cfg: cfg, RAM: NewRAM(cfg.RAMBase, cfg.RAMBytes), PRNG: NewPRNG(cfg.Seed), eng: engineState{cur: DefaultEngine, asked: DefaultEngine}}
	m.codePages = make([]*codeLeaf, (m.RAM.Pages()+leafPages-1)/leafPages)
	m.codeID = newOwnerID()
	for i := 0; i < cfg.Harts; i++ {
		m.harts = append(m.harts, newHart(m, i))
	}
	m.scratch.ops = make([]op, 1)
	if err := m.SetMemoryModel(cfg.MemoryModel); err != nil {
		return nil, err
	}
	return m, nil
}

// Config returns the machine's configuration.
func (m *Machine) Config() Config { return m.cfg }

// Harts returns the harts, in hart-id order.
func (m *Machine) Harts() []*Hart { return m.harts }

// Hart returns hart i.
func (m *Machine) Hart(i int) *Hart { return m.harts[i] }

// ICount returns the number of instruction slots used by all harts.
func (m *Machine) ICount() uint64 { return m.icount }

// EnteredUser reports whether a hart has entered U-mode since the machine
// was built or restored (for Linux: init has started).
func (m *Machine) EnteredUser() bool { return m.enteredU }

// ExitCode returns the code given to PowerOff.
func (m *Machine) ExitCode() int { return m.end.exitCode }

// Map attaches a device at [base, base+size).
func (m *Machine) Map(base, size uint64, name string, d hw.Device) error {
	if size == 0 || base+size < base {
		return fmt.Errorf("%w: device %s: bad range %#x+%#x", ErrConfig, name, base, size)
	}
	ram := m.RAM
	if base < ram.Base+ram.Size && ram.Base < base+size {
		return fmt.Errorf("%w: device %s at %#x overlaps RAM", ErrConfig, name, base)
	}
	for _, d := range m.devs {
		if base < d.base+d.size && d.base < base+size {
			return fmt.Errorf("%w: device %s at %#x overlaps %s", ErrConfig, name, base, d.name)
		}
	}
	m.devs = append(m.devs, mapping{base: base, size: size, name: name, dev: d})
	return nil
}

// WatchStores asks for w.Stored after any hart stores to the RAM page holding
// physical address pa.
func (m *Machine) WatchStores(pa uint64, w hw.StoreWatcher) error {
	if !m.RAM.Contains(pa, 1) {
		return fmt.Errorf("%w: watched address %#x is not in RAM", ErrConfig, pa)
	}
	pn := (pa - m.RAM.Base) >> pageShift
	m.watches = append(m.watches, watch{pn: pn, w: w})
	m.RAM.setFlag(pn, pfWatch)
	for _, h := range m.harts {
		h.flushStoreTLBPage(pa >> pageShift)
	}
	return nil
}

func (m *Machine) storeWatched(pa uint64, size int) {
	pn := (pa - m.RAM.Base) >> pageShift
	for _, w := range m.watches {
		if w.pn == pn {
			w.w.Stored(pa, size)
		}
	}
}

func (m *Machine) findDev(pa uint64) *mapping {
	for i := range m.devs {
		d := &m.devs[i]
		if pa-d.base < d.size {
			return d
		}
	}
	return nil
}

func (m *Machine) mmioRead(pa uint64, size int) (uint64, bool) {
	m.eng.mmio++
	d := m.findDev(pa)
	if d == nil || pa-d.base+uint64(size) > d.size {
		return 0, false
	}
	return d.dev.Read(pa-d.base, size)
}

func (m *Machine) mmioWrite(pa uint64, size int, v uint64) bool {
	m.eng.mmio++
	d := m.findDev(pa)
	if d == nil || pa-d.base+uint64(size) > d.size {
		return false
	}
	return d.dev.Write(pa-d.base, size, v)
}

// ReadPhys reads guest physical memory (RAM only).
func (m *Machine) ReadPhys(pa uint64, b []byte) error {
	if !m.RAM.Contains(pa, uint64(len(b))) {
		return fmt.Errorf("read of %d bytes at %#x: outside RAM", len(b), pa)
	}
	m.RAM.Read(pa, b)
	return nil
}

// WritePhys writes guest physical memory (RAM only), invalidating decoded
// code and stale TLB entries, as a device's DMA would.
func (m *Machine) WritePhys(pa uint64, b []byte) error {
	if !m.RAM.Contains(pa, uint64(len(b))) {
		return fmt.Errorf("write of %d bytes at %#x: outside RAM", len(b), pa)
	}
	for off := uint64(0); off < uint64(len(b)); {
		a := pa + off
		pn := (a - m.RAM.Base) >> pageShift
		n := min(uint64(len(b))-off, pageSize-a&pageMask)
		if m.wmo != nil && m.wmo.links > 0 {
			m.wmoBeforeWrite(a, int(n))
		}
		p, _ := m.pageToWrite(pn, a)
		copy(p[a&pageMask:], b[off:off+n])
		off += n
	}
	return nil
}

// LoadImage writes an image (firmware, a kernel, an initramfs) into guest
// physical memory as WritePhys does, except that its whole pages are pages
// shared with every other machine of the process that loaded the same
// bytes (imagePages): written, they are copied like a snapshot's.
func (m *Machine) LoadImage(pa uint64, b []byte) error {
	if !m.RAM.Contains(pa, uint64(len(b))) {
		return fmt.Errorf("write of %d bytes at %#x: outside RAM", len(b), pa)
	}
	for off := uint64(0); off < uint64(len(b)); {
		a := pa + off
		n := min(uint64(len(b))-off, pageSize-a&pageMask)
		var p *page
		if n == pageSize {
			p = imagePage(b[off : off+n])
		}
		if p == nil {
			if err := m.WritePhys(a, b[off:off+n]); err != nil {
				return err
			}
			off += n
			continue
		}
		pn := (a - m.RAM.Base) >> pageShift
		fl := m.RAM.flag(pn)
		m.invalidateCode(pn)
		m.RAM.sharePage(pn, p)
		if fl&pfLoaded != 0 {
			m.flushLoadTLBPage(a >> pageShift)
			m.RAM.clearFlag(pn, pfLoaded)
		}
		if fl&pfStored != 0 {
			for _, h := range m.harts {
				h.flushStoreTLBPage(a >> pageShift)
			}
			m.RAM.clearFlag(pn, pfStored)
		}
		off += n
	}
	return nil
}

func (m *Machine) readPhys64(pa uint64) uint64 {
	p := m.RAM.readPage((pa - m.RAM.Base) >> pageShift)
	return binary.LittleEndian.Uint64(p[pa&pageMask:])
}

func (m *Machine) writePhys64(pa uint64, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	_ = m.WritePhys(pa, b[:])
}

func (m *Machine) flushLoadTLBPage(ppn uint64) {
	for _, h := range m.harts {
		h.flushLoadTLBPage(ppn)
	}
}

// PowerOff implements hw.Power.
func (m *Machine) PowerOff(code int) {
	m.stop(StopPowerOff)
	m.end.exitCode = code
}

// Reset implements hw.Power.
func (m *Machine) Reset() { m.stop(StopReset) }

// SetCancel makes RunUntil return StopCancel where it plans the first
// scheduling round after c becomes true (the rounds of a merged turn,
// merge.go, are planned as one); nil removes it.
// c is the only thing another goroutine may change while the machine runs
// (an explorer's wall-time budget, or stop-on-failure): host bookkeeping,
// neither saved nor hashed. A run that is not cancelled is the same with
// or without it; a cancelled one stops between rounds, in a state fit only
// to be thrown away or continued as if it had not stopped.
func (m *Machine) SetCancel(c *atomic.Bool) { m.cancel = c }

// Stop asks Run to return at the next instruction boundary.
func (m *Machine) Stop() { m.stop(StopRequest) }

func (m *Machine) stop(r StopReason) {
	if !m.end.stopped {
		m.end.stopped = true
		m.end.reason = r
	}
}

// Now implements hw.Clock: the local virtual time of the running hart, or the
// slice boundary between slices.
func (m *Machine) Now() uint64 {
	if h := m.cur; h != nil {
		return h.local + uint64(h.pos)
	}
	return m.now
}

// mtime is the CLINT's time counter: virtual time in timebase ticks.
// It is the same value for the CLINT's mtime register and the time CSR,
// including any offset software wrote to mtime or clock skew the explorer
// gave the node.
func (m *Machine) mtime() uint64 { return m.Now()/m.cfg.InsnsPerTick + m.mtimeOff }

// MTime returns the current mtime.
func (m *Machine) MTime() uint64 { return m.mtime() }

// SetMTime sets mtime to v from now on (a write to the CLINT's mtime, or a
// node's clock skew): the offset is part of the machine's state.
func (m *Machine) SetMTime(v uint64) { m.mtimeOff = v - m.Now()/m.cfg.InsnsPerTick }

// TicksToTime returns the virtual time (instruction slots) at which mtime
// reaches ticks: 0 if it has already.
func (m *Machine) TicksToTime(ticks uint64) uint64 {
	if ticks < m.mtimeOff {
		return 0
	}
	t := ticks - m.mtimeOff
	if t > ^uint64(0)/m.cfg.InsnsPerTick {
		return ^uint64(0)
	}
	return t * m.cfg.InsnsPerTick
}

// Schedule implements hw.Clock.
func (m *Machine) Schedule(at uint64, t hw.EventTarget, tag uint64) uint64 {
	if m.mg.on {
		m.cutMerge()
	}
	if m.cur != nil && at < m.sliceEnd {
		at = m.sliceEnd
	}
	if at < m.now {
		at = m.now
	}
	m.eventSeq++
	heap.Push(&m.events, event{at: at, seq: m.eventSeq, target: t, tag: tag})
	return m.eventSeq
}

// Cancel implements hw.Clock.
func (m *Machine) Cancel(id uint64) {
	if m.mg.on {
		m.cutMerge()
	}
	for i := range m.events {
		if m.events[i].seq == id {
			heap.Remove(&m.events, i)
			return
		}
	}
}

// Run runs the machine until it stops or until the instruction slots used by
// all harts reach limit (0: no limit). It returns why it stopped. Run can be
// called again to continue: stopping at a limit in the middle of a
// scheduling round and continuing gives exactly the run that did not stop.
//
// Scheduling: time advances in rounds. A round ends a quantum after it
// starts (see SetSchedule) or at the next scheduled event, whichever is
// first. In a round each hart, in the policy's order, runs until its local
// time reaches the round's end, it waits in WFI, or the policy stalls it.
// Then due events fire and the next round begins. When every hart waits,
// time skips to the next event.
func (m *Machine) Run(limit uint64) StopReason { return m.RunUntil(limit, 0) }

// RunUntil is Run with a virtual-time bound as well: it stops with
// StopTime once virtual time reaches until (0: no bound). A machine whose
// harts all wait with nothing scheduled then idles up to until instead of
// stopping with StopIdle: something outside it (another node of a cluster)
// may still wake it.
func (m *Machine) RunUntil(limit, until uint64) StopReason {
	m.end.stopped = false
	m.end.reason = StopNone
	for !m.end.stopped {
		if limit != 0 && m.icount >= limit {
			m.stop(StopLimit)
			break
		}
		if !m.round.in {
			if m.cancel != nil && m.cancel.Load() {
				m.stop(StopCancel)
				break
			}
			m.fireDue()
			if m.end.stopped {
				break
			}
			m.releaseHolds()
			if until != 0 && m.now >= until {
				m.stop(StopTime)
				break
			}
			end := m.now + m.planRound()
			if len(m.events) > 0 && m.events[0].at < end {
				end = max(m.events[0].at, m.now+1)
			}
			if until != 0 && end > until {
				end = until
			}
			m.sliceEnd = end
			m.round.in = true
			m.round.next, m.round.ran, m.round.alive = 0, false, false
		}
		for m.round.next < len(m.harts) && !m.end.stopped {
			h := m.harts[m.sched.order[m.round.next]]
			if h.halted {
				m.round.next++
				continue
			}
			m.round.alive = true
			if !h.inSlice {
				if m.descheduled(h) {
					// Preempted at a communication event: it sits out
					// the round, and time passes as if it ran.
					m.round.ran = true
					m.round.next++
					continue
				}
				if h.waiting {
					if !h.wakeable() {
						m.round.next++
						continue
					}
					h.waiting = false
				}
				m.startSlice(h)
				if m.canMerge(h) {
					m.beginMerge(until)
				}
			}
			m.round.ran = true
			end := m.sliceEnd
			if h.stallAt != 0 && h.stallAt < end {
				end = h.stallAt
			}
			m.runSlice(h, end, limit)
			if m.mg.on {
				m.settleMerge(h)
			}
			if h.yield {
				// Preempted before an access: the turn is over.
				h.yield = false
				h.local = m.sliceEnd
			}
			if m.end.stopped && m.end.reason.Debugger() {
				// Stopped for a breakpoint or a debugger, inside this
				// hart's turn.
				m.cur = nil
				return m.end.reason
			}
			if limit != 0 && m.icount >= limit && h.inSlice && !m.end.stopped {
				// Stopped inside this hart's turn; Run resumes here.
				m.cur = nil
				m.stop(StopLimit)
				return m.end.reason
			}
			if h.local >= end && end < m.sliceEnd && !m.end.stopped {
				// Stalled: the hart loses the rest of its turn.
				h.local = m.sliceEnd
			}
			h.inSlice = false
			m.round.next++
		}
		m.cur = nil
		if m.end.stopped {
			break
		}
		m.round.in = false
		switch {
		case !m.round.alive:
			m.stop(StopHalted)
		case m.round.ran:
			m.now = m.sliceEnd
		case len(m.events) > 0:
			// Every hart waits: skip to the next event.
			t := max(m.events[0].at, m.now)
			if until != 0 && t > until {
				t = until
			}
			m.now = t
		case until != 0:
			m.now = until
		default:
			m.stop(StopIdle)
		}
	}
	m.cur = nil
	return m.end.reason
}

func (m *Machine) fireDue() {
	for len(m.events) > 0 && m.events[0].at <= m.now && !m.end.stopped {
		e := heap.Pop(&m.events).(event)
		e.target.Fire(m.now, e.tag)
	}
}

// startSlice begins hart h's turn in the current slice.
func (m *Machine) startSlice(h *Hart) {
	h.inSlice = true
	h.local = m.now
	h.stallAt = 0
	if st := m.sched.stall; h.ID < len(st) && st[h.ID] != 0 {
		h.stallAt = m.now + st[h.ID]
	}
	if len(m.harts) > 1 {
		// Another hart ran since this one's last LR: its reservation may
		// have been broken by a store we did not watch. Failing the SC is
		// always allowed (Unprivileged §8.3).
		h.resValid = false
	}
	h.checkInterrupts()
}

// runSlice runs hart h until its local time reaches end, it waits, or the
// machine stops.
func (m *Machine) runSlice(h *Hart, end, limit uint64) {
	m.cur = h
	h.pos = 0
	if h.c == nil {
		h.ensureCaches()
	}
	for h.local < end && !h.waiting && !m.end.stopped && !h.halted && !h.yield {
		if m.mg.on {
			if end = m.mergeEnd(h); h.local >= end {
				return // cut
			}
		}
		budget := end - h.local
		if limit != 0 {
			budget = min(budget, limit-m.icount)
			if budget == 0 {
				return
			}
		}
		if m.Tracer != nil {
			budget = 1
		}
		if m.brk.on && m.debugStep(h) {
			return
		}
		pc := h.pc
		var b *block
		e := &h.c.jc[jcSet(pc)]
		if e.pc == pc && e.ctx == h.jctx.ctx {
			b = e.b // the jump cache hit in way 0, inline
		} else {
			b = h.lookup()
		}
		if cov := m.cov.edges; cov != nil && pc-m.cov.lo < m.cov.span {
			cur := (pc >> 1) * 0x9e3779b1
			i := (cur ^ h.covPrev) & m.cov.mask
			if h.priv == PrivU {
				i += m.cov.half
			}
			h.covPrev = cur >> 1
			if c := cov[i]; c != 255 {
				c++
				cov[i] = c
				if c&(c-1) == 0 || c == 3 {
					m.cov.c.bucketEdge(i, c) // a new bucket: rare
				}
			}
		}
		if b != nil && m.eng.cur == EngineJIT && !m.brk.on && m.Tracer == nil {
			goEntry := b.jitGo.Load()
			if goEntry == 0 && !b.noJIT.Load() {
				m.jitPrepare(b)
				goEntry = b.jitGo.Load()
			}
			if e.b == b {
				e.jit = b.jit.Load() // translated code chains to it from now on
			}
			switch {
			case goEntry == 0:
				m.eng.stats.Exits[InterpNotHot]++
			case uint64(len(b.ops)) > budget:
				m.eng.stats.Exits[InterpBudget]++
			case h.interruptible():
				m.eng.stats.Exits[InterpInterrupt]++
			}
			if goEntry != 0 && uint64(len(b.ops)) <= budget && !h.interruptible() {
				// Host code: it runs this block and the ones it chains to,
				// and leaves what it cannot do to exec (jit.go).
				m.runJIT(h, b, pc, budget)
				if h.yieldAfter {
					h.preemptedAfter()
				}
				if m.dbg != nil && m.debugAfter(h) {
					return // a watched access (translated code reaches watched pages through exec)
				}
				continue
			}
		}
		var used int
		var raw uint32
		if b == nil {
			// The fetch trapped: the slot is used.
			used = 1
		} else {
			n := len(b.ops)
			if m.brk.on {
				var stop bool
				if n, stop = m.debugBlock(h, b, pc, n); stop {
					return
				}
			}
			if uint64(n) > budget {
				n = int(budget)
			}
			raw = b.ops[0].raw
			if m.wmo == nil {
				used = h.exec(b, pc, 0, n)
			} else {
				used = h.execWMO(b, pc, n)
			}
		}
		m.account(h, used)
		if h.yieldAfter {
			h.preemptedAfter() // the access the scheduler preempts after has run
		}
		if m.Tracer != nil && used > 0 {
			m.Tracer(h, pc, raw, h.trapped)
		}
		h.trapped = false
		if h.csr.mip&h.csr.mie != 0 {
			h.checkInterrupts()
		}
		if m.dbg != nil && m.debugAfter(h) {
			return
		}
	}
}

// account adds used instruction slots, the last of which trapped if
// h.trapped is set, to the hart's counters, its local time and the
// machine's instruction count.
func (m *Machine) account(h *Hart, used int) {
	retired := used
	if h.trapped {
		retired--
	}
	h.cnt.steps += uint64(used)
	h.cnt.retired += uint64(retired)
	h.local += uint64(used)
	h.pos = 0
	m.icount += uint64(used)
}

// lookup finds or builds the block at h.pc. It returns nil after raising a
// fetch fault.
func (h *Hart) lookup() *block {
	pc := h.pc
	ctx := h.jctx.ctx
	set := jcSet(pc)
	e, e1 := &h.c.jc[set], &h.c.jc[set+1]
	if e.pc == pc && e.ctx == ctx {
		return e.b
	}
	if e1.pc == pc && e1.ctx == ctx {
		*e, *e1 = *e1, *e // the entry last used goes to way 0
		return e.b
	}
	h.m.eng.stats.Lookups++
	if e.pc == pc || e1.pc == pc {
		h.m.eng.stats.Stale++
	}
	var pa uint64
	if t := &h.ftlb[pc>>pageShift&tlbMask]; t.tag == pc>>pageShift {
		pa = t.ppn<<pageShift | pc&pageMask
	} else {
		p, cause, ok := h.translate(pc, accFetch, h.priv)
		if !ok {
			h.raise(cause, pc)
			return nil
		}
		if !h.ram.Contains(p, 2) {
			h.raise(CauseFetchAccess, pc)
			return nil
		}
		t.tag = pc >> pageShift
		t.ppn = p >> pageShift
		h.markFill(int(h.priv), 0, pc>>pageShift&tlbMask, pc>>pageShift)
		pa = p
	}
	if h.priv != PrivU && !h.jctx.kNonGlobal {
		// Kernel code keeps its jump-cache entries across ASID switches
		// only while all of them are of global translations.
		i := pc >> pageShift & tlbMask
		h.jctx.kNonGlobal = h.c.nonGlobal[h.priv][0][i/64]&(1<<(i%64)) != 0
	}
	if h.w != nil && (h.w.ns > 0 || h.w.nl > 0) && h.wmoFetch(pa) {
		// rvwmo: the hart's fetch sees its own buffered stores; a
		// guessed path was squashed first, and the hart fetches at the
		// branch's other target.
		return h.lookup()
	}
	b := h.m.blockAt(pa)
	if b == nil {
		return h.crossPage(pa)
	}
	*e1 = *e
	e.pc, e.ctx, e.jit, e.b = pc, ctx, b.jit.Load(), b
	return b
}

// crossPage builds a one-instruction block for a 32-bit instruction whose
// second half is on the next page. It is not cached: the next page's
// mapping may change independently.
func (h *Hart) crossPage(pa uint64) *block {
	m := h.m
	pc := h.pc
	var lo [2]byte
	m.RAM.Read(pa, lo[:])
	hiVA := pc + 2
	hiPA, cause, ok := h.translate(hiVA, accFetch, h.priv)
	if !ok {
		h.raise(cause, hiVA)
		return nil
	}
	if !m.RAM.Contains(hiPA, 2) {
		h.raise(CauseFetchAccess, hiVA)
		return nil
	}
	var hi [2]byte
	m.RAM.Read(hiPA, hi[:])
	raw := uint32(binary.LittleEndian.Uint16(lo[:])) | uint32(binary.LittleEndian.Uint16(hi[:]))<<16
	b := &m.scratch
	in := isa.Decode(raw)
	b.ops[0].set(&in, 0)
	b.pa = pa
	b.size = 4
	b.noJIT.Store(true) // reused for every such instruction: never translated
	return b
}

// event is a scheduled device callback.
type event struct {
	at, seq uint64
	target  hw.EventTarget
	tag     uint64
}

// eventQueue is a min-heap ordered by (at, seq): a total order.
type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// BusRead performs a physical load of size bytes at pa as a hart's load would
// reach the bus (RAM or a device). ok is false where a hart would take an
// access fault. Tests use it to drive devices directly.
func (m *Machine) BusRead(pa uint64, size int) (uint64, bool) {
	if m.RAM.Contains(pa, uint64(size)) {
		var b [8]byte
		m.RAM.Read(pa, b[:size])
		return readLE(b[:], size), true
	}
	return m.mmioRead(pa, size)
}

// BusWrite performs a physical store as a hart's store would reach the bus.
func (m *Machine) BusWrite(pa uint64, size int, v uint64) bool {
	if m.RAM.Contains(pa, uint64(size)) {
		var b [8]byte
		writeLE(b[:], size, v)
		return m.WritePhys(pa, b[:size]) == nil
	}
	return m.mmioWrite(pa, size, v)
}

// Idle reports whether the machine can never run again by itself: every
// hart is halted or waits for an interrupt, and nothing is scheduled.
func (m *Machine) Idle() bool {
	if len(m.events) > 0 {
		return false
	}
	for _, h := range m.harts {
		if !h.halted && (!h.waiting || h.wakeable()) {
			return false
		}
	}
	return true
}

// SkipTo moves a machine that has not run yet to virtual time t (a node that
// boots in the middle of a cluster's run). Earlier times are ignored.
func (m *Machine) SkipTo(t uint64) {
	if t > m.now && !m.round.in {
		m.now = t
	}
}

// SetBreakpoint makes Run stop with StopBreak whenever a hart is about to
// execute the instruction at virtual address pc (on=false removes it). The
// hart's state is that before the instruction; calling Run again executes
// it and goes on. Breakpoints observe the run without changing it.
func (m *Machine) SetBreakpoint(pc uint64, on bool) {
	m.brk.pc, m.brk.set, m.brk.passed = pc, on, false
	m.debugBlocks()
}
