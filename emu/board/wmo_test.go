package board_test

import (
	"bytes"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/emu/enginecheck"
)

// TestProgramsPrintTheSameUnderRVWMO runs every test program under the
// rvwmo model with several seeds: a hart observes its own accesses in
// program order (forwarding and coherence), and the SMP program
// synchronises with AMOs, LR/SC and fences, so each output must be the
// sc output (Unprivileged ISA, "RVWMO Memory Consistency Model": the model
// only reorders what another hart could tell apart).
func TestProgramsPrintTheSameUnderRVWMO(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name+" prints what it prints under sc", func(t *testing.T) {
			t.Parallel()
			prog := loadProgram(t, p.name)
			sc := runEverett(t, prog, p.harts, false)
			for _, seed := range []uint64{1, 2, 3} {
				var out bytes.Buffer
				m, err := board.NewBareMetal(board.BareMetal{Harts: p.harts, RAMBytes: 256 << 20, Seed: seed,
					Model: emu.ModelRVWMO, Console: &out}, prog)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.SetSchedule(emu.SchedConfig{Mode: emu.SchedRandom, QuantumMin: 1, QuantumMax: 200, Seed: seed}); err != nil {
					t.Fatal(err)
				}
				if r := m.Run(maxInsns); r != emu.StopPowerOff || m.ExitCode() != 0 {
					t.Fatalf("seed %d: %v, exit code %d after %d instructions; output:\n%s", seed, r, m.ExitCode(), m.ICount(), tail(out.String()))
				}
				if out.String() != sc.out {
					t.Errorf("seed %d: output differs from sc:\n%s\nsc:\n%s", seed, tail(out.String()), tail(sc.out))
				}
			}
		})
	}
}

// rvwmoSMP builds the four-hart smp program under rvwmo with seed.
func rvwmoSMP(t *testing.T, seed uint64) *emu.Machine {
	t.Helper()
	m, err := board.NewBareMetal(board.BareMetal{Harts: 4, RAMBytes: 256 << 20, Seed: seed, Quantum: 50,
		Model: emu.ModelRVWMO, Console: &bytes.Buffer{}}, loadProgram(t, "smp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTheSMPProgramUnderRVWMOWithTheSameSeedAgreesHashForHash(t *testing.T) {
	a, b := rvwmoSMP(t, 7), rvwmoSMP(t, 7)
	if r, d := enginecheck.CompareRuns(a, b, 5000, maxInsns); d != nil {
		t.Fatal(d)
	} else if r != emu.StopPowerOff {
		t.Fatalf("stopped with %v", r)
	}
}

func TestTheSMPProgramUnderRVWMOContinuesExactlyFromASnapshot(t *testing.T) {
	a := rvwmoSMP(t, 3)
	b := rvwmoSMP(t, 3)
	b.Run(12345)
	snap := b.Snapshot()
	c := rvwmoSMP(t, 99) // another seed: the snapshot brings the stream along
	if err := c.RestoreSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if c.MemoryModel() != emu.ModelRVWMO {
		t.Fatalf("restored model %v", c.MemoryModel())
	}
	a.Run(40000)
	c.Run(40000)
	if a.StateHash() != c.StateHash() {
		t.Fatalf("straight run %x, snapshot and restore %x", a.StateHash(), c.StateHash())
	}
}
