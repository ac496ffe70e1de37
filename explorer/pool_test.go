package explorer

import (
	"strings"
	"testing"
)

// TestAUniverseThatPanicsIsAnEverettBugAndTheSearchGoesOn injects a panic
// into one universe of a search: it becomes a failure of kind "everett
// bug" naming its seed, every other universe still runs, and the report
// replays the panic.
func TestAUniverseThatPanicsIsAnEverettBugAndTheSearchGoesOn(t *testing.T) {
	s := elfSpec(t, "racy", 2)
	s.Faults.Schedule = "fixed" // no failure of the guest's own
	const bad = 5
	testHookUniverse = func(index int, u *Universe) {
		if index == bad {
			panic("injected bug")
		}
	}
	defer func() { testHookUniverse = nil }()
	res, err := Explore(s, Options{Seed: 3, Universes: 20, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Universes != 20 || res.Cancelled != 0 {
		t.Fatalf("%d universes counted, %d cancelled; want all 20 counted", res.Universes, res.Cancelled)
	}
	if len(res.Failures) != 1 {
		t.Fatalf("failures %v, want the injected bug alone", signatures(res))
	}
	rep := res.Failures[0]
	if rep.Failure.Kind != KindEverettBug || rep.Signature != "everett bug: injected bug" || rep.Universe != bad {
		t.Fatalf("failure %q (kind %q) in universe %d, want the injected bug in universe %d", rep.Signature, rep.Failure.Kind, rep.Universe, bad)
	}
	if seed := rep.Path[len(rep.Path)-1].Seed; seed != derive(3, 1000+bad) {
		t.Fatalf("the report's fork path %v does not end at universe %d's seed %d", rep.Path, bad, derive(3, 1000+bad))
	}
	if !strings.Contains(rep.Failure.Stack, "pool_test.go") {
		t.Fatalf("the report's stack does not show where the panic came from:\n%s", rep.Failure.Stack)
	}
	got, err := Replay(rep, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reproduced || got.Failure.Kind != KindEverettBug {
		t.Fatalf("replaying the bug: %+v, reproduced %v", got.Failure, got.Reproduced)
	}
	// Without the bug, the universe runs and passes.
	testHookUniverse = nil
	got, err = Replay(rep, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Reproduced {
		t.Fatal("a replay without the bug reproduced it")
	}
}
