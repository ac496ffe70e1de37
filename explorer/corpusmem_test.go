package explorer

import (
	"fmt"
	"testing"
)

// A memory limit evicts corpus entries to their fork paths and rebuilds
// them when picked: it changes what the search holds, never what it finds.

func TestATinyMemoryLimitEvictsAndRebuildsEntriesAndFindsTheSameFailures(t *testing.T) {
	s := setupSpec(t, SetupSDK)
	s.Search.ForkPercent = 80 // most universes fork from the corpus: from evicted entries
	search := func(limit uint64, workers int) *Result {
		t.Helper()
		res, err := Explore(s, Options{Seed: 1, Universes: 48, Workers: workers, MemoryLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := search(0, 1)
	if len(want.Failures) == 0 || want.Memory.Evicted != 0 || want.Memory.PeakBytes == 0 {
		t.Fatalf("without a limit: %d failures, %d evicted, peak %d bytes; want failures, no eviction, a corpus holding memory",
			len(want.Failures), want.Memory.Evicted, want.Memory.PeakBytes)
	}
	forked := 0
	for _, r := range want.Failures {
		if len(r.Path) > 2 {
			forked++
		}
	}
	if forked == 0 {
		t.Fatal("no failure in a universe forked from the corpus: the test would not see a wrong rebuild")
	}
	for _, workers := range []int{1, 2} {
		got := search(4096, workers)
		if got.Memory.Evicted == 0 || got.Memory.Rebuilt == 0 || got.Rejected != 0 {
			t.Fatalf("limit 4 KiB, %d workers: %d evicted, %d rebuilt, %d rejected; want evictions and rebuilds, none rejected",
				workers, got.Memory.Evicted, got.Memory.Rebuilt, got.Rejected)
		}
		t.Logf("limit 4 KiB, %d workers: %+v; without: %+v; %d failures, %d of them forked", workers, got.Memory, want.Memory, len(want.Failures), forked)
		if d, w := describe(got)+fmt.Sprint(" pairs ", got.Pairs), describe(want)+fmt.Sprint(" pairs ", want.Pairs); d != w {
			t.Fatalf("limit 4 KiB, %d workers:\n%s\nwithout a limit:\n%s", workers, d, w)
		}
	}
}
