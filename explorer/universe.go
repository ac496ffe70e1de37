package explorer

import (
	"fmt"
	"io"
	"sync/atomic"

	"everett/emu"
	"everett/emu/board"
	"everett/hw"
)

// A universe is the nodes of a spec, the switch between them and the fault
// model, all on one goroutine, all a function of a seed (and, for a forked
// universe, of its fork path). Its streams:
//
//   - each node's guest stream (virtio-rng, SDK random) and scheduler
//     stream;
//   - the network stream (packet fates);
//   - the fault stream (partitions, crashes, disk faults, clock skew).
//
// Streams are independent so that suppressing one decision (shrinking)
// leaves every other draw unchanged.

// Fork is one step of a universe's history: from virtual time At on, its
// streams were seeded with Seed. The first step (At = 0) is the root.
type Fork struct {
	At   uint64 `json:"at"`
	Seed uint64 `json:"seed"`
	// Plan says where the step's plan (fault model and schedule) comes
	// from: "" keeps the universe's (for the root: drawn from Seed),
	// PlanBoot is the unperturbed boot's, PlanSeed draws it from Seed.
	Plan string `json:"plan,omitempty"`
}

// Plans of a fork step. A root universe started from the boot snapshot has
// the path [{0, setup seed, boot}, {setup time, seed, seed}]: it boots as
// the boot universe did, then takes its own seed's plan, exactly as if it
// had been a root of that seed from the start.
const (
	PlanBoot = "boot" // only the first step: no faults, the fixed schedule
	PlanSeed = "seed" // only later steps: the plan drawn from the step's seed
)

type node struct {
	b       *board.Built
	spec    *board.Spec
	console *consoleTap
	down    bool // crashed, waiting for restart
	downBy  int  // the Seq of the crash that took it down
	done    bool // powered off
	// tasksDone: everett's init reported that the workload's tasks
	// exited 0 (the node may still run services). ready: it called
	// setup_complete.
	tasksDone, ready bool
	icount           uint64 // instructions of earlier incarnations (crash/restart)
	traps            *trapTap
	// enteredUser: a hart of the node has entered user mode (the init
	// setup point), seen at a window boundary. Only the boot universe
	// looks: it is not state.
	enteredUser bool
}

// Universe is one run.
type Universe struct {
	spec  *Spec
	plan  Plan
	nodes []*node
	sw    *Switch

	t       uint64 // virtual time of the last window boundary
	window  uint64
	path    []Fork
	netRNG  *emu.PRNG
	fltRNG  *emu.PRNG
	faults  []faultEvent
	faultSq int
	kills   int    // kill faults drawn (KillNext)
	chaosAt uint64 // when the chaos phase began (the last reseed)

	console []consolePattern
	asserts assertions

	setupDone bool
	setupAt   uint64
	// stopAtSetup: the boot universe, which stops at the first window
	// boundary past the spec's setup point. Only where it stops may
	// depend on it: a replay of the boot's path is built without it and
	// must run the same (see inBootStep).
	stopAtSetup bool
	progressAt  uint64
	liveStart   uint64 // liveness phase start (0: not started)

	decisions    []Decision
	nextDecision int
	suppress     map[int]bool

	// cancel, when set, stops the run at a round boundary once true (the
	// explorer's wall-time budget, stop-on-failure); cancelled says it
	// did, and that the universe is to be thrown away (run.go).
	cancel    *atomic.Bool
	cancelled bool

	failure  *Failure
	root     *RootTrap // the exception that led to the failure, if known
	failTime uint64
	finished bool
	reason   string

	// Coverage: this universe's bitmap and the search's at the start.
	cov      *emu.Coverage
	seen     *Seen // the search's coverage when the universe started (nil: none)
	newEdges int   // novel buckets (edges and pairs) at the last check
	wantSnap []string
	snaps    []*UniverseSnapshot
	maxSnaps int
	echo     func(node int) io.Writer

	// watch is what a replayer watches for (replayer.go): nil in a
	// search.
	watch *watch

	// Kept when the machines are released.
	hash        uint64
	icountEnd   uint64
	preemptions int // at communication events, all nodes
	tails       []string
	jit         emu.JITStats // of released and crashed machines (engine.go)
}

// newUniverse builds the root universe of seed (path [{0, seed}]).
func newUniverse(s *Spec, root uint64, seen *Seen) (*Universe, error) {
	return newUniverseWith(s, Fork{Seed: root}, seen, nil)
}

// newUniverseWith builds the universe whose path starts with first, with
// pre applied before the nodes are built.
func newUniverseWith(s *Spec, first Fork, seen *Seen, pre func(*Universe)) (*Universe, error) {
	root := first.Seed
	u := &Universe{
		spec:     s,
		plan:     drawPlan(s, root),
		path:     []Fork{{At: 0, Seed: root, Plan: first.Plan}},
		seen:     seen,
		maxSnaps: 4,
	}
	if first.Plan == PlanBoot {
		u.plan = bootPlan(s)
	}
	if pre != nil {
		pre(u)
	}
	u.setup()
	macs := make([][6]byte, len(s.nodes))
	for i, bs := range s.nodes {
		if bs.MAC != "" {
			fmt.Sscanf(bs.MAC, "%x:%x:%x:%x:%x:%x", &macs[i][0], &macs[i][1], &macs[i][2], &macs[i][3], &macs[i][4], &macs[i][5])
		}
	}
	u.sw = newSwitch(u, macs)
	for i, bs := range s.nodes {
		spec := *bs
		spec.Seed = derive(root, streamGuest+uint64(i))
		n := &node{spec: &spec}
		u.nodes = append(u.nodes, n)
		if err := u.boot(i, false, nil); err != nil {
			return nil, err
		}
	}
	u.skewClocks(root)
	u.reseed(root)
	return u, nil
}

// skewClocks moves each running node's clock forward by its skew, drawn
// from seed (when the plan has clock skew).
func (u *Universe) skewClocks(seed uint64) {
	ticks := u.plan.SkewMax / 100 // mtime ticks at 10 MHz
	if ticks == 0 {
		return
	}
	r := emu.NewPRNG(derive(seed, streamFault+1000))
	for _, n := range u.nodes {
		if n.b != nil && !n.down && n.b.Virt != nil {
			n.b.Virt.CLINT.SetSkew(r.Uint64() % ticks)
		}
	}
}

// setup prepares what every universe of a spec shares.
func (u *Universe) setup() {
	s := u.spec
	u.console = nil
	if s.Oracles.DefaultConsole == nil || *s.Oracles.DefaultConsole {
		for _, p := range defaultConsole {
			if p.name == consoleSignal && s.hasWorkload() {
				continue // everett's init reports signals, with the process and its status
			}
			u.console = append(u.console, p)
		}
	}
	for _, p := range s.Oracles.Console {
		u.console = append(u.console, consolePattern{name: "console: " + p, re: mustCompile(p)})
	}
	u.window = u.plan.LatencyMin
	if s.bareMetal() || len(s.nodes) == 1 {
		u.window = 1_000_000
	}
	if u.window == 0 {
		u.window = 50_000
	}
	u.newCoverage()
}

// boot builds node i's machine (restore: from snap instead of booting).
func (u *Universe) boot(i int, restore bool, snap *emu.Snapshot) error {
	n := u.nodes[i]
	n.console = &consoleTap{u: u, node: i}
	if u.echo != nil {
		n.console.echo = u.echo(i)
	}
	opts := board.BuildOptions{Console: n.console, SDK: &sink{u: u, node: i}, Engine: u.spec.engine}
	if n.spec.Board == board.BoardVirt {
		opts.NetLink = &port{s: u.sw, node: i}
	}
	var b *board.Built
	var err error
	if restore {
		b, err = board.Restore(n.spec, snap, opts, false, 0)
	} else {
		b, err = board.Build(n.spec, opts)
	}
	if err != nil {
		return fmt.Errorf("node %d: %w", i, err)
	}
	n.b = b
	n.traps = &trapTap{u: u, node: i}
	b.ObserveTraps(n.traps)
	if b.Virt != nil && b.Virt.Blk != nil {
		b.Virt.Blk.SetFaults(&diskFaults{u: u, node: i})
	}
	if u.cov != nil {
		lo, hi, _ := u.spec.coverageRange()
		if hi == ^uint64(0) {
			hi = 0
		}
		if err := b.EnableCoverage(u.cov, lo, hi); err != nil {
			return err
		}
	}
	// Communication events are tracked on every multi-hart node: they are
	// preemption points and interleaving coverage (emu/comm.go).
	b.TrackCommunication(true)
	if w := u.watch; w != nil && w.dbg != nil && i == w.dbgNode {
		b.SetDebug(w.dbg)
	}
	if u.cancel != nil {
		b.SetCancel(u.cancel)
	}
	return nil
}

// reseed starts the streams from seed at the current time and draws the
// fault schedule of the rest of the chaos phase (a fork, or the root).
func (u *Universe) reseed(seed uint64) {
	u.chaosAt = u.t
	u.netRNG = emu.NewPRNG(derive(seed, streamNet))
	u.fltRNG = emu.NewPRNG(derive(seed, streamFault))
	for i, n := range u.nodes {
		if n.b == nil {
			continue
		}
		n.b.PRNG.Reseed(derive(seed, streamGuest+uint64(i)))
		if err := n.b.SetMemoryModel(u.plan.Model); err != nil {
			panic(fmt.Sprintf("explorer: memory model %v: %v", u.plan.Model, err)) // the plan only has valid ones
		}
		sc := u.plan.Sched
		sc.Seed = derive(seed, streamSched+uint64(i))
		if err := n.b.SetSchedule(sc); err != nil {
			panic(fmt.Sprintf("explorer: schedule %+v: %v", sc, err)) // drawPlan only makes valid ones
		}
		if err := n.b.SetSyncRanges(u.spec.syncRangesOf(i, sc)); err != nil {
			panic(fmt.Sprintf("explorer: synchronization ranges: %v", err)) // mergeRanges makes valid ones
		}
	}
	u.drawFaults()
}

// chaosEnd is when the chaos phase of the current plan ends.
func (u *Universe) chaosEnd() uint64 { return u.chaosAt + u.plan.Chaos }

// now is the current virtual time: the running node's, or the window's.
func (u *Universe) now() uint64 {
	for _, n := range u.nodes {
		if n.b != nil && !n.down && n.b.Now() > u.t {
			return n.b.Now()
		}
	}
	return u.t
}

// ICount returns the instructions executed by all nodes.
func (u *Universe) ICount() uint64 {
	var t uint64
	for _, n := range u.nodes {
		t += n.icount
		if n.b != nil && !n.down {
			t += n.b.ICount()
		}
	}
	return t
}

// StateHash hashes the whole universe: every node, the switch and the
// streams.
func (u *Universe) StateHash() uint64 {
	var e hw.Encoder
	e.U64(u.t)
	for _, n := range u.nodes {
		e.Bool(n.down)
		if n.down {
			e.Int(n.downBy)
		}
		e.Bool(n.done)
		e.U64(n.icount)
		if n.b != nil && !n.down {
			e.U64(n.b.StateHash())
		}
	}
	u.sw.save(&e)
	u.netRNG.Save(&e)
	u.fltRNG.Save(&e)
	e.Int(u.nextDecision)
	sum := uint64(0xcbf29ce484222325)
	for _, c := range e.Bytes() {
		sum ^= uint64(c)
		sum *= 0x100000001b3
	}
	return sum
}

// ConsoleTails returns each node's console tail.
func (u *Universe) ConsoleTails() []string {
	out := make([]string, len(u.nodes))
	for i, n := range u.nodes {
		if n.console != nil {
			out[i] = n.console.Tail()
		}
	}
	return out
}

// setBreakpoint stops the universe before node's harts execute addr.
func (u *Universe) setBreakpoint(node int, addr uint64) {
	if node < len(u.nodes) && u.nodes[node].b != nil {
		u.nodes[node].b.SetBreakpoint(addr, true)
	}
}

// RootTrap returns the exception the universe's failure is traced back
// to, or nil.
func (u *Universe) RootTrap() *RootTrap { return u.root }

// NodeMachine is one node of a universe: its machine spec and, unless the
// node is down, its machine.
type NodeMachine struct {
	Spec    *board.Spec
	Machine *board.Built
}

// Nodes returns the universe's nodes.
func (u *Universe) Nodes() []NodeMachine {
	out := make([]NodeMachine, len(u.nodes))
	for i, n := range u.nodes {
		out[i] = NodeMachine{Spec: n.spec}
		if !n.down {
			out[i].Machine = n.b
		}
	}
	return out
}
