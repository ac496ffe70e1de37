package explorer

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A universe snapshots new coverage at windows whose time since its start
// (its last fork) has at least doubled since its last snapshot, and keeps
// the latest four: a corpus of states spread over universes, not of their
// first windows. The windows here are driven by hand: every window of a
// millisecond reaches a new bucket, as nearly every early window of a
// search does.
func TestAUniverseSpacesItsSnapshotsByDoublingTimeAndKeepsTheLatest(t *testing.T) {
	root := repoRoot(t)
	if out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/race")).CombinedOutput(); err != nil {
		t.Fatalf("building the race example: %v\n%s", err, out)
	}
	s, err := ELFSpec(filepath.Join(root, "build/examples/race.elf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	ms := uint64(time.Millisecond)
	for _, c := range []struct {
		name      string
		start     uint64 // when the universe forks (0: a root)
		want      []uint64
		wantTaken int
	}{
		{"a root", 0, []uint64{8, 16, 32, 64}, 7},            // of 1, 2, 4, 8, 16, 32, 64
		{"a fork at 10 ms", 10, []uint64{18, 26, 42, 74}, 7}, // of 11, 12, 14, 18, 26, 42, 74
	} {
		u, err := newUniverseWith(s, Fork{Seed: 3}, newSeen(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.start > 0 {
			u.t = c.start * ms
			u.forkAt(Fork{Seed: 4})
		}
		taken := 0
		for w := c.start + 1; w <= c.start+100; w++ {
			u.t = w * ms
			u.cov.NewEdges++
			u.checkCoverage()
			if len(u.wantSnap) > 0 { // as the run loop does
				u.takeSnapshot(u.wantSnap[0])
				u.wantSnap = u.wantSnap[:0]
				taken++
			}
		}
		var got []uint64
		for _, sn := range u.snaps {
			got = append(got, sn.T/ms)
		}
		if !slices.Equal(got, c.want) || taken != c.wantTaken {
			t.Errorf("%s: took %d snapshots and kept those at %v ms; want %d, keeping %v ms", c.name, taken, got, c.wantTaken, c.want)
		}
	}
}
