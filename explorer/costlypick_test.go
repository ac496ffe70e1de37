package explorer

import (
	"testing"

	"everett/emu"
)

// A pulled entry not yet rebuilt costs a replay before a universe forks
// from it, so a pick that lands on it keeps it one time in costlyKeep and
// otherwise picks again among the entries that cost nothing; once
// rebuilt, and for the search's own entries evicted to their paths, picks
// are uniform. A corpus without pulled entries is planned as before.
func TestPulledEntriesNotYetRebuiltArePickedLessOften(t *testing.T) {
	spec := &Spec{}
	spec.Search.ForkPercent = 100
	own := []*UniverseSnapshot{{Why: "a"}, {Why: "b"}, {Why: "c"}}
	pulled := &UniverseSnapshot{Why: "pulled", lazy: &lazyEntry{tally: &rebuildTally{}}}
	evicted := &UniverseSnapshot{Why: "evicted", lazy: &lazyEntry{}}
	const n = 8000
	count := func(corpus []*UniverseSnapshot, which *UniverseSnapshot) int {
		k := 0
		for _, j := range planBatch(spec, 1, 0, n, emu.NewPRNG(7), corpus, nil) {
			if j.parent == which {
				k++
			}
		}
		return k
	}
	corpus := append(append([]*UniverseSnapshot(nil), own...), pulled)
	// Uniform: n/4 each; the unbuilt pulled entry n/16.
	if k := count(corpus, pulled); k < n/16*7/10 || k > n/16*13/10 {
		t.Fatalf("an unbuilt pulled entry of 4 picked %d times in %d, want about %d", k, n, n/16)
	}
	for _, o := range own {
		if k := count(corpus, o); k < (n-n/16)/3*9/10 || k > (n-n/16)/3*11/10 {
			t.Fatalf("an own entry of 4 beside an unbuilt pulled one picked %d times in %d, want about %d", k, n, (n-n/16)/3)
		}
	}
	pulled.lazy.done.Store(true)
	if k := count(corpus, pulled); k < n/4*9/10 || k > n/4*11/10 {
		t.Fatalf("a rebuilt pulled entry of 4 picked %d times in %d, want about %d", k, n, n/4)
	}
	corpus[3] = evicted
	if k := count(corpus, evicted); k < n/4*9/10 || k > n/4*11/10 {
		t.Fatalf("an evicted own entry of 4 picked %d times in %d, want about %d", k, n, n/4)
	}

	// Without pulled entries, the plan is the uniform draw it always was.
	ctl := emu.NewPRNG(7)
	for i, j := range planBatch(spec, 1, 0, 200, emu.NewPRNG(7), corpus, nil) {
		if want := corpus[(ctl.Uint64()/100)%4]; j.parent != want {
			t.Fatalf("universe %d forks from %q, want %q: a corpus without pulled entries is planned as before", i, j.parent.Why, want.Why)
		}
	}
}
