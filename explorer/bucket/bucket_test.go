package bucket

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"everett/explorer"
)

func testIdentity(universes, claim int, lease time.Duration) Identity {
	return Identity{Format: IdentityFormat, Spec: "t", SpecHash: "abc", Everett: "devel", Machine: 1,
		Images: []string{"node 0 elf 0123"}, Seed: 1, Universes: universes, Claim: claim, LeaseMs: lease.Milliseconds()}
}

func join(t *testing.T, url string, id Identity) *Search {
	t.Helper()
	s, err := Join(url, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func record(base, end int) *explorer.BatchRecord {
	r := &explorer.BatchRecord{Base: base, End: end}
	for i := base; i < end; i++ {
		r.Universes = append(r.Universes, explorer.UniverseRecord{Index: i})
	}
	return r
}

func TestAnExpiredClaimIsTakenOverAndOnlyTheFirstRecordOfARangeStands(t *testing.T) {
	url := "file://" + filepath.Join(t.TempDir(), "b")
	id := testIdentity(2, 2, 300*time.Millisecond) // two ranges of one (rangeAt)
	a, b := join(t, url, id), join(t, url, id)

	base, end, ok, err := a.Claim(nil)
	if err != nil || !ok || base != 0 || end != 1 {
		t.Fatalf("a claimed %d..%d %v %v, want 0..1", base, end, ok, err)
	}
	a.stopRenewing(0) // a stops renewing: as if it had died

	base, end, ok, err = b.Claim(nil)
	if err != nil || !ok || base != 1 || end != 2 {
		t.Fatalf("b claimed %d..%d %v %v, want 1..2 (0..1 is held)", base, end, ok, err)
	}
	if kept, err := b.Finish(record(1, 2)); !kept || err != nil {
		t.Fatalf("b's record of 1..2: kept %v, %v", kept, err)
	}
	start := time.Now()
	base, _, ok, err = b.Claim(nil)
	if err != nil || !ok || base != 0 || b.Retaken != 1 {
		t.Fatalf("b claimed %d %v %v (retaken %d), want a's expired 0..1", base, ok, err, b.Retaken)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Fatalf("b took a's claim over after %v, before its lease could expire", waited)
	}

	// a was not dead after all: it finishes first; b's record is refused.
	if kept, err := a.Finish(record(0, 1)); !kept || err != nil {
		t.Fatalf("a's record of 0..1: kept %v, %v", kept, err)
	}
	if kept, err := b.Finish(record(0, 1)); kept || err != nil {
		t.Fatalf("b's record of 0..1 after a's: kept %v, %v; want refused", kept, err)
	}
	if _, _, ok, err := b.Claim(nil); ok || err != nil {
		t.Fatalf("claimed again (%v, %v) with every range done", ok, err)
	}
	recs, err := b.Records()
	if err != nil {
		t.Fatal(err)
	}
	m, err := explorer.MergeShared(recs, 2)
	if err != nil || !m.Complete || len(m.Twice) > 0 || m.Result.Universes != 2 {
		t.Fatalf("merged: %v, complete %v, twice %v, %d universes", err, m.Complete, m.Twice, m.Result.Universes)
	}
	// b pulls a's record, not its own.
	pulled, err := b.Pull()
	if err != nil || len(pulled) != 1 || pulled[0].Worker != a.Worker() {
		t.Fatalf("b pulled %d records (%v)", len(pulled), err)
	}
}

func TestAClaimRenewedByItsWorkerIsNotTakenOver(t *testing.T) {
	url := "file://" + filepath.Join(t.TempDir(), "b")
	id := testIdentity(1, 8, 300*time.Millisecond) // one range
	a, b := join(t, url, id), join(t, url, id)
	if _, _, ok, err := a.Claim(nil); !ok || err != nil {
		t.Fatalf("a: %v %v", ok, err)
	}
	stop := make(chan struct{})
	time.AfterFunc(time.Second, func() { close(stop) }) // three leases
	if base, _, ok, err := b.Claim(stop); ok || err != nil {
		t.Fatalf("b took over universes %d.. of a live claim (%v)", base, err)
	}
}

func TestAWorkerOfAnotherIdentityRefusesNamingEachDifference(t *testing.T) {
	url := "file://" + filepath.Join(t.TempDir(), "b")
	id := testIdentity(8, 8, time.Minute)
	join(t, url, id)
	other := id
	other.Seed, other.Everett, other.Images = 2, "v9", []string{"node 0 elf 4567"}
	_, err := Join(url, other)
	if !errors.Is(err, ErrIdentity) {
		t.Fatalf("joined another search: %v", err)
	}
	for _, want := range []string{"seed: 2 here, 1 in the search", "everett version: v9 here, devel in the search",
		"image node 0 elf 4567 here, not in the search", "image node 0 elf 0123 in the search, not here"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if _, err := Join(url, id); err != nil {
		t.Fatalf("the same identity: %v", err)
	}
}

func TestAWorkerHoldsTwoClaimsAndARangeItReleasesIsTakenAtOnce(t *testing.T) {
	url := "file://" + filepath.Join(t.TempDir(), "b")
	id := testIdentity(24, 8, time.Minute)
	a, b := join(t, url, id), join(t, url, id)
	first, _, ok1, err1 := a.Claim(nil)
	ahead, _, ok2, err2 := a.Claim(nil)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || first != 0 || ahead != 1 {
		t.Fatalf("a claimed %d (%v %v) and %d (%v %v), want 0 and 1 (ranges of one first)", first, ok1, err1, ahead, ok2, err2)
	}
	if err := a.Release(ahead); err != nil {
		t.Fatal(err)
	}
	// Within the minute's lease: only a release lets b have 1..2.
	if base, _, ok, err := b.Claim(nil); !ok || err != nil || base != 1 {
		t.Fatalf("b claimed %d (%v %v), want the released 1..2", base, ok, err)
	}
	if kept, err := a.Finish(record(0, 1)); !kept || err != nil {
		t.Fatalf("a's record of 0..1: kept %v, %v", kept, err)
	}
	if kept, err := a.Finish(record(1, 2)); kept || err == nil {
		t.Fatalf("a finished 1..2 after releasing it (kept %v, %v)", kept, err)
	}
	if err := a.Release(1); err == nil {
		t.Fatal("a released 1..2 twice")
	}
}
