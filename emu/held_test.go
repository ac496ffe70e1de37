package emu

import "testing"

// A snapshot holds, beyond its ancestor, exactly the pages (and their
// leaves) written since: what a corpus entry costs.
func TestASnapshotHoldsBeyondItsAncestorOnlyThePagesWrittenSince(t *testing.T) {
	m := frozenMachine(t, EngineInterp)
	runMore(t, m, 100) // decodes the loop
	base := m.Snapshot()
	var all, beyond []MemRef
	var allBytes uint64
	base.Held(nil, func(r MemRef, n uint64) { all = append(all, r); allBytes += n })
	if len(all) < 3 || allBytes < 2*pageSize { // a leaf, the program's page, a code leaf and page
		t.Fatalf("the first snapshot holds %d objects of %d bytes: want its leaf, page and code", len(all), allBytes)
	}
	base.Held(base, func(r MemRef, _ uint64) { beyond = append(beyond, r) })
	if len(beyond) != 0 {
		t.Fatalf("a snapshot holds %d objects beyond itself", len(beyond))
	}
	// Two pages written since, in the program's leaf (RAM is 1 MiB: one
	// leaf), which the write copies.
	if err := m.WritePhys(DefaultRAMBase+8*pageSize, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := m.WritePhys(DefaultRAMBase+9*pageSize, []byte{2}); err != nil {
		t.Fatal(err)
	}
	s := m.Snapshot()
	pages, leaves := 0, 0
	s.Held(base, func(r MemRef, n uint64) {
		switch n {
		case pageSize:
			pages++
		case leafBytes:
			leaves++
		default:
			t.Errorf("an object of %d bytes beyond the ancestor: only RAM was written", n)
		}
	})
	if pages != 2 || leaves != 1 {
		t.Fatalf("%d pages and %d leaves beyond the ancestor; want the 2 pages written and their leaf", pages, leaves)
	}
}
