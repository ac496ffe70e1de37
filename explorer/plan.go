package explorer

import (
	"everett/emu"
)

// The plan: the fault model and schedule a universe draws from its root
// seed (swarm testing).

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
	Model                    emu.MemoryModel // every node's memory model
	Kills                    int             // kill faults of workload services per universe
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

// bootPlan is the plan of an unperturbed boot (setup.perturb false): the
// spec's network latencies, no faults, the fixed schedule. It does not
// depend on any seed, so the boot is the same for every seed.
func bootPlan(s *Spec) Plan {
	p := Plan{
		LatencyMin: s.Network.LatencyMin.Ns(),
		LatencyMax: s.Network.LatencyMax.Ns(),
		Sched:      emu.SchedConfig{Mode: emu.SchedFixed},
	}
	if s.MemoryModel == "rvwmo" {
		p.Model = emu.ModelRVWMO // swarm boots under sc: the same boot for every seed
	}
	return p
}

// planOf is the plan a step of a fork path starts: the boot plan, a new
// plan drawn from the step's seed, or (a plain fork) the plan it has.
func planOf(s *Spec, f Fork, have Plan) Plan {
	switch f.Plan {
	case PlanBoot:
		return bootPlan(s)
	case PlanSeed:
		return drawPlan(s, f.Seed)
	}
	return have
}

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
	if !s.bareMetal() {
		// Quanta of a few instructions make a kernel ten to forty times
		// slower; preemption at communication events reaches the short
		// windows such quanta were for.
		qmaxes[0] = 64
	}
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
	// Preemption at communication events between harts (emu/comm.go): a
	// bounded number per universe, drawn per seed; under PCT the change
	// points are drawn among events instead of instructions. Drawn last,
	// so that the draws above stay what they were.
	// A third of the seeds take no such preemption, so that what
	// round-based schedules find (a lock-order inversion between two
	// private stretches, say) stays as likely as it was.
	preempts := []int{0, 0, 0, 1, 2, 4, 8, 16, 32}
	odds := []uint64{2, 8, 32, 128, 512}
	eventSpans := []uint64{100, 1_000, 10_000, 100_000, 1_000_000}
	yields := []uint64{500, 5_000, 50_000, 500_000}
	np := preempts[r.Uint64()%uint64(len(preempts))]
	od := odds[r.Uint64()%uint64(len(odds))]
	ei := r.Uint64() % uint64(len(eventSpans))
	es := eventSpans[ei]
	y := yields[r.Uint64()%uint64(len(yields))]
	if f := s.Faults.Preemptions; f != nil {
		np = *f
	} else if !swarm {
		np = 0
	}
	multiHart := false
	for _, n := range s.nodes {
		multiHart = multiHart || n.Harts > 1
	}
	preempt := func(np int) {
		if multiHart && np > 0 && p.Sched.Mode != emu.SchedFixed {
			c := &p.Sched
			c.Comm, c.Preemptions, c.PreemptOdds, c.YieldMin, c.YieldMax = true, np, od, y/2, y*2
			if c.Mode == emu.SchedPCT {
				c.EventSpan = es
				c.Preemptions = max(np, c.Depth)
			}
		}
	}
	preempt(np)
	// The memory model, drawn last and only when the spec asks for a draw,
	// so that every other plan stays what it was.
	switch s.MemoryModel {
	case "rvwmo":
		p.Model = emu.ModelRVWMO
	case "swarm":
		if r.Uint64()%2 == 1 {
			p.Model = emu.ModelRVWMO
		}
	}
	// Kills of workload services, drawn after everything else and only
	// for specs with workloads, so that every other plan stays what it was.
	if s.hasWorkload() {
		p.Kills = pickInt(s.Faults.Kills, 0, 0, 1, 2, 4)
		// A workload's races are its threads'. One seed in six keeps the
		// schedule drawn above, preemptions or none (the baseline); one
		// in six that drew none takes a few at communication events, the
		// kernel's too; the other four in six preempt only the
		// workload's own code in user mode (SetSyncRanges), at its
		// communication events and at its locks (LRs and AMOs), and hold
		// the thread back PCT-style (emu's SchedConfig.Hold): until
		// nothing else can run, bounded by a thousand times the drawn
		// stretch (0.25 ms to 1 s). Seeds that drew no preemptions get
		// some, unless the spec sets faults.preemptions.
		k := r.Uint64() % 6
		if k != 0 && !p.Sched.Comm && s.Faults.Preemptions == nil && swarm {
			preempt([]int{2, 4, 8, 16, 32}[k-1])
		}
		if k >= 2 && p.Sched.Comm {
			c := &p.Sched
			c.UserOnly, c.Hold, c.SyncPoints = true, true, true
			c.YieldMin, c.YieldMax = c.YieldMin*1000, c.YieldMax*1000
			if c.Mode == emu.SchedPCT {
				// PCT's change points among the workload's own events,
				// which a short program has tens or hundreds of.
				c.EventSpan = []uint64{16, 32, 64, 128, 512}[ei]
			}
			// A hold changes the run as a PCT priority change does, and
			// a bug's depth is small: one to three holds that held
			// something back (a hold while nothing else could run goes
			// back to the budget), else a later hold undoes an earlier
			// one (the thread it lets run first is the one held first).
			c.Preemptions = 1 + int(r.Uint64()%3)
			c.Depth = min(c.Depth, c.Preemptions)
			// Half the plans with two or three change points put the
			// later ones a few events behind the first (emu's
			// SchedConfig.Cluster): the second thread held while the
			// first still is, inside the first's window. Drawn last.
			if cl := []uint64{0, 0, 0, 4, 8, 16}[r.Uint64()%6]; c.Mode == emu.SchedPCT && c.Depth > 1 {
				c.Cluster = cl
			}
		}
	}
	return p
}
