package emu

import (
	"testing"
	"unsafe"
)

// TestDroppingAPageLeavesNoEntryOfItInAnySet checks tlbWhere against the
// truth: after any sequence of fills (in every TLB set, with the set
// switched directly, as translated code does when it toggles SUM; of
// plain and tlbFine entries; a few pages under many virtual addresses, so
// that pages alias and entries evict each other) and flushes, dropping a
// page leaves no entry that maps it, in any set.
func TestDroppingAPageLeavesNoEntryOfItInAnySet(t *testing.T) {
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := m.harts[0]
	h.ensureCaches()
	r := NewPRNG(7)
	const pages = 24
	drops := 0
	for step := 0; step < 200_000; step++ {
		set := r.Uint64() % uint64(len(h.c.tlbs))
		h.ltlb, h.stlb = &h.c.tlbs[set].load, &h.c.tlbs[set].store
		store := r.Uint64()%2 == 0
		pn := r.Uint64() % pages
		va := r.Uint64() % (4 * tlbSize) << pageShift
		pa := m.RAM.Base + pn<<pageShift
		p := m.RAM.readPage(pn)
		switch k := r.Uint64() % 100; {
		case k < 60:
			h.fillTLB(store, va>>pageShift, unsafe.Pointer(p), va, pa, p)
		case k < 70:
			h.fillTLB(store, va>>pageShift|tlbFine, unsafe.Pointer(new(commLines)), va, pa, p)
		case k < 72:
			h.flushTLBVA(va)
		case k == 72:
			h.flushStoreTLBs()
		case k == 73:
			h.flushTLB()
		default:
			ppn := pa >> pageShift
			h.dropPage(store, ppn)
			drops++
			for s := range h.c.tlbs {
				tlb := &h.c.tlbs[s].load
				if store {
					tlb = &h.c.tlbs[s].store
				}
				for i, e := range tlb {
					if e.tag != tlbNone && e.ppn == ppn {
						t.Fatalf("step %d: after dropping page %d (store %v), entry %d of set %d still maps it (tag %#x)", step, pn, store, i, s, e.tag)
					}
				}
			}
		}
	}
	if drops == 0 {
		t.Fatal("no page was dropped")
	}
}

func TestARecordOfAnEarlierGenerationIsNoRecordEvenWhenTheGenerationsWrap(t *testing.T) {
	var w tlbWhere
	w.reset(leafPages)
	w.leaves[0] = new([leafPages]uint32)
	w.leaves[0][7] = w.gen<<16 | 5
	if w.record(w.leaves[0][7]) != 5 {
		t.Fatal("a record of the current generation was not read back")
	}
	for i := 0; i < whereGens-1; i++ {
		w.reset(leafPages)
		if w.record(w.leaves[0][7]) != 0 {
			t.Fatalf("after %d full flushes (generation %d), a record of the first generation still counts", i+1, w.gen)
		}
	}
}
