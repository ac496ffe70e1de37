package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/explorer"
)

// readSummary reads an explore's summary.json.
func readSummary(t *testing.T, dir string) (explorer.Summary, map[string]json.RawMessage) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum explorer.Summary
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return sum, raw
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

func TestStopOnFailureStopsAtUniverseZeroAndSaysWhenTheFirstFailureCame(t *testing.T) {
	prog := program(t, exitWith(7)...) // exit code 3 in every universe
	dir := t.TempDir()
	code, out, errs := runCLI(t, "explore", "--elf", prog, "--out", dir, "--workers", "2", "--universes", "100", "--stop-on-failure")
	want := "stopped at the first failure; first failure in universe 0 after "
	if code != 1 || !strings.HasPrefix(lastLine(out), want) || !strings.HasSuffix(lastLine(out), "): exit: exit code 3") {
		t.Fatalf("exit code %d, last line %q, want it to start %q; stderr %s", code, lastLine(out), want, errs)
	}
	sum, raw := readSummary(t, dir)
	ff := sum.FirstFailure
	// Universe 0 fails at its sixth instruction; the rest of its batch of
	// 8 is cancelled.
	if sum.EndedBy != "failure" || sum.Universes != 1 || sum.Cancelled != 7 || ff == nil ||
		ff.Universe != 0 || ff.Signature != "exit: exit code 3" || ff.Instructions != 6 || ff.Seconds <= 0 {
		t.Fatalf("summary: ended by %q, %d universes, %d cancelled, first failure %+v", sum.EndedBy, sum.Universes, sum.Cancelled, ff)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw["first_failure"], &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"universe", "signature", "seconds", "instructions", "virtual_time_ns"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("first_failure lacks %q: %s", k, raw["first_failure"])
		}
	}
}

func TestWithoutFailuresTheSummarySaysNoFirstFailure(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "explore", "--elf", program(t, exitWith(1)...), "--out", dir, "--universes", "8", "--stop-on-failure")
	if code != 0 || lastLine(out) != "stopped by the universe budget (8 universes)" {
		t.Fatalf("exit code %d, last line %q; stderr %s", code, lastLine(out), errs)
	}
	sum, raw := readSummary(t, dir)
	if string(raw["first_failure"]) != "null" || sum.Cancelled != 0 || sum.Universes != 8 {
		t.Fatalf("first_failure %s, %d cancelled, %d universes", raw["first_failure"], sum.Cancelled, sum.Universes)
	}
}

func TestTheWallTimeBudgetStopsUniversesThatWouldRunForAnHour(t *testing.T) {
	dir := t.TempDir()
	prog := program(t, "j 80000000")
	spec := filepath.Join(dir, "spec.yaml")
	// An hour of virtual time per universe: about 3.6e12 instructions.
	y := "nodes: [{elf: " + prog + "}]\nbudgets: {time: 1h, instructions: 100000000000000}\n"
	if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, errs := runCLI(t, "explore", spec, "--out", out, "--workers", "2", "--time", "1s")
	if code != 0 || lastLine(stdout) != "stopped by the wall-time budget (1s)" || !strings.Contains(stdout, "explored 0 universes (8 more cancelled)") {
		t.Fatalf("exit code %d, stdout %q; stderr %s", code, stdout, errs)
	}
	sum, _ := readSummary(t, out)
	if sum.EndedBy != "wall" || sum.Universes != 0 || sum.Cancelled != 8 || sum.FirstFailure != nil {
		t.Fatalf("summary: ended by %q, %d universes, %d cancelled, first failure %+v", sum.EndedBy, sum.Universes, sum.Cancelled, sum.FirstFailure)
	}
}

func TestABadMemoryLimitIsAUsageErrorThatNamesItAndAGoodOneBoundsTheCorpus(t *testing.T) {
	prog := program(t, exitWith(1)...) // exits 0
	d := t.TempDir()
	spec := filepath.Join(d, "spec.yaml")
	if err := os.WriteFile(spec, []byte("nodes:\n  - elf: "+prog+"\nbudgets:\n  memory: 2 gigs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--elf", prog, "--memory-limit", "lots"}, `--memory-limit: "lots" is not a size (want e.g. 256MiB), or none`},
		{[]string{"--elf", prog, "--memory-limit", "64K"}, `--memory-limit: "64K" is less than 1 MiB`},
		{[]string{"--elf", prog, "--memory-limit", "-1"}, `--memory-limit: "-1" is not a size`},
		{[]string{spec}, `budgets.memory: "2 gigs" is not a size`},
	} {
		code, _, errs := runCLI(t, append(append([]string{"explore"}, tc.args...), "--out", d)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit code %d, stderr %q; want %d and %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
	code, _, errs := runCLI(t, "explore", "--elf", prog, "--universes", "2", "--memory-limit", "4MiB", "--out", d)
	if code != 0 || !strings.Contains(errs, "(bound 1 MiB)") {
		t.Fatalf("exit code %d, stderr %q; want 0 and the corpus's bound, a quarter of the limit", code, errs)
	}
}
