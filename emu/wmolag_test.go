package emu

import (
	"slices"
	"testing"
)

func TestLagHartKeepsOneHartBehindWhileTheOthersLetTheirAccessesGo(t *testing.T) {
	build := func(model MemoryModel) *Machine {
		return mustBuild(t, programBuild(t, wmoFenceProgram, 2, 50, func(m *Machine) {
			if err := m.SetMemoryModel(model); err != nil {
				t.Fatal(err)
			}
			m.SetFenceWaits(true)
		}))
	}
	for seed := uint64(1); seed <= 20; seed++ {
		m := build(ModelRVWMO)
		if err := m.SetSchedule(SchedConfig{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 4, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		spec := []uint64{m.harts[0].w.r.specPct, m.harts[1].w.r.specPct}
		m.LagHart(1)
		lag, eager := m.harts[1].w.r, m.harts[0].w.r
		if !slices.Contains(wmoLagDeferPcts[:], lag.deferPct) || !slices.Contains(wmoLagDrainPcts[:], lag.drainPct) ||
			!slices.Contains(wmoLagResolvePcts[:], lag.resolvePct) || lag.drainBias != wmoYoungest ||
			lag.resolveBias != wmoYoungest || lag.fenceWaitPct != wmoLagFenceWaitPct {
			t.Fatalf("seed %d: the laggard's rates %+v", seed, lag)
		}
		if !slices.Contains(wmoEagerDeferPcts[:], eager.deferPct) || eager.drainPct != wmoEagerDrainPct ||
			eager.resolvePct != wmoEagerResolvePct || eager.drainBias != wmoOldest ||
			eager.resolveBias != wmoOldest || eager.fenceWaitPct != 0 {
			t.Fatalf("seed %d: the other hart's rates %+v", seed, eager)
		}
		if lag.specPct != spec[1] || eager.specPct != spec[0] {
			t.Fatalf("seed %d: speculation rates %d %d, drawn %v", seed, eager.specPct, lag.specPct, spec)
		}
	}

	// The rates are state: a run with a laggard continues exactly from a
	// snapshot.
	a := build(ModelRVWMO)
	if err := a.SetSchedule(SchedConfig{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 4, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	a.LagHart(0)
	a.Run(3_001)
	snap := a.Snapshot()
	b := build(ModelRVWMO)
	if err := b.RestoreSnapshot(snap); err != nil {
		t.Fatalf("restore a snapshot with a laggard: %v", err)
	}
	if b.harts[0].w.r != a.harts[0].w.r {
		t.Fatalf("restored laggard's rates %+v, want %+v", b.harts[0].w.r, a.harts[0].w.r)
	}
	a.Run(20_000)
	b.Run(20_000)
	if a.StateHash() != b.StateHash() {
		t.Fatalf("straight run %x, snapshot and restore %x", a.StateHash(), b.StateHash())
	}

	// Under sc, or for a hart that does not exist, nothing changes.
	for _, c := range []struct {
		model MemoryModel
		hart  int
	}{{ModelSC, 0}, {ModelRVWMO, -1}, {ModelRVWMO, 2}} {
		m := build(c.model)
		if err := m.SetSchedule(SchedConfig{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 4, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		before := m.StateHash()
		m.LagHart(c.hart)
		if m.StateHash() != before {
			t.Errorf("LagHart(%d) under %v changed the machine", c.hart, c.model)
		}
	}
}
