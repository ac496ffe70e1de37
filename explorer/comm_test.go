package explorer

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Preemption at communication events, tried on the examples a user would
// write: races whose window is a few instructions.

func buildExample(t *testing.T, name string) string {
	t.Helper()
	root := repoRoot(t)
	out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples", name)).CombinedOutput()
	if err != nil {
		t.Fatalf("building the %s example: %v\n%s", name, err, out)
	}
	return filepath.Join(root, "build/examples", name+".elf")
}

// firstFailure explores until the first batch with a failure and returns
// the universe that found it (-1: none in n universes).
func firstFailure(t *testing.T, s *Spec, seed uint64, n int) (int, *Result) {
	t.Helper()
	res, err := Explore(s, Options{Seed: seed, Universes: n, Workers: 2, StopOnFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) == 0 {
		return -1, res
	}
	return res.Failures[0].Universe, res
}

func TestTheTestThenSetLockRaceOnThreeHartsIsFoundFromEverySeed(t *testing.T) {
	elf := buildExample(t, "ttas")
	s, err := ELFSpec(elf, 3)
	if err != nil {
		t.Fatal(err)
	}
	// README: found within 400 universes from each of seeds 1-5.
	for seed := uint64(1); seed <= 5; seed++ {
		u, res := firstFailure(t, s, seed, 400)
		if u < 0 {
			t.Fatalf("seed %d: the race was not found in %d universes", seed, res.Universes)
		}
		r := res.Failures[0]
		t.Logf("seed %d: %s in universe %d (%d universes run)", seed, r.Signature, u, res.Universes)
		got, err := Replay(r, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Reproduced {
			t.Fatalf("seed %d: %s does not replay exactly", seed, r.Signature)
		}
	}
}

func TestPreemptionAtCommunicationEventsIsWhatFindsTheTestThenSetRace(t *testing.T) {
	if testing.Short() {
		t.Skip("a baseline of 400 universes")
	}
	elf := buildExample(t, "ttas")
	s, err := ELFSpec(elf, 3)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	s.Faults.Preemptions = &zero
	// The same search without preemption points: round-based schedules
	// (random quanta, stalls, PCT over instructions) only.
	u, res := firstFailure(t, s, 1, 400)
	t.Logf("without preemption points: first failure in universe %d of %d", u, res.Universes)
	if u >= 0 && u < 40 {
		t.Fatalf("round-based schedules found the race in universe %d: the example no longer needs preemption points", u)
	}
}

func TestTheSeqlockReaderRaceOnLinuxIsFoundFromAnOrdinaryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("boots Linux")
	}
	root := repoRoot(t)
	out, err := exec.Command("sh", filepath.Join(root, "guest-images/examples/seqlock/build.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("building the seqlock example: %v\n%s", err, out)
	}
	s, err := LoadSpec(filepath.Join(root, "guest-images/examples/seqlock/spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// README: found within 40 universes from seed 1 (universe 0).
	u, res := firstFailure(t, s, 1, 40)
	if u < 0 {
		t.Fatalf("the torn read was not found in %d universes", res.Universes)
	}
	r := res.Failures[0]
	if r.Signature != "assertion: always: a reader sees one version of the record" {
		t.Fatalf("found %q", r.Signature)
	}
	got, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reproduced {
		t.Fatal("the torn read does not replay exactly")
	}
}
