package main

import (
	"path/filepath"
	"strings"
	"testing"
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
