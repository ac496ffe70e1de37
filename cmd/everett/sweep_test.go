package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"everett/explorer"
	"everett/internal/guestbuild"
)

// sweepProg builds explorer/testdata/sweep: two harts race on a counter;
// some seeds fail with exit code 3, some with an always assertion.
func sweepProg(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "explorer", "testdata"))
	return guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:         "explorer-sweep",
		Dirs:         []string{filepath.Join(dir, "crt"), filepath.Join(dir, "sweep")},
		LinkerScript: filepath.Join(dir, "crt", "link.ld"),
	})
}

func loadSweep(t *testing.T, p string) *explorer.SweepFile {
	t.Helper()
	f, err := explorer.LoadSweep(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSweepShardsMergeIntoTheUnshardedSweepOnTheCommandLine(t *testing.T) {
	prog := sweepProg(t)
	d := t.TempDir()
	p := func(name string) string { return filepath.Join(d, name) }
	sel := []string{"sweep", "--elf", prog, "--smp", "2", "--seeds", "1..48"}

	code, out, errs := runCLI(t, append(sel, "--workers", "2", "--out", p("all"), "--json", p("all.json"), "--junit", p("all.xml"), "--html", p("all.html"))...)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (failures found); stderr: %s\n%s", code, errs, out)
	}
	if n := len(regexp.MustCompile(`(?m)^seed \d+ (pass|fail) insns \d+ state [0-9a-f]{16}`).FindAllString(out, -1)); n != 48 {
		t.Fatalf("%d seed lines, want 48:\n%s", n, out)
	}
	sweepOut := out
	whole := loadSweep(t, p("all.json"))
	if whole.Totals.Failed == 0 || len(whole.Failures) < 2 {
		t.Fatalf("the sweep found %d failures in %d signatures; the test wants two signatures", whole.Totals.Failed, len(whole.Failures))
	}
	for _, g := range whole.Failures {
		if !strings.Contains(out, "reproduce with: "+g.Replay) {
			t.Errorf("stdout lacks the replay command %q", g.Replay)
		}
		if _, err := os.Stat(g.Report); err != nil {
			t.Errorf("report of %q: %v", g.Signature, err)
		}
	}
	for _, f := range []string{"all.xml", "all.html"} {
		if st, err := os.Stat(p(f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	var shards []string
	for i := 0; i < 4; i++ {
		js := p(fmt.Sprintf("shard-%d.json", i))
		code, out, errs := runCLI(t, append(sel, "--shard", fmt.Sprintf("%d/4", i), "--workers", fmt.Sprint(1+i%2),
			"--json", js, "--out", p(fmt.Sprintf("reports-%d", i)))...)
		if code > 1 {
			t.Fatalf("shard %d: exit code %d: %s\n%s", i, code, errs, out)
		}
		shards = append(shards, js)
	}
	code, out, errs = runCLI(t, append([]string{"report", "merge", "--out", p("merged.json"), "--junit", p("merged.xml"), "--html", p("merged.html")}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit code %d: %s\n%s", code, errs, out)
	}
	merged := loadSweep(t, p("merged.json"))
	if !reflect.DeepEqual(merged.Outcomes, whole.Outcomes) {
		t.Fatal("the merged outcomes differ from the unsharded sweep's")
	}
	if !reflect.DeepEqual(merged.Coverage, whole.Coverage) || !reflect.DeepEqual(merged.Assertions, whole.Assertions) || merged.Totals != whole.Totals {
		t.Fatal("the merged coverage, assertions or totals differ from the unsharded sweep's")
	}

	// A merged report's replay command reproduces its failure.
	g := merged.Failures[0]
	code, out, _ = runCLI(t, strings.Fields(strings.TrimPrefix(g.Replay, "everett "))...)
	if code != 1 || !strings.Contains(out, "reproduced: "+g.Signature) {
		t.Fatalf("%s: exit code %d: %s", g.Replay, code, out)
	}
	// A later seed's rerun command, as the sweep printed it, fails the
	// same way and writes that seed's report.
	later := regexp.MustCompile(`(?m)^seed (\d+) fail .*\n  reproduce with: everett (sweep .*)$`).FindStringSubmatch(sweepOut)
	if later == nil {
		t.Fatalf("no rerun command in the sweep's output:\n%s", sweepOut)
	}
	code, out, _ = runCLI(t, strings.Fields(later[2])...)
	if code != 1 || !strings.Contains(out, "seed "+later[1]+" fail") || !strings.Contains(out, "reproduce with: everett replay "+p("all")) {
		t.Fatalf("%s: exit code %d:\n%s", later[2], code, out)
	}

	// Compare: a sweep against itself has nothing new; a passing sweep
	// against it has everything new (exit code 1), and back, all fixed.
	code, out, _ = runCLI(t, "report", "compare", p("all.json"), p("merged.json"))
	if code != 0 || !strings.Contains(out, "compare: 0 new, 0 fixed, "+fmt.Sprint(len(whole.Failures))+" unchanged") {
		t.Fatalf("compare with itself: exit code %d:\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "sweep", "--elf", prog, "--smp", "2", "--seeds", "1..3", "--json", p("old.json"), "--out", p("old")); code != 0 {
		t.Fatalf("seeds 1..3 should pass: exit code %d:\n%s", code, out)
	}
	md := p("summary.md")
	code, out, _ = runCLI(t, "report", "compare", p("old.json"), p("merged.json"), "--markdown", md, "--json", p("compare.json"))
	if code != 1 || !strings.Contains(out, fmt.Sprintf("new failures: %d", len(whole.Failures))) || !strings.Contains(out, "note: the seed ranges differ") {
		t.Fatalf("compare passing → failing: exit code %d:\n%s", code, out)
	}
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "| new | "+whole.Failures[0].Signature) {
		t.Fatalf("markdown summary:\n%s", b)
	}
	var cmp explorer.Comparison
	if b, err := os.ReadFile(p("compare.json")); err != nil || json.Unmarshal(b, &cmp) != nil || len(cmp.New) != len(whole.Failures) || len(cmp.Fixed) != 0 {
		t.Fatalf("compare --json: %v %+v", err, cmp)
	}
	code, out, _ = runCLI(t, "report", "compare", p("merged.json"), p("old.json"))
	if code != 0 || !strings.Contains(out, fmt.Sprintf("fixed failures: %d", len(whole.Failures))) {
		t.Fatalf("compare failing → passing: exit code %d:\n%s", code, out)
	}
}

func TestSweepAndReportRejectBadInput(t *testing.T) {
	prog := sweepProg(t)
	d := t.TempDir()
	for i := 0; i < 2; i++ {
		if code, out, errs := runCLI(t, "sweep", "--elf", prog, "--smp", "2", "--seeds", "1..8", "--shard", fmt.Sprintf("%d/3", i),
			"--json", filepath.Join(d, fmt.Sprintf("s%d.json", i)), "--out", d); code > 1 {
			t.Fatalf("exit code %d: %s %s", code, out, errs)
		}
	}
	s0, s1 := filepath.Join(d, "s0.json"), filepath.Join(d, "s1.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no seeds", []string{"sweep", "--elf", prog}, "--seeds A..B is required"},
		{"an empty range", []string{"sweep", "--elf", prog, "--seeds", "5..1"}, "the range is empty"},
		{"a shard index from 1", []string{"sweep", "--elf", prog, "--seeds", "1..4", "--shard", "4/4"}, "index 4 out of 0..3"},
		{"both a spec and --elf", []string{"sweep", "spec.yaml", "--elf", prog, "--seeds", "1..4"}, "not both"},
		{"an output under a file", []string{"sweep", "--elf", prog, "--seeds", "1..4", "--json", filepath.Join(prog, "x.json")}, "cannot create its directory"},
		{"a missing spec", []string{"sweep", filepath.Join(d, "none.yaml"), "--seeds", "1..4"}, "none.yaml"},
		{"an unknown setup point", []string{"sweep", "--elf", prog, "--seeds", "1..4", "--setup", "later"}, "--setup: invalid universe spec: setup.at"},
		{"an unknown setup point to explore", []string{"explore", "--elf", prog, "--setup", "later", "--out", d}, "--setup: invalid universe spec: setup.at"},
		{"a missing shard", []string{"report", "merge", "--out", filepath.Join(d, "m.json"), s0, s1}, "2 seed(s) of 1..8 missing (of shard 2/3): 3, 6"},
		{"an overlapping shard", []string{"report", "merge", "--out", filepath.Join(d, "m.json"), s0, s1, s0}, "overlapping shards"},
		{"nothing to write", []string{"report", "merge", s0}, "nothing to write"},
		{"a missing file", []string{"report", "compare", s0, filepath.Join(d, "none.json")}, "none.json"},
		{"not a sweep file", []string{"report", "compare", s0, prog}, "invalid sweep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit code %d, stderr %q; want %d and %q", code, errs, exitUsage, tc.want)
			}
		})
	}
}

func TestSweepCreatesTheFoldersOfItsOutputFiles(t *testing.T) {
	prog := program(t, exitWith(1)...) // exits 0
	d := t.TempDir()
	sw := filepath.Join(d, "sw")
	js, xml, html := filepath.Join(sw, "r.json"), filepath.Join(sw, "junit", "r.xml"), filepath.Join(sw, "html", "deep", "r.html")
	code, out, errs := runCLI(t, "sweep", "--elf", prog, "--seeds", "1..3", "--out", sw, "--json", js, "--junit", xml, "--html", html)
	if code != 0 {
		t.Fatalf("exit code %d; stderr %s\n%s", code, errs, out)
	}
	for _, p := range []string{js, xml, html} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	merged := filepath.Join(d, "merged", "m.json")
	if code, out, errs := runCLI(t, "report", "merge", "--out", merged, "--html", filepath.Join(d, "mh", "m.html"), js); code != 0 {
		t.Fatalf("merge: exit code %d; stderr %s\n%s", code, errs, out)
	}
	if _, err := os.Stat(merged); err != nil {
		t.Error(err)
	}
}

func TestExploreSaysWhichBudgetEndedTheRun(t *testing.T) {
	prog := program(t, exitWith(1)...)
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		ended string
	}{
		{"a wall-time budget alone runs until it is spent", []string{"--time", "1s"}, "stopped by the wall-time budget (1s)", "wall"},
		{"a universe budget", []string{"--universes", "8"}, "stopped by the universe budget (8 universes)", "universes"},
		{"both: the first one spent", []string{"--universes", "8", "--time", "1h"}, "stopped by the universe budget (8 universes)", "universes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"explore", "--elf", prog, "--out", dir, "--workers", "2"}, tc.args...)
			code, out, errs := runCLI(t, args...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || lines[len(lines)-1] != tc.want {
				t.Fatalf("exit code %d, last line %q, want %q; stderr %s", code, lines[len(lines)-1], tc.want, errs)
			}
			var sum explorer.Summary
			b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			if err := json.Unmarshal(b, &sum); err != nil || sum.EndedBy != tc.ended {
				t.Fatalf("summary ended_by %q (%v), want %q", sum.EndedBy, err, tc.ended)
			}
		})
	}
}
