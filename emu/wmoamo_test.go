package emu

import (
	"slices"
	"testing"

	"everett/isa"
)

// wmoAMOProgram: each hart adds 1 to the other's word with an amoadd
// (its old value to a1), swaps its count into its own word with an
// amoswap whose rd is x0, and adds the other's word to s0, forever.
var wmoAMOProgram = slices.Concat(wmoTwoWords, []string{
	"addi a0,a0,1", // 80000028: loop
	"addi t5,zero,1",
	"amoadd.w a1,t5,(a4)", // 80000030
	"amoswap.w zero,a0,(a3)",
	"lw a2,0(a4)",
	"add s0,s0,a2",
	"j 80000028", // 80000040
})

// A deferred AMO, with a real rd or with rd = x0 (pending into a register
// of its own), is state that a snapshot carries and the state hash
// covers; a run continues exactly from a snapshot taken while one is
// pending, and the counts stay exact: every amoadd is performed once.
func TestDeferredAMOsAreInSnapshotsAndHashes(t *testing.T) {
	build := rvwmoProgram(t, wmoAMOProgram)
	pending := func(m *Machine) (rd, x0 bool) {
		for _, h := range m.harts {
			for _, l := range h.w.ld[:h.w.nl] {
				rd = rd || l.amo == isa.AMOADD_W
				x0 = x0 || l.amo == isa.AMOSWAP_W && l.rd >= wmoAMOSink
			}
		}
		return
	}
	var sawRd, sawX0 bool
	for seed := uint64(1); seed <= 40 && !(sawRd && sawX0); seed++ {
		a, b := build(seed), build(seed)
		var at uint64
		for at = 1; at < 20_000; at++ {
			b.Run(at)
			if rd, x0 := pending(b); rd && x0 {
				sawRd, sawX0 = true, true
				break
			}
		}
		if at == 20_000 {
			continue
		}
		checkSnapshotCarries(t, build, seed, at, a, b, "a deferred AMO", func(m *Machine) {
			for _, hh := range m.harts {
				for k := range hh.w.ld[:hh.w.nl] {
					if hh.w.ld[k].amo != 0 {
						hh.w.ld[k].amo = isa.AMOXOR_W
					}
				}
			}
		})
	}
	if !sawRd || !sawX0 {
		t.Fatalf("in 40 seeds: a deferred AMO with rd %v, with rd = x0 %v", sawRd, sawX0)
	}
}

// Every amoadd is performed exactly once, deferred or not: after the
// harts settle, each hart's word holds one for each iteration of the
// other hart that got to its amoadd (a0 counts iterations begun).
func TestDeferredAMOsArePerformedOnceAndAtomically(t *testing.T) {
	build := rvwmoProgram(t, slices.Concat(wmoTwoWords, []string{
		"addi t5,zero,1", // 80000028
		"addi a0,a0,1",   // 8000002c: loop
		"amoadd.w a1,t5,(a4)",
		"lw a2,0(a3)",
		"j 8000002c",
	}))
	deferred := 0
	for seed := uint64(1); seed <= 10; seed++ {
		m := build(seed)
		for k := range 200 {
			m.Run(uint64(k+1) * 100)
			for _, h := range m.harts {
				for _, l := range h.w.ld[:h.w.nl] {
					if l.amo != 0 {
						deferred++
					}
				}
			}
		}
		m.wmoSettleAll()
		for _, h := range m.harts {
			other := m.harts[1-h.ID]
			var b [4]byte
			if err := m.ReadPhys(0x8001_0000+uint64(h.ID)*64, b[:]); err != nil {
				t.Fatal(err)
			}
			got := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
			if n := other.X(10); got != n && got != n-1 {
				t.Fatalf("seed %d: hart %d's word is %d after the other's %d iterations", seed, h.ID, got, n)
			}
		}
	}
	if deferred == 0 {
		t.Fatal("no AMO was ever deferred in 10 seeds")
	}
}

// A snapshot whose deferred AMO is not one the model could make (a
// misaligned address, or a plain load's register above the sink) is
// refused with an error.
func TestARestoredDeferredAMOIsChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		l    wmoLoad
		ok   bool
	}{
		{"an amoadd.w into a1", wmoLoad{pa: 0x8001_0000, size: 4, kind: isa.LW, rd: 11, amo: isa.AMOADD_W, v: 1}, true},
		{"an amoswap.d with rd = x0", wmoLoad{pa: 0x8001_0000, size: 8, kind: isa.LD, rd: wmoAMOSink + 3, amo: isa.AMOSWAP_D, v: 7}, true},
		{"a misaligned amoadd.w", wmoLoad{pa: 0x8001_0002, size: 4, kind: isa.LW, rd: 11, amo: isa.AMOADD_W}, false},
		{"an amoadd.w of 8 bytes", wmoLoad{pa: 0x8001_0000, size: 8, kind: isa.LD, rd: 11, amo: isa.AMOADD_W}, false},
		{"an LR kind as an AMO", wmoLoad{pa: 0x8001_0000, size: 4, kind: isa.LW, rd: 11, amo: isa.LR_W}, false},
		{"a plain load above the sink", wmoLoad{pa: 0x8001_0000, size: 4, kind: isa.LW, rd: wmoAMOSink}, false},
		{"a plain load storing a value", wmoLoad{pa: 0x8001_0000, size: 4, kind: isa.LW, rd: 11, v: 3}, false},
		{"an AMO past the registers of its own", wmoLoad{pa: 0x8001_0000, size: 4, kind: isa.LW, rd: wmoAMOSink + wmoLoads, amo: isa.AMOOR_W}, false},
	} {
		if got := wmoLoadOK(&c.l); got != c.ok {
			t.Errorf("%s: wmoLoadOK %v, want %v", c.name, got, c.ok)
		}
	}
}

// An SC with no reservation for its bytes fails at once without
// performing the hart's pending loads (it is no memory operation); its rd
// is 1, tainted by the loads its rs2 and rd waited for (a load pending
// into rd itself is performed first: it would overwrite the 1). An SC
// that may succeed is left to the ordinary way.
func TestAnSCThatMustFailLeavesPendingLoadsPendingAndTaintsItsResult(t *testing.T) {
	for _, c := range []struct {
		name      string
		rd, rs2   uint8
		reserved  bool
		done      bool
		pending   bool   // x5's load still pending after
		taintOfRd uint64 // loads rd's 1 is ordered after
	}{
		{"rs2 pending", 6, 5, false, true, true, regBit(5)},
		{"rd pending", 5, 0, false, true, false, 0},
		{"independent", 6, 0, false, true, true, 0},
		{"reserved", 6, 5, true, false, true, 0},
	} {
		m := rvwmoProgram(t, wmoAMOProgram)(1)
		m.Run(1) // the hart's TLBs exist once it ran
		h := m.harts[0]
		h.w = &hartWMO{r: h.w.r}
		w := h.w
		w.ld[0] = wmoLoad{pa: DefaultRAMBase + 64, size: 8, kind: isa.LD, rd: 5}
		w.nl, w.pend = 1, regBit(5)
		h.x[7] = DefaultRAMBase + 128
		h.resValid, h.resAddr = c.reserved, DefaultRAMBase+128
		o := op{kind: isa.SC_W, rd: c.rd, rs1: 7, rs2: c.rs2, raw: 0x1800202f}
		if c.rs2 == 0 {
			o.rs2 = regSink // x0 reads as the sink's 0 in this test
			h.x[regSink] = 0
		}
		done := h.wmoFailSC(&o)
		if done != c.done || (w.nl > 0) != c.pending {
			t.Errorf("%s: failed at once %v, load pending %v; want %v %v", c.name, done, w.nl > 0, c.done, c.pending)
			continue
		}
		if done && (h.x[c.rd] != 1 || w.taint[c.rd] != c.taintOfRd || h.resValid) {
			t.Errorf("%s: rd %d, taint %#x, reservation %v; want 1, %#x, false", c.name, h.x[c.rd], w.taint[c.rd], h.resValid, c.taintOfRd)
		}
	}
}

// A fence.i performs the loads a control dependency holds back (br), not
// the other loads later stores wait for (ctrl: a fence r,w, rule 13);
// br is in snapshots and hashes.
func TestAFenceIPerformsOnlyControlDependenciesAndTheyAreSnapshotted(t *testing.T) {
	m := rvwmoProgram(t, wmoAMOProgram)(1)
	m.Run(1)
	h := m.harts[0]
	m.wmoSettleAll()
	h.w = &hartWMO{r: h.w.r}
	w := h.w
	w.ld[0] = wmoLoad{pa: DefaultRAMBase + 64, size: 8, kind: isa.LD, rd: 5}
	w.ld[1] = wmoLoad{pa: DefaultRAMBase + 128, size: 8, kind: isa.LD, rd: 6}
	w.nl, w.pend = 2, regBit(5)|regBit(6)
	w.ctrl, w.br = regBit(5)|regBit(6), regBit(5)
	snap := m.Snapshot()
	c := rvwmoProgram(t, wmoAMOProgram)(2)
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if c.harts[0].w.br != w.br || c.StateHash() != m.StateHash() {
		t.Fatalf("restored br %#x (want %#x), hash equal %v", c.harts[0].w.br, w.br, c.StateHash() == m.StateHash())
	}
	c.harts[0].w.br = regBit(6)
	if c.StateHash() == m.StateHash() {
		t.Fatal("the hash does not cover br")
	}
	w.r.resolvePct = 0 // no drawn step performs a load meanwhile
	b := &block{ops: []op{{kind: isa.FENCE_I, len: 4, raw: 0x0000100f}}, size: 4}
	h.execWMO(b, h.pc, 1)
	if w.pend != regBit(6) || w.br != 0 || w.ctrl != regBit(6) {
		t.Fatalf("after fence.i: pending %#x, br %#x, ctrl %#x; want x6 pending and held, x5 performed", w.pend, w.br, w.ctrl)
	}
}

// A linked load, the machine's switch and the harts' link rates are in
// snapshots and hashes; a store to a linked load's bytes performs it
// first, reading what was there before.
func TestLinkedLoadsAreSnapshottedAndPerformedBeforeAStoreToTheirBytes(t *testing.T) {
	m := rvwmoProgram(t, wmoAMOProgram)(1)
	m.SetLinkedLoads(true)
	m.Run(1)
	m.wmoSettleAll()
	h := m.harts[0]
	h.w = &hartWMO{r: h.w.r}
	w := h.w
	const at = DefaultRAMBase + 0x3000
	w.ld[0] = wmoLoad{pa: at, size: 4, kind: isa.LW, rd: 5, link: true}
	w.nl, w.pend = 1, regBit(5)
	m.wmo.links = 1
	snap := m.Snapshot()
	c := rvwmoProgram(t, wmoAMOProgram)(2)
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if !c.harts[0].w.ld[0].link || c.wmo.links != 1 || !c.wmo.linking || c.StateHash() != m.StateHash() {
		t.Fatalf("restored: link %v, links %d, linking %v, hash equal %v", c.harts[0].w.ld[0].link, c.wmo.links, c.wmo.linking, c.StateHash() == m.StateHash())
	}
	c.harts[0].w.ld[0].link = false
	if c.StateHash() == m.StateHash() {
		t.Fatal("the hash does not cover a load's link")
	}
	c.harts[0].w.ld[0].link = true
	c.wmo.linking = false
	if c.StateHash() == m.StateHash() {
		t.Fatal("the hash does not cover the linking switch")
	}
	if err := m.WritePhys(at, []byte{7, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if w.nl != 0 || h.X(5) != 0 || m.wmo.links != 0 {
		t.Fatalf("after a write to its bytes: %d loads pending, x5 = %d, %d links; want 0, 0 (the value before), 0", w.nl, h.X(5), m.wmo.links)
	}
}

// As TestAHartExecutesTheCodeItWroteUnderRVWMO with the first word of
// each new function written by an amoswap (rd = x0, no aq, no rl), which
// the hart may defer, and no other store to the first function's page:
// fence.i makes the AMO visible to the hart's fetch where the page has
// decoded code, and a fetch from a page does where it has none yet.
func TestAHartExecutesTheCodeItWroteWithDeferredAMOs(t *testing.T) {
	prog := slices.Clone(wmoSMCProgram)
	n := 0
	for i, s := range prog {
		switch {
		case s == "sw t1,0(t0)":
			prog[i] = "amoswap.w zero,t1,(t0)"
			n++
		case s == "sw t2,4(t0)" && n == 1:
			// The old function already returns there: only the AMO
			// writes the page, so no store invalidates its blocks
			// before fence.i does.
			prog[i] = "addi zero,zero,0"
		}
	}
	if n != 2 {
		t.Fatalf("%d stores replaced, want 2", n)
	}
	deferred := 0
	for seed := uint64(0); seed <= 60; seed++ {
		model := ModelRVWMO
		if seed == 0 {
			model = ModelSC
		}
		m := mustBuild(t, programBuild(t, prog, 1, 97, func(m *Machine) {
			m.cfg.Seed = seed
			old := []byte{0x13, 0x05, 0x10, 0x00, 0x67, 0x80, 0x00, 0x00} // addi a0,zero,1; ret
			if err := m.WritePhys(DefaultRAMBase+0x2000, old); err != nil {
				t.Fatal(err)
			}
			if err := m.SetMemoryModel(model); err != nil {
				t.Fatal(err)
			}
		}))
		h := m.harts[0]
		for k := uint64(1); k <= 200; k++ {
			m.Run(k)
			if h.w != nil {
				for _, l := range h.w.ld[:h.w.nl] {
					if l.amo != 0 {
						deferred++
					}
				}
			}
		}
		if h.w != nil {
			h.wmoSettle()
		}
		if h.X(18) != 1 || h.X(19) != 42 || h.X(10) != 7 {
			t.Fatalf("seed %d: the calls returned %d, %d and %d, want 1, 42 and 7", seed, h.X(18), h.X(19), h.X(10))
		}
	}
	if deferred == 0 {
		t.Fatal("no amoswap was deferred in 60 seeds")
	}
}
