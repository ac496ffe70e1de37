package emu

import (
	"fmt"
	"slices"

	"everett/hw"
)

// Communication events: who touched what (RATIONALE.md, "Why preempt
// where harts communicate?").
//
// With tracking on (TrackCommunication), every RAM page has an owner in
// the manner of DMP (Devietti et al., ASPLOS 2009): the hart that last
// wrote it, and the harts that have loaded it since. A hart may keep a
// page in its load TLB only while it is the writer or one of the readers,
// and in its store TLB only while it is the writer and no other hart has
// read the page since. Private accesses therefore stay on the TLB fast
// path and cost nothing; only a change of ownership takes the slow path,
// and the slow path is where a communication event is recorded:
//
//   - a load of a page last written by another hart (read after write);
//   - a store to a page another hart wrote (write after write) or has read
//     since the last write (write after read).
//
// An event has a pair of pcs: the first access (the store that took the
// page, or the load that last joined its readers) and the second (the
// access now). Pairs feed interleaving coverage (Coverage.Pairs), and
// events are the scheduler's preemption points: the policy may stop the
// hart before the access and let the others run (see commEvent).
//
// The granularity is the page, as the TLBs are. The ownership state is a
// function of the accesses only, never of what the TLBs happened to hold
// (a slow-path access that the ownership already allows changes nothing),
// so events are exact and repeatable, and the state is saved in snapshots.

// commPage is the ownership of one RAM page, or of one line of a page
// that is tracked line by line.
type commPage struct {
	writer  uint8  // hart id + 1 of the last writer (0: none yet)
	hot     uint8  // pages: communication events seen (fineHot: tracked by line)
	line    uint16 // pages tracked by line: index + 1 of their lines in comm.fine
	readers uint64 // harts (one bit each) that loaded it since that write
	wpc     uint64 // pc of the store that made writer the owner
	rpc     uint64 // pc of the load that last joined readers
}

// Bounds of the tracker.
const (
	commCountSlots = 1 << 12 // pair slots of the newness counts
	// MaxPreemptions bounds the preemptions at communication events of one
	// schedule.
	MaxPreemptions = 1 << 16
)

// comm is the communication tracker of a machine. It is state: the
// scheduler's decisions depend on it, so it is saved with the scheduler.
type comm struct {
	on       bool
	pages    []*[leafPages]commPage // by RAM page, in leaves made on first use
	fine     []*commLines           // pages tracked by line (commPage.line - 1 indexes it)
	events   uint64                 // communication events so far
	eligible uint64                 // events that passed UserOnly's filter (its PCT change points count these)
	preempts int                    // preemptions taken under the current schedule
	counts   []uint8                // per pair slot: events seen (saturating)
	rng      *PRNG                  // preemption decisions: a stream of its own
	changes  []uint64               // pct: event numbers at which to preempt, ascending
	resume   []uint64               // per hart: descheduled until this virtual time
	skip     []uint64               // per hart: steps+1 of the access that yielded (0: none)
	hold     []holdState            // per hart: the access a Hold preemption stopped
	ret      []retPoint             // per hart: the return from a system call that is a preemption point
	holds    int                    // harts with a hold (hold[i].until != 0)
	held     uint64                 // holds begun under the current schedule
	noYield  bool                   // inside an access that must not be split
}

// retPoint is the user pc (and address space) at which a system call
// returns, and whether the call was a futex; pc 0: none.
type retPoint struct {
	pc, satp uint64
	futex    bool
}

// sysFutex is the number of Linux's futex system call on riscv64 (the
// generic table, include/uapi/asm-generic/unistd.h): what every blocking
// pthread and Go runtime primitive waits and wakes with.
const sysFutex = 98

// holdState is a hart's hold (SchedConfig.Hold): the access it was
// stopped before, in which address space, and until when at most.
type holdState struct {
	until uint64 // virtual time the hold ends at the latest (0: no hold)
	pc    uint64
	satp  uint64
	since uint64 // the machine's instruction count when the hold began
}

// holdIdle is the instruction count under which a hold that ends because
// nothing else could run did not hold anything back: its preemption goes
// back to the budget. holdWait is how long a hart must have waited in WFI
// to count as one that cannot run: a thread that sleeps for a few
// microseconds (a Go runtime's thief before it steals a goroutine, a
// backoff) is about to run again.
const (
	holdIdle = 1000
	holdWait = 100_000 // 100 µs of virtual time
)

// TrackCommunication turns communication tracking on or off. It does
// nothing on a one-hart machine (no hart can communicate). Turning it on
// starts from an empty history; turning it off forgets it.
func (m *Machine) TrackCommunication(on bool) {
	if len(m.harts) < 2 || on == m.comm.on {
		return
	}
	c := &m.comm
	*c = comm{on: on}
	if on {
		n := len(m.harts)
		c.pages = make([]*[leafPages]commPage, (m.RAM.Pages()+leafPages-1)/leafPages)
		c.counts = make([]uint8, commCountSlots)
		c.resume = make([]uint64, n)
		c.skip = make([]uint64, n)
		c.hold = make([]holdState, n)
		c.ret = make([]retPoint, n)
		c.rng = NewPRNG(m.sched.cfg.Seed ^ 0xc0117)
	}
	// Entries filled without ownership must go.
	for _, h := range m.harts {
		if h.c != nil {
			h.flushTLB()
			h.updateMode()
		}
	}
}

// CommEvents returns the number of communication events so far (0 when
// tracking is off).
func (m *Machine) CommEvents() uint64 { return m.comm.events }

// CommHolds returns the holds (SchedConfig.Hold) begun under the current
// schedule, those whose preemption went back to the budget included.
func (m *Machine) CommHolds() uint64 { return m.comm.held }

// CommPreemptions returns the preemptions taken at communication events
// under the current schedule.
func (m *Machine) CommPreemptions() int { return m.comm.preempts }

func (c *comm) page(pn uint64) *commPage {
	l := c.pages[pn>>leafShift]
	if l == nil {
		l = new([leafPages]commPage)
		c.pages[pn>>leafShift] = l
	}
	return &l[pn&(leafPages-1)]
}

// Line tracking. A page on which harts communicate again and again (a lock
// next to the data it guards, a sequence counter next to its record) is
// tracked by 64-byte line from its fineAfter-th event on, so that accesses
// to different lines of it are told apart. Such a page enters a TLB only
// as a tlbFine entry, which the fast paths miss: the slow paths and
// translated code check the line's owner (Hart.lineAllows) before every
// access and go on at once when it allows the access, and leave to
// commAccess when it does not. Pages that only the kernel (S mode) shares
// stay page-grained, so that the kernel's hot data does not slow every
// access down; at most maxFinePages pages are tracked by line.
const (
	lineShift    = 6
	linesPerPage = pageSize >> lineShift
	fineAfter    = 2
	fineHot      = 255
	maxFinePages = 1024
)

// commLines is the per-line ownership of one page.
type commLines [linesPerPage]commPage

// lines returns the per-line ownership of RAM page pn, or nil if the page
// is not tracked by line.
func (c *comm) lines(pn uint64) *commLines {
	if l := c.pages[pn>>leafShift]; l != nil {
		if p := &l[pn&(leafPages-1)]; p.hot == fineHot {
			return c.fine[p.line-1]
		}
	}
	return nil
}

// lineAllows reports whether the ownership of the line at page offset off
// of a page tracked by line (lines) allows h's load (or store) as it is,
// with no communication event and nothing to record: commAccess's first
// answer. The slow paths and translated code ask it of tlbFine entries.
func (h *Hart) lineAllows(lines *commLines, off uint64, store bool) bool {
	st := &lines[off>>lineShift]
	if store {
		return uint64(st.writer) == h.commMe && st.readers&h.commOthers == 0
	}
	return uint64(st.writer) == h.commMe || st.readers&h.commBit != 0
}

// commAccess records an access by h to RAM at pa (a store if store). ok
// is false when the scheduler preempts h before the access (h.yield is
// set; nothing happened); private says whether the page may be cached in
// h's TLB for this kind of access.
func (m *Machine) commAccess(h *Hart, pa uint64, store bool) (ok, private bool) {
	c := &m.comm
	pn := (pa - m.RAM.Base) >> pageShift
	p := c.page(pn)
	st := p
	fine := p.hot == fineHot
	if fine {
		st = &c.fine[p.line-1][pa&pageMask>>lineShift]
	}
	me := uint8(h.ID + 1)
	bit := uint64(1) << h.ID
	others := st.readers &^ bit
	var first uint64
	event := false
	switch {
	case !store && (st.writer == me || st.readers&bit != 0),
		store && st.writer == me && others == 0:
		return true, !fine // the ownership allows it already
	case st.writer != 0 && st.writer != me:
		first, event = st.wpc, true // reads or overwrites another hart's write
	case store && others != 0:
		first, event = st.rpc, true // writes what another hart read
	}
	if event && !m.commEvent(h, first) {
		return false, false
	}
	if !fine {
		// Other harts' TLBs must not let them access unobserved what h
		// now owns.
		ppn := pa >> pageShift
		for _, g := range m.harts {
			switch {
			case g == h:
			case store && (st.writer == uint8(g.ID+1) || st.readers>>g.ID&1 != 0):
				g.flushLoadTLBPage(ppn)
				g.flushStoreTLBPage(ppn)
			case !store && st.writer == uint8(g.ID+1):
				g.flushStoreTLBPage(ppn)
			}
		}
	}
	if store {
		st.writer, st.readers, st.wpc = me, 0, h.pc
	} else {
		st.readers |= bit
		st.rpc = h.pc
	}
	if event && !fine {
		if p.hot < fineAfter {
			p.hot++
		}
		if p.hot >= fineAfter && h.dataPriv != PrivS && len(c.fine) < maxFinePages {
			m.trackByLine(pn, p)
			return true, false
		}
	}
	return true, !fine
}

// trackByLine starts tracking page pn line by line, every line owned as
// the page was.
func (m *Machine) trackByLine(pn uint64, p *commPage) {
	c := &m.comm
	l := new(commLines)
	for i := range l {
		l[i] = *p
		l[i].hot = 0
	}
	c.fine = append(c.fine, l)
	p.hot, p.line = fineHot, uint16(len(c.fine))
	ppn := (m.RAM.Base >> pageShift) + pn
	for _, g := range m.harts {
		g.flushLoadTLBPage(ppn)
		g.flushStoreTLBPage(ppn)
	}
}

// commLoad records a load (see commAccess).
func (m *Machine) commLoad(h *Hart, pa uint64) (ok, private bool) {
	return m.commAccess(h, pa, false)
}

// commStore records a store (see commAccess).
func (m *Machine) commStore(h *Hart, pa uint64) (ok, private bool) {
	return m.commAccess(h, pa, true)
}

// commEvent is a communication event: h is about to access, at h.pc, data
// that another hart accessed at first. It returns false when the policy
// preempts h before the access: h.yield is set, and the access will be
// retried (and then happen without another preemption) when h runs again.
func (m *Machine) commEvent(h *Hart, first uint64) bool {
	c := &m.comm
	pc := h.pc
	slot := pairKey(first, pc) & (commCountSlots - 1)
	seen := c.counts[slot]
	retry := c.skip[h.ID] == h.cnt.steps+1
	c.skip[h.ID] = 0
	if !retry && !c.noYield && !h.yieldAfter && m.preemptAt(h, seen, false) {
		if m.sched.cfg.Hold && h.priv == PrivU {
			// This draw once chose, half the time, to stop the thread
			// right after the access rather than before it. Measured on
			// 2026-12-04 over 18 (bug, seed) pairs, that found no bug
			// sooner overall (1,645 universes to the first failures
			// against 1,410 without it, 16 found against 17), so it is
			// gone; the draw stays so that every schedule is the one
			// measured (RATIONALE, threads).
			c.rng.Uint64()
		}
		return false
	}
	c.events++
	if seen != 255 {
		c.counts[slot] = seen + 1
	}
	if m.cov.c != nil {
		m.cov.c.pair(first, pc)
	}
	return true
}

// syncPoint is an LR or AMO of h in U-mode under SchedConfig.SyncPoints:
// a preemption point whether or not another hart touched its data. It
// returns false when the policy preempts h before it (h.yield is set);
// the access runs when h does again.
func (m *Machine) syncPoint(h *Hart) bool {
	c := &m.comm
	if c.skip[h.ID] == h.cnt.steps+1 || c.noYield {
		return true // the access that yielded, retried (commEvent clears skip)
	}
	slot := pairKey(0, h.pc) & (commCountSlots - 1)
	seen := c.counts[slot]
	if m.preemptAt(h, seen, false) {
		if c.rng.Uint64()&1 == 0 {
			return false
		}
		// Half the time the hart stops right after the op instead: a
		// thread held just after it took a lock or published a flag.
		h.yield, h.yieldAfter = false, true
		c.skip[h.ID] = 0
	}
	if seen != 255 {
		c.counts[slot] = seen + 1
	}
	return true
}

// syscallPoint is an ecall of h in U-mode under SchedConfig.SyncPoints (a
// futex wait or wake, say): a preemption point before the call, or, half
// the time, when the call returns to next (returnPoint): a thread held
// right after it woke another. It returns false when the policy preempts
// h before the call.
func (m *Machine) syscallPoint(h *Hart, next uint64) bool {
	c := &m.comm
	if c.skip[h.ID] == h.cnt.steps+1 || c.noYield {
		return true
	}
	futex := h.x[17] == sysFutex
	if c.rng.Uint64()&1 == 1 {
		c.ret[h.ID] = retPoint{pc: next, satp: h.csr.satp, futex: futex}
		return true
	}
	slot := pairKey(0, h.pc) & (commCountSlots - 1)
	seen := c.counts[slot]
	if m.preemptAt(h, seen, futex) {
		return false
	}
	if seen != 255 {
		c.counts[slot] = seen + 1
	}
	return true
}

// returnPoint is called after h executed an sret: when it returned to the
// user pc a syscallPoint chose, in the same address space, that return is
// a preemption point. It reports whether h is preempted there (h.yield is
// set; the sret has run).
func (m *Machine) returnPoint(h *Hart) bool {
	c := &m.comm
	r := c.ret[h.ID]
	if r.pc == 0 || h.priv != PrivU || h.pc != r.pc || h.csr.satp != r.satp {
		return false
	}
	c.ret[h.ID] = retPoint{}
	slot := pairKey(1, h.pc) & (commCountSlots - 1)
	seen := c.counts[slot]
	if !m.preemptAt(h, seen, r.futex) {
		if seen != 255 {
			c.counts[slot] = seen + 1
		}
		return false
	}
	c.skip[h.ID] = 0 // nothing to retry: the thread stops before its next instruction
	return true
}

// preemptedAfter stops h after the synchronization op it just executed
// (h.pc is past it, or at the trap it took): the preemption syncPoint
// decided takes effect now, its hold (if any) at the new pc.
func (h *Hart) preemptedAfter() {
	h.yieldAfter = false
	h.yield = true
	c := &h.m.comm
	if hd := &c.hold[h.ID]; hd.until != 0 {
		hd.pc, hd.satp = h.pc, h.csr.satp
	}
}

// preemptAt decides whether to preempt h at a communication event whose
// pair was seen before seen times, and if so deschedules it. A futex call
// (or its return) is the program's synchronization wherever its code is:
// a pthread_cond_wait's, a Go runtime's parking of a thread.
func (m *Machine) preemptAt(h *Hart, seen uint8, futex bool) bool {
	c := &m.comm
	cfg := &m.sched.cfg
	if !cfg.Comm {
		return false
	}
	if hd := &c.hold[h.ID]; hd.until > m.Now() && hd.pc == h.pc && hd.satp == h.csr.satp && h.priv == PrivU {
		// The held access again, after an interrupt let the hart into
		// the kernel: the thread is still held.
		c.skip[h.ID] = h.cnt.steps + 1
		c.resume[h.ID] = hd.until
		h.yield = true
		return true
	}
	if c.preempts >= cfg.Preemptions || cfg.UserOnly && (h.priv != PrivU || h.csr.satp == m.sched.own) {
		return false
	}
	if rs := m.sched.ranges; cfg.UserOnly && !futex && len(rs) > 0 && !inRanges(rs, h.pc) && !inRanges(rs, h.x[1]) {
		return false // the runtime's own, not the program's
	}
	n := c.events
	if cfg.UserOnly {
		// The workload's events only: the kernel's would place most
		// change points before the program's first shared access.
		n = c.eligible
		c.eligible++
	}
	yes := false
	if cfg.Mode == SchedPCT {
		// Change points are event numbers: the hart that reaches one
		// drops to the lowest priority.
		for len(c.changes) > 0 && c.changes[0] <= n {
			c.changes = c.changes[1:]
			yes = true
		}
		if yes {
			s := &m.sched
			s.low--
			if h.ID < len(s.prio) {
				s.prio[h.ID] = s.low
			}
		}
	} else {
		// A pair seen n times before preempts with probability
		// 1/(odds*(n+1)): data every hart touches all the time (kernel
		// locks, run queues) does not drown the rare pairs.
		yes = c.rng.Uint64()%(cfg.PreemptOdds*(uint64(seen)+1)) == 0
	}
	if !yes {
		return false
	}
	c.preempts++
	c.skip[h.ID] = h.cnt.steps + 1
	d := cfg.YieldMin
	if cfg.YieldMax > cfg.YieldMin {
		d += c.rng.Uint64() % (cfg.YieldMax - cfg.YieldMin + 1)
	}
	c.resume[h.ID] = m.Now() + d
	if cfg.Hold && h.priv == PrivU {
		if c.hold[h.ID].until == 0 {
			c.holds++
		}
		c.held++
		c.hold[h.ID] = holdState{until: c.resume[h.ID], pc: h.pc, satp: h.csr.satp, since: m.icount}
	}
	h.yield = true
	return true
}

// releaseHolds ends holds at the start of a round (SchedConfig.Hold).
// When no other hart can run (each waits in WFI, is halted or sits out),
// the hart held first goes on: in PCT's terms the later holds have the
// lower priorities. If nothing ran while it was held, its preemption goes
// back to the budget. A held hart with an interrupt pending other than its
// timer (an IPI) runs as well, keeping its hold for when it comes back to
// the access. Holds past their bound end.
func (m *Machine) releaseHolds() {
	c := &m.comm
	if c.holds == 0 {
		return
	}
	now := m.now
	idle := true
	first := -1
	for _, h := range m.harts {
		hd := &c.hold[h.ID]
		if hd.until != 0 && hd.until <= now {
			*hd = holdState{}
			c.holds--
		}
		switch {
		case hd.until != 0 && c.resume[h.ID] > now:
			if first < 0 || hd.since < c.hold[first].since {
				first = h.ID
			}
		case h.halted, c.resume[h.ID] > now, h.waiting && !h.wakeable() && now-h.waitAt >= holdWait:
		default:
			idle = false
		}
	}
	if idle && first >= 0 {
		hd := &c.hold[first]
		if m.icount-hd.since < holdIdle && c.preempts > 0 {
			c.preempts--
		}
		*hd = holdState{}
		c.holds--
		c.resume[first] = now
		return
	}
	for _, h := range m.harts {
		hd := &c.hold[h.ID]
		if hd.until != 0 && c.resume[h.ID] > now && h.pendingMIP()&h.csr.mie&(MipMSIP|MipSSIP) != 0 {
			c.resume[h.ID] = now
		}
	}
}

// commSchedule starts the tracker's part of a new schedule: a fresh
// preemption budget, decision stream and (pct) change points.
func (m *Machine) commSchedule() {
	c := &m.comm
	if !c.on {
		return
	}
	cfg := &m.sched.cfg
	c.preempts = 0
	c.held = 0
	c.rng = NewPRNG(cfg.Seed ^ 0xc0117)
	if !cfg.Hold {
		clear(c.hold)
		c.holds = 0
	}
	c.changes = c.changes[:0]
	if cfg.Comm && cfg.Mode == SchedPCT && cfg.EventSpan > 0 {
		from := c.events
		if cfg.UserOnly {
			from = c.eligible
		}
		for i := 0; i < cfg.Depth; i++ {
			if i > 0 && cfg.Cluster > 0 {
				// Close behind the point before (SchedConfig.Cluster).
				c.changes = append(c.changes, c.changes[i-1]+1+c.rng.Uint64()%cfg.Cluster)
				continue
			}
			c.changes = append(c.changes, from+c.rng.Uint64()%cfg.EventSpan)
		}
		slices.Sort(c.changes)
	}
}

// descheduled reports whether h sits out the current round after a
// preemption.
func (m *Machine) descheduled(h *Hart) bool {
	return m.comm.resume != nil && m.comm.resume[h.ID] > m.now
}

// Persistence limits.
const maxCommPages = 1 << 28 // pages of a 1 TiB RAM

// saveComm writes the tracker's state (ownership of every touched page,
// counts, decision stream, preemption state).
func (m *Machine) saveComm(e *hw.Encoder) {
	c := &m.comm
	e.Tag("comm")
	e.Bool(c.on)
	if !c.on {
		return
	}
	n := 0
	for _, l := range c.pages {
		if l != nil {
			for i := range l {
				if l[i] != (commPage{}) {
					n++
				}
			}
		}
	}
	e.U64(uint64(n))
	for li, l := range c.pages {
		if l == nil {
			continue
		}
		for i := range l {
			if p := &l[i]; *p != (commPage{}) {
				e.U64(uint64(li)<<leafShift | uint64(i))
				e.U8(p.writer)
				e.U8(p.hot)
				e.U64(p.readers)
				e.U64(p.wpc)
				e.U64(p.rpc)
			}
		}
	}
	// Pages tracked by line, in page order.
	e.U64(uint64(len(c.fine)))
	for _, l := range c.pages {
		for i := 0; l != nil && i < leafPages; i++ {
			if l[i].hot != fineHot {
				continue
			}
			for _, ln := range c.fine[l[i].line-1] {
				e.U8(ln.writer)
				e.U64(ln.readers)
				e.U64(ln.wpc)
				e.U64(ln.rpc)
			}
		}
	}
	e.U64(c.events)
	e.U64(c.eligible)
	e.Int(c.preempts)
	e.U64(c.held)
	nc := 0
	for _, v := range c.counts {
		if v != 0 {
			nc++
		}
	}
	e.U64(uint64(nc))
	for i, v := range c.counts {
		if v != 0 {
			e.U64(uint64(i))
			e.U8(v)
		}
	}
	c.rng.Save(e)
	e.U64(uint64(len(c.changes)))
	for _, v := range c.changes {
		e.U64(v)
	}
	for i := range m.harts {
		e.U64(c.resume[i])
		e.U64(c.skip[i])
		e.U64(c.hold[i].until)
		e.U64(c.hold[i].pc)
		e.U64(c.hold[i].satp)
		e.U64(c.hold[i].since)
		e.U64(c.ret[i].pc)
		e.U64(c.ret[i].satp)
		e.Bool(c.ret[i].futex)
	}
}

// restoreComm reads what saveComm wrote.
func (m *Machine) restoreComm(d *hw.Decoder) error {
	d.Tag("comm")
	on := d.Bool()
	if d.Err() != nil {
		return d.Err()
	}
	m.comm = comm{}
	if !on {
		return nil
	}
	if len(m.harts) < 2 {
		return fmt.Errorf("%w: communication tracking on a one-hart machine", hw.ErrCorrupt)
	}
	m.TrackCommunication(true)
	c := &m.comm
	harts := uint64(1)<<len(m.harts) - 1
	if len(m.harts) == 64 {
		harts = ^uint64(0)
	}
	np := d.Len(maxCommPages)
	for i := 0; i < np && d.Err() == nil; i++ {
		pn := d.U64()
		p := commPage{writer: d.U8(), hot: d.U8(), readers: d.U64(), wpc: d.U64(), rpc: d.U64()}
		if pn >= m.RAM.Pages() || int(p.writer) > len(m.harts) || p.readers&^harts != 0 {
			d.Fail("communication page %d: writer %d, readers %#x", pn, p.writer, p.readers)
			break
		}
		*c.page(pn) = p
	}
	nf := d.Len(maxFinePages)
	for li, l := range c.pages {
		for i := 0; l != nil && i < leafPages && d.Err() == nil; i++ {
			if l[i].hot != fineHot {
				continue
			}
			if len(c.fine) == nf {
				d.Fail("more pages tracked by line than the %d saved", nf)
				break
			}
			lines := new(commLines)
			for j := range lines {
				lines[j] = commPage{writer: d.U8(), readers: d.U64(), wpc: d.U64(), rpc: d.U64()}
				if int(lines[j].writer) > len(m.harts) || lines[j].readers&^harts != 0 {
					d.Fail("communication line %d of page %d", j, uint64(li)<<leafShift|uint64(i))
				}
			}
			c.fine = append(c.fine, lines)
			l[i].line = uint16(len(c.fine))
		}
	}
	if d.Err() == nil && len(c.fine) != nf {
		d.Fail("%d pages tracked by line, %d saved", len(c.fine), nf)
	}
	c.events = d.U64()
	c.eligible = d.U64()
	c.preempts = d.Int()
	c.held = d.U64()
	nc := d.Len(commCountSlots)
	for i := 0; i < nc && d.Err() == nil; i++ {
		slot := d.U64()
		v := d.U8()
		if slot >= commCountSlots {
			d.Fail("communication count slot %d", slot)
			break
		}
		c.counts[slot] = v
	}
	if err := c.rng.Restore(d); err != nil {
		return err
	}
	nch := d.Len(MaxPCTDepth)
	for i := 0; i < nch && d.Err() == nil; i++ {
		c.changes = append(c.changes, d.U64())
	}
	for i := range m.harts {
		c.resume[i] = d.U64()
		c.skip[i] = d.U64()
		c.hold[i] = holdState{until: d.U64(), pc: d.U64(), satp: d.U64(), since: d.U64()}
		c.ret[i] = retPoint{pc: d.U64(), satp: d.U64(), futex: d.Bool()}
		if c.hold[i].until != 0 {
			c.holds++
		}
	}
	if c.preempts < 0 || c.preempts > MaxPreemptions {
		d.Fail("communication preemptions %d", c.preempts)
	}
	return d.Err()
}
