package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"everett/internal/guestbuild"
)

func TestTheSummaryReportsMapFillAndInterleavingPairs(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "explorer", "testdata"))
	prog := guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:         "explorer-racy",
		Dirs:         []string{filepath.Join(dir, "crt"), filepath.Join(dir, "racy")},
		LinkerScript: filepath.Join(dir, "crt", "link.ld"),
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "explore", "--elf", prog, "--smp", "2", "--universes", "16", "--out", out)
	if code != 0 && code != 1 {
		t.Fatalf("exit code %d; stderr %s\n%s", code, stderr, stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Edges *int     `json:"coverage_edges"`
		Fill  *float64 `json:"coverage_map_fill"`
		Pairs *int     `json:"interleaving_pairs"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Edges == nil || sum.Fill == nil || sum.Pairs == nil {
		t.Fatalf("summary lacks coverage fields:\n%s", b)
	}
	if *sum.Fill <= 0 || *sum.Fill >= 0.5 || *sum.Pairs == 0 || *sum.Edges == 0 {
		t.Fatalf("edges %d, fill %v, pairs %d: two harts sharing counters", *sum.Edges, *sum.Fill, *sum.Pairs)
	}
}
