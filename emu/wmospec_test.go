package emu

import (
	"testing"

	"everett/hw"
)

// wmoSpecProgram (one hart): s0 = 5, a load of 0 from 0x8001_0000, a
// branch on it that is taken (to 80000024); the path not taken sets s0 to
// 9 and stores it to 0x8001_0008, or (wrong, with bad set) jumps to
// address 0, which no fetch may reach. Then s1 counts 1, a fence, and a
// loop at 8000002c.
func wmoSpecProgram(bad bool) []string {
	p := []string{
		"addi t3,zero,1", // 80000000
		"slli t3,t3,31",
		"lui t4,0x10",
		"add t0,t3,t4",   // 8000000c: t0 = 0x8001_0000
		"addi s0,zero,5", // 80000010
		"lw a1,0(t0)",
		"beq a1,zero,80000024",
		"addi s0,zero,9", // 8000001c: the path not taken
		"sw s0,8(t0)",    // 80000020
		"addi s1,s1,1",   // 80000024
		"fence rw,rw",
		"j 8000002c", // 8000002c
	}
	if bad {
		p[7] = "jalr zero,0(zero)"
		p[8] = "addi s0,zero,9"
	}
	return p
}

const wmoSpecLoop = 0x8000002c

// wmoSpecMachine builds wmoSpecProgram on one hart under rvwmo with seed,
// its loads always deferred and never resolved at a drawn step, so the
// branch always finds its register pending, and speculating at it at
// rate spec.
func wmoSpecMachine(t *testing.T, seed uint64, bad bool, spec uint64) *Machine {
	t.Helper()
	m := mustBuild(t, programBuild(t, wmoSpecProgram(bad), 1, 1000, func(m *Machine) {
		m.cfg.Seed = seed
		if err := m.SetMemoryModel(ModelRVWMO); err != nil {
			t.Fatal(err)
		}
	}))
	m.harts[0].w.r = wmoRates{deferPct: 100, specPct: spec}
	return m
}

// step runs m one instruction slot.
func step(m *Machine) { m.Run(m.ICount() + 1) }

// A wrong guess at a branch on a pending load is squashed when the load
// resolves: the registers the path wrote and the store it buffered are
// gone (the store never reached memory), the hart goes on at the right
// target, and instret counts only the instructions of the right path. A
// right guess keeps its path.
func TestASquashRestoresRegistersAndTheBufferAndInstret(t *testing.T) {
	ref := wmoSpecMachine(t, 1, false, 0)
	for i := 0; i < 100 && ref.harts[0].PC() != wmoSpecLoop; i++ {
		step(ref)
	}
	want := ref.harts[0].Retired()
	if ref.harts[0].w.specs != 0 || want == 0 {
		t.Fatalf("the run without speculation speculated %d times, retired %d", ref.harts[0].w.specs, want)
	}
	var wrong, right bool
	for seed := uint64(1); seed <= 40 && !(wrong && right); seed++ {
		m := wmoSpecMachine(t, seed, false, 100)
		h := m.harts[0]
		for i := 0; i < 100 && !h.w.spec; i++ {
			step(m)
		}
		if !h.w.spec {
			t.Fatalf("seed %d: never speculated", seed)
		}
		if h.w.chk.guess {
			right = true
		} else {
			wrong = true
			for i := 0; i < 10 && h.w.ns == 0; i++ {
				step(m)
			}
			if !h.w.spec || h.w.ns != 1 || h.X(8) != 9 {
				t.Fatalf("seed %d: on the wrong path: speculating %v, %d stores buffered, s0 = %d; want true, 1, 9",
					seed, h.w.spec, h.w.ns, h.X(8))
			}
		}
		for i := 0; i < 100 && h.PC() != wmoSpecLoop; i++ {
			step(m)
		}
		if h.w.spec || h.w.ns != 0 || h.w.nl != 0 || h.X(8) != 5 || h.X(9) != 1 || uint32(m.readPhys64(0x8001_0008)) != 0 {
			t.Errorf("seed %d (guess taken %v): speculating %v, %d stores, %d loads, s0 = %d, s1 = %d, memory %d; want false, 0, 0, 5, 1, 0",
				seed, h.w.chk.guess, h.w.spec, h.w.ns, h.w.nl, h.X(8), h.X(9), uint32(m.readPhys64(0x8001_0008)))
		}
		if got := h.Retired(); got != want {
			t.Errorf("seed %d (guess taken %v): retired %d at the loop, want %d", seed, h.w.chk.guess, got, want)
		}
		if sq := h.w.squashes; sq != map[bool]uint64{true: 0, false: 1}[h.w.chk.guess] {
			t.Errorf("seed %d (guess taken %v): %d squashes", seed, h.w.chk.guess, sq)
		}
	}
	if !wrong || !right {
		t.Fatalf("40 seeds guessed wrong: %v, right: %v; want both", wrong, right)
	}
}

// A fault on a wrong guessed path (a jump to address 0, where there is no
// memory to fetch) is squashed with the path: no trap is taken, and the
// hart goes on at the right target.
func TestAFaultOnAWrongPathTakesNoTrap(t *testing.T) {
	wrong := false
	for seed := uint64(1); seed <= 40 && !wrong; seed++ {
		m := wmoSpecMachine(t, seed, true, 100)
		h := m.harts[0]
		for i := 0; i < 100 && h.PC() != wmoSpecLoop; i++ {
			step(m)
			wrong = wrong || h.w.spec && !h.w.chk.guess
		}
		if h.PC() != wmoSpecLoop || h.csr.mcause != 0 || h.X(8) != 5 || h.X(9) != 1 {
			t.Fatalf("seed %d: pc %#x, mcause %d, s0 = %d, s1 = %d; want %#x, 0, 5, 1", seed, h.PC(), h.csr.mcause, h.X(8), h.X(9), wmoSpecLoop)
		}
	}
	if !wrong {
		t.Fatal("no seed of 40 guessed the jump to 0")
	}
}

// A checkpoint is state: a snapshot taken while a hart speculates carries
// it, the state hash covers it, and the run goes on from the restored
// snapshot exactly as it did straight. Two runs with one seed agree.
func TestASpeculatingHartIsInSnapshotsAndHashes(t *testing.T) {
	build := rvwmoProgram(t, wmoProgram)
	for seed := uint64(1); seed <= 20; seed++ {
		a, b := build(seed), build(seed)
		var at uint64
		spec := func() bool { return b.harts[0].w.spec || b.harts[1].w.spec }
		for at = 1; at < 20_000 && !spec(); at++ {
			b.Run(at)
		}
		if !spec() {
			continue // this seed's rates leave no speculation
		}
		checkSnapshotCarries(t, build, seed, at, a, b, "a checkpoint's guess", func(m *Machine) {
			for _, h := range m.harts {
				h.w.chk.guess = !h.w.chk.guess
			}
		})
		c := build(seed)
		c.Run(60_000)
		if a.StateHash() != c.StateHash() {
			t.Fatalf("seed %d: two runs end %x and %x", seed, a.StateHash(), c.StateHash())
		}
		if s := a.harts[0].w.specs + a.harts[1].w.specs; s == 0 {
			t.Fatalf("seed %d: no checkpoint in the straight run", seed)
		}
		return
	}
	t.Fatal("no seed of 20 speculated")
}

// A store of a guessed path never drains before its checkpoint is
// validated, even once the branch's load has resolved (its wait mask is
// then clear) and a drawn step would drain any store that may go: a
// wrong path leaves no trace in memory.
func TestAGuessedPathsStoreNeverDrainsBeforeValidation(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		m := wmoSpecMachine(t, seed, false, 100)
		h := m.harts[0]
		for i := 0; i < 100 && h.w.ns == 0; i++ {
			step(m)
		}
		if !h.w.spec || h.w.chk.guess {
			continue // a right guess buffers nothing
		}
		h.wmoResolveRegs(h.w.chk.dep) // as an instruction of the path naming the register would
		if !h.w.ready || h.w.st[0].wait != 0 {
			t.Fatalf("seed %d: after the load resolved: ready %v, wait %#x", seed, h.w.ready, h.w.st[0].wait)
		}
		for range 10 {
			h.wmoDrainOne(false)
		}
		if h.w.ns != 1 || uint32(m.readPhys64(0x8001_0008)) != 0 {
			t.Fatalf("seed %d: %d stores buffered, memory %d; want 1, 0", seed, h.w.ns, uint32(m.readPhys64(0x8001_0008)))
		}
		step(m)
		if h.w.spec || h.w.ns != 0 || h.X(8) != 5 {
			t.Fatalf("seed %d: after the next step: speculating %v, %d stores, s0 = %d; want false, 0, 5", seed, h.w.spec, h.w.ns, h.X(8))
		}
		return
	}
	t.Fatal("no seed of 40 guessed wrong")
}

// A snapshot saved before speculation existed (model version 1: no
// "rvwmo-spec" section after the harts' pending accesses) still restores:
// its harts never speculate until a schedule draws their rates again.
func TestAnRVWMOSnapshotFromBeforeSpeculationStillRestores(t *testing.T) {
	b := mustBuild(t, wmoBuild(t, ModelRVWMO, 2))
	b.Run(5000)
	for i := 0; i < 1000 && (b.harts[0].w.spec || b.harts[1].w.spec); i++ {
		step(b) // the section's length below assumes no checkpoint
	}
	if b.harts[0].w.spec || b.harts[1].w.spec {
		t.Fatal("never out of speculation")
	}
	snap := b.Snapshot()
	var e hw.Encoder
	b.saveWMOSpec(&e)
	b.saveWMOAMO(&e) // since version 3, after it
	old := *snap
	old.State = snap.State[:len(snap.State)-len(e.Bytes())]
	c := mustBuild(t, wmoBuild(t, ModelSC, 9))
	if err := c.RestoreSnapshot(&old); err != nil {
		t.Fatal(err)
	}
	for _, h := range c.harts {
		if h.w == nil || h.w.r.specPct != 0 || h.w.spec {
			t.Fatalf("hart %d after restoring a version-1 snapshot: %+v", h.ID, h.w)
		}
		if h.w.ns != b.harts[h.ID].w.ns || h.w.nl != b.harts[h.ID].w.nl {
			t.Fatalf("hart %d: %d stores and %d loads pending, want %d and %d", h.ID, h.w.ns, h.w.nl, b.harts[h.ID].w.ns, b.harts[h.ID].w.nl)
		}
	}
	c.Run(20_000)
	for _, h := range c.harts {
		if h.w.specs != 0 {
			t.Errorf("hart %d speculated %d times at rate 0", h.ID, h.w.specs)
		}
	}
	if err := c.RestoreSnapshot(snap); err != nil || c.StateHash() != b.StateHash() {
		t.Fatalf("the version-3 snapshot: %v, hash %x, want %x", err, c.StateHash(), b.StateHash())
	}
}
