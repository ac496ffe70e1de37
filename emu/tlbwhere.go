package emu

import "unsafe"

// Where a hart's TLB entries of each RAM page are. Dropping the entries of
// one physical page (flushLoadTLBPage, flushStoreTLBPage: another hart took
// the page, a copy on write, code decoded from it) would otherwise look at
// every entry of every TLB set, 4,096 of them, and a two-hart Linux guest
// does that for every communication event on a page-grained page
// (RATIONALE.md, "Why does a hart remember where its TLB entries are?").

// tlbWhere records, for one kind of TLB (load or store) of a hart, the
// position of the last entry filled for each RAM page: pos+1, where pos is
// the TLB set times tlbSize plus the index, with whereMany set when another
// entry may map the page too (the same page under two virtual addresses,
// or in two sets). 0: no entry was filled since the TLBs were last
// flushed whole. Positions may be stale (the entry since reused or
// dropped): a lookup checks the entry.
type tlbWhere struct {
	leaves []*[leafPages]uint32 // by RAM page, made on first use
}

const whereMany = 1 << 31

// reset forgets every position: the TLBs of the kind were flushed whole.
func (w *tlbWhere) reset(pages uint64) {
	if w.leaves == nil {
		w.leaves = make([]*[leafPages]uint32, (pages+leafPages-1)/leafPages)
		return
	}
	clear(w.leaves)
}

// entry returns the entry at position pos of the kind's TLBs (store: the
// store TLBs, else the load TLBs).
func (h *Hart) tlbEntryAt(store bool, pos uint32) *tlbEntry {
	s := &h.c.tlbs[pos/tlbSize]
	if store {
		return &s.store[pos%tlbSize]
	}
	return &s.load[pos%tlbSize]
}

// fillTLB makes the entry for virtual address va in the hart's current
// load (or store) TLB map physical address pa, in RAM page p: tag is the
// page number (with tlbFine or not) and host what the tag's kind holds
// there (the page, or its *commLines). Every entry of those TLBs is made
// here, so that noteFill knows where each page's entries are.
func (h *Hart) fillTLB(store bool, tag uint64, host unsafe.Pointer, va, pa uint64, p *page) {
	tlb, flag := h.ltlb, pfLoaded
	if store {
		tlb, flag = h.stlb, pfStored
	}
	pn := (pa - h.ram.Base) >> pageShift
	e := &tlb[va>>pageShift&tlbMask]
	e.tag = tag
	e.host = host
	e.ppn = pa >> pageShift
	e.addend = uintptr(unsafe.Pointer(p)) - uintptr(va&^pageMask)
	h.noteFill(store, va, pn)
	h.ram.setFlag(pn, flag)
}

// fillFine makes the load (or store) entry for va a tlbFine entry, for a
// page tracked by line: one only the slow paths and translated code's
// line check use.
func (h *Hart) fillFine(store bool, va, pa uint64, p *page) {
	if lines := h.m.comm.lines((pa - h.ram.Base) >> pageShift); lines != nil {
		h.fillTLB(store, va>>pageShift|tlbFine, unsafe.Pointer(lines), va, pa, p)
	}
}

// dataSet returns the TLB set that loads and stores use now: the one
// h.ltlb and h.stlb point into, which updateMode chooses and translated
// code switches when it toggles sstatus.SUM.
func (h *Hart) dataSet() uint32 {
	return uint32((uintptr(unsafe.Pointer(h.ltlb)) - uintptr(unsafe.Pointer(&h.c.tlbs[0].load))) / unsafe.Sizeof(tlbSet{}))
}

// noteFill records that the entry for virtual address va in the hart's
// current load (or store) TLB now maps RAM page pn.
func (h *Hart) noteFill(store bool, va, pn uint64) {
	w := &h.c.where[b2u(store)]
	pos := h.dataSet()*tlbSize + uint32(va>>pageShift&tlbMask)
	l := w.leaves[pn>>leafShift]
	if l == nil {
		l = new([leafPages]uint32)
		w.leaves[pn>>leafShift] = l
	}
	old := &l[pn&(leafPages-1)]
	many := *old & whereMany
	if *old != 0 && many == 0 && *old-1 != pos {
		// The entry recorded before may still map the page.
		if e := h.tlbEntryAt(store, *old-1); e.tag != tlbNone && e.ppn == h.ram.Base>>pageShift+pn {
			many = whereMany
		}
	}
	*old = pos + 1 | many
}

// dropPage drops every entry of the kind's TLBs that maps physical page
// ppn.
func (h *Hart) dropPage(store bool, ppn uint64) {
	if h.c == nil {
		return
	}
	pn := ppn - h.ram.Base>>pageShift
	w := &h.c.where[b2u(store)]
	if pn >= h.ram.Pages() {
		return // not RAM: no entry maps it
	}
	l := w.leaves[pn>>leafShift]
	if l == nil || l[pn&(leafPages-1)] == 0 {
		return
	}
	r := &l[pn&(leafPages-1)]
	if *r&whereMany == 0 {
		if e := h.tlbEntryAt(store, *r-1); e.ppn == ppn {
			e.tag = tlbNone
		}
		*r = 0
		return
	}
	for p := range h.c.tlbs {
		s := &h.c.tlbs[p].load
		if store {
			s = &h.c.tlbs[p].store
		}
		for i := range s {
			if s[i].ppn == ppn {
				s[i].tag = tlbNone
			}
		}
	}
	*r = 0
}
