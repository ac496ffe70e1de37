package emu

import "unsafe"

// MemRef names one heap object a snapshot holds: a RAM page, a radix leaf
// of pages, a leaf of code pages or a code page. Refs are comparable, so
// that a caller counting what many snapshots hold counts an object they
// share once. A ref keeps its object alive while the caller holds it.
type MemRef struct{ p unsafe.Pointer }

// Sizes of the objects Held reports, as Go allocates them.
var (
	leafBytes     = uint64(unsafe.Sizeof(leaf{}))
	codeLeafBytes = uint64(unsafe.Sizeof(codeLeaf{}))
	codePageBytes = uint64(unsafe.Sizeof(codePage{}))
	chunkBytes    = uint64(unsafe.Sizeof(codeChunkSlots{}))
	blockBytes    = uint64(unsafe.Sizeof(block{}))
	opBytes       = uint64(unsafe.Sizeof(op{}))
)

// Held calls fn for every object of s's RAM and decoded code that base
// (a snapshot of an ancestor of the same machine; nil: none) does not hold
// at the same place, with its size in bytes: what keeping s costs beyond
// keeping base. A leaf that is base's very leaf holds only base's pages,
// and is skipped whole. A code page's size counts its blocks as they are
// when Held runs (machines that share the page may add blocks later). The
// refs s reports never change: s is frozen. Held does not report the
// saved state (len(s.State)), which s alone holds.
func (s *Snapshot) Held(base *Snapshot, fn func(r MemRef, bytes uint64)) {
	for li, l := range s.leaves {
		var bl *leaf
		if base != nil && li < len(base.leaves) {
			bl = base.leaves[li]
		}
		if l == nil || l == bl {
			continue
		}
		fn(MemRef{unsafe.Pointer(l)}, leafBytes)
		for i, p := range l.pages {
			if p != nil && (bl == nil || bl.pages[i] != p) {
				fn(MemRef{unsafe.Pointer(p)}, pageSize)
			}
		}
	}
	for li, cl := range s.code {
		var bl *codeLeaf
		if base != nil && li < len(base.code) {
			bl = base.code[li]
		}
		if cl == nil || cl == bl {
			continue
		}
		fn(MemRef{unsafe.Pointer(cl)}, codeLeafBytes)
		for i, cp := range cl.pages {
			if cp != nil && (bl == nil || bl.pages[i] != cp) {
				fn(MemRef{unsafe.Pointer(cp)}, cp.bytes())
			}
		}
	}
}

// bytes is the size of the code page with its chunks and blocks as they
// are now (the blocks' host code, in the JIT's arena, aside).
func (cp *codePage) bytes() uint64 {
	n := codePageBytes
	for i := range cp.chunks {
		c := cp.chunks[i].Load()
		if c == nil {
			continue
		}
		n += chunkBytes
		for j := range c {
			if b := c[j].Load(); b != nil {
				n += blockBytes + uint64(cap(b.ops))*opBytes
			}
		}
	}
	return n
}
