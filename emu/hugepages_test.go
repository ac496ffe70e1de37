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

func TestASlabHandsOutZeroedAlignedDistinctMemoryUpToItsBound(t *testing.T) {
	var s hugeSlab
	if s.alloc(1) == nil {
		t.Skip("no slab memory on this host")
	}
	prev := uintptr(0)
	for i := 0; i < 1000; i++ {
		n := 1 + i%300
		p := s.alloc(n)
		if p == nil {
			t.Fatalf("allocation %d of %d bytes failed", i, n)
		}
		b := unsafe.Slice((*byte)(p), n)
		for j, c := range b {
			if c != 0 {
				t.Fatalf("allocation %d: byte %d is %d", i, j, c)
			}
		}
		for j := range b {
			b[j] = 0xff // a later allocation overlapping it would not be zero
		}
		if a := uintptr(p); a%8 != 0 || a == prev {
			t.Fatalf("allocation %d at %#x: not 8-aligned, or the one before", i, a)
		}
		prev = uintptr(p)
	}
	got := 0
	for s.alloc(hugeBytes) != nil {
		got++
		if got > maxSlabBytes/hugeBytes {
			break
		}
	}
	// The small allocations took the first mapping.
	if want := maxSlabBytes/hugeBytes - 1; got != want {
		t.Fatalf("the slab handed out %d more mappings, want %d (its bound is %d bytes)", got, want, maxSlabBytes)
	}
	if s.alloc(8) != nil {
		t.Fatal("a slab at its bound handed out more")
	}
}
