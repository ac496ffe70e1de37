package explorer

import (
	"io"
	"maps"
	"regexp"

	"everett/emu"
	"everett/hw"
)

// replayer replays a report's universe, following its fork path, to exact
// instruction counts, and restores from its own checkpoints.
type replayer struct {
	r    *Report
	spec *Spec
	u    *Universe
	next int    // index of the next fork in r.Path
	w    *watch // what it watches for: every universe it builds has it
}

// watch is what a replayer watches for in its universe: bisection's
// predicate (a console pattern, a trap; a breakpoint is set on the
// machine) and a debugger's stop conditions. A universe of a search has
// none. The run loop, the console and the trap observer of the universe
// set the hits.
type watch struct {
	console    *regexp.Regexp // a console line matching it sets consoleHit
	consoleHit bool
	trap       *trapWatch // a trap matching it sets trapHit
	trapHit    bool
	// breakHit says the last advance stopped at a breakpoint or a
	// debugger's condition, breakReason why.
	breakHit    bool
	breakReason emu.StopReason
	// A debugger's stop conditions (timeline.go), attached to node
	// dbgNode's machine whenever it is built.
	dbg     *emu.Debug
	dbgNode int
}

// replayerOf makes a replayer of universe u, before fork next of r's path,
// with nothing watched yet.
func replayerOf(r *Report, s *Spec, u *Universe, next int) *replayer {
	rp := &replayer{r: r, spec: s, u: u, next: next, w: &watch{}}
	u.watch = rp.w
	return rp
}

// newReplayer replays the report's universe from its start (instruction
// 0), booting.
func newReplayer(r *Report, suppress []int) (*replayer, error) {
	return newReplayerSkip(r, suppress, 0, true)
}

// newReplayerSkip is newReplayer for a caller that need not see the
// positions before instruction skip: it starts from the cached boot
// (bootcache.go) when there is one that ends at or before skip. With fork
// it stands past the fork at the setup point, as a replay that booted
// would after advancing there; without, right before it (a replayer that
// boots stands at instruction 0, before every fork).
func newReplayerSkip(r *Report, suppress []int, skip uint64, fork bool) (*replayer, error) {
	if err := r.checkMachine(); err != nil {
		return nil, err
	}
	s := r.spec()
	sup := append(append([]int(nil), suppress...), r.Suppressed...)
	if e := cachedBoot(r, suppressSet(sup)); e != nil && e.snap.ICount <= skip {
		u, err := fromBoot(s, e, suppressSet(sup))
		if err == nil {
			rp := replayerOf(r, s, u, 1)
			if fork {
				u.forkAt(r.Path[1])
				rp.next = 2
			}
			return rp, nil
		}
		bootNote("boot cache entry unusable, booting instead: %v", err)
		forget(r)
	}
	u, err := newUniverseEcho(s, r.Path[0], nil, sup)
	if err != nil {
		return nil, err
	}
	if r.Path[0].Plan == PlanBoot {
		replayBoots.Add(1)
	}
	return replayerOf(r, s, u, 1), nil
}

// ended reports whether the universe can go no further.
func (rp *replayer) ended() bool { return rp.u.failure != nil || rp.u.finished }

// advance runs to instruction count n (or the universe's end).
func (rp *replayer) advance(n uint64) {
	u := rp.u
	rp.w.breakHit = false
	for !rp.ended() && u.ICount() < n && !rp.w.breakHit {
		var stop uint64
		if rp.next < len(rp.r.Path) {
			stop = rp.r.Path[rp.next].At
		}
		u.runUntilCount(stop, n)
		if rp.ended() || u.ICount() >= n || rp.w.breakHit {
			return
		}
		if rp.next < len(rp.r.Path) && u.t >= rp.r.Path[rp.next].At {
			if rp.next == 1 {
				keepBoot(rp.r, u)
			}
			u.forkAt(rp.r.Path[rp.next])
			rp.next++
			continue
		}
		if u.t < stop || stop == 0 {
			// A window ended early with no progress possible.
			if u.ICount() < n && stop == 0 && !rp.ended() {
				continue
			}
		}
	}
}

// checkpoint freezes the replay.
type checkpoint struct {
	snap   *UniverseSnapshot
	next   int
	icount uint64
	fail   *Failure
	root   *RootTrap
	fin    bool
}

func (rp *replayer) checkpoint() *checkpoint {
	return &checkpoint{snap: rp.u.Snapshot("checkpoint"), next: rp.next, icount: rp.u.ICount(), fail: rp.u.failure, root: rp.u.root, fin: rp.u.finished}
}

// restore resumes from a checkpoint (no reseeding: the same future). The
// watch keeps its patterns and the debugger; its hits start anew.
func (rp *replayer) restore(c *checkpoint) error {
	rp.w.consoleHit, rp.w.trapHit, rp.w.breakHit = false, false, false
	u, err := restoreUniverse(rp.spec, c.snap, restoreOpts{suppress: rp.u.suppress, watch: rp.w})
	if err != nil {
		return err
	}
	u.failure, u.root, u.finished = c.fail, c.root, c.fin
	rp.u, rp.next = u, c.next
	return nil
}

// restoreOpts are the host-side settings of a restored universe.
type restoreOpts struct {
	suppress map[int]bool
	watch    *watch // a replayer's (a debugger's attached to its node)
	echo     func(int) io.Writer
	seen     *Seen
	maxSnaps int
}

// restoreUniverse rebuilds a universe exactly as it was at s (no reseeding).
func restoreUniverse(spec *Spec, s *UniverseSnapshot, o restoreOpts) (*Universe, error) {
	u := &Universe{
		spec: spec, plan: s.plan, t: s.T, path: append([]Fork(nil), s.Path...),
		faultSq: s.faultSq, kills: s.kills, chaosAt: s.chaosAt, setupDone: s.setupDone, setupAt: s.setupAt,
		progressAt: s.progressAt, liveStart: s.liveStart,
		decisions: append([]Decision(nil), s.decisions...), nextDecision: s.next,
		suppress: o.suppress, echo: o.echo, seen: o.seen, maxSnaps: o.maxSnaps,
		watch: o.watch,
	}
	u.setup()
	u.sw = s.sw.clone(u)
	u.asserts.merge(s.asserts)
	for i, ns := range s.nodes {
		n := &node{spec: ns.spec, down: ns.down, downBy: ns.downBy, done: ns.done, icount: ns.icount, tasksDone: ns.tasksDone, ready: ns.ready}
		u.nodes = append(u.nodes, n)
		if ns.down {
			continue
		}
		if err := u.boot(i, true, ns.snap); err != nil {
			return nil, err
		}
		n.console.tail = append([]byte(nil), ns.tail...)
		n.console.line = append([]byte(nil), ns.line...)
		n.console.bytes = ns.written
		n.traps.chains = (&trapTap{chains: ns.traps}).clone()
		n.traps.diverted = append([]trapEntry(nil), ns.diverted...)
		n.traps.lastUser, n.traps.seq = maps.Clone(ns.lastUser), ns.trapSeq
	}
	u.netRNG, u.fltRNG = emu.NewPRNG(0), emu.NewPRNG(0)
	if err := u.netRNG.Restore(hw.NewDecoder(s.net)); err != nil {
		return nil, err
	}
	if err := u.fltRNG.Restore(hw.NewDecoder(s.flt)); err != nil {
		return nil, err
	}
	u.faults = append([]faultEvent(nil), s.faults...)
	return u, nil
}

// advanceExact advances to n, passing breakpoints (tests).
func (rp *replayer) advanceExact(n uint64) {
	for !rp.ended() && rp.u.ICount() < n {
		rp.advance(n)
	}
}
