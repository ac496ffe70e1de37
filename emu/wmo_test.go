package emu

import (
	"slices"
	"testing"

	"everett/isa"
)

// wmoTwoWords starts the two-hart programs below: a3 is the hart's own
// word and a4 the other hart's, 64 bytes apart at 0x8001_0000; the next
// instruction is at 0x80000028.
var wmoTwoWords = []string{
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
}

// wmoProgram: each hart counts in a0, stores the count to its own word and
// adds the other hart's word to s0, forever; it re-reads its own word and
// counts in s1 the times it did not see its own last store (never: a hart
// observes its own accesses in program order).
var wmoProgram = slices.Concat(wmoTwoWords, []string{
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
})

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
	if _, d := compareRuns(t, a, b, 1000, 100_000); d != nil {
		t.Fatal(d)
	}
}

// The branch on the re-read is a branch on a pending load: a hart may
// guess it (wmospec.go), and a wrong guess that counted in s1 must be
// squashed.
func TestAHartSeesItsOwnStoresInProgramOrderUnderRVWMO(t *testing.T) {
	var squashes uint64
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
			squashes += h.w.squashes
		}
	}
	if squashes == 0 {
		t.Error("no wrong guess was squashed")
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

// rvwmoHart returns hart 0 of a fresh one-hart rvwmo machine with seed.
func rvwmoHart(t *testing.T, seed uint64) *Hart {
	t.Helper()
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1, Seed: seed, MemoryModel: ModelRVWMO})
	if err != nil {
		t.Fatal(err)
	}
	return m.harts[0]
}

// The buffer drains in a drawn order, but never two overlapping stores out
// of order and never a store past a fence w,w before it (Unprivileged ISA,
// "RVWMO Memory Consistency Model", preserved program order rules 1 and 4).
func TestTheStoreBufferKeepsCoherenceAndFenceMarks(t *testing.T) {
	const base = DefaultRAMBase
	orders := map[string]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		h := rvwmoHart(t, seed)
		w := h.w
		// 0: x=1, 1: y=1, 2: x=2 (overlaps 0), fence w,w, 3: z=1, 4: y=2 (overlaps 1)
		push := func(off, v uint64) {
			w.st[w.ns] = wmoStore{pa: base + off, v: v, size: 8, gen: w.gen}
			w.ns++
		}
		push(0, 1)
		push(64, 1)
		push(0, 2)
		w.gen++
		push(128, 1)
		push(64, 2)
		var order []uint64
		for w.ns > 0 {
			before := map[uint64]bool{}
			for _, s := range w.st[:w.ns] {
				before[s.pa<<8|s.v] = true
			}
			h.wmoDrainOne(true)
			for _, s := range w.st[:w.ns] {
				delete(before, s.pa<<8|s.v)
			}
			for k := range before {
				order = append(order, k)
			}
		}
		pos := map[uint64]int{}
		for i, k := range order {
			pos[k] = i
		}
		x1, y1, x2, z1, y2 := pos[base<<8|1], pos[(base+64)<<8|1], pos[base<<8|2], pos[(base+128)<<8|1], pos[(base+64)<<8|2]
		if x1 > x2 || y1 > y2 || max(x1, y1, x2) > min(z1, y2) {
			t.Fatalf("seed %d: drained out of order: %x", seed, order)
		}
		orders[fmtOrder(order)] = true
	}
	if len(orders) < 3 {
		t.Errorf("only %d drain orders in 200 seeds", len(orders))
	}
}

func fmtOrder(o []uint64) string {
	s := ""
	for _, k := range o {
		s += string(rune('a'+k&0xff)) + string(rune('0'+(k>>8)&0xff))
	}
	return s
}

// A hart's loads see its own buffered stores byte by byte, youngest first,
// over memory (the Load Value Axiom's program-order half), but only those
// older than the load.
func TestALoadForwardsFromTheOwnBufferByteByByte(t *testing.T) {
	h := rvwmoHart(t, 1)
	const a = DefaultRAMBase + 0x100
	if err := h.m.WritePhys(a, []byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	w := h.w
	w.st[0] = wmoStore{pa: a + 2, v: 0xbbaa, size: 2, seq: 0}
	w.st[1] = wmoStore{pa: a + 3, v: 0xcc, size: 1, seq: 1}
	w.ns, w.seq = 2, 2
	if got, want := h.wmoRead(a, 8, h.w.seq), uint64(0x08070605ccaa0201); got != want {
		t.Errorf("read %#x, want %#x", got, want)
	}
	if got, want := h.wmoRead(a+3, 2, h.w.seq), uint64(0x05cc); got != want {
		t.Errorf("read %#x, want %#x", got, want)
	}
	// A load issued before the second store (a deferred one) reads only
	// the first.
	if got, want := h.wmoRead(a+3, 2, 1), uint64(0x05bb); got != want {
		t.Errorf("read of a load older than the second store %#x, want %#x", got, want)
	}
	h.wmoSettle()
	var b [8]byte
	h.m.ReadPhys(a, b[:])
	if b != [8]byte{1, 2, 0xaa, 0xcc, 5, 6, 7, 8} {
		t.Errorf("memory after the drain: % x", b)
	}
}

// Fences (Unprivileged ISA §2.7): what each predecessor/successor set
// leaves pending, and whether pending loads then hold back later stores
// (a fence r,w orders earlier loads only before later stores).
func TestFencesOrderWhatTheirSetsSay(t *testing.T) {
	for _, c := range []struct {
		fence         string
		raw           uint32
		loads, stores bool // left pending
		gen           bool // a barrier mark
		held          bool // the pending loads hold back later stores
	}{
		{"fence rw,rw", 0x0330000f, false, false, false, false},
		{"fence r,r", 0x0220000f, false, true, false, false},
		{"fence w,w", 0x0110000f, true, true, true, false},
		{"fence w,r", 0x0120000f, true, false, false, false},
		{"fence r,w", 0x0210000f, true, true, false, true},
		{"fence.tso", 0x8330000f, false, true, true, false},
		{"fence iorw,ow", 0x0f50000f, true, true, true, true},
	} {
		h := rvwmoHart(t, 1)
		w := h.w
		w.st[0] = wmoStore{pa: DefaultRAMBase, v: 1, size: 8}
		w.ns = 1
		w.ld[0] = wmoLoad{pa: DefaultRAMBase + 64, size: 8, kind: isa.LD, rd: 5}
		w.nl, w.pend = 1, regBit(5)
		h.wmoFence(c.raw)
		held := w.ctrl&regBit(5) != 0
		if (w.nl > 0) != c.loads || (w.ns > 0) != c.stores || (w.gen > 0) != c.gen || held != c.held {
			t.Errorf("%s: loads pending %v, stores pending %v, mark %v, loads hold stores %v; want %v %v %v %v",
				c.fence, w.nl > 0, w.ns > 0, w.gen > 0, held, c.loads, c.stores, c.gen, c.held)
		}
	}
}

// A hostile guest under rvwmo (see runRandomCode): random words on two
// harts, with and without preemption at communication events. The host
// never panics, and the pending accesses survive a snapshot exactly.
func TestRandomCodeUnderRVWMONeverCrashesTheHost(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	pending := 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		m, err := newRandomCode(seed, 1024)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetMemoryModel(ModelRVWMO); err != nil {
			t.Fatal(err)
		}
		m.Run(20_000)
		for _, h := range m.harts {
			pending += h.w.ns + h.w.nl
		}
		c, err := New(Config{RAMBytes: 1 << 20, Harts: 2, Quantum: 97})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.RestoreSnapshot(m.Snapshot()); err != nil {
			t.Fatalf("seed %d: restore: %v", seed, err)
		}
		if c.StateHash() != m.StateHash() {
			t.Fatalf("seed %d: a restored machine hashes differently", seed)
		}
		m.Run(40_000)
		c.Run(40_000)
		if c.StateHash() != m.StateHash() {
			t.Fatalf("seed %d: the restored machine goes on differently", seed)
		}
	}
	t.Logf("%d accesses pending at the snapshots", pending)
}

// wmoCtrlProgram: each hart loads the other's word, branches on it to the
// next instruction (a control dependency), stores its count (a store that
// waits for the load), re-reads it (forwarded at once), counts in s1 the
// re-reads that missed it (never), then a store-release and a
// load-acquire.
var wmoCtrlProgram = slices.Concat(wmoTwoWords, []string{
	"addi a6,a3,8",         // own release word (registers start at 0)
	"addi a7,a4,8",         // the other's
	"addi a0,a0,1",         // 80000030: loop
	"lw a1,0(a4)",          // 80000034
	"bne a1,zero,8000003c", // to the next instruction either way
	"sw a0,0(a3)",          // 8000003c
	"lw a2,0(a3)",          // 80000040
	"beq a2,a0,8000004c",
	"addi s1,s1,1",
	"sw.rl a0,(a6)", // 8000004c
	"lw.aq a5,(a7)", // 80000050
	"j 80000030",
})

// A store after a control dependency waits in the buffer for the load it
// depends on, and a store-release waits there flagged: both are state that
// a snapshot carries and the state hash covers, and a run continues
// exactly from a snapshot taken while they wait. The hart still reads its
// own store at once.
func TestWaitingStoresAndReleasesAreInSnapshotsAndHashes(t *testing.T) {
	build := rvwmoProgram(t, wmoCtrlProgram)
	waiting := func(m *Machine) (wait, rel bool) {
		for _, h := range m.harts {
			for _, s := range h.w.st[:h.w.ns] {
				wait = wait || s.wait != 0
				rel = rel || s.rel
			}
		}
		return
	}
	for seed := uint64(1); seed <= 20; seed++ {
		a, b := build(seed), build(seed)
		var at uint64
		for at = 1; at < 20_000; at++ {
			b.Run(at)
			if w, _ := waiting(b); w {
				break
			}
		}
		if w, _ := waiting(b); !w {
			continue // this seed defers too little
		}
		checkSnapshotCarries(t, build, seed, at, a, b, "a store's wait mask", func(m *Machine) {
			for _, hh := range m.harts {
				for k := range hh.w.st[:hh.w.ns] {
					hh.w.st[k].wait = 0
				}
			}
		})
		for _, hh := range a.harts {
			if hh.w.nl > 0 {
				hh.wmoResolveAll()
			}
			if s1 := hh.X(9); s1 != 0 {
				t.Errorf("seed %d hart %d: %d re-reads missed the own store", seed, hh.ID, s1)
			}
		}
		sawRel := false
		for at := uint64(200); at < 5000 && !sawRel; at += 3 {
			a.Run(a.ICount() + 3)
			_, sawRel = waiting(a)
		}
		if !sawRel {
			t.Errorf("seed %d: no store-release ever waited in the buffer", seed)
		}
		return
	}
	t.Fatal("no seed of 20 had a store waiting for a load")
}

// wmoSMCProgram calls a function at 0x80002000 (which returns 1 in a0),
// keeps the result in s2, then writes "addi a0,zero,42; ret" over it, with
// fence.i, and calls it again (result in s3), then writes "addi
// a0,zero,7; ret" to a page never run before, with fence.i, and calls
// that: the hart's fetch must see its own stores, buffered or not.
var wmoSMCProgram = []string{
	"addi t0,zero,1", // 80000000
	"slli t0,t0,31",
	"lui t3,0x2",
	"add t0,t0,t3",  // t0 = 0x8000_2000
	"jalr ra,0(t0)", // 80000010
	"addi s2,a0,0",
	"lui t1,0x2a00",
	"addi t1,t1,0x513", // addi a0,zero,42
	"sw t1,0(t0)",      // 80000020
	"lui t2,0x8",
	"addi t2,t2,0x67", // ret
	"sw t2,4(t0)",
	"fence.i", // 80000030
	"jalr ra,0(t0)",
	"addi s3,a0,0",
	"lui t3,0x1",   // 80000040
	"add t0,t0,t3", // t0 = 0x8000_3000, a page never run
	"lui t1,0x700",
	"addi t1,t1,0x513", // addi a0,zero,7
	"sw t1,0(t0)",      // 80000050
	"sw t2,4(t0)",
	"fence.i",
	"jalr ra,0(t0)",
	"j 80000060", // 80000060
}

// Under rvwmo, fence.i orders no data access, yet a hart's fetch after it
// sees its own earlier stores, whether they are to a page with decoded
// code (the second call: fence.i drains them) or not (the third: the
// fetch does).
func TestAHartExecutesTheCodeItWroteUnderRVWMO(t *testing.T) {
	for seed := uint64(0); seed <= 30; seed++ {
		model := ModelRVWMO
		if seed == 0 {
			model = ModelSC // the program itself is right
		}
		m := mustBuild(t, programBuild(t, wmoSMCProgram, 1, 97, func(m *Machine) {
			m.cfg.Seed = seed
			old := []byte{0x13, 0x05, 0x10, 0x00, 0x67, 0x80, 0x00, 0x00} // addi a0,zero,1; ret
			if err := m.WritePhys(DefaultRAMBase+0x2000, old); err != nil {
				t.Fatal(err)
			}
			if err := m.SetMemoryModel(model); err != nil {
				t.Fatal(err)
			}
		}))
		m.Run(200)
		h := m.harts[0]
		if h.w != nil {
			h.wmoSettle()
		}
		if h.X(18) != 1 || h.X(19) != 42 || h.X(10) != 7 {
			t.Fatalf("seed %d: the calls returned %d, %d and %d, want 1, 42 and 7", seed, h.X(18), h.X(19), h.X(10))
		}
	}
}

// wmoTaintProgram: each hart loads the other's word and, through xor of
// the value with itself (a false address dependency, as the litmus suite
// writes them), stores its count to its own word and loads its own
// release word; a false data dependency feeds a second store, which it
// re-reads (forwarded at once), counting in s1 the re-reads that missed
// it (never).
var wmoTaintProgram = slices.Concat(wmoTwoWords, []string{
	"addi a6,a3,8", // own second word
	"addi a0,a0,1", // 8000002c: loop
	"lw a1,0(a4)",  // 80000030
	"xor a5,a1,a1",
	"add t5,a3,a5", // the address of the own word, tainted
	"sw a0,0(t5)",
	"lw a2,8(t5)", // 80000040
	"ori t6,a5,7", // 7, tainted
	"sw t6,0(a6)",
	"lw s2,0(a6)",
	"beq s2,t6,80000058", // 80000050
	"addi s1,s1,1",
	"j 8000002c", // 80000058
})

// Registers computed from a deferred load without its value (tainted),
// stores whose address or data depends on them and loads whose address
// does are state that a snapshot carries and the state hash covers; a run
// continues exactly from a snapshot taken while they are live.
func TestTaintedRegistersAreInSnapshotsAndHashes(t *testing.T) {
	build := rvwmoProgram(t, wmoTaintProgram)
	live := func(m *Machine) (taint, dep, after bool) {
		for _, h := range m.harts {
			taint = taint || h.w.tainted != 0
			for _, s := range h.w.st[:h.w.ns] {
				dep = dep || s.dep != 0
			}
			for _, l := range h.w.ld[:h.w.nl] {
				after = after || l.after != 0
			}
		}
		return
	}
	var sawTaint, sawDep, sawAfter bool
	for seed := uint64(1); seed <= 40 && !(sawTaint && sawDep && sawAfter); seed++ {
		a, b := build(seed), build(seed)
		var at uint64
		for at = 1; at < 20_000; at++ {
			b.Run(at)
			// First a snapshot with a store's dependency live, then one
			// with a load's.
			if tt, d, af := live(b); tt && (d && !sawDep || af && sawDep) {
				sawTaint, sawDep, sawAfter = true, sawDep || d, sawAfter || af
				break
			}
		}
		if at == 20_000 {
			continue // this seed defers too little
		}
		checkSnapshotCarries(t, build, seed, at, a, b, "tainted registers", func(m *Machine) {
			for _, hh := range m.harts {
				if hh.w.tainted != 0 {
					hh.w.tainted, hh.w.taint = 0, [32]uint64{}
				}
			}
		})
		for _, hh := range a.harts {
			if s1 := hh.X(9); s1 != 0 {
				t.Errorf("seed %d hart %d: %d re-reads missed the own store", seed, hh.ID, s1)
			}
		}
	}
	if !sawTaint || !sawDep || !sawAfter {
		t.Fatalf("in 40 seeds: a tainted register %v, a store with a dependency %v, a load with one %v", sawTaint, sawDep, sawAfter)
	}
}

// wmoLRSCProgram: each hart counts in a0, runs an LR/SC pair on the other
// hart's word that writes back what it read, then stores its count to its
// own word, forever; s1 counts the SCs that failed.
var wmoLRSCProgram = slices.Concat(wmoTwoWords, []string{
	"addi a0,a0,1", // 80000028: loop
	"lr.w a1,(a4)",
	"sc.w a2,a1,(a4)", // 80000030
	"sw a0,0(a3)",
	"beq a2,zero,80000040",
	"addi s1,s1,1",
	"j 80000028", // 80000040
})

// A deferred LR, alone or paired with its SC, is state that a snapshot
// carries and the state hash covers; a run continues exactly from a
// snapshot taken while one is pending.
func TestDeferredLRSCPairsAreInSnapshotsAndHashes(t *testing.T) {
	build := rvwmoProgram(t, wmoLRSCProgram)
	pending := func(m *Machine) (lr, pair bool) {
		for _, h := range m.harts {
			for _, l := range h.w.ld[:h.w.nl] {
				lr = lr || l.lr && !l.sc
				pair = pair || l.sc
			}
		}
		return
	}
	var sawLR, sawPair bool
	for seed := uint64(1); seed <= 40 && !(sawLR && sawPair); seed++ {
		a, b := build(seed), build(seed)
		var at uint64
		for at = 1; at < 20_000; at++ {
			b.Run(at)
			if lr, pair := pending(b); lr && !sawLR || pair && sawLR {
				sawLR, sawPair = sawLR || lr, sawPair || pair
				break
			}
		}
		if at == 20_000 {
			continue
		}
		checkSnapshotCarries(t, build, seed, at, a, b, "a deferred LR", func(m *Machine) {
			for _, hh := range m.harts {
				for k := range hh.w.ld[:hh.w.nl] {
					hh.w.ld[k].fromLR = !hh.w.ld[k].fromLR
				}
			}
		})
		for _, hh := range a.harts {
			if hh.X(9) > hh.X(10)/2 {
				t.Errorf("seed %d hart %d: %d of %d SCs failed", seed, hh.ID, hh.X(9), hh.X(10))
			}
		}
	}
	if !sawLR || !sawPair {
		t.Fatalf("in 40 seeds: a deferred LR %v, one paired with its SC %v", sawLR, sawPair)
	}
}

// wmoFenceProgram: each hart stores its count to its own word, loads the
// other's, and fences, forever.
var wmoFenceProgram = slices.Concat(wmoTwoWords, []string{
	"addi a0,a0,1", // 80000028: loop
	"sw a0,0(a3)",
	"lw a1,0(a4)", // 80000030
	"fence rw,rw",
	"j 80000028",
})

// With fence waits on, a hart with accesses pending may end its turn at a
// fence: the same instructions take more virtual time. The switch and the
// rates drawn with it are in snapshots and hashes, and a run continues
// exactly from a snapshot taken while a hart may wait.
func TestFenceWaitsAreDrawnSnapshottedAndHashed(t *testing.T) {
	build := func(seed uint64, waits bool) *Machine {
		return mustBuild(t, programBuild(t, wmoFenceProgram, 2, 50, func(m *Machine) {
			m.cfg.Seed = seed
			if err := m.SetMemoryModel(ModelRVWMO); err != nil {
				t.Fatal(err)
			}
			m.SetFenceWaits(waits)
			m.wmoSeed(seed) // as SetSchedule does
		}))
	}
	waitSeed := uint64(0)
	for seed := uint64(1); seed <= 40 && waitSeed == 0; seed++ {
		m := build(seed, true)
		if m.harts[0].w.r.fenceWaitPct >= 50 && m.harts[1].w.r.fenceWaitPct >= 50 {
			waitSeed = seed
		}
	}
	if waitSeed == 0 {
		t.Fatal("no seed of 40 drew fence waits of 50% or more for both harts")
	}
	on, off := build(waitSeed, true), build(waitSeed, false)
	if off.harts[0].w.r.fenceWaitPct != 0 {
		t.Fatal("fence waits drawn with the switch off")
	}
	on.Run(20_000)
	off.Run(20_000)
	if on.Now() <= off.Now() {
		t.Errorf("virtual time for 20000 instructions: %d with fence waits, %d without; want more with", on.Now(), off.Now())
	}
	a, b := build(waitSeed, true), build(waitSeed, true)
	b.Run(5_003)
	snap := b.Snapshot()
	c := build(99, false)
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if c.StateHash() != b.StateHash() {
		t.Fatalf("restored hash %x, want %x", c.StateHash(), b.StateHash())
	}
	c.SetFenceWaits(false)
	if c.StateHash() == b.StateHash() {
		t.Fatal("the hash does not cover the fence-wait switch")
	}
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	c.wmoSeed(7)
	a.wmoSeed(7) // a reseed after the restore draws waits again
	if c.harts[0].w.r != a.harts[0].w.r {
		t.Fatalf("rates after a reseed: restored %+v, straight %+v", c.harts[0].w.r, a.harts[0].w.r)
	}
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	a = build(waitSeed, true)
	a.Run(40_000)
	c.Run(40_000)
	if a.StateHash() != c.StateHash() {
		t.Fatalf("straight run %x, snapshot and restore %x", a.StateHash(), c.StateHash())
	}
}

// wmoSwapProgram has each hart swap its counter into its own word with
// amoswap.w.rl x0 (buffered as a store-release), read the other's word,
// and read its own word back (rule 3: that load waits for the swap to
// drain, so it returns the counter), counting misreads in s1.
var wmoSwapProgram = slices.Concat(wmoTwoWords, []string{
	"addi a0,a0,1", // 80000028: loop
	"amoswap.w.rl zero,a0,(a3)",
	"lw a1,0(a4)", // 80000030
	"lw a2,0(a3)",
	"beq a2,a0,80000040",
	"addi s1,s1,1",
	"j 80000028", // 80000040
})

// An amoswap.rl whose result is thrown away waits in the store buffer
// flagged as an AMO: a snapshot carries the flag, the state hash covers
// it, a run continues exactly from a snapshot taken while it waits, and
// the hart's own later load of its word reads the swapped value.
func TestBufferedSwapReleasesAreInSnapshotsAndHashes(t *testing.T) {
	build := rvwmoProgram(t, wmoSwapProgram)
	amo := func(m *Machine) bool {
		for _, h := range m.harts {
			for _, s := range h.w.st[:h.w.ns] {
				if s.amo {
					return true
				}
			}
		}
		return false
	}
	for seed := uint64(1); seed <= 20; seed++ {
		a, b := build(seed), build(seed)
		var at uint64
		for at = 1; at < 20_000 && !amo(b); at++ {
			b.Run(at)
		}
		if !amo(b) {
			continue // this seed drains too soon
		}
		c := build(99)
		if err := c.RestoreSnapshot(b.Snapshot()); err != nil || !amo(c) {
			t.Fatalf("seed %d: restored (%v) without the AMO entry", seed, err)
		}
		checkSnapshotCarries(t, build, seed, at, a, b, "a store's AMO flag", func(m *Machine) {
			for _, hh := range m.harts {
				for k := range hh.w.st[:hh.w.ns] {
					hh.w.st[k].amo = false
				}
			}
		})
		for _, hh := range a.harts {
			if s1 := hh.X(9); s1 != 0 {
				t.Errorf("seed %d hart %d: %d reads of the own word missed the swap", seed, hh.ID, s1)
			}
		}
		return
	}
	t.Fatal("no seed of 20 had a swap waiting in the buffer")
}

// rvwmoProgram builds machines of 2 harts running program under rvwmo
// with quantum 7, from a seed.
func rvwmoProgram(t *testing.T, program []string) func(seed uint64) *Machine {
	return func(seed uint64) *Machine {
		return mustBuild(t, programBuild(t, program, 2, 7, func(m *Machine) {
			m.cfg.Seed = seed
			if err := m.SetMemoryModel(ModelRVWMO); err != nil {
				t.Fatal(err)
			}
		}))
	}
}

// checkSnapshotCarries checks, for b (built from seed, run to at) and a (its
// twin, not run yet), that a snapshot of b restores into a machine built
// from another seed with b's state hash, that erasing what (erase) changes
// the hash, and that b's run continues exactly from the snapshot: a run
// straight to 60,000 instructions ends as one restored from it.
func checkSnapshotCarries(t *testing.T, build func(uint64) *Machine, seed, at uint64, a, b *Machine, what string, erase func(*Machine)) {
	t.Helper()
	snap := b.Snapshot()
	c := build(99)
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if c.StateHash() != b.StateHash() {
		t.Fatalf("seed %d: restored hash %x, want %x", seed, c.StateHash(), b.StateHash())
	}
	before := c.StateHash()
	erase(c)
	if c.StateHash() == before {
		t.Fatalf("seed %d: the hash does not cover %s", seed, what)
	}
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	a.Run(60_000)
	c.Run(60_000)
	if a.StateHash() != c.StateHash() {
		t.Fatalf("seed %d: straight run %x, snapshot at %d and restore %x", seed, a.StateHash(), at, c.StateHash())
	}
}
