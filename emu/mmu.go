package emu

import (
	"encoding/binary"
	"unsafe"
)

// Virtual memory (Privileged ISA §4.3 Sv32 walk algorithm, §4.4 Sv39,
// §4.5 Sv48) and the slow paths of loads, stores and fetches.

const (
	satpBare = 0
	satpSv39 = 8
	satpSv48 = 9
)

type access uint8

const (
	accFetch access = iota
	accLoad
	accStore
	accPeek // a debugger's read or write: no permission checks, no A/D updates
)

// PTE bits (§4.3.1).
const (
	pteV = 1 << 0
	pteR = 1 << 1
	pteW = 1 << 2
	pteX = 1 << 3
	pteU = 1 << 4
	pteG = 1 << 5
	pteA = 1 << 6
	pteD = 1 << 7

	pteReserved = 0x3ff << 54 // Svpbmt/Svnapot/reserved bits: must be zero here
)

func pageFault(acc access) uint64 {
	switch acc {
	case accFetch:
		return CauseFetchPageFault
	case accLoad:
		return CauseLoadPageFault
	}
	return CauseStorePageFault
}

func accessFault(acc access) uint64 {
	switch acc {
	case accFetch:
		return CauseFetchAccess
	case accLoad:
		return CauseLoadAccess
	}
	return CauseStoreAccess
}

// translate maps virtual address va for an access at privilege priv. On a
// fault it returns the exception cause and ok=false; it raises nothing.
func (h *Hart) translate(va uint64, acc access, priv uint8) (pa uint64, cause uint64, ok bool) {
	mode := h.csr.satp >> 60
	if priv == PrivM || mode == satpBare {
		if acc != accPeek {
			h.walk.page, h.walk.global = va>>pageShift, priv == PrivM
		}
		return va, 0, true
	}
	global := false
	levels := 3
	if mode == satpSv48 {
		levels = 4
	}
	// The address must be sign-extended from its top translated bit.
	vaBits := uint(12 + 9*levels)
	if top := int64(va) >> (vaBits - 1); top != 0 && top != -1 {
		return 0, pageFault(acc), false
	}
	mxr := h.csr.mstatus&mstatusMXR != 0
	sum := h.csr.mstatus&mstatusSUM != 0
	a := (h.csr.satp & (1<<44 - 1)) << pageShift
	for i := levels - 1; i >= 0; i-- {
		pteAddr := a + (va>>(12+9*uint(i))&0x1ff)*8
		if !h.ram.Contains(pteAddr, 8) {
			return 0, accessFault(acc), false
		}
		pte := h.m.readPhys64(pteAddr)
		if acc == accPeek {
			h.peekWalk[levels-1-i] = pteAddr
		}
		if pte&pteV == 0 || (pte&pteR == 0 && pte&pteW != 0) || pte&pteReserved != 0 {
			return 0, pageFault(acc), false
		}
		global = global || pte&pteG != 0 // G on a pointer makes the table below global
		if pte&(pteR|pteX) == 0 {
			// Pointer to the next level; A, D and U must be clear (§4.3.2 step 4).
			if i == 0 || pte&(pteA|pteD|pteU) != 0 {
				return 0, pageFault(acc), false
			}
			a = (pte >> 10 & (1<<44 - 1)) << pageShift
			continue
		}
		if acc == accPeek {
			off := va & (1<<(12+9*uint(i)) - 1)
			return (pte>>10&(1<<44-1))<<pageShift&^(1<<(12+9*uint(i))-1) | off, 0, true
		}
		// Leaf: permissions (§4.3.2 step 5).
		switch acc {
		case accFetch:
			if pte&pteX == 0 {
				return 0, pageFault(acc), false
			}
		case accLoad:
			if pte&pteR == 0 && !(mxr && pte&pteX != 0) {
				return 0, pageFault(acc), false
			}
		case accStore:
			if pte&pteW == 0 {
				return 0, pageFault(acc), false
			}
		}
		if priv == PrivU {
			if pte&pteU == 0 {
				return 0, pageFault(acc), false
			}
		} else if pte&pteU != 0 && (acc == accFetch || !sum) {
			return 0, pageFault(acc), false
		}
		ppn := pte >> 10 & (1<<44 - 1)
		// Misaligned superpage (step 6).
		if i > 0 && ppn&(1<<(9*uint(i))-1) != 0 {
			return 0, pageFault(acc), false
		}
		// A and D are updated by hardware (step 7, the Svadu behaviour).
		want := uint64(pteA)
		if acc == accStore {
			want |= pteD
		}
		if pte&want != want {
			h.m.writePhys64(pteAddr, pte|want)
		}
		if i > 0 {
			h.noteSuper(va, i)
		}
		h.walk.page, h.walk.global = va>>pageShift, global
		off := va & (1<<(12+9*uint(i)) - 1)
		return ppn<<pageShift&^(1<<(12+9*uint(i))-1) | off, 0, true
	}
	return 0, pageFault(acc), false
}

// loadSlow performs a load that missed the TLB, crosses a page or goes to a
// device. On a fault it raises the trap and returns ok=false.
func (h *Hart) loadSlow(va uint64, size int) (uint64, bool) {
	if va&pageMask > pageSize-uint64(size) {
		// Misaligned and crossing a page: byte by byte, low to high.
		var v uint64
		for i := 0; i < size; i++ {
			b, ok := h.loadSlow(va+uint64(i), 1)
			if !ok {
				return 0, false
			}
			v |= b << (8 * i)
		}
		return v, true
	}
	if e := &h.ltlb[va>>pageShift&tlbMask]; e.tag == va>>pageShift|tlbFine && h.lineAllows((*commLines)(e.host), va&pageMask, false) {
		p := h.ram.readPage(e.ppn - h.ram.Base>>pageShift)
		return readLE(p[va&pageMask:], size), true
	}
	pa, cause, ok := h.translate(va, accLoad, h.dataPriv)
	if !ok {
		h.raise(cause, va)
		return 0, false
	}
	d := h.m.dbg
	if d != nil && len(d.watches) > 0 {
		d.access(h, va, size, false)
	}
	if h.ram.Contains(pa, uint64(size)) {
		pn := (pa - h.ram.Base) >> pageShift
		p := h.ram.readPage(pn)
		if d != nil && d.watchedPage(va) {
			return readLE(p[pa&pageMask:], size), true // watched: no TLB entry
		}
		if h.m.comm.on {
			ok, private := h.m.commLoad(h, pa)
			if !ok {
				return 0, false // preempted before the load
			}
			if !private {
				h.fillFine(false, va, pa, p)
				return readLE(p[pa&pageMask:], size), true
			}
		}
		h.fillTLB(false, va>>pageShift, unsafe.Pointer(p), va, pa, p)
		return readLE(p[pa&pageMask:], size), true
	}
	if pa&uint64(size-1) != 0 {
		h.raise(CauseLoadAccess, va)
		return 0, false
	}
	v, ok := h.m.mmioRead(pa, size)
	if !ok {
		h.raise(CauseLoadAccess, va)
		return 0, false
	}
	return v, true
}

// Store outcomes.
const (
	stOK   = 0 // done; keep executing the block
	stTrap = 1 // a trap was raised
	stExit = 2 // done, but the block must end (device side effects, code changed)
)

// storeSlow performs a store that missed the store TLB.
func (h *Hart) storeSlow(va uint64, size int, v uint64) int {
	if va&pageMask > pageSize-uint64(size) {
		// Check both pages before writing anything, so a fault leaves memory
		// unchanged.
		if _, cause, ok := h.translate(va, accStore, h.dataPriv); !ok {
			h.raise(cause, va)
			return stTrap
		}
		next := (va | pageMask) + 1
		if _, cause, ok := h.translate(next, accStore, h.dataPriv); !ok {
			h.raise(cause, next)
			return stTrap
		}
		res := stOK
		c := &h.m.comm
		c.noYield = true // a store split between two turns would be torn
		for i := 0; i < size; i++ {
			r := h.storeSlow(va+uint64(i), 1, v>>(8*i))
			if r == stTrap {
				c.noYield = false
				return r
			}
			res |= r
		}
		c.noYield = false
		return res
	}
	if e := &h.stlb[va>>pageShift&tlbMask]; e.tag == va>>pageShift|tlbFine && h.lineAllows((*commLines)(e.host), va&pageMask, true) {
		// A store entry, fine or not, is only made for a page this
		// machine owns that holds no code and that nothing watches.
		p := h.ram.readPage(e.ppn - h.ram.Base>>pageShift)
		writeLE(p[va&pageMask:], size, v)
		return stOK
	}
	pa, cause, ok := h.translate(va, accStore, h.dataPriv)
	if !ok {
		h.raise(cause, va)
		return stTrap
	}
	if d := h.m.dbg; d != nil && len(d.watches) > 0 {
		d.access(h, va, size, true)
	}
	if h.ram.Contains(pa, uint64(size)) {
		return h.storeRAM(va, pa, size, v, true)
	}
	if pa&uint64(size-1) != 0 {
		h.raise(CauseStoreAccess, va)
		return stTrap
	}
	if !h.m.mmioWrite(pa, size, v) {
		h.raise(CauseStoreAccess, va)
		return stTrap
	}
	return stExit
}

// storeRAM writes to RAM at pa (translated from va), handling decoded code,
// watched pages and copy-on-write, and refills the store TLB when allowed.
func (h *Hart) storeRAM(va, pa uint64, size int, v uint64, fill bool) int {
	m := h.m
	fine := false
	if m.comm.on {
		ok, private := m.commStore(h, pa)
		if !ok {
			return stTrap // preempted before the store (h.yield says so)
		}
		fine = fill && !private
		fill = fill && private
	}
	pn := (pa - h.ram.Base) >> pageShift
	res := stOK
	if h.yieldAfter {
		res = stExit // preempted after the store: the block ends with it
	}
	if m.wmo != nil && m.wmo.links > 0 {
		m.wmoBeforeWrite(pa, size) // linked loads (wmolink.go)
		fill, fine = false, false
	}
	p, fl := m.pageToWrite(pn, pa)
	if fl&pfCode != 0 {
		res = stExit
	}
	writeLE(p[pa&pageMask:], size, v)
	if fl&pfWatch != 0 {
		m.storeWatched(pa, size)
		return stExit
	}
	if d := m.dbg; d != nil && d.watchedPage(va) {
		return stExit // watched: no TLB entry, and the stop comes right after
	}
	if fill {
		h.fillTLB(true, va>>pageShift, unsafe.Pointer(p), va, pa, p)
	} else if fine {
		h.fillFine(true, va, pa, p)
	}
	return res
}

// translateAMO translates the address of an LR/SC/AMO, which must be
// naturally aligned (Unprivileged §8.4) and in RAM.
func (h *Hart) translateAMO(va uint64, size int, acc access) (pa uint64, ok bool) {
	if va&uint64(size-1) != 0 {
		if acc == accLoad {
			h.raise(CauseMisalignedLoad, va)
		} else {
			h.raise(CauseMisalignedStore, va)
		}
		return 0, false
	}
	tlb := h.ltlb
	if acc == accStore {
		tlb = h.stlb
	}
	if e := &tlb[va>>pageShift&tlbMask]; e.tag == va>>pageShift {
		return e.ppn<<pageShift | va&pageMask, true
	}
	pa, cause, ok := h.translate(va, acc, h.dataPriv)
	if !ok {
		h.raise(cause, va)
		return 0, false
	}
	if !h.ram.Contains(pa, uint64(size)) {
		h.raise(accessFault(acc), va)
		return 0, false
	}
	if d := h.m.dbg; d != nil && len(d.watches) > 0 {
		// LR is seen as a load; SC and AMOs as stores.
		d.access(h, va, size, acc == accStore)
	}
	if m := h.m; m.comm.on {
		if ok, _ := m.commAccess(h, pa, acc == accStore); !ok {
			return 0, false // preempted before the access
		}
	}
	return pa, true
}

func readLE(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func writeLE(b []byte, size int, v uint64) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}
