package emu

import (
	"testing"

	"everett/internal/testelf"
)

// Forks inherit the decoded blocks of the snapshot they restore (block.go,
// freezeCode): they run the very blocks without decoding, and a page
// written since, by the fork, its parent or a sibling, is decoded afresh
// by that machine alone.

// frozenProgram adds a1 to a0 forever; its first instruction is the one
// the tests patch.
var frozenProgram = []string{
	"add a0,a0,a1", // 80000000: loop
	"addi a2,a2,1",
	"j 80000000",
}

func frozenMachine(t *testing.T, e Engine) *Machine {
	t.Helper()
	code, err := testelf.Assemble(DefaultRAMBase, frozenProgram...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1, Quantum: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetEngine(e); err != nil {
		if JITSupported() {
			t.Fatal(err) // the JIT is there: the engine must take
		}
		t.Skip(err)
	}
	if err := m.WritePhys(DefaultRAMBase, code); err != nil {
		t.Fatal(err)
	}
	m.harts[0].SetPC(DefaultRAMBase)
	m.harts[0].x[11] = 1 // a1
	return m
}

// fork restores s into a new machine built like frozenMachine.
func fork(t *testing.T, e Engine, s *Snapshot) *Machine {
	t.Helper()
	f := frozenMachine(t, e)
	if err := f.RestoreSnapshot(s); err != nil {
		t.Fatal(err)
	}
	return f
}

// runMore runs m n more instruction slots and returns what a0 and a2 gained.
func runMore(t *testing.T, m *Machine, n uint64) (da0, da2 uint64) {
	t.Helper()
	h := m.harts[0]
	a0, a2 := h.x[10], h.x[12]
	if r := m.Run(m.ICount() + n); r != StopLimit {
		t.Fatalf("stopped with %v", r)
	}
	return h.x[10] - a0, h.x[12] - a2
}

func TestAForkRunsTheBlocksItsSnapshotDecodedWithoutDecodingThem(t *testing.T) {
	for _, e := range []Engine{EngineInterp, EngineJIT} {
		t.Run(e.String(), func(t *testing.T) {
			m := frozenMachine(t, e)
			runMore(t, m, 30_000) // hot: translated under the JIT
			s := m.Snapshot()
			f := fork(t, e, s)
			runMore(t, f, 3)
			fb := s.code[0].pages[0].block(0)
			b := f.codePage(0).block(0)
			if fb == nil || b != fb {
				t.Fatalf("the fork's block at the loop is %p, the snapshot's %p: not inherited", b, fb)
			}
			if e == EngineJIT && (b.jitGo.Load() == 0 || f.JITStats().Entries == 0) {
				t.Fatalf("the fork did not run the loop's translation at once (%+v)", f.JITStats())
			}
		})
	}
}

func TestAPageWrittenAfterTheSnapshotIsDecodedAfreshByThatMachineAlone(t *testing.T) {
	patch, err := testelf.Assemble(DefaultRAMBase, "sub a0,a0,a1")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Engine{EngineInterp, EngineJIT} {
		t.Run(e.String(), func(t *testing.T) {
			m := frozenMachine(t, e)
			runMore(t, m, 30_000)
			s := m.Snapshot()
			patched := fork(t, e, s)
			runMore(t, patched, 30_000) // inherits the loop, then...
			if err := patched.WritePhys(DefaultRAMBase, patch); err != nil {
				t.Fatal(err)
			}
			plain := fork(t, e, s)
			for _, c := range []struct {
				name string
				m    *Machine
				sub  bool
			}{{"the patched fork", patched, true}, {"a sibling", plain, false}, {"the parent", m, false}} {
				da0, da2 := runMore(t, c.m, 30_000)
				want := da2
				if c.sub {
					want = -da2
				}
				if da2 == 0 || da0 != want {
					t.Errorf("%s: a0 moved by %d in %d iterations, want %d", c.name, int64(da0), da2, int64(want))
				}
			}
			// A snapshot of the patched fork, and its fork, run the patch.
			again := fork(t, e, patched.Snapshot())
			if da0, da2 := runMore(t, again, 30_000); da0 != -da2 {
				t.Errorf("a fork of the patched fork: a0 moved by %d in %d iterations, want %d", int64(da0), da2, -int64(da2))
			}
		})
	}
}

func TestAMachineAdoptsTheTranslationAnotherMadeOnItsSecondRun(t *testing.T) {
	a := frozenMachine(t, EngineJIT)
	runMore(t, a, 30_000) // hot: translated
	made := JITCache().Translations
	b := frozenMachine(t, EngineJIT) // the same code, in pages of its own
	runMore(t, b, 3*3)               // the loop three times
	if st := b.JITStats(); st.Entries == 0 {
		t.Fatalf("the third run of the loop was not in host code (%+v)", st)
	}
	if n := JITCache().Translations; n != made {
		t.Fatalf("%d translations made for code already translated", n-made)
	}
}
