package emu

import "unsafe"

// Where a hart's TLB entries of each RAM page are. Dropping the entries of
// one physical page (flushLoadTLBPage, flushStoreTLBPage: another hart took
// the page, a copy on write, code decoded from it) would otherwise look at
// every entry of every TLB set, 4,096 of them, and a two-hart Linux guest
// does that for every communication event on a page-grained page
// (RATIONALE.md, "Why does a hart remember where its TLB entries are?").

// tlbWhere records, for one kind of TLB (load or store) of a hart, where
// the last entry filled for each RAM page is: its position pos (the TLB
// set times tlbSize plus the index) plus one, with whereMany set when
// another entry may map the page too (the same page under two virtual
// addresses, or in two sets), and the generation of the kind's TLBs it was
// filled in, which a full flush of them ends (reset): a record of another
// generation is no record. Positions may be stale (the entry since reused
// or dropped): a lookup checks the entry.
type tlbWhere struct {
	leaves []*[leafPages]uint32 // by RAM page, made on first use
	gen    uint32               // 1..whereGens-1
}

const (
	wherePos  = 1<<15 - 1 // pos+1 (tlbSize*4 < wherePos)
	whereMany = 1 << 15
	whereGens = 1 << 16 // generations, in the top half of a record
)

// reset forgets every position: the TLBs of the kind were flushed whole.
// It starts a new generation; only when the generations run out does it
// clear the records.
func (w *tlbWhere) reset(pages uint64) {
	if w.leaves == nil {
		w.leaves = make([]*[leafPages]uint32, (pages+leafPages-1)/leafPages)
	}
	w.gen++
	if w.gen == whereGens {
		for _, l := range w.leaves {
			if l != nil {
				clear(l[:])
			}
		}
		w.gen = 1
	}
}

// record returns the current generation's record of a page (0: none).
func (w *tlbWhere) record(r uint32) uint32 {
	if r>>16 != w.gen {
		return 0
	}
	return r & (wherePos | whereMany)
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
	h.markFill(int(h.dataSet()), 1+int(b2u(store)), va>>pageShift&tlbMask, va>>pageShift)
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
	slot := &l[pn&(leafPages-1)]
	old := w.record(*slot)
	many := old & whereMany
	if old != 0 && many == 0 && old-1 != pos {
		// The entry recorded before may still map the page.
		if e := h.tlbEntryAt(store, old-1); e.tag != tlbNone && e.ppn == h.ram.Base>>pageShift+pn {
			many = whereMany
		}
	}
	*slot = w.gen<<16 | many | (pos + 1)
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
	if l == nil {
		return
	}
	slot := &l[pn&(leafPages-1)]
	r := w.record(*slot)
	if r == 0 {
		return
	}
	*slot = 0
	if r&whereMany == 0 {
		if e := h.tlbEntryAt(store, r&wherePos-1); e.ppn == ppn {
			e.tag = tlbNone
		}
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
}
