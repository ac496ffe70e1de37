package litmus

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Measuring the runner against the oracle on files of the public suite:
// for each file, the oracle lists what the model allows, the runner runs
// it, and the two are compared. An outcome is a test's condition (its
// proposition): allowed when some state the model allows satisfies it,
// forbidden otherwise; shown when some run satisfied it. A state shown
// that the oracle does not list is a forbidden state, whatever the
// condition says. A family is a folder of the suite (RELAX/Rfi, ...):
// diy generated each folder for one relaxation.

// famStats is what a measurement counts for one family (or all).
type famStats struct {
	files, ran, refused     int
	allowed, allowedShown   int
	forbidden, forbidShown  int
	badStates               int // states shown that the oracle does not list
	truncated               int // files the oracle followed loops of only partly (no state check)
	runs                    int
	runTime                 time.Duration
	missed, forbiddenShownF []string
}

func (s *famStats) add(o *famStats) {
	s.files += o.files
	s.ran += o.ran
	s.refused += o.refused
	s.allowed += o.allowed
	s.allowedShown += o.allowedShown
	s.forbidden += o.forbidden
	s.forbidShown += o.forbidShown
	s.badStates += o.badStates
	s.truncated += o.truncated
	s.runs += o.runs
	s.runTime += o.runTime
	s.missed = append(s.missed, o.missed...)
	s.forbiddenShownF = append(s.forbiddenShownF, o.forbiddenShownF...)
}

// measurement is the result of measure.
type measurement struct {
	model    string
	runs     int
	fams     map[string]*famStats
	refusals []string // "FILE: reason"
}

// measure runs files (under suite root) through the oracle and the runner
// under model, runs times each from seed.
func measure(root string, files []string, model string, runs int, seed uint64, jobs int) *measurement {
	m := &measurement{model: model, runs: runs, fams: map[string]*famStats{}}
	for _, f := range files {
		rel, err := filepath.Rel(root, filepath.Dir(f))
		if err != nil {
			rel = filepath.Dir(f)
		}
		fam := strings.TrimPrefix(rel, "non-mixed-size/")
		st := m.fams[fam]
		if st == nil {
			st = &famStats{}
			m.fams[fam] = st
		}
		st.files++
		refuse := func(err error) {
			st.refused++
			m.refusals = append(m.refusals, fmt.Sprintf("%s: %v", f, err))
		}
		tt, err := parseAndLayout(f)
		if err != nil {
			refuse(err)
			continue
		}
		reach, err := Reachable(tt, model)
		if err != nil {
			refuse(err)
			continue
		}
		t0 := time.Now()
		res, err := Run(tt, Options{Model: model, Runs: runs, Seed: seed, Jobs: jobs})
		st.runTime += time.Since(t0)
		if err != nil {
			refuse(err)
			continue
		}
		st.ran++
		st.runs += runs
		if reach.Sat {
			st.allowed++
			if res.Pos > 0 {
				st.allowedShown++
			} else {
				st.missed = append(st.missed, tt.Name)
			}
		} else {
			st.forbidden++
			if res.Pos > 0 {
				st.forbidShown++
				st.forbiddenShownF = append(st.forbiddenShownF, f)
			}
		}
		if reach.Truncated {
			st.truncated++
			continue
		}
		for _, bad := range unreachable(res, reach) {
			st.badStates++
			st.forbiddenShownF = append(st.forbiddenShownF, fmt.Sprintf("%s: state %s", f, bad))
		}
	}
	return m
}

// unreachable lists the states res shows that reach does not allow.
func unreachable(res *Result, reach *Reach) []string {
	var bad []string
	key := make([]byte, 8*len(res.Locs))
	for _, s := range res.States {
		for i, v := range s.Values {
			binary.LittleEndian.PutUint64(key[8*i:], v)
		}
		if !reach.States[string(key)] {
			bad = append(bad, res.stateString(s))
		}
	}
	return bad
}

// total sums every family.
func (m *measurement) total() *famStats {
	var t famStats
	for _, s := range m.fams {
		t.add(s)
	}
	return &t
}

// write prints the measurement as a table, one family a line, families
// sorted by name, then the total.
func (m *measurement) write(w io.Writer) {
	names := make([]string, 0, len(m.fams))
	for n := range m.fams {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "model %s, %d runs per test\n", m.model, m.runs)
	fmt.Fprintf(w, "%-34s %6s %6s %7s %15s %15s %9s\n", "family", "files", "ran", "refused", "allowed shown", "forbid. shown", "bad states")
	row := func(n string, s *famStats) {
		fmt.Fprintf(w, "%-34s %6d %6d %7d %15s %15s %9d\n", n, s.files, s.ran, s.refused,
			strconv.Itoa(s.allowedShown)+"/"+strconv.Itoa(s.allowed), strconv.Itoa(s.forbidShown)+"/"+strconv.Itoa(s.forbidden), s.badStates)
	}
	for _, n := range names {
		row(n, m.fams[n])
	}
	t := m.total()
	row("TOTAL", t)
	rate := 0.0
	if t.runTime > 0 {
		rate = float64(t.runs) / t.runTime.Seconds()
	}
	fmt.Fprintf(w, "runs: %d in %.1f s of running: %.0f runs/s; %d files the oracle followed loops of only partly (no state check)\n",
		t.runs, t.runTime.Seconds(), rate, t.truncated)
	for _, r := range m.refusals {
		fmt.Fprintf(w, "refused: %s\n", r)
	}
	for _, f := range t.forbiddenShownF {
		fmt.Fprintf(w, "FORBIDDEN SHOWN: %s\n", f)
	}
}

// writeMissed prints the allowed outcomes not shown, by family.
func (m *measurement) writeMissed(w io.Writer) {
	names := make([]string, 0, len(m.fams))
	for n, s := range m.fams {
		if len(s.missed) > 0 {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(a, b) })
	for _, n := range names {
		fmt.Fprintf(w, "missed %s: %s\n", n, strings.Join(m.fams[n].missed, " "))
	}
}

// suiteSample picks every k-th file of the sorted suite.
func suiteSample(files []string, k int) []string {
	var out []string
	for i := 0; i < len(files); i += k {
		out = append(out, files[i])
	}
	return out
}

func suiteRoot() string {
	if dir := os.Getenv("EVERETT_LITMUS_SUITE"); dir != "" {
		return dir
	}
	return defaultSuite
}

// TestLitmusMeasureSuite is scripts/bench-litmus.sh's measurement: it
// runs only when EVERETT_LITMUS_BENCH is set, to
// "MODEL RUNS [EVERY-KTH-FILE]" (e.g. "rvwmo 1000 8").
func TestLitmusMeasureSuite(t *testing.T) {
	spec := os.Getenv("EVERETT_LITMUS_BENCH")
	if spec == "" {
		t.Skip("a measurement: set EVERETT_LITMUS_BENCH=\"MODEL RUNS [K]\" (scripts/bench-litmus.sh)")
	}
	f := strings.Fields(spec)
	if len(f) < 2 {
		t.Fatalf("EVERETT_LITMUS_BENCH=%q: want MODEL RUNS [K]", spec)
	}
	runs, err := strconv.Atoi(f[1])
	if err != nil || runs <= 0 {
		t.Fatalf("EVERETT_LITMUS_BENCH=%q: runs: want a positive number", spec)
	}
	k := 1
	if len(f) > 2 {
		if k, err = strconv.Atoi(f[2]); err != nil || k <= 0 {
			t.Fatalf("EVERETT_LITMUS_BENCH=%q: K: want a positive number", spec)
		}
	}
	files := suiteSample(suiteFiles(t), k)
	m := measure(suiteRoot(), files, f[0], runs, 1, 1)
	m.write(os.Stdout)
	if os.Getenv("EVERETT_LITMUS_MISSED") != "" {
		m.writeMissed(os.Stdout)
	}
}
