package board_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/guestbuild"
)

// smpSpec is the spec of the four-hart smp program under model.
func smpSpec(t *testing.T, model string) *board.Spec {
	t.Helper()
	im, err := board.NewImage(guestbuild.Build(t, "smp"))
	if err != nil {
		t.Fatal(err)
	}
	return &board.Spec{Board: board.BoardBareMetal, Harts: 4, RAMBytes: 64 << 20, Quantum: 50, Seed: 7, MemoryModel: model, ELF: im}
}

// virtSpec is a virt spec whose images are placeholders: enough to build
// the machine's structure, not to boot.
func virtSpec(model string) *board.Spec {
	return &board.Spec{Board: board.BoardVirt, Harts: 2, RAMBytes: 64 << 20, MemoryModel: model,
		BIOS:   board.ImageOf("bios", make([]byte, 4096)),
		Kernel: board.ImageOf("kernel", make([]byte, 4096)),
	}
}

func TestASpecsMemoryModelIsTheModelTheBuiltMachineRunsUnder(t *testing.T) {
	for _, c := range []struct {
		name  string
		model string
		want  emu.MemoryModel
	}{
		{"no model is sc", "", emu.ModelSC},
		{"sc is sc", "sc", emu.ModelSC},
		{"rvwmo is rvwmo", "rvwmo", emu.ModelRVWMO},
	} {
		t.Run(c.name+" on the bare-metal board", func(t *testing.T) {
			b, err := board.Build(smpSpec(t, c.model), board.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.MemoryModel(); got != c.want {
				t.Fatalf("built under %v, want %v", got, c.want)
			}
		})
		t.Run(c.name+" on the virt board", func(t *testing.T) {
			b, err := board.Build(virtSpec(c.model), board.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.MemoryModel(); got != c.want {
				t.Fatalf("built under %v, want %v", got, c.want)
			}
		})
	}
}

// Under rvwmo a machine runs in the interpreter whatever engine is asked
// for (the JIT does not honour the model), as emu.SetMemoryModel says.
func TestAnRVWMOSpecBuildsAMachineThatRunsTheInterpreterEvenWhenTheJITIsAsked(t *testing.T) {
	if !emu.JITSupported() {
		t.Skip("no jit on this host")
	}
	b, err := board.Build(smpSpec(t, "rvwmo"), board.BuildOptions{Engine: emu.EngineJIT})
	if err != nil {
		t.Fatal(err)
	}
	if b.Engine() != emu.EngineInterp {
		t.Fatalf("engine %v, want interp", b.Engine())
	}
}

func TestASpecWithAnUnknownMemoryModelIsRefusedNamingTheField(t *testing.T) {
	for _, s := range []*board.Spec{smpSpec(t, "tso"), virtSpec("tso")} {
		_, err := board.Build(s, board.BuildOptions{})
		if !errors.Is(err, emu.ErrConfig) || !strings.Contains(err.Error(), "memory_model") || !strings.Contains(err.Error(), "tso") {
			t.Fatalf("%s board: %v, want an error naming memory_model and tso", s.Board, err)
		}
	}
}

// A spec written before the field existed has no memory_model: it reads
// as sc, and a snapshot's state still decides (an rvwmo machine's state
// holds its store buffers), so the restored machine and its spec say rvwmo.
func TestRestoringAnRVWMOSnapshotWithAnOldSpecGivesRVWMOAndASpecThatSaysSo(t *testing.T) {
	s := smpSpec(t, "rvwmo")
	m, err := board.Build(s, board.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Run(20_000); r != emu.StopLimit {
		t.Fatalf("stopped with %v", r)
	}
	snap := m.Snapshot()
	j, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var old map[string]any
	if err := json.Unmarshal(j, &old); err != nil {
		t.Fatal(err)
	}
	if old["memory_model"] != "rvwmo" {
		t.Fatalf("the spec's JSON records memory_model %v, want rvwmo", old["memory_model"])
	}
	delete(old, "memory_model")
	j, _ = json.Marshal(old)
	var oldSpec board.Spec
	if err := json.Unmarshal(j, &oldSpec); err != nil {
		t.Fatal(err)
	}
	oldSpec.ELF.Data = s.ELF.Data
	if mm, err := oldSpec.Model(); err != nil || mm != emu.ModelSC {
		t.Fatalf("a spec without memory_model reads as %v (%v), want sc", mm, err)
	}
	b, err := board.Restore(&oldSpec, snap, board.BuildOptions{}, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.MemoryModel() != emu.ModelRVWMO || b.Spec.MemoryModel != "rvwmo" {
		t.Fatalf("restored under %v with spec model %q, want rvwmo and rvwmo", b.MemoryModel(), b.Spec.MemoryModel)
	}
	if oldSpec.MemoryModel != "" {
		t.Fatalf("Restore changed the caller's spec to %q", oldSpec.MemoryModel)
	}
	if b.StateHash() != m.StateHash() {
		t.Fatal("the restored machine's state differs from the snapshot's")
	}
}

func TestHashImagesRecordsTheHashNewImageWould(t *testing.T) {
	path := guestbuild.Build(t, "smp")
	want, err := board.NewImage(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &board.Spec{ELF: board.ImageOf(path, want.Data)}
	if s.ELF.SHA256 != "" {
		t.Fatal("ImageOf hashed at once")
	}
	s.HashImages()
	if s.ELF.SHA256 != want.SHA256 {
		t.Fatalf("sha256 %s, NewImage says %s", s.ELF.SHA256, want.SHA256)
	}
}
