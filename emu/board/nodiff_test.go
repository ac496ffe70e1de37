package board_test

import (
	"bytes"
	"testing"

	"everett/emu"
	"everett/emu/board"
)

// No-diff tests: two engines must agree on every test program, and so
// must running N steps and running k steps, stopping, and running N−k. The
// decoded-block engine runs blocks whole or cut at a deadline; single
// stepping (the tracer's mode) runs one instruction at a time. Both, and any
// way of cutting a run into pieces, must reach the same state at the same
// instruction count.

// nodiffPrograms exercise SMP scheduling, timer and software interrupts,
// virtual memory and self-modifying code.
var nodiffPrograms = []struct {
	name  string
	harts int
}{
	{"smp", 4},
	{"interrupts", 1},
	{"vm", 1},
	{"smc", 1},
	{"fp", 1},
}

type finalState struct {
	hash   uint64
	icount uint64
	out    string
	reason emu.StopReason
}

func newBoard(t *testing.T, prog *emu.ELF, harts int, out *bytes.Buffer) *emu.Machine {
	t.Helper()
	m, err := board.NewBareMetal(board.BareMetal{Harts: harts, RAMBytes: 64 << 20, Console: out}, prog)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func finish(m *emu.Machine, out *bytes.Buffer, reason emu.StopReason) finalState {
	return finalState{hash: m.StateHash(), icount: m.ICount(), out: out.String(), reason: reason}
}

func TestBlockEngineAndSingleSteppingReachTheSameState(t *testing.T) {
	for _, p := range nodiffPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			prog := loadProgram(t, p.name)
			var out1, out2 bytes.Buffer
			m1 := newBoard(t, prog, p.harts, &out1)
			a := finish(m1, &out1, m1.Run(maxInsns))
			m2 := newBoard(t, prog, p.harts, &out2)
			m2.Tracer = func(*emu.Hart, uint64, uint32, bool) {}
			b := finish(m2, &out2, m2.Run(maxInsns))
			if a != b {
				t.Fatalf("blocks: %v after %d (hash %x); single-step: %v after %d (hash %x)",
					a.reason, a.icount, a.hash, b.reason, b.icount, b.hash)
			}
			if a.reason != emu.StopPowerOff {
				t.Fatalf("program did not finish: %v", a.reason)
			}
		})
	}
}

func TestRunningInPiecesReachesTheSameStateAsRunningStraight(t *testing.T) {
	for _, p := range nodiffPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			prog := loadProgram(t, p.name)
			var out bytes.Buffer
			m := newBoard(t, prog, p.harts, &out)
			want := finish(m, &out, m.Run(maxInsns))
			// Cut the run at many counts, including ones that fall inside
			// blocks, inside a hart's slice and between slices.
			for _, step := range []uint64{1, 7, 997, 10_000, 123_457} {
				var out bytes.Buffer
				m := newBoard(t, prog, p.harts, &out)
				var reason emu.StopReason
				var hashes []uint64 // hashing must not disturb the run either
				for limit := step; ; limit += step {
					reason = m.Run(limit)
					if reason != emu.StopLimit {
						break
					}
					if m.ICount() != limit {
						t.Fatalf("step %d: stopped at %d, want exactly %d", step, m.ICount(), limit)
					}
					if len(hashes) < 3 {
						hashes = append(hashes, m.StateHash())
					}
					// A restored machine starts with empty caches (too slow
					// to do after every instruction).
					if step >= 997 {
						m.FlushCaches()
					}
					if limit > want.icount+step {
						t.Fatalf("step %d: ran past the straight run's end", step)
					}
				}
				if got := finish(m, &out, reason); got != want {
					t.Fatalf("in pieces of %d: %v after %d (hash %x); straight: %v after %d (hash %x)",
						step, got.reason, got.icount, got.hash, want.reason, want.icount, want.hash)
				}
			}
		})
	}
}

func TestTwoRunsAgreeAtEveryCheckpoint(t *testing.T) {
	prog := loadProgram(t, "smp")
	var o1, o2 bytes.Buffer
	m1, m2 := newBoard(t, prog, 4, &o1), newBoard(t, prog, 4, &o2)
	for limit := uint64(5000); ; limit += 5000 {
		r1, r2 := m1.Run(limit), m2.Run(limit)
		h1, h2 := m1.StateHashes(), m2.StateHashes()
		for i := range h1 {
			if h1[i] != h2[i] {
				t.Fatalf("at %d instructions, %s differs", limit, h1[i].Name)
			}
		}
		if r1 != r2 {
			t.Fatalf("at %d: %v vs %v", limit, r1, r2)
		}
		if r1 != emu.StopLimit {
			break
		}
	}
}

func TestRestoringASnapshotContinuesExactlyAsTheStraightRun(t *testing.T) {
	for _, p := range nodiffPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			prog := loadProgram(t, p.name)
			var out bytes.Buffer
			m := newBoard(t, prog, p.harts, &out)
			want := finish(m, &out, m.Run(maxInsns))
			for _, k := range []uint64{1, 1000, 33_333, want.icount / 2, want.icount - 1} {
				if k >= want.icount {
					continue
				}
				var out1 bytes.Buffer
				parent := newBoard(t, prog, p.harts, &out1)
				if r := parent.Run(k); r != emu.StopLimit {
					t.Fatalf("k=%d: parent stopped with %v", k, r)
				}
				snap := parent.Snapshot()
				// The parent goes on after the snapshot...
				parentEnd := finish(parent, &out1, parent.Run(maxInsns))
				// ...and so do two children restored from it.
				for child := 0; child < 2; child++ {
					var out2 bytes.Buffer
					c := newBoard(t, prog, p.harts, &out2)
					if err := c.RestoreSnapshot(snap); err != nil {
						t.Fatal(err)
					}
					got := finish(c, &out2, c.Run(maxInsns))
					if got.hash != want.hash || got.icount != want.icount || got.reason != want.reason {
						t.Fatalf("k=%d child %d: %v after %d (hash %x); straight: %v after %d (hash %x)",
							k, child, got.reason, got.icount, got.hash, want.reason, want.icount, want.hash)
					}
				}
				if parentEnd.hash != want.hash {
					t.Fatalf("k=%d: the parent diverged after taking a snapshot", k)
				}
			}
		})
	}
}

func TestPerturbedSchedulesAreDeterministicAndSurviveSnapshots(t *testing.T) {
	prog := loadProgram(t, "smp")
	for _, sc := range []emu.SchedConfig{
		{Mode: emu.SchedRandom, QuantumMin: 1, QuantumMax: 300, StallPercent: 30, Seed: 11},
		{Mode: emu.SchedPCT, QuantumMin: 5, QuantumMax: 2000, StallPercent: 10, Depth: 5, Span: 200_000, Seed: 12},
		{Mode: emu.SchedRandom, QuantumMin: 1, QuantumMax: 300, Seed: 13,
			Comm: true, Preemptions: 40, PreemptOdds: 2, YieldMin: 100, YieldMax: 5000},
		{Mode: emu.SchedPCT, QuantumMin: 5, QuantumMax: 2000, Depth: 5, Seed: 14,
			Comm: true, Preemptions: 5, EventSpan: 200, YieldMin: 100, YieldMax: 5000},
	} {
		name := sc.Mode.String()
		if sc.Comm {
			name += " with preemption at communication events"
		}
		t.Run(name, func(t *testing.T) {
			build := func() (*emu.Machine, *bytes.Buffer) {
				var out bytes.Buffer
				m := newBoard(t, prog, 4, &out)
				if err := m.SetSchedule(sc); err != nil {
					t.Fatal(err)
				}
				return m, &out
			}
			m, out := build()
			want := finish(m, out, m.Run(maxInsns))
			if want.reason != emu.StopPowerOff {
				t.Fatalf("program did not finish: %v\n%s", want.reason, want.out)
			}
			if sc.Comm && (m.CommEvents() == 0 || m.CommPreemptions() == 0) {
				t.Fatalf("%d communication events, %d preemptions: nothing was tried", m.CommEvents(), m.CommPreemptions())
			}
			m2, out2 := build()
			if got := finish(m2, out2, m2.Run(maxInsns)); got != want {
				t.Fatal("two runs with the same schedule seed differ")
			}
			for _, k := range []uint64{777, want.icount / 3, want.icount - 5} {
				parent, _ := build()
				parent.Run(k)
				snap := parent.Snapshot()
				var o bytes.Buffer
				c := newBoard(t, prog, 4, &o)
				if err := c.RestoreSnapshot(snap); err != nil {
					t.Fatal(err)
				}
				// A restored machine continues exactly, also in pieces.
				if c.ICount()+1234 < want.icount {
					c.Run(c.ICount() + 1234)
				}
				if r := c.Run(maxInsns); r != want.reason || c.StateHash() != want.hash || c.ICount() != want.icount {
					t.Fatalf("k=%d: restored run ends %v at %d (%x), want %v at %d (%x)", k, r, c.ICount(), c.StateHash(), want.reason, want.icount, want.hash)
				}
			}
			// A different schedule seed gives a different interleaving.
			sc2 := sc
			sc2.Seed++
			var o3 bytes.Buffer
			m3 := newBoard(t, prog, 4, &o3)
			m3.SetSchedule(sc2)
			if got := finish(m3, &o3, m3.Run(maxInsns)); got.hash == want.hash && got.icount == want.icount {
				t.Fatal("another schedule seed gave the same run")
			}
		})
	}
}

func TestCoverageIsRecordedWithoutChangingTheRun(t *testing.T) {
	prog := loadProgram(t, "smp")
	var o1, o2 bytes.Buffer
	plain := newBoard(t, prog, 4, &o1)
	want := finish(plain, &o1, plain.Run(maxInsns))
	covered := newBoard(t, prog, 4, &o2)
	cov, err := emu.NewCoverage(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	if err := covered.EnableCoverage(cov, 0x8000_0000, 0); err != nil {
		t.Fatal(err)
	}
	if got := finish(covered, &o2, covered.Run(maxInsns)); got != want {
		t.Fatal("coverage changed the run")
	}
	n := 0
	for _, c := range cov.Edges {
		if c != 0 {
			n++
		}
	}
	if n < 50 || n != len(cov.TouchedEdges) {
		t.Fatalf("%d edges covered, %d listed as touched", n, len(cov.TouchedEdges))
	}
	for _, c := range cov.Edges[len(cov.Edges)/2:] {
		if c != 0 {
			t.Fatal("a machine-mode program counted edges in the user half")
		}
	}
	empty, _ := emu.NewCoverage(1 << 16)
	m := newBoard(t, prog, 4, &o1)
	m.EnableCoverage(empty, 0x1000, 0x2000) // no code there
	m.Run(maxInsns)
	for _, b := range empty.Edges {
		if b != 0 {
			t.Fatal("coverage outside the requested range")
		}
	}
}

func TestBreakpointsStopBeforeTheInstructionWithoutChangingTheRun(t *testing.T) {
	prog := loadProgram(t, "smp")
	var o1, o2 bytes.Buffer
	plain := newBoard(t, prog, 4, &o1)
	want := finish(plain, &o1, plain.Run(maxInsns))
	m := newBoard(t, prog, 4, &o2)
	bp := prog.Entry + 4 // the second instruction: every hart passes it
	m.SetBreakpoint(bp, true)
	hits := 0
	var r emu.StopReason
	for r = m.Run(maxInsns); r == emu.StopBreak; r = m.Run(maxInsns) {
		hits++
		at := false
		for _, h := range m.Harts() {
			at = at || h.PC() == bp
		}
		if !at {
			t.Fatal("stopped at a breakpoint, but no hart is at it")
		}
	}
	if hits < 4 {
		t.Fatalf("%d breakpoint hits for 4 harts", hits)
	}
	if got := finish(m, &o2, r); got != want {
		t.Fatal("breakpoints changed the run")
	}
}

func TestTrackingCommunicationChangesNothingTheGuestSees(t *testing.T) {
	prog := loadProgram(t, "smp")
	var o1, o2 bytes.Buffer
	plain := newBoard(t, prog, 4, &o1)
	want := finish(plain, &o1, plain.Run(maxInsns))
	tracked := newBoard(t, prog, 4, &o2)
	tracked.TrackCommunication(true)
	cov, err := emu.NewCoverage(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	if err := tracked.EnableCoverage(cov, 0, 0); err != nil {
		t.Fatal(err)
	}
	got := finish(tracked, &o2, tracked.Run(maxInsns))
	if got.out != want.out || got.icount != want.icount || got.reason != want.reason {
		t.Fatalf("tracked run: %v after %d; plain: %v after %d", got.reason, got.icount, want.reason, want.icount)
	}
	// Only the scheduler's part of the state (the tracker) may differ.
	a, b := plain.StateHashes(), tracked.StateHashes()
	for i := range a {
		if a[i] != b[i] && a[i].Name != "sched" {
			t.Fatalf("%s differs with tracking on", a[i].Name)
		}
	}
	if tracked.CommEvents() == 0 || len(cov.TouchedPairs) == 0 {
		t.Fatalf("%d communication events, %d pairs on four harts sharing memory", tracked.CommEvents(), len(cov.TouchedPairs))
	}
	one := newBoard(t, prog, 1, &o1)
	one.TrackCommunication(true)
	one.Run(maxInsns)
	if one.CommEvents() != 0 {
		t.Fatal("a one-hart machine reported communication")
	}
}
