package litmus

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"everett/emu"
)

func loadTest(t testing.TB, name string) *Test {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../testdata/litmus", name+".litmus"))
	if err != nil {
		t.Fatal(err)
	}
	tt, err := Parse(name+".litmus", src)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// Every test's condition is a non-SC outcome (or, for the atomics, one SC
// requires): under sc, no run may contradict its sc verdict.
func TestLitmusSCNeverShowsAForbiddenOutcome(t *testing.T) {
	files, _ := filepath.Glob("../testdata/litmus/*.litmus")
	runs := 3000
	if testing.Short() {
		runs = 500
	}
	for _, f := range files {
		tt := loadTest(t, strings.TrimSuffix(filepath.Base(f), ".litmus"))
		r, err := Run(tt, Options{Runs: runs, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Check(); err != nil {
			t.Error(err)
		}
	}
}

// The runner explores interleavings: every outcome SC allows for these
// tests shows up (a runner that ran P0 to the end, then P1, would show one
// state per test).
func TestLitmusSCReachesEverySCOutcome(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string // the states SC allows, as printed
	}{
		{"MP", []string{"1:x5=0; 1:x7=0;", "1:x5=0; 1:x7=1;", "1:x5=1; 1:x7=1;"}},
		{"SB", []string{"0:x7=0; 1:x7=1;", "0:x7=1; 1:x7=0;", "0:x7=1; 1:x7=1;"}},
		{"LB", []string{"0:x5=0; 1:x5=0;", "0:x5=0; 1:x5=1;", "0:x5=1; 1:x5=0;"}},
		{"2+2W", []string{"x=1; y=1;", "x=1; y=2;", "x=2; y=1;"}},
	} {
		r, err := Run(loadTest(t, c.name), Options{Runs: 2000, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.States {
			got = append(got, r.stateString(s))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: states %q, want %q", c.name, got, c.want)
		}
	}
}

// IRIW has 4 threads and 15 SC outcomes: all of them show up.
func TestLitmusSCReachesEveryIRIWOutcome(t *testing.T) {
	r, err := Run(loadTest(t, "IRIW"), Options{Runs: 20000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.States) != 15 || r.Pos != 0 {
		var b bytes.Buffer
		r.Write(&b)
		t.Errorf("IRIW under sc: %d states, %d positive, want 15 and 0:\n%s", len(r.States), r.Pos, b.String())
	}
}

func TestLitmusSameSeedSameOutputWhateverTheJobs(t *testing.T) {
	tt := loadTest(t, "ISA2")
	out := func(seed uint64, jobs int) string {
		r, err := Run(tt, Options{Runs: 3000, Seed: seed, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a, b, c := out(5, 1), out(5, 3), out(5, 1)
	if a != b || a != c {
		t.Errorf("seed 5 printed differently:\n%s\n---\n%s\n---\n%s", a, b, c)
	}
	if out(6, 2) == a {
		t.Errorf("seeds 5 and 6 printed the same histogram: the seed does not reach the schedule")
	}
}

func TestLitmusRVWMOUsesEmuUnlessToldOtherwise(t *testing.T) {
	tt := loadTest(t, "SB")
	if _, err := Run(tt, Options{Model: ModelRVWMO, Runs: 10}); err != nil {
		t.Errorf("rvwmo without SetModel: %v", err)
	}
	if _, err := Run(tt, Options{Model: "tso", Runs: 10}); !errors.Is(err, ErrModel) {
		t.Errorf("unknown model: %v", err)
	}
	// With a SetModel, the runner calls it once per machine, before the
	// snapshot every run starts from.
	calls := 0
	set := func(m *emu.Machine, model string) error {
		calls++
		if model != ModelRVWMO || m.ICount() != 0 {
			return fmt.Errorf("called with %q at %d", model, m.ICount())
		}
		return nil
	}
	if _, err := Run(tt, Options{Model: ModelRVWMO, SetModel: set, Runs: 10, Jobs: 1}); err != nil || calls != 1 {
		t.Errorf("SetModel: %v, %d calls", err, calls)
	}
	failing := func(*emu.Machine, string) error { return errors.New("no store buffers") }
	if _, err := Run(tt, Options{Model: ModelRVWMO, SetModel: failing, Runs: 10}); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "no store buffers") {
		t.Errorf("failing SetModel: %v", err)
	}
}

func TestLitmusARunThatTrapsNamesItsThread(t *testing.T) {
	src := "RISCV T\n{ 0:x6=x; }\n P0 | P1 ;\n lw x5,0(x6) | lw x5,0(x0) ;\nexists (0:x5=1)\n"
	tt, err := Parse("t.litmus", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tt, Options{Runs: 1})
	if err == nil || !strings.Contains(err.Error(), "P1 left its code") {
		t.Errorf("got %v, want P1 named", err)
	}
}

func TestLitmusCheckComparesWithTheVerdict(t *testing.T) {
	tt := loadTest(t, "MP+fence.w.w+ctrl") // rvwmo:Allowed sc:Forbidden
	r, err := Run(tt, Options{Runs: 200})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Errorf("sc: %v", err)
	}
	r.Model = ModelRVWMO // pretend: under rvwmo the outcome must be seen
	if err := r.Check(); !errors.Is(err, ErrVerdict) || !strings.Contains(err.Error(), "no run of 200") {
		t.Errorf("rvwmo: %v", err)
	}
	r.Model = "tso" // a model the file gives no verdict for: nothing to check
	if err := r.Check(); !errors.Is(err, ErrNoVerdict) || errors.Is(err, ErrVerdict) {
		t.Errorf("tso: %v, want ErrNoVerdict", err)
	}
}

// herd's filter: a run whose final state does not satisfy it counts
// neither for nor against the condition.
func TestLitmusAFilterDiscardsTheRunsThatDoNotSatisfyIt(t *testing.T) {
	src := "RISCV F\n{ 0:x6=x; 1:x6=x; }\n P0 | P1 ;\n ori x5,x0,1 | lw x5,0(x6) ;\n sw x5,0(x6) | ;\nfilter (1:x5=1)\nforall (1:x5=1 /\\ x=1)\n"
	tt, err := Parse("f.litmus", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(tt, Options{Runs: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Filtered == 0 || r.Pos == 0 || r.Neg != 0 || r.Pos+r.Filtered != 500 || !r.Validated() {
		t.Errorf("filtered %d, positive %d, negative %d of 500, validated %v: want some filtered, the rest positive", r.Filtered, r.Pos, r.Neg, r.Validated())
	}
	for _, s := range r.States {
		if s.Values[0] != 1 {
			t.Errorf("a state the filter discards is listed: %v", s.Values)
		}
	}
	var out bytes.Buffer
	r.Write(&out)
	if want := fmt.Sprintf("Filter (1:x5=1) discarded %d of 500 runs\n", r.Filtered); !strings.Contains(out.String(), want) {
		t.Errorf("output does not say %q:\n%s", want, out.String())
	}
}

func TestLitmusARegisterCanHoldTheAddressOfACodeLabel(t *testing.T) {
	src := "RISCV J\n{ 0:x9=P0:LC00; 0:x6=x; }\n P0 ;\n jalr x0,x9,0 ;\n ori x5,x0,1 ;\n LC00: ;\n ori x7,x0,2 ;\n sw x7,0(x6) ;\nexists (0:x5=0 /\\ x=2)\n"
	tt, err := Parse("j.litmus", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(tt, Options{Runs: 20})
	if err != nil {
		t.Fatal(err)
	}
	if r.Observation() != "Always" {
		t.Errorf("the jump to LC00 did not skip the ori: %+v", r.States)
	}
}

func TestLitmusATestWithoutAConditionIsForallTrue(t *testing.T) {
	src := "RISCV CoWR\n{ uint64_t x; uint64_t 1:x7; 0:x5=1; 0:x6=x; 1:x5=2; 1:x6=x; }\n P0 | P1 ;\n sd x5,0(x6) | sd x5,0(x6) ;\n | ld x7,0(x6) ;\nlocations [x;1:x7;]\n"
	tt, err := Parse("c.litmus", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(tt, Options{Runs: 50})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.Write(&out)
	for _, want := range []string{"Test CoWR Required\n", "Condition forall (true) is validated\n", "Observation CoWR Always 50 0\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
