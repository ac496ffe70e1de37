package litmus

import (
	"math/rand/v2"

	"everett/emu"
)

// plan is everything a run varies: the machine's schedule and each
// thread's delay. It is a function of the run's seed alone.
type plan struct {
	sched emu.SchedConfig
	delay []int // per thread, instructions of the sled it runs first
	lag   int   // the thread a weak model keeps behind (emu's LagHart), or -1
}

// quantumMax are the longest quanta a run may draw: mostly single
// instructions, where interleavings are finest, and some long enough that
// one thread runs a whole column before another starts.
var quantumMax = [...]uint64{1, 1, 1, 2, 2, 3, 4, 6, 8, 16, 64}

// lrscQuantumMin is the shortest QuantumMax of a test with LR/SC.
const lrscQuantumMin = 8

// stallPercent are the stall chances a run may draw.
var stallPercent = [...]uint64{0, 0, 10, 30, 60}

// lagOdds: one run in lagOdds under a weak model keeps a laggard.
const lagOdds = 3

// lagQuantumMax are the longest quanta a run with a laggard may draw: short,
// so that the threads after it run their columns in step, a gap apart.
var lagQuantumMax = [...]uint64{1, 1, 2, 3}

// drawPlan derives a run's plan from its seed: a random or PCT schedule
// (emu/sched.go) with a drawn quantum range and stall chance, and a delay
// per thread (none in a third of the threads, else up to MaxDelay).
//
// Under a weak model (weak), one run in lagOdds has a laggard, which
// replaces its delays and quantum range (plan.lag; emu's LagHart): a drawn
// thread starts first and keeps its accesses pending while the others let
// theirs go at once; they start in a drawn order, each g instructions
// after the one before (g drawn from MaxDelay/(2(threads-1)) to twice
// that, so the last starts at most MaxDelay late), under quanta of at
// most lagQuantumMax. The rare outcomes of the suite's three-thread shapes
// (ISA2, Z6.*, WRC, 3.LB) need exactly that: one thread's store or load
// pending while the others run their columns to the end, one after
// another. The laggard is drawn after everything else, so a run without
// one is the run it was before laggards existed, and sc runs (weak false)
// never have one.
//
// A test with LR/SC draws no quantum range shorter than lrscQuantumMin:
// the machine drops every reservation when another hart's turn comes
// (RATIONALE: "Why LR/SC reservations are dropped when another hart
// runs"), so an LR/SC retry loop under one-instruction quanta would never
// succeed.
func drawPlan(seed uint64, threads, insns int, lrsc, weak bool) plan {
	r := rand.New(rand.NewPCG(seed, 0x6c69746d7573)) // a local stream, not the global one
	var p plan
	c := emu.SchedConfig{
		Mode:         emu.SchedRandom,
		QuantumMin:   1,
		QuantumMax:   quantumMax[r.IntN(len(quantumMax))],
		StallPercent: stallPercent[r.IntN(len(stallPercent))],
		Seed:         r.Uint64(),
	}
	if lrsc {
		c.QuantumMax = max(c.QuantumMax, lrscQuantumMin)
	}
	if r.IntN(4) == 0 {
		// PCT: priorities with a few change points among the instructions
		// the test runs.
		c.Mode = emu.SchedPCT
		c.Depth = 1 + r.IntN(3)
		c.Span = uint64(insns + threads*MaxDelay + 1)
	}
	p.sched = c
	p.delay = make([]int, threads)
	for i := range p.delay {
		if r.IntN(3) != 0 {
			p.delay[i] = r.IntN(MaxDelay + 1)
		}
	}
	p.lag = -1
	if weak && threads > 1 && r.IntN(lagOdds) == 0 {
		// The laggard starts first; the others follow in a drawn order,
		// a drawn gap apart.
		perm := r.Perm(threads)
		p.lag = perm[0]
		half := MaxDelay / (2 * (threads - 1))
		g := half + r.IntN(half+1)
		p.sched.QuantumMax = lagQuantumMax[r.IntN(len(lagQuantumMax))]
		if lrsc {
			p.sched.QuantumMax = max(p.sched.QuantumMax, lrscQuantumMin)
		}
		for k, i := range perm {
			p.delay[i] = k * g
		}
	}
	return p
}

// runSeed derives run i's seed from the root seed (splitmix64 of their
// combination), so that any run can be repeated alone.
func runSeed(root uint64, i int) uint64 {
	z := root + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
