package emu

import (
	"fmt"
	"slices"

	"everett/hw"
)

// Schedule perturbation. The scheduler runs harts in rounds (see Run). A
// policy decides, at the start of every round, the round's quantum, the
// order in which harts take their turns, and how much of its turn each hart
// gets before it is stalled ("preempted") until the next round. All of it is
// drawn from the scheduler's own PRNG stream, so that a run is a function of
// the seed, and so that changing another stream (network, disk) does not
// change the schedule.

// SchedMode selects a scheduling policy.
type SchedMode uint8

// Scheduling policies.
const (
	// SchedFixed: every round lasts Config.Quantum; harts run in id order,
	// each for the whole round. The default, and what `everett run` does.
	SchedFixed SchedMode = iota
	// SchedRandom: the quantum is drawn per round from [QuantumMin,
	// QuantumMax], harts run in a random order, and each hart is stalled
	// after a random part of its turn with probability StallPercent.
	SchedRandom
	// SchedPCT: harts run in priority order (PCT, Burckhardt et al. 2010):
	// priorities start as a random permutation; at Depth change points,
	// drawn uniformly in [0, Span) instructions, the hart that ran first
	// drops to the lowest priority. Quanta and stalls as in SchedRandom.
	SchedPCT
)

func (m SchedMode) String() string {
	switch m {
	case SchedFixed:
		return "fixed"
	case SchedRandom:
		return "random"
	case SchedPCT:
		return "pct"
	}
	return fmt.Sprintf("sched(%d)", uint8(m))
}

// SchedConfig configures a policy.
type SchedConfig struct {
	Mode         SchedMode
	QuantumMin   uint64 // slots; random and pct
	QuantumMax   uint64
	StallPercent uint64 // chance, per hart and round, of a stall
	Depth        int    // pct: number of priority change points
	Span         uint64 // pct: change points fall in [0, Span) instructions
	Seed         uint64 // seeds the scheduler's stream

	// Comm makes communication events (comm.go) preemption points: a hart
	// about to access data another hart accessed may be stopped before
	// the access and sit out YieldMin..YieldMax of virtual time while the
	// others run. At most Preemptions such preemptions happen. Under
	// SchedPCT the Depth change points are drawn among the next EventSpan
	// communication events (not among instructions), and the hart that
	// reaches one drops to the lowest priority; otherwise an event whose
	// (first pc, second pc) pair was seen n times before preempts with
	// probability 1/(PreemptOdds*(n+1)).
	Comm        bool
	Preemptions int
	PreemptOdds uint64
	EventSpan   uint64
	YieldMin    uint64
	YieldMax    uint64
	// Cluster, under SchedPCT over communication events, draws each change
	// point after the first within Cluster events after the one before
	// (uniformly in [1, Cluster]) instead of anywhere in EventSpan. A bug
	// of depth two or three needs its second change while the thread of
	// the first is still held back: a few events of the other threads
	// later, which uniform points over the whole span rarely are. 0: all
	// points uniform in the span.
	Cluster uint64
	// UserOnly limits those preemptions to harts in U-mode: the accesses
	// of a workload's threads to their own shared data, not the kernel's
	// locks and run queues, which on a Linux node are most events and
	// would spend the budget before the program's first race. Nor are
	// harts preempted in the address space the guest marked its own
	// (Hart.OwnSpace: everett's init).
	UserOnly bool
	// Hold makes those preemptions PCT's low priority over threads: a
	// hart preempted in U-mode sits out not for a drawn stretch but until
	// every other hart waits in WFI, is halted or is held too (nothing
	// else can run), or YieldMin..YieldMax passes (a bound for programs
	// that spin). An interrupt for the held hart (an IPI another hart
	// waits on) lets it run in the kernel; if it comes back to the same
	// access of the same address space, it is held again. Linux moves the
	// held hart's other threads to harts that go idle, so what is held
	// back is the one thread at the access the search chose, for however
	// long the others take.
	Hold bool
	// SyncPoints makes every LR, AMO and FENCE in U-mode (outside the own
	// space) a preemption point as well, whether or not another hart
	// touched its data yet: the lock a thread takes is where it can be
	// held back before the thread it races with even exists. They count
	// as events for the change points and the odds; needs Comm and
	// UserOnly. Machine.SetSyncRanges may limit them to a program's own
	// code.
	SyncPoints bool
}

// SetSyncRanges limits the preemptions of a UserOnly schedule (at
// synchronization points and communication events) to accesses whose pc,
// or whose return address (ra: a lock function the program called), lies
// in one of the [lo, hi) ranges rs, sorted and disjoint: the program's own
// code, not its runtime's. No ranges (the default): every access in
// U-mode. The ranges are state, saved with
// the scheduler; they stay across SetSchedule.
func (m *Machine) SetSyncRanges(rs [][2]uint64) error {
	if err := checkRanges(rs); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	m.sched.ranges = slices.Clone(rs)
	return nil
}

// MaxSyncRanges bounds Machine.SetSyncRanges.
const MaxSyncRanges = 1 << 14

// inRanges reports whether pc lies in one of the sorted ranges rs.
func inRanges(rs [][2]uint64, pc uint64) bool {
	i, _ := slices.BinarySearchFunc(rs, pc, func(r [2]uint64, pc uint64) int {
		switch {
		case r[1] <= pc:
			return -1
		case r[0] > pc:
			return 1
		}
		return 0
	})
	return i < len(rs) && rs[i][0] <= pc && pc < rs[i][1]
}

// MaxPCTDepth bounds the change points of a PCT schedule.
const MaxPCTDepth = 64

// MaxCluster bounds SchedConfig.Cluster.
const MaxCluster = 1 << 20

// sched is the scheduler's state; it is saved with the machine.
type sched struct {
	cfg     SchedConfig
	rng     *PRNG
	order   []int       // hart indices in this round's turn order
	stall   []uint64    // per hart: slots of its turn before it stalls (0: none)
	prio    []int       // pct: priority per hart (higher runs first)
	changes []uint64    // pct: pending change points, ascending icounts
	low     int         // pct: next lowest priority to hand out
	own     uint64      // satp of the address space the guest marked its own (OwnSpace; 0: none)
	ranges  [][2]uint64 // synchronization points' ranges (SetSyncRanges; nil: all)
}

// OwnSpace marks the address space h runs in (its satp) as the guest
// harness's own, not the workload's (the SDK's own_space, which everett's
// init calls): under SchedConfig.UserOnly no preemption stops a hart in it.
// One address space is remembered, the last marked.
func (h *Hart) OwnSpace() { h.m.sched.own = h.csr.satp }

// SetSchedule installs a scheduling policy. Call it before Run (or right
// after restoring a snapshot, to fork with a different schedule).
func (m *Machine) SetSchedule(c SchedConfig) error {
	if c.Mode > SchedPCT {
		return fmt.Errorf("%w: scheduling mode %d", ErrConfig, c.Mode)
	}
	if c.Mode != SchedFixed {
		if c.QuantumMin == 0 || c.QuantumMax < c.QuantumMin {
			return fmt.Errorf("%w: quantum range [%d, %d]", ErrConfig, c.QuantumMin, c.QuantumMax)
		}
		if c.StallPercent > 100 {
			return fmt.Errorf("%w: stall percent %d", ErrConfig, c.StallPercent)
		}
	}
	if c.Depth < 0 || c.Depth > MaxPCTDepth {
		return fmt.Errorf("%w: PCT depth %d (want 0..%d)", ErrConfig, c.Depth, MaxPCTDepth)
	}
	if c.Comm {
		if c.Preemptions < 0 || c.Preemptions > MaxPreemptions {
			return fmt.Errorf("%w: %d preemptions (want 0..%d)", ErrConfig, c.Preemptions, MaxPreemptions)
		}
		if c.Mode != SchedPCT && c.PreemptOdds == 0 {
			return fmt.Errorf("%w: preemption odds 0", ErrConfig)
		}
		if c.Mode == SchedPCT && c.EventSpan == 0 {
			return fmt.Errorf("%w: PCT over communication events needs an event span", ErrConfig)
		}
		if c.YieldMax < c.YieldMin {
			return fmt.Errorf("%w: yield range [%d, %d]", ErrConfig, c.YieldMin, c.YieldMax)
		}
	}
	if c.Cluster > MaxCluster {
		return fmt.Errorf("%w: change-point cluster %d (want 0..%d)", ErrConfig, c.Cluster, MaxCluster)
	}
	n := len(m.harts)
	s := &m.sched
	s.cfg = c
	s.rng = NewPRNG(c.Seed ^ 0x5c4ed)
	if m.wmo != nil {
		m.wmoSeed(c.Seed) // a schedule's seed also picks its reorderings
	}
	s.order = make([]int, n)
	s.stall = make([]uint64, n)
	s.prio = make([]int, n)
	s.changes = s.changes[:0]
	for i := range s.order {
		s.order[i] = i
	}
	if c.Mode == SchedPCT {
		perm := s.perm(n)
		for i, h := range perm {
			s.prio[h] = n + i // distinct, above every later "lowest"
		}
		for i := 0; i < c.Depth && c.Span > 0 && !c.Comm; i++ {
			s.changes = append(s.changes, m.icount+s.rng.Uint64()%c.Span)
		}
		slices.Sort(s.changes)
		s.low = 0
	}
	if c.SyncPoints && (!c.Comm || !c.UserOnly) {
		return fmt.Errorf("%w: synchronization points need communication preemptions in user mode", ErrConfig)
	}
	if c.Comm {
		m.TrackCommunication(true)
	}
	m.commSchedule()
	for _, h := range m.harts {
		h.updateMode()
	}
	return nil
}

// checkRanges checks that rs are sorted, disjoint, not empty and few
// enough (Machine.SetSyncRanges).
func checkRanges(rs [][2]uint64) error {
	if len(rs) > MaxSyncRanges {
		return fmt.Errorf("%d synchronization ranges (at most %d)", len(rs), MaxSyncRanges)
	}
	for i, r := range rs {
		if r[1] <= r[0] || i > 0 && r[0] < rs[i-1][1] {
			return fmt.Errorf("synchronization range %d [%#x, %#x) is empty or out of order", i, r[0], r[1])
		}
	}
	return nil
}

// perm draws a random permutation of 0..n-1 (Fisher-Yates).
func (s *sched) perm(n int) []int {
	p := make([]int, n)
	s.permInto(p)
	return p
}

// permInto draws a random permutation of 0..len(p)-1 into p, with the
// draws of perm: planRound's every round, without an allocation.
func (s *sched) permInto(p []int) {
	for i := range p {
		p[i] = i
	}
	for i := len(p) - 1; i > 0; i-- {
		j := int(s.rng.Uint64() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
}

// planRound decides the next round: its quantum, order and stalls.
func (m *Machine) planRound() uint64 {
	s := &m.sched
	n := len(m.harts)
	if len(s.order) != n {
		// No policy installed: the fixed schedule.
		s.order = make([]int, n)
		s.stall = make([]uint64, n)
		s.prio = make([]int, n)
		for i := range s.order {
			s.order[i] = i
		}
	}
	if s.cfg.Mode == SchedFixed {
		return m.cfg.Quantum
	}
	q := s.cfg.drawQuantum(s.rng)
	switch s.cfg.Mode {
	case SchedRandom:
		s.permInto(s.order)
	case SchedPCT:
		for len(s.changes) > 0 && s.changes[0] <= m.icount {
			// The hart that ran first (the highest priority) drops.
			top := s.order[0]
			s.low--
			s.prio[top] = s.low
			s.changes = s.changes[1:]
		}
		for i := range s.order {
			s.order[i] = i
		}
		slices.SortStableFunc(s.order, func(a, b int) int { return s.prio[b] - s.prio[a] })
	}
	for i := range s.stall {
		s.stall[i] = s.cfg.drawStall(s.rng, q)
	}
	return q
}

// drawQuantum draws a round's quantum (random and pct).
func (c *SchedConfig) drawQuantum(r *PRNG) uint64 {
	return c.QuantumMin + r.Uint64()%(c.QuantumMax-c.QuantumMin+1)
}

// drawStall draws how much of a round of quantum q a hart runs before it
// stalls (0: it does not).
func (c *SchedConfig) drawStall(r *PRNG, q uint64) uint64 {
	if c.StallPercent > 0 && r.Uint64()%100 < c.StallPercent {
		return 1 + r.Uint64()%q
	}
	return 0
}

// saveSched writes the scheduler's state.
func (m *Machine) saveSched(e *hw.Encoder) {
	s := &m.sched
	e.Tag("sched")
	e.U8(uint8(s.cfg.Mode))
	e.U64(s.cfg.QuantumMin)
	e.U64(s.cfg.QuantumMax)
	e.U64(s.cfg.StallPercent)
	e.Int(s.cfg.Depth)
	e.U64(s.cfg.Span)
	e.U64(s.cfg.Seed)
	e.Bool(s.cfg.Comm)
	e.Int(s.cfg.Preemptions)
	e.U64(s.cfg.PreemptOdds)
	e.U64(s.cfg.EventSpan)
	e.U64(s.cfg.YieldMin)
	e.U64(s.cfg.YieldMax)
	e.U64(s.cfg.Cluster)
	e.Bool(s.cfg.UserOnly)
	e.Bool(s.cfg.Hold)
	e.Bool(s.cfg.SyncPoints)
	e.U64(uint64(len(s.ranges)))
	for _, r := range s.ranges {
		e.U64(r[0])
		e.U64(r[1])
	}
	e.Bool(s.rng != nil)
	if s.rng != nil {
		s.rng.Save(e)
	}
	e.U64(uint64(len(s.order)))
	for i := range s.order {
		e.Int(s.order[i])
		e.U64(s.stall[i])
		e.Int(s.prio[i])
	}
	e.U64(uint64(len(s.changes)))
	for _, c := range s.changes {
		e.U64(c)
	}
	e.Int(s.low)
	e.U64(s.own)
	m.saveComm(e)
}

func (m *Machine) restoreSched(d *hw.Decoder) error {
	s := &m.sched
	d.Tag("sched")
	s.cfg.Mode = SchedMode(d.U8())
	s.cfg.QuantumMin = d.U64()
	s.cfg.QuantumMax = d.U64()
	s.cfg.StallPercent = d.U64()
	s.cfg.Depth = d.Int()
	s.cfg.Span = d.U64()
	s.cfg.Seed = d.U64()
	s.cfg.Comm = d.Bool()
	s.cfg.Preemptions = d.Int()
	s.cfg.PreemptOdds = d.U64()
	s.cfg.EventSpan = d.U64()
	s.cfg.YieldMin = d.U64()
	s.cfg.YieldMax = d.U64()
	s.cfg.Cluster = d.U64()
	s.cfg.UserOnly = d.Bool()
	s.cfg.Hold = d.Bool()
	s.cfg.SyncPoints = d.Bool()
	nr := d.Len(MaxSyncRanges)
	s.ranges = nil
	for i := 0; i < nr && d.Err() == nil; i++ {
		s.ranges = append(s.ranges, [2]uint64{d.U64(), d.U64()})
	}
	if d.Err() == nil {
		if err := checkRanges(s.ranges); err != nil {
			d.Fail("%v", err)
		}
	}
	if d.Bool() {
		s.rng = NewPRNG(0)
		if err := s.rng.Restore(d); err != nil {
			return err
		}
	} else {
		s.rng = nil
	}
	n := d.Len(MaxHarts)
	if d.Err() == nil && n != 0 && n != len(m.harts) {
		d.Fail("scheduler has %d harts, machine %d", n, len(m.harts))
	}
	s.order = make([]int, n)
	s.stall = make([]uint64, n)
	s.prio = make([]int, n)
	seen := make([]bool, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		o := d.Int()
		if o < 0 || o >= n || seen[o] {
			d.Fail("scheduler order entry %d", o)
			break
		}
		seen[o] = true
		s.order[i] = o
		s.stall[i] = d.U64()
		s.prio[i] = d.Int()
	}
	nc := d.Len(MaxPCTDepth)
	s.changes = make([]uint64, 0, nc)
	for i := 0; i < nc && d.Err() == nil; i++ {
		s.changes = append(s.changes, d.U64())
	}
	s.low = d.Int()
	s.own = d.U64()
	if s.cfg.Preemptions < 0 || s.cfg.Preemptions > MaxPreemptions || s.cfg.YieldMax < s.cfg.YieldMin || s.cfg.Cluster > MaxCluster {
		d.Fail("scheduler preemption settings")
	}
	if err := d.Err(); err != nil {
		return err
	}
	if err := m.restoreComm(d); err != nil {
		return err
	}
	if s.cfg.SyncPoints && (!s.cfg.Comm || !s.cfg.UserOnly || !m.comm.on) {
		d.Fail("synchronization points without communication tracking")
	}
	for _, h := range m.harts {
		h.updateMode()
	}
	if s.cfg.Mode > SchedPCT || (s.cfg.Mode != SchedFixed && (s.cfg.QuantumMin == 0 || s.cfg.QuantumMax < s.cfg.QuantumMin || s.rng == nil)) {
		d.Fail("scheduler configuration")
	}
	return d.Err()
}
