package explorer

import "testing"

// The stages example is a chain of races, each reached only by winning
// the one before (guest-images/examples/stages): a search that forks from
// snapshots of its corpus (taken when a universe reaches new edges) needs
// one more win to go a stage deeper, one of roots alone needs them all in
// a row. So with forks the search covers the later stages' code, and
// without them it does not. If this fails, the corpus no longer guides
// the search (or the example no longer needs it): README, "Many
// machines", measures what sharing the corpus across processes adds on
// top.
func TestForkingFromTheCorpusReachesStagesRootsDoNot(t *testing.T) {
	if testing.Short() {
		t.Skip("two searches of 300 universes")
	}
	elf := buildExample(t, "stages")
	edges := map[int]int{}
	for _, fp := range []int{1, 50} {
		s, err := ELFSpec(elf, 2)
		if err != nil {
			t.Fatal(err)
		}
		s.Search.ForkPercent = fp
		res, err := Explore(s, Options{Seed: 1, Universes: 300, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		edges[fp] = res.Coverage
		t.Logf("fork_percent %d: %d edges, %d failures", fp, res.Coverage, len(res.Failures))
	}
	// Measured 2026-12-07: 1313 edges with 1% forks, 1514 with 50%.
	if edges[50] < edges[1]+edges[1]/10 {
		t.Fatalf("forks from the corpus reached %d edges, roots alone %d: want at least 10%% more", edges[50], edges[1])
	}
}
