package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Several reports replay in one process, each with its own verdict, and
// the exit code is 1 only when every one of them ends in a failure.
func TestReplayOfSeveralReportsGivesEachItsVerdictAndCountsThoseReproduced(t *testing.T) {
	prog := program(t, exitWith(7)...) // exit code 3 at its sixth instruction
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "explore", "--elf", prog, "--out", dir, "--workers", "1", "--universes", "1"); code != 1 {
		t.Fatalf("explore exit code %d; stderr %s", code, errs)
	}
	reps, err := filepath.Glob(filepath.Join(dir, "failure-*.json"))
	if err != nil || len(reps) != 1 {
		t.Fatalf("reports %v (%v)", reps, err)
	}
	r := reps[0]

	code, out, errs := runCLI(t, "replay", r, r)
	if code != 1 || strings.Count(out, "reproduced: exit: exit code 3") != 2 ||
		!strings.Contains(out, r+" (1 of 2):") || !strings.Contains(out, r+" (2 of 2):") ||
		lastLine(out) != "2 of 2 reports reproduced" {
		t.Fatalf("replay of two reports: exit code %d\n%s\nstderr %s", code, out, errs)
	}
	if strings.Count(errs, "everett replay: "+r+" in ") != 2 {
		t.Fatalf("replay of two reports: stderr lacks a time for each:\n%s", errs)
	}

	// Stopped before the failure: neither fails, exit code 0.
	code, out, _ = runCLI(t, "replay", "--until", "3", r, r)
	if code != 0 || strings.Count(out, "no failure by instruction") != 2 || lastLine(out) != "0 of 2 reports reproduced" {
		t.Fatalf("replay --until 3 of two reports: exit code %d\n%s", code, out)
	}

	// One that fails by instruction 10 and one that does not: exit code 0.
	late := program(t, append(strings.Fields("nop nop nop nop nop nop nop nop nop nop"), exitWith(7)...)...)
	ldir := t.TempDir()
	if code, _, errs := runCLI(t, "explore", "--elf", late, "--out", ldir, "--workers", "1", "--universes", "1"); code != 1 {
		t.Fatalf("explore of the later failure: exit code %d; stderr %s", code, errs)
	}
	lreps, err := filepath.Glob(filepath.Join(ldir, "failure-*.json"))
	if err != nil || len(lreps) != 1 {
		t.Fatalf("reports %v (%v)", lreps, err)
	}
	code, out, _ = runCLI(t, "replay", "--until", "10", r, lreps[0])
	if code != 0 || !strings.Contains(out, "reproduced: exit: exit code 3") || !strings.Contains(out, "no failure by instruction 10") ||
		lastLine(out) != "1 of 2 reports reproduced" {
		t.Fatalf("replay --until 10 of an early and a late failure: exit code %d\n%s", code, out)
	}

	// One report alone prints as it always did.
	code, out, _ = runCLI(t, "replay", r)
	if code != 1 || strings.Contains(out, "(1 of 1)") || strings.Contains(out, "reports reproduced") ||
		!strings.HasPrefix(out, "reproduced: exit: exit code 3") {
		t.Fatalf("replay of one report: exit code %d\n%s", code, out)
	}

	code, _, errs = runCLI(t, "replay", "--snapshot-out", filepath.Join(t.TempDir(), "s"), r, r)
	if code != exitUsage || !strings.Contains(errs, "--snapshot-out takes one report, not 2") {
		t.Fatalf("--snapshot-out with two reports: exit code %d, stderr %s", code, errs)
	}
}
