package explorer

import (
	"fmt"
	"regexp"
	"sort"

	"everett/devices/virtio/blk"
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
}

// Decision is a fault the universe chose (and applied unless suppressed).
type Decision struct {
	Index int    `json:"index"`
	Time  uint64 `json:"time"`
	Kind  string `json:"kind"`
	What  string `json:"what"`
}

// MaxDecisions bounds the recorded decisions of one universe.
const MaxDecisions = 10_000

// Plan is the fault model of a universe: the spec's settings with every
// unset kind decided by swarm testing from the root seed.
type Plan struct {
	Drop, Duplicate, Reorder float64
	LatencyMin, LatencyMax   uint64
	Partitions, Crashes      int
	DiskErrors, DiskCorrupt  float64
	SkewMax                  uint64 // ns
	Sched                    emu.SchedConfig
	Chaos                    uint64
}

type faultEvent struct {
	At   uint64
	Kind string // partition, heal, crash, restart
	A, B []int  // partition: frames from A to B are lost
	Node int
	Seq  int
}

type node struct {
	b       *board.Built
	spec    *board.Spec
	console *consoleTap
	down    bool   // crashed, waiting for restart
	done    bool   // powered off
	icount  uint64 // instructions of earlier incarnations (crash/restart)
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

	console []consolePattern
	asserts assertions

	setupDone  bool
	setupAt    uint64
	progressAt uint64
	liveStart  uint64 // liveness phase start (0: not started)

	decisions    []Decision
	nextDecision int
	suppress     map[int]bool

	failure  *Failure
	failTime uint64
	finished bool
	reason   string

	// Coverage: this universe's bitmap and the search's at the start.
	cov       []byte
	globalCov []byte
	newEdges  int
	wantSnap  []string
	snaps     []*UniverseSnapshot
	maxSnaps  int
	echo      func(node int) interface{ Write([]byte) (int, error) }

	// Bisection: a console pattern to watch, and breakpoints.
	consoleWatch *regexp.Regexp
	consoleHit   bool
	breakHit     bool
	bpNode       int
	bpAddr       uint64
	bpOn         bool

	// Kept when the machines are released.
	hash      uint64
	icountEnd uint64
	tails     []string
}

// derive makes an independent seed for a stream.
func derive(seed uint64, stream uint64) uint64 {
	x := seed ^ (stream+1)*0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	x *= 0x94d049bb133111eb
	return x ^ x>>32
}

// Stream numbers.
const (
	streamSwarm = 1
	streamNet   = 2
	streamFault = 3
	streamGuest = 100 // + node
	streamSched = 200 // + node
)

// drawPlan decides the fault model for a root seed.
func drawPlan(s *Spec, root uint64) Plan {
	r := emu.NewPRNG(derive(root, streamSwarm))
	swarm := s.Faults.Swarm == nil || *s.Faults.Swarm
	pick := func(forced *float64, choices ...float64) float64 {
		v := choices[r.Uint64()%uint64(len(choices))] // always draw: plans stay aligned
		if forced != nil {
			return *forced
		}
		if !swarm {
			return 0
		}
		return v
	}
	pickInt := func(forced *int, choices ...int) int {
		v := choices[r.Uint64()%uint64(len(choices))]
		if forced != nil {
			return *forced
		}
		if !swarm {
			return 0
		}
		return v
	}
	p := Plan{
		LatencyMin: s.Network.LatencyMin.Ns(),
		LatencyMax: s.Network.LatencyMax.Ns(),
		Chaos:      s.Faults.Chaos.Ns(),
	}
	multi := len(s.nodes) > 1
	p.Drop = pick(s.Faults.Drop, 0, 0, 0.01, 0.05, 0.2)
	p.Duplicate = pick(s.Faults.Duplicate, 0, 0, 0.01, 0.05)
	p.Reorder = pick(s.Faults.Reorder, 0, 0, 0.05, 0.2)
	p.Partitions = pickInt(s.Faults.Partitions, 0, 1, 2, 4)
	p.Crashes = pickInt(s.Faults.Crashes, 0, 0, 1, 2)
	if !multi {
		p.Drop, p.Duplicate, p.Reorder, p.Partitions = 0, 0, 0, 0
	}
	hasDisk := false
	for _, n := range s.nodes {
		hasDisk = hasDisk || n.Disk != nil
	}
	p.DiskErrors = pick(s.Faults.DiskErrors, 0, 0, 0.001, 0.01)
	p.DiskCorrupt = pick(s.Faults.DiskCorrupt, 0, 0, 0, 0.001)
	if !hasDisk {
		p.DiskErrors, p.DiskCorrupt = 0, 0
	}
	if s.bareMetal() {
		p.Crashes = 0
	}
	skews := []uint64{0, 0, 1_000_000, 50_000_000, 500_000_000}
	skew := skews[r.Uint64()%uint64(len(skews))]
	switch {
	case s.Faults.ClockSkew != nil:
		p.SkewMax = s.Faults.ClockSkew.Ns()
	case swarm && multi:
		p.SkewMax = skew
	}
	// The schedule: a fixed schedule now and then (the baseline), random
	// quanta with stalls, or PCT, with strengths from the seed.
	qmaxes := []uint64{8, 64, 512, 4096, 20000}
	stalls := []uint64{0, 5, 20, 50}
	depths := []int{1, 2, 3, 5, 10}
	modes := []emu.SchedMode{emu.SchedRandom, emu.SchedRandom, emu.SchedPCT, emu.SchedPCT, emu.SchedFixed}
	spans := []uint64{10_000, 100_000, 1_000_000, 10_000_000, 100_000_000}
	mode := modes[r.Uint64()%uint64(len(modes))]
	qmax := qmaxes[r.Uint64()%uint64(len(qmaxes))]
	stall := stalls[r.Uint64()%uint64(len(stalls))]
	depth := depths[r.Uint64()%uint64(len(depths))]
	span := spans[r.Uint64()%uint64(len(spans))]
	switch s.Faults.Schedule {
	case "fixed":
		mode = emu.SchedFixed
	case "random":
		mode = emu.SchedRandom
	case "pct":
		mode = emu.SchedPCT
	}
	p.Sched = emu.SchedConfig{Mode: mode}
	switch {
	case mode == emu.SchedFixed && s.Faults.Schedule == "" && len(s.nodes) == 1:
		// Swarm's "regular" schedule: a fixed quantum, but a different one
		// per seed (with one node and no other randomness, a fixed schedule
		// would make every such universe the same).
		p.Sched = emu.SchedConfig{Mode: emu.SchedRandom, QuantumMin: qmax, QuantumMax: qmax}
	case mode != emu.SchedFixed:
		p.Sched.QuantumMin = 1
		p.Sched.QuantumMax = qmax
		p.Sched.StallPercent = stall
		if mode == emu.SchedPCT {
			// Change points fall in the first span instructions; the span
			// is drawn because the program's length is not known.
			p.Sched.Depth = depth
			p.Sched.Span = min(span, max(s.Budgets.Instructions, 10_000))
		}
	}
	return p
}

// newUniverse builds the root universe of seed (path [{0, seed}]).
func newUniverse(s *Spec, root uint64, globalCov []byte) (*Universe, error) {
	return newUniverseWith(s, root, globalCov, nil)
}

// newUniverseWith is newUniverse with pre applied before the nodes are
// built.
func newUniverseWith(s *Spec, root uint64, globalCov []byte, pre func(*Universe)) (*Universe, error) {
	u := &Universe{
		spec:      s,
		plan:      drawPlan(s, root),
		path:      []Fork{{At: 0, Seed: root}},
		globalCov: globalCov,
		maxSnaps:  4,
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
	skewRNG := emu.NewPRNG(derive(root, streamFault+1000))
	for i, bs := range s.nodes {
		spec := *bs
		spec.Seed = derive(root, streamGuest+uint64(i))
		n := &node{spec: &spec}
		u.nodes = append(u.nodes, n)
		if err := u.boot(i, false, nil); err != nil {
			return nil, err
		}
		if u.plan.SkewMax > 0 && n.b.Virt != nil {
			n.b.Virt.CLINT.SetSkew(skewRNG.Uint64() % (u.plan.SkewMax / 100))
		}
	}
	u.reseed(root)
	return u, nil
}

// setup prepares what every universe of a spec shares.
func (u *Universe) setup() {
	s := u.spec
	u.console = nil
	if s.Oracles.DefaultConsole == nil || *s.Oracles.DefaultConsole {
		u.console = append(u.console, defaultConsole...)
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
	if lo, hi, _ := s.coverageRange(); hi > lo {
		u.cov = make([]byte, covBytes)
	}
}

const covBytes = 1 << 16

// boot builds node i's machine (restore: from snap instead of booting).
func (u *Universe) boot(i int, restore bool, snap *emu.Snapshot) error {
	n := u.nodes[i]
	n.console = &consoleTap{u: u, node: i}
	if u.echo != nil {
		n.console.echo = u.echo(i)
	}
	opts := board.BuildOptions{Console: n.console, SDK: &sink{u: u, node: i}}
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
	return nil
}

// reseed starts the streams from seed at the current time and draws the
// fault schedule of the rest of the chaos phase (a fork, or the root).
func (u *Universe) reseed(seed uint64) {
	u.netRNG = emu.NewPRNG(derive(seed, streamNet))
	u.fltRNG = emu.NewPRNG(derive(seed, streamFault))
	for i, n := range u.nodes {
		if n.b == nil {
			continue
		}
		n.b.PRNG.Reseed(derive(seed, streamGuest+uint64(i)))
		sc := u.plan.Sched
		sc.Seed = derive(seed, streamSched+uint64(i))
		if err := n.b.SetSchedule(sc); err != nil {
			panic(fmt.Sprintf("explorer: schedule %+v: %v", sc, err)) // drawPlan only makes valid ones
		}
	}
	u.drawFaults()
}

// drawFaults schedules partitions and crashes in [t, t+chaos).
func (u *Universe) drawFaults() {
	u.faults = u.faults[:0]
	r := u.fltRNG
	chaos := u.plan.Chaos
	if chaos == 0 {
		return
	}
	n := len(u.nodes)
	at := func() uint64 { return u.t + r.Uint64()%chaos }
	for k := 0; k < u.plan.Partitions && n > 1; k++ {
		a, b := split(r, n)
		t := at()
		asym := r.Uint64()%3 == 0
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: t, Kind: "partition", A: a, B: b, Seq: u.faultSq})
		if !asym {
			u.faultSq++
			u.faults = append(u.faults, faultEvent{At: t, Kind: "partition", A: b, B: a, Seq: u.faultSq})
		}
		if r.Uint64()%100 >= 15 { // 15%: permanent
			heal := t + 100_000_000 + r.Uint64()%1_900_000_000
			u.faultSq++
			u.faults = append(u.faults, faultEvent{At: heal, Kind: "heal", Seq: u.faultSq})
		}
	}
	for k := 0; k < u.plan.Crashes; k++ {
		node := int(r.Uint64() % uint64(n))
		t := at()
		down := 200_000_000 + r.Uint64()%800_000_000
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: t, Kind: "crash", Node: node, Seq: u.faultSq})
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: t + down, Kind: "restart", Node: node, Seq: u.faultSq})
	}
	if u.spec.Oracles.Liveness > 0 {
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: u.t + chaos, Kind: "liveness", Seq: u.faultSq})
	}
	sortFaults(u.faults)
}

func sortFaults(f []faultEvent) {
	sort.SliceStable(f, func(i, j int) bool {
		if f[i].At != f[j].At {
			return f[i].At < f[j].At
		}
		return f[i].Seq < f[j].Seq
	})
}

// split draws a non-trivial split of n nodes into two groups.
func split(r *emu.PRNG, n int) (a, b []int) {
	mask := 1 + r.Uint64()%(1<<uint(n)-2)
	for i := 0; i < n; i++ {
		if mask>>uint(i)&1 != 0 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	return a, b
}

// candidate records a fault decision and reports whether to apply it
// (false when shrinking suppressed it).
func (u *Universe) candidate(kind, what string) bool {
	idx := u.nextDecision
	u.nextDecision++
	if u.suppress[idx] {
		return false
	}
	if len(u.decisions) < MaxDecisions {
		u.decisions = append(u.decisions, Decision{Index: idx, Time: u.now(), Kind: kind, What: what})
	}
	return true
}

// now is the current virtual time: the running node's, or the window's.
func (u *Universe) now() uint64 {
	for _, n := range u.nodes {
		if n.b != nil && !n.down && n.b.Now() > u.t {
			return n.b.Now()
		}
	}
	return u.t
}

func (u *Universe) fail(f *Failure) {
	if u.failure != nil || u.finished {
		return
	}
	u.failure = f
	u.failTime = u.now()
	u.stopAll()
}

func (u *Universe) finish() {
	if u.failure != nil || u.finished {
		return
	}
	u.finished = true
	u.reason = "the guest reported success (sdk exit 0)"
	u.stopAll()
}

func (u *Universe) stopAll() {
	for _, n := range u.nodes {
		if n.b != nil {
			n.b.Stop()
		}
	}
}

func (u *Universe) interesting(why string) {
	if len(u.wantSnap) < 8 {
		u.wantSnap = append(u.wantSnap, why)
	}
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

// runTo runs the universe until virtual time stop (0: until it ends). It
// returns when the universe has ended (failure, success, budget) or the
// time is reached.
func (u *Universe) runTo(stop uint64) { u.runUntilCount(stop, 0) }

// runUntilCount is runTo that also stops when the universe's instruction
// count reaches count (0: no bound), exactly, even inside a window.
func (u *Universe) runUntilCount(stop, count uint64) {
	s := u.spec
	for u.failure == nil && !u.finished {
		if stop != 0 && u.t >= stop {
			return
		}
		end := u.t + u.window
		if stop != 0 && end > stop {
			end = stop
		}
		u.applyFaults(end)
		alive := false
		for _, n := range u.nodes {
			if n.down || n.done {
				continue
			}
			alive = true
			var lim uint64
			if count != 0 {
				total := u.ICount()
				if total >= count {
					return
				}
				lim = n.b.ICount() + (count - total)
			}
			r := n.b.RunUntil(lim, end)
			if r == emu.StopLimit {
				return // the instruction count was reached inside the window
			}
			if r == emu.StopBreak || u.breakHit {
				u.breakHit = true
				return
			}
			u.nodeStopped(n, r)
			if u.failure != nil || u.finished {
				return
			}
		}
		u.t = end
		u.sw.deliver(end)
		if !alive && !u.anyRestartPending() {
			u.finished = true
			u.reason = "every node powered off"
			return
		}
		u.checkHang()
		if u.failure != nil {
			return
		}
		if u.ICount() >= s.Budgets.Instructions || u.t >= s.Budgets.Time.Ns() {
			u.budgetSpent()
			return
		}
		u.checkCoverage()
		if len(u.wantSnap) > 0 {
			u.takeSnapshot(u.wantSnap[0])
			u.wantSnap = u.wantSnap[:0]
		}
	}
}

func (u *Universe) anyRestartPending() bool {
	for _, f := range u.faults {
		if f.Kind == "restart" {
			return true
		}
	}
	return false
}

// nodeStopped handles why a node's run returned.
func (u *Universe) nodeStopped(n *node, r emu.StopReason) {
	idx := u.indexOf(n)
	switch r {
	case emu.StopPowerOff:
		n.done = true
		if code := n.b.ExitCode(); code != 0 {
			u.fail(&Failure{Kind: "exit", Message: fmt.Sprintf("exit code %d", code), Node: idx})
			return
		}
		if u.spec.bareMetal() {
			u.finished = true
			u.reason = "the program exited 0"
		}
	case emu.StopReset:
		u.fail(&Failure{Kind: "reboot", Message: "the guest rebooted", Node: idx})
	case emu.StopHalted:
		u.fail(&Failure{Kind: "hang", Message: "every hart halted", Node: idx})
	case emu.StopIdle:
		u.fail(&Failure{Kind: "hang", Message: "every hart waits for an interrupt that cannot come", Node: idx})
	}
	if r == emu.StopTime && u.spec.bareMetal() && n.b.Idle() {
		u.fail(&Failure{Kind: "hang", Message: "every hart waits for an interrupt that cannot come", Node: idx})
	}
}

func (u *Universe) indexOf(n *node) int {
	for i, x := range u.nodes {
		if x == n {
			return i
		}
	}
	return -1
}

// applyFaults applies the scheduled faults due before end.
func (u *Universe) applyFaults(end uint64) {
	for len(u.faults) > 0 && u.faults[0].At < end {
		f := u.faults[0]
		u.faults = u.faults[1:]
		switch f.Kind {
		case "partition":
			if u.liveStart == 0 && u.candidate("partition", fmt.Sprintf("frames from %v to %v lost", f.A, f.B)) {
				for _, a := range f.A {
					for _, b := range f.B {
						u.sw.blocked[a][b] = true
					}
				}
			}
		case "heal":
			if u.liveStart == 0 && u.candidate("heal", "partitions healed") {
				u.sw.heal()
			}
		case "crash":
			n := u.nodes[f.Node]
			if !n.down && !n.done && u.liveStart == 0 && u.candidate("crash", fmt.Sprintf("node %d loses power", f.Node)) {
				u.crash(f.Node)
			}
		case "restart":
			if u.nodes[f.Node].down {
				u.restart(f.Node)
			}
		case "liveness":
			u.startLiveness()
		}
	}
}

// crash powers node i off: unflushed disk writes are lost or torn.
func (u *Universe) crash(i int) {
	n := u.nodes[i]
	if n.b.Virt != nil && n.b.Virt.Blk != nil {
		d := n.b.Virt.Blk
		d.CrashLoseUnflushed(u.fltRNG)
		img := append([]byte(nil), n.spec.Disk.Data...)
		for _, blk := range d.Flushed() {
			copy(img[blk.Off:], blk.Data)
		}
		disk := *n.spec.Disk
		disk.Data = img
		spec := *n.spec
		spec.Disk = &disk
		n.spec = &spec
	}
	n.icount += n.b.ICount()
	n.b = nil
	n.down = true
}

// restart boots node i again, from its (crash-consistent) disk.
func (u *Universe) restart(i int) {
	n := u.nodes[i]
	n.spec.Seed = derive(n.spec.Seed, 7)
	if err := u.boot(i, false, nil); err != nil {
		u.fail(&Failure{Kind: "restart", Message: err.Error(), Node: i})
		return
	}
	n.down = false
	// The new incarnation starts at the universe's time.
	sc := u.plan.Sched
	sc.Seed = derive(n.spec.Seed, streamSched)
	_ = n.b.SetSchedule(sc)
	n.b.SkipTo(u.t)
}

// startLiveness ends the chaos phase: heal a quorum, make the other faults
// permanent, and require progress within the liveness budget.
func (u *Universe) startLiveness() {
	u.liveStart = u.t
	n := len(u.nodes)
	quorum := n/2 + 1
	u.sw.heal()
	for i := quorum; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				u.sw.blocked[i][j] = true
				u.sw.blocked[j][i] = true
			}
		}
	}
	u.plan.Drop, u.plan.Duplicate, u.plan.Reorder = 0, 0, 0
	u.progressAt = u.t
}

// checkHang fails a universe without progress for the hang budget, or
// without progress in the liveness phase.
func (u *Universe) checkHang() {
	s := u.spec
	if h := s.Oracles.Hang.Ns(); h > 0 && u.t > u.progressAt+h {
		u.fail(&Failure{Kind: "hang", Message: fmt.Sprintf("no progress for %v of virtual time", s.Oracles.Hang)})
		return
	}
	if l := s.Oracles.Liveness.Ns(); l > 0 && u.liveStart != 0 && u.t > u.progressAt+l && u.progressAt <= u.liveStart+l {
		u.fail(&Failure{Kind: "liveness", Message: fmt.Sprintf("no progress within %v after healing a quorum", s.Oracles.Liveness)})
	}
}

func (u *Universe) budgetSpent() {
	s := u.spec
	hang := s.bareMetal()
	if s.Oracles.BudgetIsHang != nil {
		hang = *s.Oracles.BudgetIsHang
	}
	if hang {
		u.fail(&Failure{Kind: "hang", Message: "did not finish within its budget"})
		return
	}
	u.finished = true
	u.reason = "budget spent"
}

// checkCoverage counts edges this universe covered that the search had
// not, and asks for a snapshot when there are new ones.
func (u *Universe) checkCoverage() {
	if u.cov == nil || u.globalCov == nil {
		return
	}
	n := 0
	for i, b := range u.cov {
		if b != 0 && u.globalCov[i] == 0 {
			n++
		}
	}
	if n > u.newEdges {
		u.newEdges = n
		u.interesting(fmt.Sprintf("new coverage (%d edges)", n))
	}
}

// diskFaults is the fault model of one node's disk.
type diskFaults struct {
	u    *Universe
	node int
}

func (d *diskFaults) DiskFault(write bool, off, n uint64) blk.Fault {
	u := d.u
	p := &u.plan
	var f blk.Fault
	op := "read"
	if write {
		op = "write"
	}
	if p.DiskErrors > 0 && chance(u.fltRNG, p.DiskErrors) && u.liveStart == 0 &&
		u.candidate("disk", fmt.Sprintf("node %d: %s at %#x fails", d.node, op, off)) {
		f.IOErr = true
	}
	if p.DiskCorrupt > 0 && chance(u.fltRNG, p.DiskCorrupt) && u.liveStart == 0 {
		bit := u.fltRNG.Uint64()
		if u.candidate("disk", fmt.Sprintf("node %d: %s at %#x corrupted", d.node, op, off)) {
			f.Corrupt, f.Bit = true, bit
		}
	}
	return f
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
	u.bpNode, u.bpAddr, u.bpOn = node, addr, true
	if node < len(u.nodes) && u.nodes[node].b != nil {
		u.nodes[node].b.SetBreakpoint(addr, true)
	}
}

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
