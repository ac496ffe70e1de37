package snapshot

import (
	"io"
	"slices"
	"testing"

	"everett/emu"
	"everett/emu/board"
)

func seedsFrom(a, b uint64) []uint64 {
	var s []uint64
	for v := a; v <= b; v++ {
		s = append(s, v)
	}
	return s
}

// forkAll forks every seed with each worker count and checks that the
// outcomes agree and that RunUniverse reproduces each.
func forkAll(t *testing.T, spec *board.Spec, snap *emu.Snapshot, seeds []uint64, limit uint64) []Outcome {
	t.Helper()
	var first []Outcome
	for _, workers := range []int{1, 2, 5} {
		outs, err := Fork(ForkConfig{Spec: spec, Snap: snap, Seeds: seeds, Workers: workers, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range outs {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if o.Seed != seeds[i] {
				t.Fatalf("outcome %d is seed %d, want %d", i, o.Seed, seeds[i])
			}
		}
		if first == nil {
			first = outs
		} else if !slices.Equal(first, outs) {
			t.Fatalf("%d workers: outcomes differ from 1 worker's", workers)
		}
	}
	for _, i := range []int{0, len(seeds) - 1} {
		if o := RunUniverse(spec, snap, seeds[i], limit, io.Discard, emu.DefaultEngine); o != first[i] {
			t.Fatalf("seed %d alone: %+v; in the fork: %+v", seeds[i], o, first[i])
		}
	}
	return first
}

func TestForkOutcomesDoNotDependOnTheWorkers(t *testing.T) {
	s := bareSpec(t)
	m := build(t, s)
	m.Run(30_000)
	outs := forkAll(t, s, m.Snapshot(), seedsFrom(1, 9), 0)
	for _, o := range outs {
		if o.Reason != emu.StopPowerOff || o.ExitCode != 0 {
			t.Fatalf("seed %d: %v exit %d", o.Seed, o.Reason, o.ExitCode)
		}
	}
}

func TestTheEngineIsAHostSettingThatNoSnapshotOrOutcomeRecords(t *testing.T) {
	if !emu.JITSupported() {
		t.Skip("no JIT on this host")
	}
	s := bareSpec(t)
	m, err := board.Build(s, board.BuildOptions{Console: io.Discard, Engine: emu.EngineJIT})
	if err != nil {
		t.Fatal(err)
	}
	if m.Engine() != emu.EngineJIT {
		t.Fatalf("built with the jit, the machine runs %v", m.Engine())
	}
	m.Run(30_000)
	snap := m.Snapshot()
	seeds := seedsFrom(1, 3)
	var outs [2][]Outcome
	for i, e := range []emu.Engine{emu.EngineInterp, emu.EngineJIT} {
		if outs[i], err = Fork(ForkConfig{Spec: s, Snap: snap, Seeds: seeds, Workers: 2, Engine: e}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(outs[0], outs[1]) {
		t.Fatalf("the engines' forks differ:\n interp %+v\n jit    %+v", outs[0], outs[1])
	}
}

func TestForkedLinuxUniversesDivergeBySeedAndNotByWorker(t *testing.T) {
	spec := linuxSpec(t, 2, 256<<20, 1)
	m, err := board.Build(spec, board.BuildOptions{Console: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Run(forkPoint); r != emu.StopLimit {
		t.Fatalf("boot stopped with %v", r)
	}
	outs := forkAll(t, spec, m.Snapshot(), seedsFrom(1, 4), forkPoint+3_000_000)
	hashes := map[uint64]bool{}
	for _, o := range outs {
		hashes[o.StateHash] = true
		if o.Reason != emu.StopLimit || o.ICount != forkPoint+3_000_000 {
			t.Fatalf("seed %d: %v at %d", o.Seed, o.Reason, o.ICount)
		}
		if o.PagesCopied == 0 || o.PagesCopied > 4096 {
			t.Errorf("seed %d copied %d pages in 3M instructions", o.Seed, o.PagesCopied)
		}
	}
	if len(hashes) != len(outs) {
		t.Errorf("%d distinct states from %d seeds", len(hashes), len(outs))
	}
}
