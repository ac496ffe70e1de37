package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Several reports replay in one process, each with its own verdict, and
// the exit code is 1 only when every one of them ends in a failure.
func TestReplayOfSeveralReportsGivesEachItsVerdictAndCountsThoseReproduced(t *testing.T) {
	r := reportOf(t, program(t, exitWith(7)...)) // exit code 3 at its sixth instruction

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
	late := reportOf(t, program(t, append(strings.Fields("nop nop nop nop nop nop nop nop nop nop"), exitWith(7)...)...))
	code, out, _ = runCLI(t, "replay", "--until", "10", r, late)
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

// reportOf explores a bare-metal program for one universe and returns the
// one report it writes.
func reportOf(t *testing.T, prog string) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "explore", "--elf", prog, "--out", dir, "--workers", "1", "--universes", "1"); code != 1 {
		t.Fatalf("explore of %s: exit code %d; stderr %s", prog, code, errs)
	}
	reps, err := filepath.Glob(filepath.Join(dir, "failure-*.json"))
	if err != nil || len(reps) != 1 {
		t.Fatalf("reports of %s: %v (%v)", prog, reps, err)
	}
	return reps[0]
}
