package main

import (
	"path/filepath"
	"strings"
	"testing"

	"everett/snapshot"
)

// Under --memory-model rvwmo the store buffers and deferred loads travel in
// the snapshot file: a restore ends in the straight run's state.
func TestAnRVWMORunSnapshottedAndRestoredEndsInTheStraightRunsState(t *testing.T) {
	prog := smpProgram(t)
	args := []string{"run", "--smp", "4", "--quantum", "7", "--seed", "5", "--memory-model", "rvwmo", "--state-hash"}
	code, _, stderr := runCLI(t, append(args, prog)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	want := stateHashOf(t, stderr)
	snap := filepath.Join(t.TempDir(), "s.snap")
	if code, _, stderr := runCLI(t, append(args, "--snapshot-at", "30001", "--snapshot-out", snap, "--snapshot-exit", prog)...); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "restore", "--state-hash", snap)
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, stderr)
	}
	if got := stateHashOf(t, stderr); got != want {
		t.Fatalf("restored run ends in %s, the straight run in %s", got, want)
	}
	// Under sc the same run ends elsewhere (the model and its state are hashed).
	_, _, stderr = runCLI(t, "run", "--smp", "4", "--quantum", "7", "--seed", "5", "--state-hash", prog)
	if stateHashOf(t, stderr) == want {
		t.Fatal("sc and rvwmo end in the same state")
	}
}

func TestRunRefusesAnUnknownMemoryModel(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--memory-model", "tso", smpProgram(t))
	if code != 2 || !strings.Contains(stderr, "--memory-model") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// The spec a snapshot records names the memory model (board.Spec's
// memory_model), so a snapshot taken under --memory-model rvwmo restores
// under rvwmo, and a snapshot of the restored machine records it again.
func TestASnapshotTakenUnderRVWMORestoresUnderRVWMOAndSaysSo(t *testing.T) {
	prog := smpProgram(t)
	dir := t.TempDir()
	snap, again := filepath.Join(dir, "s.snap"), filepath.Join(dir, "again.snap")
	if code, _, stderr := runCLI(t, "run", "--smp", "4", "--seed", "5", "--memory-model", "rvwmo", "--snapshot-at", "30001", "--snapshot-out", snap, "--snapshot-exit", prog); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	f, err := snapshot.LoadWith(snap, snapshot.LoadOptions{SkipImages: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Spec.MemoryModel != "rvwmo" {
		t.Fatalf("the snapshot's spec records memory model %q, want rvwmo", f.Spec.MemoryModel)
	}
	if code, out, _ := runCLI(t, "snapshot", "info", snap); code != 0 || !strings.Contains(out, "memory model:  rvwmo\n") {
		t.Fatalf("info: exit %d:\n%s", code, out)
	}
	code, _, stderr := runCLI(t, "restore", "--stats", "--snapshot-at", "40000", "--snapshot-out", again, snap)
	if code != 0 || !strings.Contains(stderr, "memory model rvwmo") {
		t.Fatalf("restore: exit %d, no rvwmo in its stats:\n%s", code, stderr)
	}
	if code, out, _ := runCLI(t, "snapshot", "info", again); code != 0 || !strings.Contains(out, "memory model:  rvwmo\n") {
		t.Fatalf("info of the restored machine's snapshot: exit %d:\n%s", code, out)
	}
	// The same run under sc records sc, and its restore says nothing of rvwmo.
	sc := filepath.Join(dir, "sc.snap")
	if code, _, stderr := runCLI(t, "run", "--smp", "4", "--seed", "5", "--snapshot-at", "30001", "--snapshot-out", sc, "--snapshot-exit", prog); code != 0 {
		t.Fatalf("sc snapshot: exit %d: %s", code, stderr)
	}
	if code, out, _ := runCLI(t, "snapshot", "info", sc); code != 0 || !strings.Contains(out, "memory model:  sc\n") {
		t.Fatalf("info of the sc snapshot: exit %d:\n%s", code, out)
	}
	if _, _, stderr := runCLI(t, "restore", "--stats", sc); strings.Contains(stderr, "rvwmo") {
		t.Fatalf("the sc snapshot restored under rvwmo:\n%s", stderr)
	}
}
