package explorer

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The examples of guest-images/examples, explored as a user would: the
// explorer must find each bug within the budget the README states, and
// every report must replay exactly.

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestTheRaceExampleIsFoundAndReplays(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/race")).CombinedOutput()
	if err != nil {
		t.Fatalf("building the race example: %v\n%s", err, out)
	}
	s, err := ELFSpec(filepath.Join(root, "build/examples/race.elf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	// README: found within 200 universes (about 2 s) from root seed 1.
	res, err := Explore(s, Options{Seed: 1, Universes: 200, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) == 0 {
		t.Fatal("the race was not found in 200 universes")
	}
	for _, r := range res.Failures {
		got, err := Replay(r, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Reproduced {
			t.Fatalf("%s does not replay exactly", r.Signature)
		}
	}
}

func TestTheKVExampleLosesAnAcknowledgedWriteAndReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("boots three Linux nodes per universe")
	}
	s := linuxExample(t, "kv", "spec.yaml")
	// README: found within 8 universes from root seed 1 (universe 0, from
	// the boot snapshot).
	res, err := Explore(s, Options{Seed: 1, Universes: 8, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var lost *Report
	for _, r := range res.Failures {
		if strings.Contains(r.Signature, "acknowledged write") {
			lost = r
		}
	}
	if lost == nil {
		t.Fatalf("the lost write was not found; failures: %v", signatures(res))
	}
	// README: the lost write of universe 3 shrinks from 11 decisions to 6.
	sh := requireReplaysAndShrinks(t, lost, 6)
	t.Logf("lost write in universe %d; decisions %d -> %d after %d replays", lost.Universe, sh.Before, sh.After, sh.Replays)
}

func TestBisectingTheRaceExampleNamesNWithTheFailureFalseAtNMinus1AndTrueAtN(t *testing.T) {
	root := repoRoot(t)
	if out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/race")).CombinedOutput(); err != nil {
		t.Fatalf("building the race example: %v\n%s", err, out)
	}
	s, err := ELFSpec(filepath.Join(root, "build/examples/race.elf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Explore(s, Options{Seed: 1, Universes: 200, Workers: 2})
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("no failure to bisect (%v)", err)
	}
	r := res.Failures[0]
	b, err := Bisect(r, BisectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Found {
		t.Fatal("bisect found nothing")
	}
	for _, c := range []struct {
		until uint64
		fails bool
	}{{b.First - 1, false}, {b.First, true}} {
		got, err := Replay(r, ReplayOptions{Until: c.until})
		if err != nil {
			t.Fatal(err)
		}
		if failed := got.Failure != nil && got.ICount <= c.until; failed != c.fails {
			t.Fatalf("replaying to %d: failed=%v, want %v", c.until, failed, c.fails)
		}
	}
}

// requireReplaysAndShrinks requires report r to replay exactly, and to
// shrink within maxReplays replays to a report with as many decisions or
// fewer that replays exactly too.
func requireReplaysAndShrinks(t *testing.T, r *Report, maxReplays int) *ShrinkResult {
	t.Helper()
	got, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reproduced {
		t.Fatalf("replay: %v at %d (%s); report: %s at %d (%s)", got.Failure, got.ICount, got.StateHash, r.Signature, r.ICount, r.StateHash)
	}
	sh, err := Shrink(r, maxReplays)
	if err != nil {
		t.Fatal(err)
	}
	if sh.After > sh.Before {
		t.Fatalf("shrinking left %d of %d decisions", sh.After, sh.Before)
	}
	again, err := Replay(sh.Report, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reproduced {
		t.Fatal("the shrunk report does not replay exactly")
	}
	return sh
}
