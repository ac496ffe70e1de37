package emu

import (
	"testing"
	"unsafe"
)

func TestHugePagesAreZeroedAndDistinct(t *testing.T) {
	r := NewRAM(DefaultRAMBase, 8<<20) // four 2 MiB mappings' worth
	r.UseHugePages()
	seen := map[*page]bool{}
	for pn := uint64(0); pn < r.Pages(); pn++ {
		p, copied := r.writePage(pn)
		if !copied || seen[p] {
			t.Fatalf("page %d: %p (copied %v) is not a page of its own", pn, p, copied)
		}
		seen[p] = true
		for i, b := range p {
			if b != 0 {
				t.Fatalf("page %d: byte %d is %d in a new page", pn, i, b)
			}
		}
		for i := range p {
			p[i] = byte(pn) // fill: a later page overlapping it would not be zero
		}
		if uintptr(unsafe.Pointer(p))%pageSize != 0 {
			t.Fatalf("page %d at %p is not page-aligned", pn, p)
		}
	}
	// A snapshot shares the pages; a write after it copies one.
	top := r.freeze()
	p, copied := r.writePage(3)
	if !copied || seen[p] || p[0] != 3 || top[0].pages[3] == p {
		t.Fatalf("the write after a snapshot: page %p (copied %v) holds %d, want a copy of 3", p, copied, p[0])
	}
}

func TestAMachineWithHugePagesRunsAsOneWithout(t *testing.T) {
	build := lockstepBuild(t, 2)
	a, err := build()
	if err != nil {
		t.Fatal(err)
	}
	b, err := build()
	if err != nil {
		t.Fatal(err)
	}
	b.RAM.UseHugePages()
	a.Run(200_000)
	b.Run(200_000)
	if ha, hb := a.StateHash(), b.StateHash(); ha != hb || b.RAM.PagesCopied() == 0 {
		t.Fatalf("state hashes %#x (heap pages) and %#x (huge pages, %d allocated)", ha, hb, b.RAM.PagesCopied())
	}
}
