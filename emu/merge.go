package emu

import "math/rand/v2"

// Merged rounds. On a machine with one hart, a scheduling round boundary
// where no event is due, the policy does not stall the hart and the run's
// bounds are not reached changes nothing: the hart's next turn starts
// where its last one ended, and the interrupt check at its start finds
// what the check after its last block found. Such rounds run as one turn,
// so that translated code and the interpreter run long stretches instead
// of a few dozen instructions per round; the result is exactly that of
// the rounds one by one.
//
// The rounds are drawn ahead on a copy of the scheduler's stream. When the
// turn ends (the hart waits, the machine stops, the limit is reached), the
// round it ended in becomes the machine's current round: the stream is
// advanced by that round's draws and those before it, and now and
// sliceEnd are that round's. A snapshot or a state hash taken afterwards
// is the one the rounds one by one would give. An event scheduled or
// cancelled during the turn (a device the hart wrote to) ends it at the
// end of the round it happened in, where the next round is planned with
// the new event, as it would have been.
//
// Blocks run across the boundaries inside a merged turn, so coverage sees
// no edge into the middle of a block that only a round boundary made.

// merge is the state of a merged turn; none of it outlives the turn.
type merge struct {
	on    bool
	final bool     // no more rounds may join
	start uint64   // start of the turn's first round
	ends  []uint64 // end of each round of the turn, ascending
	icnt  uint64   // the machine's instruction count at start
	until uint64   // RunUntil's time bound (0: none)
	rng   PRNG     // the scheduler's stream, drawn ahead
	cha   rand.ChaCha8
}

// mergeAhead is how far ahead of the hart a merged turn's rounds are
// drawn, in instruction slots, at least; mergeRounds bounds a turn.
const (
	mergeAhead  = 4096
	mergeRounds = 4096
)

// canMerge reports whether hart h's turn, just started, may take the next
// rounds with it.
func (m *Machine) canMerge(h *Hart) bool {
	return len(m.harts) == 1 && !m.noMerge && m.wmo == nil && !m.comm.on && !m.brk.on &&
		m.dbg == nil && m.Tracer == nil && h.stallAt == 0
}

// beginMerge makes the turn that starts the current round (which ends at
// m.sliceEnd) a merged turn.
func (m *Machine) beginMerge(until uint64) {
	g := &m.mg
	g.on, g.final = true, false
	g.start, g.icnt, g.until = m.now, m.icount, until
	g.ends = append(g.ends[:0], m.sliceEnd)
	if r := m.sched.rng; m.sched.cfg.Mode != SchedFixed && r != nil {
		g.cha = *r.c
		g.rng = PRNG{c: &g.cha, draws: r.draws}
	}
	m.extendMerge(m.now)
}

// extendMerge adds rounds to the merged turn until they reach mergeAhead
// slots past local, or no more may join. m.sliceEnd is the last one's end.
func (m *Machine) extendMerge(local uint64) {
	g := &m.mg
	s := &m.sched
	for !g.final {
		e := g.ends[len(g.ends)-1]
		if e >= local+mergeAhead {
			break
		}
		// What RunUntil checks between rounds, and what planRound would
		// do at the next one's start.
		switch {
		case len(m.events) > 0 && m.events[0].at <= e,
			g.until != 0 && e >= g.until,
			len(g.ends) >= mergeRounds,
			len(s.changes) > 0 && s.changes[0] <= g.icnt+(e-g.start): // a PCT change point
			g.final = true
			continue
		}
		q := m.cfg.Quantum
		if s.cfg.Mode != SchedFixed {
			q = s.cfg.drawQuantum(&g.rng)
			if s.cfg.drawStall(&g.rng, q) != 0 {
				g.final = true // planned again, from the real stream, when it comes
				continue
			}
		}
		end := e + q
		if len(m.events) > 0 && m.events[0].at < end {
			end = m.events[0].at
		}
		if g.until != 0 && end > g.until {
			end = g.until
		}
		g.ends = append(g.ends, end)
	}
	m.sliceEnd = g.ends[len(g.ends)-1]
}

// mergeEnd is the end of the merged turn of h, drawn further ahead when
// the hart nears it.
func (m *Machine) mergeEnd(h *Hart) uint64 {
	if g := &m.mg; !g.final && g.ends[len(g.ends)-1]-h.local < mergeAhead {
		m.extendMerge(h.local)
	}
	return m.sliceEnd
}

// cutMerge ends the merged turn at the end of the round the instruction
// running now is in: an event was scheduled or cancelled, and the rounds
// after this one must be planned with it.
func (m *Machine) cutMerge() {
	g := &m.mg
	t := m.Now()
	k := 0
	for g.ends[k] <= t && k < len(g.ends)-1 {
		k++
	}
	g.ends = g.ends[:k+1]
	g.final = true
	m.sliceEnd = g.ends[k]
	m.cur.cut = true
}

// settleMerge ends hart h's merged turn: the round its local time is in
// (the first whose end it has not passed) becomes the current round.
func (m *Machine) settleMerge(h *Hart) {
	g := &m.mg
	g.on = false
	k := 0
	for k < len(g.ends)-1 && g.ends[k] < h.local {
		k++
	}
	s := &m.sched
	if s.cfg.Mode != SchedFixed {
		for i := 1; i <= k; i++ {
			s.cfg.drawStall(s.rng, s.cfg.drawQuantum(s.rng)) // draws no stall: the lookahead saw none
		}
	}
	m.mergedRounds += uint64(k)
	if k > 0 {
		m.now = g.ends[k-1]
	}
	m.sliceEnd = g.ends[k]
}

// MergeRounds turns merged rounds on (the default) or off. Results never
// depend on it: tests run both ways and compare.
func (m *Machine) MergeRounds(on bool) { m.noMerge = !on }

// MergedRounds returns how many scheduling rounds joined a merged turn (a
// diagnostic, not state).
func (m *Machine) MergedRounds() uint64 { return m.mergedRounds }
