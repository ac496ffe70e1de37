package explorer

import (
	"fmt"

	"everett/emu"
	"everett/emu/board"
)

// Timeline is a report's universe as a debugger walks it: it replays the
// report's fork path to any instruction count, stops where the debugger's
// conditions (an emu.Debug on one node's machine) say, and freezes and
// restores itself at points. Positions are the universe's instruction
// count, all nodes and their earlier incarnations (Universe.ICount).
type Timeline struct {
	rp   *replayer
	node int
}

// TimelinePoint is a frozen position of a Timeline.
type TimelinePoint struct {
	c    *checkpoint
	node int
}

// timelineForever is the instruction count Run uses for "no limit": far
// beyond any budget, and far from overflowing the counts it is added to.
const timelineForever = 1 << 62

// NewTimeline opens report r's universe at its start, with node as the node
// a debugger looks at.
func NewTimeline(r *Report, node int) (*Timeline, error) {
	if r == nil || len(r.Path) == 0 {
		return nil, fmt.Errorf("%w: the report has no fork path", ErrReport)
	}
	s := r.spec()
	if node < 0 || node >= len(s.Nodes) {
		return nil, fmt.Errorf("node %d: the report's universe has nodes 0..%d", node, len(s.Nodes)-1)
	}
	rp, err := newReplayer(r, nil)
	if err != nil {
		return nil, err
	}
	rp.w.dbgNode = node
	return &Timeline{rp: rp, node: node}, nil
}

// SetDebug attaches d to the node's machine, now and whenever it is built
// again (a restart, a restore).
func (t *Timeline) SetDebug(d *emu.Debug) {
	u := t.rp.u
	t.rp.w.dbg = d
	if n := u.nodes[t.node]; n.b != nil && !n.down {
		n.b.SetDebug(d)
	}
}

// ICount is the position: the universe's instruction count.
func (t *Timeline) ICount() uint64 { return t.rp.u.ICount() }

// Machine returns the node's machine, or nil while it is down.
func (t *Timeline) Machine() *emu.Machine {
	n := t.rp.u.nodes[t.node]
	if n.b == nil || n.down {
		return nil
	}
	return n.b.Machine
}

// Incarnation counts the node's restarts: it changes when its machine is
// replaced by a new one.
func (t *Timeline) Incarnation() uint64 { return t.rp.u.nodes[t.node].icount }

// Run goes forward until the position reaches limit (0: no limit), a
// debugger's condition stops the node's machine (its reason is returned), or
// the universe ends (end says how: the report's failure, or why it
// finished).
func (t *Timeline) Run(limit uint64) (r emu.StopReason, end string) {
	if limit == 0 {
		limit = timelineForever
	}
	if e := t.End(); e != "" {
		return emu.StopNone, e
	}
	t.rp.advance(limit)
	u := t.rp.u
	switch {
	case t.rp.w.breakHit:
		return t.rp.w.breakReason, ""
	case t.rp.ended():
		return emu.StopNone, t.End()
	case u.ICount() >= limit:
		return emu.StopLimit, ""
	}
	return emu.StopNone, "the universe cannot go on"
}

// End describes how the universe ended ("" while it goes on).
func (t *Timeline) End() string {
	u := t.rp.u
	switch {
	case u.failure != nil:
		f := u.failure
		return fmt.Sprintf("the report's failure: %s (node %d, hart %d)", f.Signature(), f.Node, f.Hart)
	case u.finished:
		return "the universe finished: " + u.reason
	}
	return ""
}

// Point freezes the current position.
func (t *Timeline) Point() *TimelinePoint {
	return &TimelinePoint{c: t.rp.checkpoint(), node: t.node}
}

// Restore goes back (or forward) to p exactly.
func (t *Timeline) Restore(p *TimelinePoint) error {
	if p.node != t.node {
		return fmt.Errorf("a point of node %d restored into a timeline of node %d", p.node, t.node)
	}
	return t.rp.restore(p.c)
}

// ICount is the point's position.
func (p *TimelinePoint) ICount() uint64 { return p.c.icount }

// Machine returns the node's machine snapshot at the point (nil: down).
func (p *TimelinePoint) Machine() *emu.Snapshot { return p.c.snap.nodes[p.node].snap }

// Incarnation is the node's restart count at the point (Timeline.Incarnation).
func (p *TimelinePoint) Incarnation() uint64 { return p.c.snap.nodes[p.node].icount }

// StateHash hashes the whole universe (Universe.StateHash).
func (t *Timeline) StateHash() uint64 { return t.rp.u.StateHash() }

// ConsoleTail returns the node's console tail.
func (t *Timeline) ConsoleTail() string { return t.rp.u.ConsoleTails()[t.node] }

// Snapshot freezes the universe at the current position (for saving).
func (t *Timeline) Snapshot() *UniverseSnapshot { return t.rp.u.Snapshot("debug") }

// NodeSpec is the machine spec of the timeline's node.
func (t *Timeline) NodeSpec() *board.Spec { return t.rp.u.nodes[t.node].spec }
