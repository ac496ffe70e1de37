package emu

import (
	"fmt"
	"slices"
	"testing"

	"everett/hw"
)

// commProgram: hart 0 writes X and Y, counts down long enough for hart 1
// to run its part (three accesses) in the meantime, then reads Z and
// writes X again. X, Y and Z are on three pages of their own.
var commProgram = []string{
	"csrr t0,mhartid", // 80000000
	"addi t3,zero,1",
	"slli t3,t3,31",
	"lui t4,0x10",
	"add t3,t3,t4", // 80000010: X = 0x8001_0000
	"lui t4,0x1",
	"add t5,t3,t4",   // Y = 0x8001_1000
	"add t6,t5,t4",   // Z = 0x8001_2000
	"addi a0,zero,1", // 80000020
	"bne t0,zero,80000048",
	"sw a0,0(t3)", // 80000028: hart 0 writes X
	"sw a0,0(t5)", // 8000002c: hart 0 writes Y
	"lui a1,0x1",  // 80000030
	"addi a1,a1,-1",
	"bne a1,zero,80000034",
	"lw a2,0(t6)", // 8000003c: hart 0 reads Z
	"sw a0,0(t3)", // 80000040: hart 0 writes X again
	"j 80000044",
	"lw a3,0(t3)", // 80000048: hart 1 reads X
	"sw a0,0(t5)", // 8000004c: hart 1 writes Y
	"sw a0,0(t6)", // 80000050: hart 1 writes Z
	"j 80000054",
}

// The communication events of commProgram, worked out by hand from the
// rules of comm.go: each is (the access that took the page, the access
// now), in the order they happen. Hart 0 runs its first quantum (100
// instructions: its two stores, the start of its countdown; first writes
// to X and Y are no event), then hart 1 its part, then hart 0 the rest.
// Hart 1's store to Z is Z's first write: no event.
var commWant = []struct {
	first, second uint64
	what          string
}{
	{0x8000_0028, 0x8000_0048, "hart 1 reads X, which hart 0 wrote (read after write)"},
	{0x8000_002c, 0x8000_004c, "hart 1 writes Y, which hart 0 wrote (write after write)"},
	{0x8000_0050, 0x8000_003c, "hart 0 reads Z, which hart 1 wrote (read after write)"},
	{0x8000_0048, 0x8000_0040, "hart 0 writes X, which hart 1 read since hart 0 wrote it (write after read)"},
}

func TestTheCommunicationEventsOfASmallTwoHartProgramAreExactlyTheHandCheckedOnes(t *testing.T) {
	m := mustBuild(t, programBuild(t, commProgram, 2, 100, nil))
	m.TrackCommunication(true)
	cov, err := NewCoverage(MinEdgeSlots)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.EnableCoverage(cov, 0, 0); err != nil {
		t.Fatal(err)
	}
	m.Run(30_000)
	if a2, a3 := m.harts[0].X(12), m.harts[1].X(13); a2 != 1 || a3 != 1 {
		t.Fatalf("hart 0 read Z = %d, hart 1 read X = %d: the program did not run as planned", a2, a3)
	}
	var want []uint32
	for _, w := range commWant {
		want = append(want, uint32(pairKey(w.first, w.second)&uint64(len(cov.Pairs)-1)))
	}
	if got := m.CommEvents(); got != uint64(len(commWant)) {
		t.Errorf("%d communication events, want %d", got, len(commWant))
	}
	// TouchedPairs lists the pair slots in the order they were first hit.
	if !slices.Equal(cov.TouchedPairs, want) {
		var b []string
		for i, w := range commWant {
			b = append(b, fmt.Sprintf("(%#x, %#x) slot %d: %s", w.first, w.second, want[i], w.what))
		}
		t.Fatalf("pair slots %v, want %v:\n%v", cov.TouchedPairs, want, b)
	}
	for i, w := range commWant {
		if n := cov.Pairs[want[i]]; n != 1 {
			t.Errorf("(%#x, %#x) counted %d times, want once: %s", w.first, w.second, n, w.what)
		}
	}
}

func TestClusteredChangePointsFallCloseBehindTheFirstAndSurviveASnapshot(t *testing.T) {
	m := mustBuild(t, programBuild(t, commProgram, 2, 100, nil))
	m.TrackCommunication(true)
	base := SchedConfig{Mode: SchedPCT, QuantumMin: 1, QuantumMax: 100, Depth: 3,
		Comm: true, Preemptions: 3, EventSpan: 10_000, YieldMin: 10, YieldMax: 20}
	spread := false
	for seed := uint64(1); seed <= 50; seed++ {
		c := base
		c.Seed = seed
		if err := m.SetSchedule(c); err != nil {
			t.Fatal(err)
		}
		ch := m.comm.changes
		if len(ch) != 3 {
			t.Fatalf("seed %d: %d change points, want 3", seed, len(ch))
		}
		spread = spread || ch[1]-ch[0] > 4 || ch[2]-ch[1] > 4
		c.Cluster = 4
		if err := m.SetSchedule(c); err != nil {
			t.Fatal(err)
		}
		ch = m.comm.changes
		for i := 1; i < len(ch); i++ {
			if d := ch[i] - ch[i-1]; d < 1 || d > 4 {
				t.Fatalf("seed %d, cluster 4: change points %v, want each within 1..4 after the one before", seed, ch)
			}
		}
	}
	if !spread {
		t.Fatal("without a cluster, no seed of 50 drew change points more than 4 events apart: the test shows nothing")
	}
	var e hw.Encoder
	m.SaveState(&e)
	r := mustBuild(t, programBuild(t, commProgram, 2, 100, nil))
	r.TrackCommunication(true)
	if err := r.RestoreState(hw.NewDecoder(e.Bytes())); err != nil {
		t.Fatal(err)
	}
	if got := r.sched.cfg.Cluster; got != 4 {
		t.Fatalf("restored cluster %d, want 4", got)
	}
	c := base
	c.Cluster = MaxCluster + 1
	if err := m.SetSchedule(c); err == nil {
		t.Fatal("a cluster above MaxCluster was accepted")
	}
}
