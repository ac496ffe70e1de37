package explorer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"everett/emu"
)

func TestAReportReplaysTheSameFailureUnderEitherEngine(t *testing.T) {
	if !emu.JITSupported() {
		t.Skip("no JIT on this host: one engine only")
	}
	root := repoRoot(t)
	if out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/race")).CombinedOutput(); err != nil {
		t.Fatalf("building the race example: %v\n%s", err, out)
	}
	s, err := ELFSpec(filepath.Join(root, "build/examples/race.elf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine() != emu.DefaultEngine {
		t.Fatalf("a new spec runs %v, want the default %v", s.Engine(), emu.DefaultEngine)
	}
	// Found under the interpreter, replayed from the file under both.
	s.SetEngine(emu.EngineInterp)
	res, err := Explore(s, Options{Seed: 1, Universes: 200, Workers: 2, StopOnFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) == 0 {
		t.Fatal("the race was not found in 200 universes")
	}
	if res.Engine != emu.EngineInterp || res.JIT != (emu.JITStats{}) {
		t.Fatalf("the search says engine %v, JIT %+v; want the interpreter and no JIT work", res.Engine, res.JIT)
	}
	path, err := res.Failures[0].Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"engine"`) || strings.Contains(res.Failures[0].Replay, "--engine") {
		t.Fatalf("the report names the engine; it is a host setting:\n%s", b)
	}
	for _, e := range []emu.Engine{emu.EngineJIT, emu.EngineInterp} {
		r, err := LoadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		r.Spec.SetEngine(e)
		got, err := Replay(r, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Reproduced {
			t.Fatalf("%v: replay %v at %d (%s); report %s at %d (%s)", e, got.Failure, got.ICount, got.StateHash, r.Signature, r.ICount, r.StateHash)
		}
		for i, n := range got.Universe.Nodes() {
			if n.Machine != nil && n.Machine.Engine() != e {
				t.Fatalf("replay under %v: node %d ran %v", e, i, n.Machine.Engine())
			}
		}
	}
}
