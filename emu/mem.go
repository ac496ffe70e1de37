package emu

import "sync/atomic"

// Physical RAM is an array of 4 KiB pages reached through a two-level radix:
// a top array of leaves, each leaf holding 512 page pointers (2 MiB of guest
// memory). Pages and leaves carry an owner id. A RAM may write a page or leaf
// in place only when it owns it; otherwise the first write copies it. Taking a
// snapshot therefore costs one copy of the top array plus a new owner id, and
// a fork shares every page with its parent until it writes it
// (RATIONALE.md, "Why copy-on-write pages and not fork(2)?").

const (
	pageShift = 12
	pageSize  = 1 << pageShift
	pageMask  = pageSize - 1
	leafShift = 9
	leafPages = 1 << leafShift
)

// page is one 4 KiB page of guest physical memory.
type page [pageSize]byte

// zeroPage backs every page that has never been written. It is never written.
var zeroPage page

type leaf struct {
	owner  uint64
	pages  [leafPages]*page
	owners [leafPages]uint64
}

// ownerIDs hands out owner ids. Ids only decide who may write a page in
// place; they never reach guest-visible state or a state hash.
var ownerIDs atomic.Uint64

func newOwnerID() uint64 { return ownerIDs.Add(1) }

// Page flags: per machine, derived state (never saved).
const (
	pfCode   uint8 = 1 << iota // never stored: pageToWrite reports that the page had decoded blocks
	pfWatch                    // a device watches stores to this page (HTIF)
	pfLoaded                   // some hart's load TLB may point at this page
	pfStored                   // some hart's store TLB may point at this page
)

// RAM is guest physical memory at [Base, Base+Size).
type RAM struct {
	Base   uint64
	Size   uint64
	id     uint64
	leaves []*leaf
	flags  []*[leafPages]uint8 // page flags by leaf, made on first set

	pagesCopied  uint64 // pages allocated or copied since made or restored
	leavesCopied uint64

	huge *hugePages // where new pages come from, if not the heap (UseHugePages)
}

// UseHugePages makes r take the pages it allocates or copies from now on
// from huge pages where the host has them (hugePages). Those pages are
// never freed: only for a RAM that lives as long as the process, such as
// the one machine of `everett run`.
func (r *RAM) UseHugePages() { r.huge = &hugePages{} }

// newPage returns a zeroed page for r.
func (r *RAM) newPage() *page {
	if r.huge != nil {
		return r.huge.page()
	}
	return new(page)
}

// PagesCopied returns how many pages this RAM has allocated or copied on
// write since it was made or last restored from a snapshot: its own memory,
// beyond what it shares.
func (r *RAM) PagesCopied() uint64 { return r.pagesCopied }

// LeavesCopied returns how many radix leaves (512 page pointers each) this
// RAM has allocated or copied since it was made or last restored.
func (r *RAM) LeavesCopied() uint64 { return r.leavesCopied }

// frozenPage returns RAM page pn and whether it is frozen: shared with a
// snapshot, so that no machine writes it in place (a write copies it).
func (r *RAM) frozenPage(pn uint64) (*page, bool) {
	l := r.leaves[pn>>leafShift]
	if l == nil {
		return nil, false
	}
	i := pn & (leafPages - 1)
	p := l.pages[i]
	return p, p != nil && l.owners[i] != r.id
}

// NewRAM returns zeroed RAM of sizeBytes (a multiple of 4 KiB) at base.
func NewRAM(base, sizeBytes uint64) *RAM {
	pages := sizeBytes >> pageShift
	return &RAM{
		Base:   base,
		Size:   pages << pageShift,
		id:     newOwnerID(),
		leaves: make([]*leaf, (pages+leafPages-1)>>leafShift),
		flags:  make([]*[leafPages]uint8, (pages+leafPages-1)>>leafShift),
	}
}

// Pages returns the number of 4 KiB pages.
func (r *RAM) Pages() uint64 { return r.Size >> pageShift }

// Contains reports whether the physical range [pa, pa+n) lies in RAM.
func (r *RAM) Contains(pa, n uint64) bool {
	off := pa - r.Base
	return off < r.Size && n <= r.Size-off
}

// flag returns page pn's flags.
func (r *RAM) flag(pn uint64) uint8 {
	if fl := r.flags[pn>>leafShift]; fl != nil {
		return fl[pn&(leafPages-1)]
	}
	return 0
}

// setFlag sets flags f of page pn.
func (r *RAM) setFlag(pn uint64, f uint8) {
	fl := r.flags[pn>>leafShift]
	if fl == nil {
		fl = new([leafPages]uint8)
		r.flags[pn>>leafShift] = fl
	}
	fl[pn&(leafPages-1)] |= f
}

// clearFlag clears flags f of page pn.
func (r *RAM) clearFlag(pn uint64, f uint8) {
	if fl := r.flags[pn>>leafShift]; fl != nil {
		fl[pn&(leafPages-1)] &^= f
	}
}

// readPage returns page pn for reading; it may be the shared zero page.
func (r *RAM) readPage(pn uint64) *page {
	l := r.leaves[pn>>leafShift]
	if l == nil {
		return &zeroPage
	}
	p := l.pages[pn&(leafPages-1)]
	if p == nil {
		return &zeroPage
	}
	return p
}

// writePage returns page pn for writing, copying the leaf and the page first
// if another RAM (a snapshot or a fork) shares them. copied reports whether
// the page's host address changed, so callers can drop stale TLB entries.
func (r *RAM) writePage(pn uint64) (p *page, copied bool) {
	l := r.ownLeaf(pn)
	i := pn & (leafPages - 1)
	p = l.pages[i]
	switch {
	case p == nil:
		p = r.newPage()
		l.pages[i] = p
		l.owners[i] = r.id
		copied = true
	case l.owners[i] != r.id:
		np := r.newPage()
		*np = *p
		l.pages[i] = np
		l.owners[i] = r.id
		p = np
		copied = true
	}
	if copied {
		r.pagesCopied++
	}
	return p, copied
}

// ownLeaf returns the leaf holding page pn, made or copied so that this
// RAM owns it (its pages may still be shared).
func (r *RAM) ownLeaf(pn uint64) *leaf {
	li := pn >> leafShift
	l := r.leaves[li]
	if l == nil {
		l = &leaf{owner: r.id}
		r.leaves[li] = l
		r.leavesCopied++
	} else if l.owner != r.id {
		l = &leaf{owner: r.id, pages: l.pages, owners: l.owners}
		r.leaves[li] = l
		r.leavesCopied++
	}
	return l
}

// sharePage makes p, a page no RAM writes in place (an image page), RAM
// page pn: shared like a snapshot's, so the first write copies it.
func (r *RAM) sharePage(pn uint64, p *page) {
	l := r.ownLeaf(pn)
	i := pn & (leafPages - 1)
	l.pages[i] = p
	l.owners[i] = imageOwner
}

// Read copies RAM at physical address pa into b. The range must be inside RAM.
func (r *RAM) Read(pa uint64, b []byte) {
	off := pa - r.Base
	for len(b) > 0 {
		p := r.readPage(off >> pageShift)
		n := copy(b, p[off&pageMask:])
		b = b[n:]
		off += uint64(n)
	}
}

// Write copies b into RAM at physical address pa. The range must be inside
// RAM. It does not invalidate decoded blocks; Machine.WritePhys does.
func (r *RAM) Write(pa uint64, b []byte) {
	off := pa - r.Base
	for len(b) > 0 {
		p, _ := r.writePage(off >> pageShift)
		n := copy(p[off&pageMask:], b)
		b = b[n:]
		off += uint64(n)
	}
}

// pageToWrite readies RAM page pn (holding pa) for a write and returns it
// with the flags it had: decoded code of the page is dropped, and a page
// copied on write leaves the load TLBs that pointed at the shared copy.
// The caller still tells a watcher (pfWatch) after writing.
func (m *Machine) pageToWrite(pn, pa uint64) (*page, uint8) {
	fl := m.RAM.flag(pn)
	if m.codePage(pn) != nil {
		fl |= pfCode
		m.invalidateCode(pn)
	}
	p, copied := m.RAM.writePage(pn)
	if copied && fl&pfLoaded != 0 {
		m.flushLoadTLBPage(pa >> pageShift)
		m.RAM.clearFlag(pn, pfLoaded)
	}
	return p, fl
}
