package explorer

import (
	"io"
	"maps"
	"regexp"

	"everett/emu"
	"everett/emu/board"
	"everett/hw"
)

// UniverseSnapshot is a frozen universe: every node's machine snapshot (the
// copy-on-write pages are shared with the universe it came from and with
// every fork), the switch, the fault schedule and the oracles' state. A
// snapshot is immutable: many universes fork from it at once.
type UniverseSnapshot struct {
	T      uint64
	ICount uint64
	Path   []Fork
	Why    string

	plan       Plan
	nodes      []nodeState
	sw         *Switch
	net, flt   []byte
	faults     []faultEvent
	faultSq    int
	kills      int
	chaosAt    uint64
	asserts    []AssertionState
	setupDone  bool
	setupAt    uint64
	progressAt uint64
	liveStart  uint64
	decisions  []Decision
	next       int
	newEdges   int

	// lazy, when set, makes this a placeholder for another worker's
	// corpus entry, rebuilt on first use (share.go); its other fields
	// are unset.
	lazy *lazyEntry
}

type nodeState struct {
	spec    *board.Spec
	snap    *emu.Snapshot
	down    bool
	downBy  int
	done    bool
	icount  uint64
	tail    []byte
	line    []byte
	written uint64
	traps   [][]trapEntry
	// diverted: the user exceptions the kernel did not return from
	// (roottrap.go); tasksDone, ready: the workload's (oracle.go).
	diverted         []trapEntry
	lastUser         map[uint64]uint64
	trapSeq          uint64
	tasksDone, ready bool
}

// takeSnapshot freezes the universe (at a window boundary) into its list of
// snapshots, which the search may add to its corpus.
func (u *Universe) takeSnapshot(why string) {
	if len(u.snaps) >= u.maxSnaps {
		return
	}
	u.snaps = append(u.snaps, u.Snapshot(why))
}

// Snapshot freezes the universe at its current window boundary.
func (u *Universe) Snapshot(why string) *UniverseSnapshot {
	s := &UniverseSnapshot{
		T: u.t, ICount: u.ICount(), Path: append([]Fork(nil), u.path...), Why: why,
		plan: u.plan, sw: u.sw.clone(nil), faults: append([]faultEvent(nil), u.faults...),
		faultSq: u.faultSq, kills: u.kills, chaosAt: u.chaosAt, asserts: u.asserts.list(), setupDone: u.setupDone, setupAt: u.setupAt,
		progressAt: u.progressAt, liveStart: u.liveStart,
		decisions: append([]Decision(nil), u.decisions...), next: u.nextDecision, newEdges: u.newEdges,
	}
	var e hw.Encoder
	u.netRNG.Save(&e)
	s.net = append([]byte(nil), e.Bytes()...)
	e.Reset()
	u.fltRNG.Save(&e)
	s.flt = append([]byte(nil), e.Bytes()...)
	for _, n := range u.nodes {
		ns := nodeState{spec: n.spec, down: n.down, downBy: n.downBy, done: n.done, icount: n.icount, tasksDone: n.tasksDone, ready: n.ready}
		if n.console != nil {
			ns.tail = append([]byte(nil), n.console.tail...)
			ns.line = append([]byte(nil), n.console.line...)
			ns.written = n.console.bytes
		}
		if !n.down {
			ns.snap = n.b.Snapshot()
			ns.traps = n.traps.clone()
			ns.diverted = append([]trapEntry(nil), n.traps.diverted...)
			ns.lastUser, ns.trapSeq = maps.Clone(n.traps.lastUser), n.traps.seq
		}
		s.nodes = append(s.nodes, ns)
	}
	return s
}

// forkWith builds a universe from snapshot s whose future is step f (its
// seed, and where its plan comes from), echoing the nodes' consoles when
// echo is set.
func forkWith(spec *Spec, s *UniverseSnapshot, f Fork, seen *Seen, echo func(int) io.Writer) (*Universe, error) {
	u, err := restoreUniverse(spec, s, restoreOpts{echo: echo, seen: seen, maxSnaps: 4})
	if err != nil {
		return nil, err
	}
	u.forkAt(f)
	return u, nil
}

// forkAt gives the universe a new future from its current time: every
// stream restarts from f.Seed, pending heals and restarts of its past stay,
// and new partitions and crashes are drawn. With f.Plan = PlanSeed the
// plan, too, is drawn afresh from the seed (and the seed's clock skew
// applied): the universe becomes that seed's root. A fork from a snapshot
// and a replay that reaches the fork's time both do exactly this.
func (u *Universe) forkAt(f Fork) {
	var keep []faultEvent
	for _, e := range u.faults {
		if e.Kind == "heal" || e.Kind == "restart" {
			keep = append(keep, e)
		}
	}
	if f.Plan == PlanSeed {
		u.plan = planOf(u.spec, f, u.plan)
		u.skewClocks(f.Seed)
	}
	u.reseed(f.Seed)
	u.faults = append(u.faults, keep...)
	sortFaults(u.faults)
	u.path = append(u.path, Fork{At: u.t, Seed: f.Seed, Plan: f.Plan})
}

func mustCompile(p string) *regexp.Regexp { return regexp.MustCompile(p) }

// forkAtTime0 is forkAt for a universe that has not run (tests).
func (u *Universe) forkAtTime0(seed uint64) { u.forkAt(Fork{Seed: seed}) }
