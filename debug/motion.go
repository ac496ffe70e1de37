package debug

import (
	"fmt"

	"everett/debug/gdbstub"
	"everett/emu"
)

// How each command moves. Positions are instruction counts; the state at a
// position is the one a run stopped exactly there has, so that any way of
// getting to a position gives the same state:
//
//   - a stop of one hart (a breakpoint, a step) is right before the hart
//     uses its next instruction slot, after whatever the machine does
//     between its previous slot and that one (other harts' turns, a round's
//     events, an interrupt taken at the start of its turn);
//   - stepi runs the hart's next slot and stops before the one after;
//     reverse-stepi stops before the hart's last slot: the two undo each
//     other exactly;
//   - a watchpoint stops going forward right before the accessing
//     instruction, and going backward right after it: gdb then steps over
//     the access itself (RISC-V watchpoints are "non-steppable" to gdb:
//     they trigger before the access), forward or backward, and compares
//     the values;
//   - reverse-continue replays the interval before the current position
//     from the point that starts it, with the stop conditions on, and goes
//     to the last stop it saw; if there was none, the interval before.
//     With only write watchpoints, an interval in which no page of the
//     watched memory (nor of the page tables that map it) changed is
//     skipped without a replay: the snapshots say so.

// nextMultiple is the first multiple of every above pos.
func nextMultiple(pos, every uint64) uint64 { return (pos/every + 1) * every }

// outcome is how a forward run ended.
type outcome struct {
	r           emu.StopReason // a debugger's stop, or StopLimit
	end         string         // the run is over
	interrupted bool           // Ctrl-C
}

// forward runs to limit (0: none), freezing grid points as it passes them
// (and, with fine, points every fine instructions), until a stop condition
// of the attached Debug, the end of the run, or (interruptible) Ctrl-C.
func (s *Session) forward(limit, fine uint64, interruptible bool) outcome {
	for {
		pos := s.run.ICount()
		if limit != 0 && pos >= limit {
			return outcome{r: emu.StopLimit}
		}
		if interruptible && s.intr.Swap(false) {
			return outcome{interrupted: true}
		}
		next := nextMultiple(pos, s.every)
		if fine != 0 {
			next = min(next, nextMultiple(pos, fine))
		}
		if limit != 0 {
			next = min(next, limit)
		}
		r, end := s.run.Run(next)
		if end != "" {
			return outcome{end: end}
		}
		if r != emu.StopLimit {
			return outcome{r: r}
		}
		if p := s.run.ICount(); p%s.every == 0 {
			s.addPoint(true)
		} else if fine != 0 && p%fine == 0 {
			s.addPoint(false)
		}
	}
}

// goTo moves to position pos exactly, or to the end of the run if it comes
// first (reported by end). With fine, it leaves fine points on the way, for
// the steps backward that are likely to follow.
func (s *Session) goTo(pos uint64, fine bool) (end string, err error) {
	cur := s.run.ICount()
	i := s.find(pos+1) - 1 // the last point at or before pos
	if i < 0 {
		return "", fmt.Errorf("position %d is before the start of the session (%d)", pos, s.pts[0].icount)
	}
	if cur > pos || s.pts[i].icount > cur {
		if err := s.restore(s.pts[i]); err != nil {
			return "", err
		}
	}
	s.run.SetDebug(nil) // no stops on the way: the JIT may run
	every := uint64(0)
	if fine {
		every = s.fine
	}
	o := s.forward(pos, every, false)
	s.attach()
	return o.end, nil
}

// endStop is the stop at the end of the run.
func (s *Session) endStop(end string, tid int) gdbstub.Stop {
	return gdbstub.Stop{Kind: gdbstub.StopHistoryEnd, Thread: tid,
		Message: fmt.Sprintf("everett: the end of the run at icount=%d: %s\n", s.run.ICount(), end)}
}

// breakKind is the stop kind of a breakpoint at pc.
func (s *Session) breakKind(pc uint64) gdbstub.StopKind {
	if s.bps[pc] == gdbstub.BreakHW {
		return gdbstub.StopHWBreak
	}
	return gdbstub.StopBreak
}

// watchStop names the watchpoint an access hit.
func (s *Session) watchStop(h emu.WatchHit) (gdbstub.StopKind, uint64) {
	for _, w := range s.watches {
		if h.Addr+uint64(h.Size) <= w.addr || h.Addr >= w.addr+w.len {
			continue
		}
		if w.kind == gdbstub.WatchWrite && !h.Store || w.kind == gdbstub.WatchRead && h.Store {
			continue
		}
		addr := max(h.Addr, w.addr)
		switch w.kind {
		case gdbstub.WatchWrite:
			return gdbstub.StopWatch, addr
		case gdbstub.WatchRead:
			return gdbstub.StopRWatch, addr
		}
		return gdbstub.StopAWatch, addr
	}
	return gdbstub.StopAWatch, h.Addr
}

// stopFor turns a forward run's debugger stop into gdb's stop; for a
// watchpoint it goes back to right before the access (the machine stops
// at the end of the accessing instruction's block).
func (s *Session) stopFor(o outcome, tid int) (gdbstub.Stop, bool, error) {
	switch {
	case o.end != "":
		return s.endStop(o.end, tid), true, nil
	case o.interrupted:
		return gdbstub.Stop{Kind: gdbstub.StopInterrupt, Thread: tid}, true, nil
	}
	switch o.r {
	case emu.StopBreak:
		h := s.d.StopHart()
		hart, _ := s.hart(h + 1)
		pc := uint64(0)
		if hart != nil {
			pc = hart.PC()
		}
		return gdbstub.Stop{Kind: s.breakKind(pc), Thread: h + 1}, true, nil
	case emu.StopWatch:
		hits, _ := s.d.Hits()
		if len(hits) == 0 {
			return gdbstub.Stop{}, false, nil
		}
		h := hits[0]
		if _, err := s.goTo(h.Slot, true); err != nil {
			return gdbstub.Stop{}, false, err
		}
		kind, addr := s.watchStop(h)
		return gdbstub.Stop{Kind: kind, Thread: h.Hart + 1, Addr: addr}, true, nil
	case emu.StopStep:
		return gdbstub.Stop{Kind: gdbstub.StopStep, Thread: s.d.StopHart() + 1}, true, nil
	}
	return gdbstub.Stop{}, false, nil
}

// cont runs forward to the next stop. With only, stops of other harts are
// passed: gdb resumed the thread alone, to step it over a breakpoint it
// lifted, and the other harts cannot stand still in a run whose schedule
// is fixed; they run as it has them run, without stopping.
func (s *Session) cont(tid int, only bool) (gdbstub.Stop, error) {
	s.attach()
	return s.until(tid, only)
}

// until runs forward with the attached conditions to the next stop.
func (s *Session) until(tid int, only bool) (gdbstub.Stop, error) {
	for {
		st, ok, err := s.stopFor(s.forward(0, 0, true), tid)
		if err != nil {
			return st, err
		}
		if ok && only && st.Thread != tid && st.Kind != gdbstub.StopHistoryEnd && st.Kind != gdbstub.StopInterrupt {
			continue
		}
		if ok {
			return st, nil
		}
	}
}

// step runs hart tid-1 for one instruction slot and stops before its next
// (the other harts run as the schedule has them run meanwhile, and may stop
// first unless only).
func (s *Session) step(tid int, only bool) (gdbstub.Stop, error) {
	h, err := s.hart(tid)
	if err != nil {
		return gdbstub.Stop{}, err
	}
	s.d.StepHart(h.ID, h.Steps()+1)
	s.run.SetDebug(s.d)
	defer func() {
		s.d.StepHart(-1, 0)
		s.attach()
	}()
	return s.until(tid, only)
}

// reverseStep goes back to right before hart tid-1's last instruction slot.
func (s *Session) reverseStep(tid int) (gdbstub.Stop, error) {
	h, err := s.hart(tid)
	if err != nil {
		return gdbstub.Stop{}, err
	}
	hart, n, inc, pos := h.ID, h.Steps(), s.run.Incarnation(), s.run.ICount()
	begin := gdbstub.Stop{Kind: gdbstub.StopHistoryBegin, Thread: tid}
	if n == 0 {
		return begin, nil
	}
	want := n - 1
	// The last point of this machine before pos where the hart had used at
	// most want slots: the moment before its slot want+1 is at or after it.
	from, first := -1, -1
	for i, p := range s.pts {
		if p.icount >= pos {
			break
		}
		if p.inc != inc || p.steps == nil {
			continue
		}
		if first < 0 {
			first = i
		}
		if p.steps[hart] <= want {
			from = i
		}
	}
	if from < 0 {
		// No point early enough: the earliest of this machine is as far
		// back as the session can go.
		if first >= 0 {
			if err := s.restore(s.pts[first]); err != nil {
				return gdbstub.Stop{}, err
			}
			s.attach()
		}
		return begin, nil
	}
	if err := s.restore(s.pts[from]); err != nil {
		return gdbstub.Stop{}, err
	}
	s.stepper.StepHart(hart, want)
	s.run.SetDebug(s.stepper)
	o := s.forward(pos, s.fine, false)
	s.stepper.StepHart(-1, 0)
	s.attach()
	if o.r != emu.StopStep {
		return gdbstub.Stop{}, fmt.Errorf("replay from %d did not come back to hart %d's slot %d before %d (%v %q): the run is not deterministic", s.pts[from].icount, hart, want+1, pos, o.r, o.end)
	}
	return gdbstub.Stop{Kind: gdbstub.StopStep, Thread: tid}, nil
}

// event is a stop seen while replaying an interval.
type event struct {
	pos  uint64 // where going backward stops (see the top of the file)
	kind gdbstub.StopKind
	tid  int
	addr uint64
}

// reverseCont goes back to the last breakpoint or watchpoint stop before
// the current position, on any hart.
func (s *Session) reverseCont(tid int) (gdbstub.Stop, error) {
	if len(s.bps) == 0 && len(s.watches) == 0 {
		// Nothing can stop it: straight to the start.
		if err := s.restore(s.pts[0]); err != nil {
			return gdbstub.Stop{}, err
		}
		s.attach()
		return gdbstub.Stop{Kind: gdbstub.StopHistoryBegin, Thread: tid}, nil
	}
	pos := s.run.ICount()
	here := s.addPoint(false)
	skip := s.skipper(tid, here)
	b := pos
	for {
		i := s.find(b) - 1 // the last point before b
		if i < 0 {
			if err := s.restore(s.pts[0]); err != nil {
				return gdbstub.Stop{}, err
			}
			s.attach()
			return gdbstub.Stop{Kind: gdbstub.StopHistoryBegin, Thread: tid}, nil
		}
		a := s.pts[i]
		if skip != nil && skip(a, s.pts[i+1]) {
			b = a.icount
			continue
		}
		evs, interrupted, err := s.scan(a, b)
		if err != nil {
			return gdbstub.Stop{}, err
		}
		if interrupted {
			if _, err := s.goTo(a.icount, false); err != nil {
				return gdbstub.Stop{}, err
			}
			return gdbstub.Stop{Kind: gdbstub.StopInterrupt, Thread: tid}, nil
		}
		if len(evs) > 0 {
			return s.land(evs[len(evs)-1])
		}
		b = a.icount
	}
}

// scan replays [a, b) with the stop conditions on and returns the stops, in
// order of position.
func (s *Session) scan(a *point, b uint64) ([]event, bool, error) {
	if err := s.restore(a); err != nil {
		return nil, false, err
	}
	s.attach()
	var evs []event
	for {
		o := s.forward(b, 0, true) // fine points only where it lands
		switch {
		case o.interrupted:
			return nil, true, nil
		case o.end != "" || o.r == emu.StopLimit:
			return evs, false, nil
		case o.r == emu.StopBreak:
			h := s.d.StopHart()
			pc := uint64(0)
			if hart, err := s.hart(h + 1); err == nil {
				pc = hart.PC()
			}
			evs = append(evs, event{pos: s.run.ICount(), kind: s.breakKind(pc), tid: h + 1})
		case o.r == emu.StopWatch:
			hits, _ := s.d.Hits()
			for _, h := range hits {
				if h.Slot < b {
					kind, addr := s.watchStop(h)
					evs = append(evs, event{pos: h.Slot + 1, kind: kind, tid: h.Hart + 1, addr: addr})
				}
			}
		}
	}
}

// land goes to event e's position, as the stop itself would leave it.
func (s *Session) land(e event) (gdbstub.Stop, error) {
	if _, err := s.goTo(e.pos, true); err != nil {
		return gdbstub.Stop{}, err
	}
	if e.kind == gdbstub.StopBreak || e.kind == gdbstub.StopHWBreak {
		// Settle at the breakpoint: what the machine does between the
		// previous slot and this one (a round's events) happens, as it did
		// when the breakpoint stopped it going forward.
		s.attach()
		if r, _ := s.run.Run(e.pos + 1); r != emu.StopBreak || s.run.ICount() != e.pos {
			return gdbstub.Stop{}, fmt.Errorf("replay to the breakpoint at icount %d stopped with %v at %d: the run is not deterministic", e.pos, r, s.run.ICount())
		}
	}
	return gdbstub.Stop{Kind: e.kind, Thread: e.tid, Addr: e.addr}, nil
}

// skipper returns, when only write watchpoints are set and the memory they
// watch is mapped the same way in every address space (no translation, or
// the upper, kernel half), a test of whether the interval between two
// points can be skipped: no page of the watched data, nor of the page
// tables that map it now, changed in it. nil: every interval is replayed.
func (s *Session) skipper(tid int, here *point) func(a, b *point) bool {
	if len(s.bps) > 0 || len(s.watches) == 0 || here.p.Machine() == nil {
		return nil
	}
	h, err := s.hart(tid)
	if err != nil {
		return nil
	}
	var data, tables []uint64
	for _, w := range s.watches {
		if w.kind != gdbstub.WatchWrite {
			return nil
		}
		for va := w.addr &^ (emu.PageBytes - 1); va < w.addr+w.len; va += emu.PageBytes {
			pa, ptes, ok := h.PeekWalk(max(va, w.addr))
			if !ok || len(ptes) > 0 && int64(va) >= 0 {
				return nil // unmapped, or a user address: its mapping may differ between processes
			}
			data = append(data, pa)
			tables = append(tables, ptes...)
		}
	}
	return func(a, b *point) bool {
		sa, sb, sh := a.p.Machine(), b.p.Machine(), here.p.Machine()
		if sa == nil || sb == nil || a.inc != here.inc || b.inc != here.inc {
			return false
		}
		for _, pa := range data {
			if !sa.SamePage(sb, pa) {
				return false
			}
		}
		for _, pa := range tables {
			if !sa.SamePage(sh, pa) {
				return false
			}
		}
		return true
	}
}
