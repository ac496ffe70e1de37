package debug

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"everett/debug/gdbstub"
	"everett/emu"
)

// DefaultEvery is the default spacing of a session's points, in
// instructions: going backward replays at most this many instructions
// (with the interpreter and the watchpoints on) before it finds its place,
// and a run of N instructions keeps N/DefaultEvery points.
const DefaultEvery = 1 << 24

// maxFine bounds the points a session takes between grid points while it
// replays (they make the next step backward short); the ones farthest from
// the current position go first.
const maxFine = 512

// fineParts is how many fine points a replay takes per grid interval.
const fineParts = 64

// Options configure a session.
type Options struct {
	// Every is the spacing of grid points (0: DefaultEvery).
	Every uint64
	// Save writes the debugged machine's state at the current position to
	// a snapshot file (monitor snapshot); nil: not available.
	Save func(path string, m *emu.Machine) error
}

// point is one frozen position.
type point struct {
	p      Point
	icount uint64
	inc    uint64
	steps  []uint64 // Steps of each hart of the debugged machine (nil: down)
	grid   bool     // on the grid (kept), or fine (evicted first)
}

// watch is one of gdb's watchpoints.
type watch struct {
	kind      gdbstub.BreakKind
	addr, len uint64
}

// Session is a debugging session of a Run: what gdb sees of it. It
// implements gdbstub.Target.
type Session struct {
	run     Run
	every   uint64
	fine    uint64
	pts     []*point // by icount, at most one per icount; pts[0] is the start
	nFine   int
	d       *emu.Debug // the user's breakpoints and watchpoints
	stepper *emu.Debug // the step target of a replay backward, alone
	bps     map[uint64]gdbstub.BreakKind
	watches []watch
	stop    gdbstub.Stop
	intr    atomic.Bool
	harts   int
	// divergedAt: the user changed registers or memory at this position
	// (0: never); points from it on belong to the changed run.
	divergedAt uint64
	save       func(path string, m *emu.Machine) error
}

var _ gdbstub.Target = (*Session)(nil)

// ErrNoMachine is returned when the debugged node is down.
var ErrNoMachine = errors.New("the node is down: it has no machine at this position")

// NewSession starts a session at run's current position.
func NewSession(run Run, o Options) (*Session, error) {
	m := run.Machine()
	if m == nil {
		return nil, ErrNoMachine
	}
	s := &Session{
		run: run, every: o.Every, d: emu.NewDebug(), stepper: emu.NewDebug(),
		bps: map[uint64]gdbstub.BreakKind{}, harts: len(m.Harts()), save: o.Save,
	}
	if s.every == 0 {
		s.every = DefaultEvery
	}
	s.fine = max(s.every/fineParts, 1)
	s.addPoint(true)
	s.stop = gdbstub.Stop{Kind: gdbstub.StopStep, Thread: 1}
	return s, nil
}

// ICount is the current position.
func (s *Session) ICount() uint64 { return s.run.ICount() }

// StateHash hashes the run's state at the current position.
func (s *Session) StateHash() uint64 { return s.run.StateHash() }

// find returns the index of the first point with icount ≥ pos.
func (s *Session) find(pos uint64) int {
	return sort.Search(len(s.pts), func(i int) bool { return s.pts[i].icount >= pos })
}

// addPoint freezes the current position unless a point has it already.
func (s *Session) addPoint(grid bool) *point {
	pos := s.run.ICount()
	i := s.find(pos)
	if i < len(s.pts) && s.pts[i].icount == pos {
		if grid {
			if !s.pts[i].grid {
				s.nFine--
			}
			s.pts[i].grid = true
		}
		return s.pts[i]
	}
	p := &point{p: s.run.Point(), icount: pos, inc: s.run.Incarnation(), grid: grid}
	if m := s.run.Machine(); m != nil {
		for _, h := range m.Harts() {
			p.steps = append(p.steps, h.Steps())
		}
	}
	s.pts = slices.Insert(s.pts, i, p)
	if !grid {
		s.nFine++
		s.evict(pos)
	}
	return p
}

// evict drops the fine points farthest from pos while there are too many.
func (s *Session) evict(pos uint64) {
	for s.nFine > maxFine {
		far, dist := -1, uint64(0)
		for i, p := range s.pts {
			d := max(p.icount, pos) - min(p.icount, pos)
			if !p.grid && d >= dist {
				far, dist = i, d
			}
		}
		s.pts = slices.Delete(s.pts, far, far+1)
		s.nFine--
	}
}

// restore moves to point p.
func (s *Session) restore(p *point) error {
	if err := s.run.Restore(p.p); err != nil {
		return fmt.Errorf("restore the point at %d: %w", p.icount, err)
	}
	if s.divergedAt != 0 && p.icount < s.divergedAt {
		// Back before the user's change: the points it made are of a run
		// that no longer is.
		s.pts = slices.DeleteFunc(s.pts, func(q *point) bool {
			if q.icount >= s.divergedAt && !q.grid {
				s.nFine--
			}
			return q.icount >= s.divergedAt
		})
		s.divergedAt = 0
	}
	return nil
}

// diverge records that the user changed the state at the current position:
// the points after it show a future that will not happen.
func (s *Session) diverge() {
	pos := s.run.ICount()
	first := s.pts[0]
	s.pts = slices.DeleteFunc(s.pts, func(q *point) bool {
		drop := q.icount >= pos && q != first
		if drop && !q.grid {
			s.nFine--
		}
		return drop
	})
	if s.divergedAt == 0 || pos < s.divergedAt {
		s.divergedAt = max(pos, 1)
	}
}

// attach puts the user's stop conditions on the machine, or none when there
// are none (the machine then runs at full speed, JIT included).
func (s *Session) attach() {
	if len(s.bps) == 0 && len(s.watches) == 0 {
		s.run.SetDebug(nil)
		return
	}
	s.run.SetDebug(s.d)
}

// apply hands the breakpoints and watchpoints to the Debug.
func (s *Session) apply() error {
	pcs := make([]uint64, 0, len(s.bps))
	for a := range s.bps {
		pcs = append(pcs, a)
	}
	s.d.SetBreakpoints(pcs) // sorts: map order does not matter
	ws := make([]emu.Watchpoint, 0, len(s.watches))
	for _, w := range s.watches {
		ws = append(ws, emu.Watchpoint{Addr: w.addr, Len: w.len, Kind: emuKind(w.kind)})
	}
	if err := s.d.SetWatchpoints(ws); err != nil {
		return err
	}
	s.attach()
	return nil
}

func emuKind(k gdbstub.BreakKind) emu.WatchKind {
	switch k {
	case gdbstub.WatchWrite:
		return emu.WatchStore
	case gdbstub.WatchRead:
		return emu.WatchLoad
	}
	return emu.WatchLoad | emu.WatchStore
}

// hart returns the hart of thread tid.
func (s *Session) hart(tid int) (*emu.Hart, error) {
	m := s.run.Machine()
	if m == nil {
		return nil, ErrNoMachine
	}
	if tid < 1 || tid > len(m.Harts()) {
		return nil, fmt.Errorf("no thread %d: the machine has harts 0..%d (threads 1..%d)", tid, len(m.Harts())-1, len(m.Harts()))
	}
	return m.Hart(tid - 1), nil
}

// Threads implements gdbstub.Target: thread i+1 is hart i.
func (s *Session) Threads() []int {
	t := make([]int, s.harts)
	for i := range t {
		t[i] = i + 1
	}
	return t
}

// ThreadInfo implements gdbstub.Target.
func (s *Session) ThreadInfo(tid int) string {
	h, err := s.hart(tid)
	if err != nil {
		return fmt.Sprintf("hart %d (down)", tid-1)
	}
	state := emu.PrivName(h.Priv()) + "-mode"
	switch {
	case h.Halted():
		state = "halted"
	case h.Waiting():
		state += ", waiting for an interrupt"
	}
	return fmt.Sprintf("hart %d, %s", tid-1, state)
}

// ReadReg implements gdbstub.Target.
func (s *Session) ReadReg(tid int, r gdbstub.Reg) (uint64, bool) {
	h, err := s.hart(tid)
	if err != nil {
		return 0, false
	}
	switch r.Kind {
	case gdbstub.RegX:
		return h.X(r.N), r.N >= 0 && r.N < 32
	case gdbstub.RegPC:
		return h.PC(), true
	case gdbstub.RegF:
		return h.F(r.N), r.N >= 0 && r.N < 32
	case gdbstub.RegCSR:
		if r.N < 0 || r.N > 0xfff {
			return 0, false
		}
		return h.PeekCSR(uint16(r.N))
	case gdbstub.RegPriv:
		return uint64(h.Priv()), true
	}
	return 0, false
}

// WriteReg implements gdbstub.Target: x, f and pc registers. The change
// holds until the session goes back before it.
func (s *Session) WriteReg(tid int, r gdbstub.Reg, v uint64) error {
	h, err := s.hart(tid)
	if err != nil {
		return err
	}
	switch {
	case r.Kind == gdbstub.RegX && r.N >= 0 && r.N < 32:
		s.diverge()
		h.SetX(r.N, v)
	case r.Kind == gdbstub.RegF && r.N >= 0 && r.N < 32:
		s.diverge()
		h.SetF(r.N, v)
	case r.Kind == gdbstub.RegPC:
		s.diverge()
		h.SetPC(v)
	default:
		return fmt.Errorf("register %v %d cannot be written from the debugger", r.Kind, r.N)
	}
	return nil
}

// ReadMem implements gdbstub.Target: through the thread's translation,
// without side effects.
func (s *Session) ReadMem(tid int, addr uint64, b []byte) (int, error) {
	h, err := s.hart(tid)
	if err != nil {
		return 0, err
	}
	return h.PeekVirt(addr, b)
}

// WriteMem implements gdbstub.Target. The change holds until the session
// goes back before it.
func (s *Session) WriteMem(tid int, addr uint64, b []byte) error {
	h, err := s.hart(tid)
	if err != nil {
		return err
	}
	old := make([]byte, len(b))
	if n, err := h.PeekVirt(addr, old); err != nil || n < len(b) {
		return fmt.Errorf("write of %d bytes at %#x: not all mapped to RAM", len(b), addr)
	}
	if slices.Equal(old, b) {
		return nil // gdb rewrites what is there (breakpoint bookkeeping): no change
	}
	s.diverge()
	return h.PokeVirt(addr, b)
}

// Breakpoint implements gdbstub.Target: software and hardware breakpoints
// are the same (the emulator checks addresses; guest memory is never
// patched), and watchpoints watch virtual addresses on every hart.
func (s *Session) Breakpoint(kind gdbstub.BreakKind, addr, size uint64, insert bool) error {
	switch kind {
	case gdbstub.BreakSW, gdbstub.BreakHW:
		if insert {
			s.bps[addr] = kind
		} else {
			delete(s.bps, addr)
		}
	case gdbstub.WatchWrite, gdbstub.WatchRead, gdbstub.WatchAccess:
		w := watch{kind: kind, addr: addr, len: max(size, 1)}
		i := slices.Index(s.watches, w)
		switch {
		case insert && i < 0:
			s.watches = append(s.watches, w)
		case !insert && i >= 0:
			s.watches = slices.Delete(s.watches, i, i+1)
		}
	default:
		return fmt.Errorf("breakpoint kind %d: %w", kind, errors.ErrUnsupported)
	}
	return s.apply()
}

// Interrupt implements gdbstub.Target: the motion in progress stops at its
// next chunk boundary.
func (s *Session) Interrupt() { s.intr.Store(true) }

// Stopped implements gdbstub.Target.
func (s *Session) Stopped() gdbstub.Stop { return s.stop }

// Resume implements gdbstub.Target.
func (s *Session) Resume(r gdbstub.Resume) (gdbstub.Stop, error) {
	var st gdbstub.Stop
	var err error
	switch {
	case r.Step && r.Reverse:
		st, err = s.reverseStep(r.Thread)
	case r.Step:
		st, err = s.step(r.Thread, r.Only)
	case r.Reverse:
		st, err = s.reverseCont(r.Thread)
	default:
		st, err = s.cont(r.Thread, r.Only)
	}
	if err != nil {
		return gdbstub.Stop{}, err
	}
	if st.Thread == 0 {
		st.Thread = r.Thread
	}
	s.stop = st
	return st, nil
}
