package emu

// A laggard: one hart of a run that keeps its accesses pending for long
// while the others let theirs go at once. The rare allowed outcomes of the
// litmus suite's three-thread shapes (ISA2, Z6.*, WRC, 3.LB) each need one
// thread's store or load kept pending while the other threads run their
// columns to the end; with every hart's rates drawn alone, the right hart
// holding and the others not is a rare draw (measured 2026-12-05: 43 of
// SF_THESIS/BASIC's 296 allowed outcomes showed in none of 1,000 runs).

// Rates LagHart draws the laggard's from; the other harts get
// wmoEagerDrainPct and wmoEagerResolvePct, the oldest first, no fence
// waits, and a deferral chance from wmoEagerDeferPcts.
var (
	wmoLagDeferPcts   = [...]uint64{60, 90, 100}
	wmoLagDrainPcts   = [...]uint64{1, 3}
	wmoLagResolvePcts = [...]uint64{0, 3, 10}
	wmoEagerDeferPcts = [...]uint64{0, 30}
)

const (
	// wmoLagFenceWaitPct is the laggard's chance of waiting at a fence
	// with accesses pending, each time it comes to it: high, so that its
	// last store or load stays pending while the others run to their ends
	// (at 90%, the drawn rates' highest, a wait rarely outlasted them).
	wmoLagFenceWaitPct = 99
	wmoEagerDrainPct   = 90
	wmoEagerResolvePct = 90
)

// LagHart makes hart i, under rvwmo, the run's laggard: its loads are
// mostly deferred, its stores drain and its loads resolve at 0 to 10% a
// step, the youngest first (so that an older access stays behind a
// younger one that went), and, with fence waits on (SetFenceWaits), it
// waits at a fence with accesses pending 99 times in 100 while another
// hart can run. Every other hart lets its accesses go at once: 90% a
// step, the oldest first, no fence waits. The rates are drawn from the
// model's stream and replace those the schedule's seed drew, so call it
// after SetSchedule; speculation's rates stay. Each is a draw the model
// may make anyway, so any use is sound. The rates are in snapshots and
// hashes, as drawn ones are. Under sc, or for a hart that does not exist,
// it does nothing. Litmus runs use it (litmus/sched.go).
func (m *Machine) LagHart(i int) {
	w := m.wmo
	if w == nil || i < 0 || i >= len(m.harts) {
		return
	}
	draw := func(set []uint64) uint64 { return set[w.rng.Uint64()%uint64(len(set))] }
	for j, h := range m.harts {
		r := wmoRates{
			deferPct:    draw(wmoEagerDeferPcts[:]),
			drainPct:    wmoEagerDrainPct,
			resolvePct:  wmoEagerResolvePct,
			drainBias:   wmoOldest,
			resolveBias: wmoOldest,
		}
		if j == i {
			r = wmoRates{
				deferPct:    draw(wmoLagDeferPcts[:]),
				drainPct:    draw(wmoLagDrainPcts[:]),
				resolvePct:  draw(wmoLagResolvePcts[:]),
				drainBias:   wmoYoungest,
				resolveBias: wmoYoungest,
			}
			if w.fenceWaits {
				r.fenceWaitPct = wmoLagFenceWaitPct
			}
		}
		r.specPct = h.w.r.specPct
		r.amoPct = h.w.r.amoPct
		r.linkPct = h.w.r.linkPct
		h.w.r = r
	}
}
