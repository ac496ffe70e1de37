package explorer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"everett/internal/hosttool"
)

// sweepSpec is the spec of the sweep tests: explorer/testdata/sweep on two
// harts, which fails in about one seed in eight with two signatures and
// makes an always and a sometimes assertion.
func sweepSpec(t *testing.T) *Spec {
	t.Helper()
	return elfSpec(t, "sweep", 2)
}

// sweep runs a sweep and fails the test on error.
func sweep(t *testing.T, s *Spec, o SweepOptions) *SweepFile {
	t.Helper()
	f, err := RunSweep(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// deterministic returns the file without its host section, as JSON.
func deterministic(t *testing.T, f *SweepFile) string {
	t.Helper()
	c := *f
	c.Host = nil
	b, err := json.MarshalIndent(&c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDiff returns the first differing line of two texts.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(al), len(bl))
}

func TestASweepSplitIntoFourShardsAndMergedEqualsTheUnshardedSweep(t *testing.T) {
	s := sweepSpec(t)
	seeds := SeedRange{1, 161}
	whole := sweep(t, s, SweepOptions{Seeds: seeds, Workers: 2})
	if whole.Totals.Failed == 0 || whole.Totals.Signatures < 2 || len(whole.Assertions) == 0 {
		t.Fatalf("the unsharded sweep found %d failures, %d signatures, %d assertions: too few to test a merge",
			whole.Totals.Failed, whole.Totals.Signatures, len(whole.Assertions))
	}
	// Each shard goes through its JSON file, as between machines.
	dir := t.TempDir()
	var files []*SweepFile
	var names []string
	for i := 0; i < 4; i++ {
		f := sweep(t, s, SweepOptions{Seeds: seeds, Shard: Shard{i, 4}, Workers: 1 + i%2})
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := WriteJSON(p, f); err != nil {
			t.Fatal(err)
		}
		back, err := LoadSweep(p)
		if err != nil {
			t.Fatal(err)
		}
		// Merge in an order other than the shards'.
		files = append([]*SweepFile{back}, files...)
		names = append([]string{p}, names...)
	}
	merged, err := MergeSweeps(files, names)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged.Outcomes, whole.Outcomes) {
		t.Fatalf("merged outcomes differ from the unsharded sweep's: %s",
			firstDiff(deterministic(t, &SweepFile{Outcomes: merged.Outcomes}), deterministic(t, &SweepFile{Outcomes: whole.Outcomes})))
	}
	if a, b := deterministic(t, merged), deterministic(t, whole); a != b {
		t.Fatalf("the merged file differs from the unsharded one beyond the host section: %s", firstDiff(a, b))
	}
	if len(merged.Host) != 4 {
		t.Fatalf("merged host section has %d runs, want the 4 shards'", len(merged.Host))
	}
}

func TestSweepResultsAreTheSameWithOneOrTwoWorkers(t *testing.T) {
	s := sweepSpec(t)
	var first string
	for _, w := range []int{1, 2, 3} {
		var order []uint64
		f := sweep(t, s, SweepOptions{Seeds: SeedRange{100, 179}, Workers: w,
			OnOutcome: func(o *SeedOutcome, _ bool) (string, error) {
				order = append(order, o.Seed)
				return "", nil
			}})
		for i, seed := range order {
			if seed != uint64(100+i) {
				t.Fatalf("with %d workers the callback saw seed %d in place %d", w, seed, i)
			}
		}
		got := deterministic(t, f)
		if first == "" {
			first = got
			continue
		}
		if got != first {
			t.Fatalf("with %d workers the sweep differs from 1 worker's: %s", w, firstDiff(got, first))
		}
	}
}

func TestShardsDealTheSeedsRoundRobinFromZero(t *testing.T) {
	r, err := ParseSeedRange("10..29")
	if err != nil || r != (SeedRange{10, 29}) {
		t.Fatalf("ParseSeedRange: %v %v", r, err)
	}
	seen := map[uint64]int{}
	for i := 0; i < 3; i++ {
		sh, err := ParseShard(fmt.Sprintf("%d/3", i))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sh.Seeds(r) {
			if !sh.Owns(r, s) || (s-10)%3 != uint64(i) {
				t.Fatalf("shard %s got seed %d", sh, s)
			}
			seen[s]++
		}
	}
	for s := uint64(10); s <= 29; s++ {
		if seen[s] != 1 {
			t.Fatalf("seed %d is in %d shards", s, seen[s])
		}
	}
	if got := (Shard{2, 4}).Seeds(SeedRange{^uint64(0) - 5, ^uint64(0)}); len(got) != 1 || got[0] != ^uint64(0)-3 {
		t.Fatalf("shard seeds at the top of the range: %v", got)
	}
	for _, tc := range []struct{ in, want string }{
		{"4/4", "index 4 out of 0..3"},
		{"-1/4", "out of"},
		{"1/0", "0 shards"},
		{"3", "want I/N"},
		{"a/b", "want I/N"},
	} {
		if _, err := ParseShard(tc.in); !errors.Is(err, ErrSweep) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseShard(%q) = %v, want an error mentioning %q", tc.in, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"5..1", "empty"},
		{"1..2000000", "more than"},
		{"x..3", "want A..B"},
		{"0..18446744073709551615", "more than"},
	} {
		if _, err := ParseSeedRange(tc.in); !errors.Is(err, ErrSweep) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSeedRange(%q) = %v, want an error mentioning %q", tc.in, err, tc.want)
		}
	}
}

func TestMergeRejectsOverlappingMissingAndForeignShards(t *testing.T) {
	s := sweepSpec(t)
	seeds := SeedRange{1, 40}
	var sh [4]*SweepFile
	for i := range sh {
		sh[i] = sweep(t, s, SweepOptions{Seeds: seeds, Shard: Shard{i, 4}, Workers: 1})
	}
	other := *s
	other.Budgets.Instructions = 12345
	foreign := sweep(t, &other, SweepOptions{Seeds: seeds, Shard: Shard{3, 4}, Workers: 1})
	wider := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 44}, Shard: Shard{3, 4}, Workers: 1})
	for _, tc := range []struct {
		name  string
		files []*SweepFile
		want  string
	}{
		{"a shard given twice overlaps", []*SweepFile{sh[0], sh[1], sh[2], sh[3], sh[1]}, "seed 2 is in both b.json (shard 1/4) and e.json (shard 1/4): overlapping"},
		{"a missing shard names its seeds", []*SweepFile{sh[0], sh[1], sh[3]}, "10 seed(s) of 1..40 missing (of shard 2/4): 3, 7, 11, 15, 19, 23, 27, 31, 35, 39"},
		{"another spec is refused", []*SweepFile{sh[0], sh[1], sh[2], foreign}, "different specs"},
		{"another seed range is refused", []*SweepFile{sh[0], sh[1], sh[2], wider}, "seeds 1..44"},
		{"nothing to merge", nil, "no sweep files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MergeSweeps(tc.files, []string{"a.json", "b.json", "c.json", "d.json", "e.json"})
			if !errors.Is(err, ErrSweep) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrSweep mentioning %q", err, tc.want)
			}
		})
	}

	// A shard file cut short (a pod killed while writing it would leave no
	// file, but an edited or truncated one must not merge).
	dir := t.TempDir()
	cut := *sh[2]
	cut.Outcomes = cut.Outcomes[:len(cut.Outcomes)-1]
	p := filepath.Join(dir, "cut.json")
	if err := WriteJSON(p, &cut); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSweep(p); !errors.Is(err, ErrSweep) || !strings.Contains(err.Error(), "9 outcomes for the 10 seeds of shard 2/4") {
		t.Fatalf("LoadSweep of a cut shard: %v", err)
	}
}

// synthetic builds a sweep file from (seed, signature) pairs ("" passes).
func synthetic(seeds SeedRange, sigs map[uint64]string) *SweepFile {
	a := newSweepAgg(nil)
	for s := seeds.From; s <= seeds.To; s++ {
		o := &SeedOutcome{Seed: s, Outcome: "pass", StateHash: fmt.Sprintf("%016x", s)}
		if sig := sigs[s]; sig != "" {
			kind, msg, _ := strings.Cut(sig, ": ")
			o.Outcome, o.Signature, o.Failure = "fail", sig, &Failure{Kind: kind, Message: msg}
		}
		if err := a.add(o, nil); err != nil {
			panic(err)
		}
	}
	f := a.file()
	f.Format, f.Seeds, f.Shard, f.Spec.Hash = SweepFormat, seeds, Shard{0, 1}, "h"
	return f
}

func TestCompareListsNewFixedAndUnchangedFailures(t *testing.T) {
	r := SeedRange{1, 50}
	oldF := synthetic(r, map[uint64]string{3: "exit: exit code 3", 9: "hang: no progress", 12: "exit: exit code 3"})
	newF := synthetic(r, map[uint64]string{5: "exit: exit code 3", 7: "assertion: always: x"})
	c := CompareSweeps(oldF, newF)
	sigs := func(l []SignatureChange) string {
		var s []string
		for _, x := range l {
			s = append(s, x.Signature)
		}
		return strings.Join(s, ",")
	}
	if sigs(c.New) != "assertion: always: x" || sigs(c.Fixed) != "hang: no progress" || sigs(c.Unchanged) != "exit: exit code 3" {
		t.Fatalf("new %q fixed %q unchanged %q", sigs(c.New), sigs(c.Fixed), sigs(c.Unchanged))
	}
	if u := c.Unchanged[0]; u.Old.K != 2 || u.New.K != 1 || u.FirstSeed != 5 {
		t.Fatalf("unchanged: %+v old %+v new %+v", u, u.Old, u.New)
	}
	if len(c.Notes) != 0 {
		t.Fatalf("notes %v for like-for-like sweeps", c.Notes)
	}
	if c := CompareSweeps(oldF, oldF); len(c.New)+len(c.Fixed) != 0 || len(c.Unchanged) != 2 {
		t.Fatalf("a sweep against itself: %+v", c)
	}
	newF.Seeds = SeedRange{1, 60}
	if c := CompareSweeps(oldF, newF); len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "seed ranges differ") {
		t.Fatalf("notes %v", c.Notes)
	}
}

func TestWilsonScoreIntervals(t *testing.T) {
	// Reference values: the closed form at z = 1.96, to four decimals,
	// computed independently of this code.
	for _, tc := range []struct {
		k, n      int
		low, high float64
	}{
		{0, 10, 0, 0.2775},
		{1, 10, 0.0179, 0.4042},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{81, 263, 0.2553, 0.3662},
		{0, 0, 0, 1},
	} {
		r := NewRate(tc.k, tc.n)
		if math.Abs(r.Low-tc.low) > 1e-4 || math.Abs(r.High-tc.high) > 1e-4 {
			t.Errorf("%d of %d: [%v, %v], want [%v, %v]", tc.k, tc.n, r.Low, r.High, tc.low, tc.high)
		}
	}
}

func TestAssertionCatalogsAreBoundedAndMarkedTruncated(t *testing.T) {
	s := elfSpec(t, "flood", 1)
	f := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 2}, Workers: 2})
	if len(f.Assertions) > MaxSweepAssertions || !f.AssertionsTruncated {
		t.Fatalf("%d assertions, truncated %v; want at most %d and the flag", len(f.Assertions), f.AssertionsTruncated, MaxSweepAssertions)
	}
	a := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 2}, Shard: Shard{0, 2}, Workers: 1})
	b := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 2}, Shard: Shard{1, 2}, Workers: 1})
	m, err := MergeSweeps([]*SweepFile{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Assertions) > MaxSweepAssertions || !m.AssertionsTruncated || !reflect.DeepEqual(m.Outcomes, f.Outcomes) {
		t.Fatalf("merged: %d assertions, truncated %v", len(m.Assertions), m.AssertionsTruncated)
	}
}

// junitReader is a JUnit consumer: Python's junitparser (Debian package
// python3-junitparser), the library CI tools such as pytest plugins and
// GitLab helpers use to read JUnit files. It prints what it read as JSON.
const junitReader = `
import json, sys
from junitparser import JUnitXml, Failure, Error, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
out = {"tests": xml.tests, "failures": xml.failures, "errors": xml.errors, "suites": []}
for suite in xml:
    s = {"name": suite.name, "tests": suite.tests, "failures": suite.failures,
         "errors": suite.errors, "time": suite.time, "cases": []}
    for case in suite:
        c = {"name": case.name, "classname": case.classname, "time": case.time, "results": []}
        for r in case.result:
            c["results"].append({"kind": type(r).__name__, "message": r.message, "type": r.type, "text": r.text})
        s["cases"].append(c)
    out["suites"].append(s)
json.dump(out, sys.stdout)
`

// junitPython returns a python3 that can import junitparser, or skips.
func junitPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if err := exec.Command(py, "-c", "import junitparser").Run(); err == nil {
			return py
		}
	}
	hosttool.Missing(t, "python3-junitparser", errors.New("no python3 imports junitparser"))
	return ""
}

func TestTheJUnitFileIsReadByAJUnitConsumer(t *testing.T) {
	py := junitPython(t)
	s := sweepSpec(t)
	f := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 60}, Workers: 2, Args: []string{"--elf", "sweep.elf", "--smp", "2"},
		OnOutcome: func(o *SeedOutcome, isNew bool) (string, error) {
			if isNew {
				return "out/" + o.Report.FileName(), nil
			}
			return "", nil
		}})
	if f.Totals.Failed == 0 {
		t.Fatal("no failures to report")
	}
	p := filepath.Join(t.TempDir(), "sweep.xml")
	if err := f.WriteJUnit(p); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", junitReader, p).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("junitparser: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		Tests, Failures, Errors int
		Suites                  []struct {
			Name                    string
			Tests, Failures, Errors int
			Time                    float64
			Cases                   []struct {
				Name, Classname string
				Time            float64
				Results         []struct{ Kind, Message, Type, Text string }
			}
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Tests != 60 || got.Failures != f.Totals.Failed || got.Errors != 0 || len(got.Suites) != 1 {
		t.Fatalf("junitparser read %d tests, %d failures, %d errors in %d suites; want 60, %d, 0 in 1",
			got.Tests, got.Failures, got.Errors, len(got.Suites), f.Totals.Failed)
	}
	suite := got.Suites[0]
	if suite.Tests != 60 || suite.Failures != f.Totals.Failed || len(suite.Cases) != 60 || suite.Time <= 0 {
		t.Fatalf("suite %q: %d tests, %d failures, %d cases, time %v", suite.Name, suite.Tests, suite.Failures, len(suite.Cases), suite.Time)
	}
	failures := 0
	for i, c := range suite.Cases {
		o := f.Outcomes[i]
		if c.Name != fmt.Sprintf("seed %d", o.Seed) || !strings.HasPrefix(c.Classname, "everett.sweep.") {
			t.Fatalf("case %d: %q of %q", i, c.Name, c.Classname)
		}
		if o.Outcome == "pass" {
			if len(c.Results) != 0 {
				t.Fatalf("passing seed %d has results %+v", o.Seed, c.Results)
			}
			continue
		}
		failures++
		if len(c.Results) != 1 || c.Results[0].Kind != "Failure" || c.Results[0].Message != o.Signature || c.Results[0].Type != o.Failure.Kind {
			t.Fatalf("failing seed %d: results %+v, want one Failure %q", o.Seed, c.Results, o.Signature)
		}
		text := c.Results[0].Text
		if !strings.Contains(text, "failing check: "+o.Signature) || !strings.Contains(text, "reproduce with: everett ") {
			t.Fatalf("failing seed %d: text %q lacks the check or the replay command", o.Seed, text)
		}
	}
	if failures != f.Totals.Failed {
		t.Fatalf("%d failing cases, want %d", failures, f.Totals.Failed)
	}
	_ = os.Remove(p)
}
