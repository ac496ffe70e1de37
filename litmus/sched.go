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
}

// quantumMax are the longest quanta a run may draw: mostly single
// instructions, where interleavings are finest, and some long enough that
// one thread runs a whole column before another starts.
var quantumMax = [...]uint64{1, 1, 1, 2, 2, 3, 4, 6, 8, 16, 64}

// lrscQuantumMin is the shortest QuantumMax of a test with LR/SC.
const lrscQuantumMin = 8

// stallPercent are the stall chances a run may draw.
var stallPercent = [...]uint64{0, 0, 10, 30, 60}

// drawPlan derives a run's plan from its seed: a random or PCT schedule
// (emu/sched.go) with a drawn quantum range and stall chance, and a delay
// per thread (none in a third of the threads, else up to MaxDelay).
//
// A test with LR/SC draws no quantum range shorter than lrscQuantumMin:
// the machine drops every reservation when another hart's turn comes
// (RATIONALE: "Why LR/SC reservations are dropped when another hart
// runs"), so an LR/SC retry loop under one-instruction quanta would never
// succeed.
func drawPlan(seed uint64, threads, insns int, lrsc bool) plan {
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
