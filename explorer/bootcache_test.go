package explorer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forgetBoots empties the process's boot cache (bootcache.go).
func forgetBoots() {
	bootCache.Lock()
	bootCache.m, bootCache.keys = nil, nil
	bootCache.Unlock()
}

// exit3Report is the report of a one-node Linux workload that exits 3
// after its setup point: its fork path starts with the boot step.
func exit3Report(t *testing.T) (*Spec, *Report) {
	t.Helper()
	s := workloadSpec(t, workloadProgram(t, "exit3"), nil, 1, "faults: {swarm: false}\n")
	r := onlyFailure(t, exploreOne(t, s, 1), "exit: exit3 exited with code 3")
	if len(r.Path) != 2 || r.Path[0].Plan != PlanBoot {
		t.Fatalf("fork path %v: want a root universe forked from the boot", r.Path)
	}
	return s, r
}

func TestAReplayFromTheCachedBootEndsInTheStateHashAndFailureOfOneThatBootsAndCoversWhatTheSearchCovered(t *testing.T) {
	s, r := exit3Report(t)
	forgetBoots()
	before := replayBoots.Load()
	booted, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cached, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := replayBoots.Load() - before; n != 1 {
		t.Fatalf("two replays booted %d times, want once", n)
	}
	for _, rr := range []*ReplayResult{booted, cached} {
		if !rr.Reproduced {
			t.Fatalf("replay %v at %d (%s); report %s at %d (%s)", rr.Failure, rr.ICount, rr.StateHash, r.Signature, r.ICount, r.StateHash)
		}
	}
	if booted.StateHash != cached.StateHash || booted.ICount != cached.ICount || booted.Time != cached.Time ||
		booted.Failure.Signature() != cached.Failure.Signature() {
		t.Fatalf("booted: %s at %d (%s); from the cache: %s at %d (%s)",
			booted.Failure.Signature(), booted.ICount, booted.StateHash, cached.Failure.Signature(), cached.ICount, cached.StateHash)
	}
	// Edges are an observation, not state: the edge into the first block
	// a hart runs after a restore has no previous block (emu's covPrev),
	// so a universe restored at the setup point covers what the boot and
	// the search's own root universe, started from the boot snapshot,
	// covered (a replay that boots differs by those first edges).
	boot, err := BootOnce(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	root, err := RunSeedFrom(s, boot, r.Path[1].Seed)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]uint32(nil), boot.cov.TouchedEdges...), root.Edges...)
	slices.Sort(want)
	want = slices.Compact(want)
	if got := cached.Universe.coveredEdges(); len(got) == 0 || !slices.Equal(got, want) {
		t.Fatalf("from the cache: %d edges; the boot and the search's root universe: %d, not the same", len(got), len(want))
	}
}

func TestShrinkBisectDivergeAndATraceWindowBootOnceBetweenThem(t *testing.T) {
	_, r := exit3Report(t)
	// Bisection without the cache, for comparison.
	forgetBoots()
	want, err := Bisect(r, BisectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	forgetBoots()
	before := replayBoots.Load()
	if _, err := Shrink(r, 10); err != nil {
		t.Fatal(err)
	}
	got, err := Bisect(r, BisectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Diverge(r, r.Path[1].Seed+1, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := TraceWindow(r, 0, 10); err != nil {
		t.Fatal(err)
	}
	if n := replayBoots.Load() - before; n != 1 {
		t.Fatalf("shrink, bisect, diverge and a trace window booted %d times, want once", n)
	}
	if !want.Found || got.Found != want.Found || got.First != want.First || got.At != want.At || !slices.Equal(got.History, want.History) {
		t.Fatalf("bisection from the cached boot: %v at %d (%+v); booting: %v at %d (%+v)", got.Found, got.First, got.At, want.Found, want.First, want.At)
	}
}

func TestAReplaySuppressingADecisionOfTheBootBoots(t *testing.T) {
	_, r := exit3Report(t)
	forgetBoots()
	replays(t, r) // boots, and caches the boot
	k, _ := bootKeyOf(r)
	e := bootCache.m[k]
	if e == nil || cachedBoot(r, suppressSet([]int{0})) == nil {
		t.Fatalf("the boot (%d decisions) is not cached for a replay that suppresses decision 0", e.snap.next)
	}
	// The boot of this spec draws no decision; pretend it drew one.
	snap := *e.snap
	snap.next = 1
	bootCache.m[k] = &bootEntry{snap: &snap, cov: e.cov}
	before := replayBoots.Load()
	if _, err := Replay(r, ReplayOptions{Suppress: []int{0}}); err != nil {
		t.Fatal(err)
	}
	if n := replayBoots.Load() - before; n != 1 {
		t.Fatalf("a replay that suppresses decision 0 of the boot booted %d times, want once", n)
	}
	if _, err := Replay(r, ReplayOptions{Suppress: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if n := replayBoots.Load() - before; n != 1 {
		t.Fatalf("a replay that suppresses only a later decision booted (%d boots in all), want from the cache", n)
	}
}

func TestAReplayInAFreshProcessRestoresTheBootKeptOnDiskAndABadEntryFallsBackToBootingWithANote(t *testing.T) {
	_, r := exit3Report(t)
	dir := t.TempDir()
	var notes strings.Builder
	SetBootCacheDir(dir, &notes)
	defer SetBootCacheDir("", nil)
	fresh := func() { forgetBoots(); bootDiskNoted.Clear() } // a new process
	fresh()
	replay := func(wantBoots int64) *ReplayResult {
		t.Helper()
		before := replayBoots.Load()
		rr, err := Replay(r, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !rr.Reproduced {
			t.Fatalf("replay %v at %d (%s); report %s at %d (%s)", rr.Failure, rr.ICount, rr.StateHash, r.Signature, r.ICount, r.StateHash)
		}
		if n := replayBoots.Load() - before; n != wantBoots {
			t.Fatalf("the replay booted %d times, want %d (notes: %q)", n, wantBoots, notes.String())
		}
		return rr
	}
	// saysOnly checks that the notes are one line each of want, in order.
	saysOnly := func(when string, want ...string) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(notes.String(), "\n"), "\n")
		ok := len(lines) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = strings.Contains(lines[i], want[i])
		}
		if !ok {
			t.Fatalf("%s: notes %q, want one line each of %q", when, notes.String(), want)
		}
		notes.Reset()
	}
	const booted, restored, bad = "boot cache: booted, and kept the boot", "boot cache: restored the boot", "booting instead"
	replay(1) // boots, keeps the boot on disk
	saysOnly("the first replay", booted)
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "boot.json"))
	if len(entries) != 1 {
		t.Fatalf("%d entries on disk, want 1", len(entries))
	}
	fresh()
	replay(0)
	saysOnly("a good entry", restored)
	entry := filepath.Dir(entries[0])
	for _, damage := range []struct {
		name string
		do   func() error
	}{
		{"a truncated machine snapshot", func() error {
			p := filepath.Join(entry, "node0.snap")
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, st.Size()/2)
		}},
		{"a flipped byte in boot.json", func() error {
			p := filepath.Join(entry, "boot.json")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 1
			return os.WriteFile(p, b, 0o644)
		}},
		{"an empty boot.json", func() error { return os.WriteFile(filepath.Join(entry, "boot.json"), nil, 0o644) }},
	} {
		if err := damage.do(); err != nil {
			t.Fatal(err)
		}
		fresh()
		replay(1)
		saysOnly(damage.name, bad, booted)
		fresh()
		replay(0) // the bad entry was replaced by a good one
		saysOnly(damage.name+", rewritten", restored)
	}
}
