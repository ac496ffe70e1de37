package emu

import "testing"

// wmoProgram: each hart counts in a0, stores the count to its own word and
// adds the other hart's word to s0, forever; it re-reads its own word and
// counts in s1 the times it did not see its own last store (never: a hart
// observes its own accesses in program order).
var wmoProgram = []string{
	"csrr t0,mhartid", // 80000000
	"slli t1,t0,6",
	"xori t2,t0,1",
	"slli t2,t2,6",
	"addi t3,zero,1", // 80000010
	"slli t3,t3,31",
	"lui t4,0x10",
	"add t3,t3,t4", // t3 = 0x8001_0000
	"add a3,t3,t1", // 80000020: own word
	"add a4,t3,t2", // the other's
	"addi a0,zero,0",
	"addi s0,zero,0",
	"addi s1,zero,0", // 80000030
	"addi a0,a0,1",   // 80000034: loop
	"sw a0,0(a3)",
	"lw a1,0(a4)",
	"add s0,s0,a1", // 80000040
	"lw a2,0(a3)",
	"beq a2,a0,80000050",
	"addi s1,s1,1",
	"j 80000034", // 80000050
}

func wmoBuild(t *testing.T, model MemoryModel, seed uint64) func() (*Machine, error) {
	return programBuild(t, wmoProgram, 2, 97, func(m *Machine) {
		m.cfg.Seed = seed
		if err := m.SetMemoryModel(model); err != nil {
			t.Fatal(err)
		}
	})
}

func mustBuild(t *testing.T, build func() (*Machine, error)) *Machine {
	t.Helper()
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRVWMORunsWithTheSameSeedAgreeHashForHash(t *testing.T) {
	a, b := mustBuild(t, wmoBuild(t, ModelRVWMO, 5)), mustBuild(t, wmoBuild(t, ModelRVWMO, 5))
	if _, d := CompareRuns(a, b, 1000, 100_000); d != nil {
		t.Fatal(d)
	}
}

func TestAHartSeesItsOwnStoresInProgramOrderUnderRVWMO(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		m := mustBuild(t, wmoBuild(t, ModelRVWMO, seed))
		m.Run(200_000)
		for _, h := range m.harts {
			if h.w.nl > 0 {
				h.wmoResolveAll() // s1 may be pending
			}
			if s1 := h.X(9); s1 != 0 {
				t.Errorf("seed %d hart %d: %d own loads missed the own last store", seed, h.ID, s1)
			}
		}
	}
}

// TestRVWMOSeedsDrawDifferentReorderings: under the fixed schedule, sc
// runs with different seeds are the same run; rvwmo runs are not, since
// the seed draws when stores drain and loads resolve.
func TestRVWMOSeedsDrawDifferentReorderings(t *testing.T) {
	for _, model := range []MemoryModel{ModelSC, ModelRVWMO} {
		a, b := mustBuild(t, wmoBuild(t, model, 1)), mustBuild(t, wmoBuild(t, model, 2))
		a.Run(100_000)
		b.Run(100_000)
		if a.wmo != nil {
			a.wmoSettleAll()
			b.wmoSettleAll()
		}
		differ := a.harts[0].X(8) != b.harts[0].X(8) || a.harts[1].X(8) != b.harts[1].X(8)
		if want := model == ModelRVWMO; differ != want {
			t.Errorf("%v: sums %d %d (seed 1) and %d %d (seed 2) differ: %v, want %v", model,
				a.harts[0].X(8), a.harts[1].X(8), b.harts[0].X(8), b.harts[1].X(8), differ, want)
		}
	}
}

func TestAnRVWMOSnapshotMidRunContinuesExactly(t *testing.T) {
	a, b := mustBuild(t, wmoBuild(t, ModelRVWMO, 3)), mustBuild(t, wmoBuild(t, ModelRVWMO, 3))
	found := false
	for at := uint64(1000); at < 50_000 && !found; at += 37 {
		b.Run(at)
		for _, h := range b.harts {
			found = found || h.w.ns > 0 || h.w.nl > 0
		}
	}
	if !found {
		t.Fatal("never anything pending")
	}
	snap := b.Snapshot()
	c := mustBuild(t, wmoBuild(t, ModelSC, 99)) // the snapshot brings the model and its stream
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if c.MemoryModel() != ModelRVWMO || c.StateHash() != b.StateHash() {
		t.Fatalf("restored: model %v, hash %x, want %x", c.MemoryModel(), c.StateHash(), b.StateHash())
	}
	a.Run(100_000)
	c.Run(100_000)
	if a.StateHash() != c.StateHash() {
		t.Fatalf("straight run %x, snapshot and restore %x", a.StateHash(), c.StateHash())
	}
}

func TestAnSCSnapshotRestoredIntoAnRVWMOMachineIsSC(t *testing.T) {
	a := mustBuild(t, wmoBuild(t, ModelSC, 1))
	a.Run(1000)
	b := mustBuild(t, wmoBuild(t, ModelRVWMO, 1))
	if err := b.RestoreSnapshot(a.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if b.MemoryModel() != ModelSC || b.StateHash() != a.StateHash() {
		t.Fatalf("model %v, hash %x, want sc and %x", b.MemoryModel(), b.StateHash(), a.StateHash())
	}
}
