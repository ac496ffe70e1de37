package explorer

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// memShare is a shared search held in memory: ranges of size claim handed
// out in order (released ones first), records kept.
type memShare struct {
	mu             sync.Mutex
	n, claim, next int
	released       []int
	recs           []*BatchRecord
	pull           []*BatchRecord
}

func (m *memShare) Claim(stop <-chan struct{}) (int, int, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.released) > 0 {
		base := m.released[0]
		m.released = m.released[1:]
		return base, min(m.n, base+m.claim), true, nil
	}
	if m.next >= m.n {
		return 0, 0, false, nil
	}
	base := m.next
	m.next = min(m.n, base+m.claim)
	return base, m.next, true, nil
}

func (m *memShare) Finish(r *BatchRecord) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return true, nil
}

func (m *memShare) Pull() ([]*BatchRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pull
	m.pull = nil
	return p, nil
}

func (m *memShare) Release(base int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.released = append(m.released, base)
	return nil
}

func raceSpec(t *testing.T) *Spec {
	t.Helper()
	root := repoRoot(t)
	if out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/race")).CombinedOutput(); err != nil {
		t.Fatalf("building the race example: %v\n%s", err, out)
	}
	s, err := ELFSpec(filepath.Join(root, "build/examples/race.elf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestASharedSearchRecordsEveryUniverseOfItsClaimsAndMergesToItsCounts(t *testing.T) {
	s := raceSpec(t)
	sh := &memShare{n: 40, claim: 16}
	res, err := Explore(s, Options{Seed: 1, Universes: 40, Workers: 2, Share: sh})
	if err != nil {
		t.Fatal(err)
	}
	if res.Universes != 40 || len(sh.recs) != 3 {
		t.Fatalf("%d universes in %d records, want 40 in 3", res.Universes, len(sh.recs))
	}
	m, err := MergeShared(sh.recs, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Complete || len(m.Twice) > 0 || m.Result.Universes != 40 || m.Result.ICount != res.ICount {
		t.Fatalf("merged: complete %v, twice %v, %d universes, %d instructions; the search ran %d instructions",
			m.Complete, m.Twice, m.Result.Universes, m.Result.ICount, res.ICount)
	}
	if m.Result.Coverage != res.Coverage || m.Result.Pairs != res.Pairs {
		t.Fatalf("merged coverage %d edges %d pairs, the search's %d and %d", m.Result.Coverage, m.Result.Pairs, res.Coverage, res.Pairs)
	}
	if len(m.Result.Failures) != len(res.Failures) || len(res.Failures) == 0 {
		t.Fatalf("merged %d failures, the search %d (want the race)", len(m.Result.Failures), len(res.Failures))
	}
	if ff := m.Result.FirstFailure; ff == nil || ff.Signature != res.Failures[0].Signature {
		t.Fatalf("merged first failure %+v, want the race", ff)
	}
	last := m.Curve[len(m.Curve)-1]
	if len(m.Curve) != 3 || last.Universes != 40 || last.Edges != m.Result.Coverage {
		t.Fatalf("curve %+v: want 3 points ending at 40 universes and %d edges", m.Curve, m.Result.Coverage)
	}
	for k := 1; k < len(m.Curve); k++ {
		if m.Curve[k].Edges < m.Curve[k-1].Edges {
			t.Fatalf("the coverage curve falls: %+v", m.Curve)
		}
	}
	missing, err := MergeShared(sh.recs[1:], 40)
	if err != nil {
		t.Fatal(err)
	}
	if missing.Complete || len(missing.Missing) != 16 || missing.Missing[0] != 0 {
		t.Fatalf("without the first record: complete %v, missing %v", missing.Complete, missing.Missing)
	}
}

func TestCorpusEntriesFromAnotherWorkerRebuildAndADamagedOneIsRejected(t *testing.T) {
	s := raceSpec(t)
	first := &memShare{n: 24, claim: 8}
	if _, err := Explore(s, Options{Seed: 1, Universes: 24, Workers: 2, Share: first}); err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for _, r := range first.recs {
		entries = append(entries, r.Entries...)
	}
	if len(entries) < 2 {
		t.Fatalf("%d corpus entries in 24 universes, want some", len(entries))
	}
	for _, e := range entries {
		_, replayed, err := rebuildEntry(s, nil, e)
		if err != nil {
			t.Fatalf("entry of universe %d at %d ns: %v", e.Universe, e.T, err)
		}
		if replayed != e.ICount { // from its start: no boot snapshot
			t.Fatalf("entry of universe %d at instruction %d: replayed %d instructions", e.Universe, e.ICount, replayed)
		}
	}
	bad := entries[0]
	bad.ICount++
	if _, _, err := rebuildEntry(s, nil, bad); err == nil {
		t.Fatal("an entry with the wrong instruction count rebuilt")
	}
	// A second worker pulls two, forks every universe from its corpus
	// (only those two when its first claim is planned): the damaged one
	// is rejected when first picked and its universes run as roots.
	rec := &BatchRecord{Base: 1000, End: 1008, Worker: "other", Entries: []Entry{bad, entries[1]}}
	second := &memShare{n: 8, claim: 8, pull: []*BatchRecord{rec}}
	s.Search.ForkPercent = 100
	res, err := Explore(s, Options{Seed: 1, Universes: 8, Workers: 2, Share: second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Universes != 8 || res.Pulled != 2 || res.Rejected != 1 {
		t.Fatalf("%d universes, pulled %d, rejected %d; want 8, 2 and 1", res.Universes, res.Pulled, res.Rejected)
	}
	// The good entry replays from the boot snapshot, when there is one.
	want := entries[1].ICount
	if res.Boot != nil && res.Boot.Snap != nil {
		want -= res.Boot.Snap.ICount
	}
	if res.Rebuilt != 1 || res.ReplayedICount != want {
		t.Fatalf("rebuilt %d entries replaying %d instructions: want the good one, %d", res.Rebuilt, res.ReplayedICount, want)
	}
	forked := 0
	for _, u := range second.recs[0].Universes {
		if u.Forks > 0 {
			forked++
		}
	}
	if forked == 0 || forked == 8 {
		t.Fatalf("%d of 8 universes forked: want those of the good entry only", forked)
	}
}

func TestCoverageRecordsRoundTrip(t *testing.T) {
	edges := make([]uint8, 1000)
	pairs := make([]uint8, 300)
	edges[0], edges[7], edges[999] = 1, 4, 128
	pairs[299] = 2
	k := &Seen{Edges: make([]uint8, 1000), Pairs: make([]uint8, 300)}
	k.Edges[7] = 8
	if err := k.mergeEncoded(encodeCoverage(edges, pairs)); err != nil {
		t.Fatal(err)
	}
	if k.Edges[0] != 1 || k.Edges[7] != 8 || k.Edges[999] != 128 || k.Pairs[299] != 2 || k.edgesUsed != 2 || k.pairsUsed != 1 {
		t.Fatalf("merged %v %v %v %v, used %d %d", k.Edges[0], k.Edges[7], k.Edges[999], k.Pairs[299], k.edgesUsed, k.pairsUsed)
	}
	if err := k.mergeEncoded([]byte("not zlib")); err == nil {
		t.Fatal("a damaged record merged")
	}
}

// FuzzMergeEncodedCoverage: another worker's coverage record, whatever its
// bytes, merges or is an error, never a panic or a write outside the maps.
func FuzzMergeEncodedCoverage(f *testing.F) {
	f.Add(encodeCoverage([]uint8{0, 1, 0, 4}, []uint8{2}))
	f.Add([]byte{})
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k := &Seen{Edges: make([]uint8, 64), Pairs: make([]uint8, 16)}
		_ = k.mergeEncoded(b)
		if k.edgesUsed > len(k.Edges) || k.pairsUsed > len(k.Pairs) {
			t.Fatalf("%d edges and %d pairs used of %d and %d", k.edgesUsed, k.pairsUsed, len(k.Edges), len(k.Pairs))
		}
	})
}

func TestASharedSearchThatStopsReleasesTheRangeItClaimedAhead(t *testing.T) {
	s := raceSpec(t)
	sh := &memShare{n: 800, claim: 8}
	res, err := Explore(s, Options{Seed: 1, Universes: 800, Workers: 2, Share: sh, StopOnFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) == 0 || len(sh.recs) >= 100 {
		t.Fatalf("%d failures in %d ranges: want the race found before the end", len(res.Failures), len(sh.recs))
	}
	if len(sh.released) != 1 {
		t.Fatalf("released %v: want the one range claimed ahead of the last run", sh.released)
	}
	for _, r := range sh.recs {
		if r.Base == sh.released[0] {
			t.Fatalf("released universes %d.., which it ran", r.Base)
		}
	}
}

func TestTheUniverseLogNamesEveryUniverseAndIsTheSameOnOneWorkerAndOnTwo(t *testing.T) {
	s := raceSpec(t)
	var one, two strings.Builder
	if _, err := Explore(s, Options{Seed: 3, Universes: 24, Workers: 1, UniverseLog: &one}); err != nil {
		t.Fatal(err)
	}
	if _, err := Explore(s, Options{Seed: 3, Universes: 24, Workers: 2, UniverseLog: &two}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(one.String()), "\n")
	if len(lines) != 24 {
		t.Fatalf("%d lines for 24 universes:\n%s", len(lines), one.String())
	}
	failed := 0
	for _, l := range lines {
		f := strings.SplitN(l, " ", 6) // the signature is the rest of the line
		if len(f) != 6 || len(f[4]) != 16 {
			t.Fatalf("line %q: want index, seed, forks, instructions, hash, signature", l)
		}
		if f[5] != "-" {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no universe of the race example failed: the log's signatures say nothing")
	}
	if one.String() != two.String() {
		t.Fatalf("the logs differ on 1 and 2 workers:\n%s\n--\n%s", one.String(), two.String())
	}
}

// TestASlotSetCountsEachSlotOnceWhereverItLies: the merged summary's edge
// and pair counts are the sizes of slot sets; a slot added twice, at a
// word's edges, past the bitmap's growth or past the bitmap, counts once.
func TestASlotSetCountsEachSlotOnceWhereverItLies(t *testing.T) {
	slots := []uint64{0, 63, 64, 0, 1 << 20, 63, 1 << 25, 5, 1<<26 - 1, 1 << 26, 1 << 40, 1 << 26, 1 << 40, 1<<64 - 1, 127}
	var s slotSet
	want := map[uint64]bool{}
	for i, slot := range slots {
		s.add(slot)
		want[slot] = true
		if s.n != len(want) {
			t.Fatalf("after adding %v: %d slots, want %d", slots[:i+1], s.n, len(want))
		}
	}
	if len(s.bits) > slotSetBits/64 {
		t.Fatalf("bitmap of %d words, more than its bound %d", len(s.bits), slotSetBits/64)
	}
	s.reset()
	s.add(63)
	s.add(1 << 40)
	if s.n != 2 {
		t.Fatalf("after a reset and two slots: %d slots", s.n)
	}
}
