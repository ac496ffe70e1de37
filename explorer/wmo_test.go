package explorer

import (
	"errors"
	"everett/emu"
	"path/filepath"
	"strings"
	"testing"
)

// The handoff example (guest-images/examples/handoff): message passing
// through a flag without fences. Correct under sc whatever the schedule;
// under rvwmo the consumer can see the new flag with an old message.

const handoffSignature = "assertion: always: the consumer sees the whole message"

func handoffSpec(t *testing.T, name, model string) *Spec {
	return wmoExampleSpec(t, "handoff", name, model)
}

// wmoExampleSpec builds the bare-metal example's ELF name (of its make
// targets) as a 2-hart spec under model.
func wmoExampleSpec(t *testing.T, example, name, model string) *Spec {
	t.Helper()
	elf := buildExample(t, example)
	s, err := ELFSpec(filepath.Join(filepath.Dir(elf), name+".elf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMemoryModel(model); err != nil {
		t.Fatal(err)
	}
	return s
}

// foundWithin100 explores s from seed 1 until its first failure, which
// must come within 100 universes and have signature sig.
func foundWithin100(t *testing.T, s *Spec, sig string) *Report {
	t.Helper()
	u, res := firstFailure(t, s, 1, 100)
	if u < 0 {
		t.Fatalf("not found in %d universes", res.Universes)
	}
	r := res.Failures[0]
	if r.Signature != sig {
		t.Fatalf("found %q, want %q", r.Signature, sig)
	}
	t.Logf("%s in universe %d", r.Signature, u)
	return r
}

func TestTheMissingFenceInTheHandoffIsFoundUnderRVWMOAndReplaysAndBisects(t *testing.T) {
	// README: found within 10 universes from seed 1 (the test allows 100).
	r := foundWithin100(t, handoffSpec(t, "handoff", "rvwmo"), handoffSignature)
	replays(t, r)
	p, err := ParsePredicate("failure", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bisect(r, BisectOptions{Predicate: p})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Found || b.First > r.ICount {
		t.Fatalf("bisect: found %v at %d, the failure is at %d", b.Found, b.First, r.ICount)
	}
	t.Logf("the failure first holds at instruction %d: hart %d at %#x %s", b.First, b.At.Hart, b.At.PC, b.At.Disasm)
}

func TestTheHandoffPassesUnderSCAndWithItsFencesUnderRVWMO(t *testing.T) {
	for _, c := range []struct{ name, model string }{
		{"handoff", "sc"},
		{"handoff-fenced", "rvwmo"},
		{"handoff-fenced", "swarm"},
	} {
		s := handoffSpec(t, c.name, c.model)
		if u, res := firstFailure(t, s, 1, 60); u >= 0 {
			t.Errorf("%s under %s: %s in universe %d", c.name, c.model, res.Failures[0].Signature, u)
		}
	}
}

func TestASpecNamesAnUnknownMemoryModel(t *testing.T) {
	s := &Spec{}
	if err := s.SetMemoryModel("tso"); err == nil || !strings.Contains(err.Error(), "memory_model") {
		t.Errorf("got %v", err)
	}
}

func TestSwarmDrawsTheMemoryModelLastAndOnlyWhenAsked(t *testing.T) {
	s := handoffSpec(t, "handoff", "")
	w := handoffSpec(t, "handoff", "swarm")
	rv := 0
	for seed := uint64(1); seed <= 200; seed++ {
		a, b := drawPlan(s, seed), drawPlan(w, seed)
		if a.Model != 0 {
			t.Fatalf("seed %d: the default spec drew %v", seed, a.Model)
		}
		if b.Model != 0 {
			rv++
		}
		b.Model = a.Model
		if a != b {
			t.Fatalf("seed %d: swarm's model draw changed the rest of the plan:\n%+v\n%+v", seed, a, b)
		}
	}
	if rv < 60 || rv > 140 {
		t.Errorf("swarm drew rvwmo for %d of 200 seeds, want about half", rv)
	}
}

// The spinlock example (guest-images/examples/spinlock): a lock freed by
// an AMO without its release bit. Correct under sc whatever the schedule;
// under rvwmo the next holder can read the account before the last
// holder's stores reach memory. No fence is missing: `.rl` is.

const spinlockSignature = "assertion: always: the lock keeps the account balanced"

func spinlockSpec(t *testing.T, name, model string) *Spec {
	return wmoExampleSpec(t, "spinlock", name, model)
}

func TestTheMissingReleaseBitOfTheSpinlockIsFoundUnderRVWMOAndReplays(t *testing.T) {
	// README: found in universe 2 from seed 1 (the test allows 100).
	r := foundWithin100(t, spinlockSpec(t, "spinlock", "rvwmo"), spinlockSignature)
	replays(t, r)

	// A report of a universe that ran under another version of the
	// rvwmo model (one from before the versions were recorded names
	// none) is refused with that reason, replayed or loaded from its file.
	if r.WMO != emu.WMOVersion {
		t.Fatalf("the report names rvwmo model version %d, this is %d", r.WMO, emu.WMOVersion)
	}
	prior := *r
	prior.WMO = 0
	if _, err := Replay(&prior, ReplayOptions{}); !errors.Is(err, ErrReportVersion) || !strings.Contains(err.Error(), "rvwmo model version 0") {
		t.Fatalf("replaying a report of rvwmo model version 0: %v", err)
	}
	path, err := prior.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadReport(path); !errors.Is(err, ErrReportVersion) {
		t.Fatalf("loading a report of rvwmo model version 0: %v", err)
	}
}

func TestTheSpinlockPassesUnderSCAndWithItsReleaseBitUnderRVWMO(t *testing.T) {
	for _, c := range []struct{ name, model string }{
		{"spinlock", "sc"},
		{"spinlock-release", "rvwmo"},
	} {
		s := spinlockSpec(t, c.name, c.model)
		if u, res := firstFailure(t, s, 1, 60); u >= 0 {
			t.Errorf("%s under %s: %s in universe %d", c.name, c.model, res.Failures[0].Signature, u)
		}
	}
}
