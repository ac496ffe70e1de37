package emu

// Linked loads (rvwmo, litmus runs only: SetLinkedLoads; since
// WMOVersion 3). Rule 2 of preserved program order orders two loads of a
// byte only when they return values written by different stores (and no
// store of the hart is between them): two loads reading the same write
// may be performed in either order. Without this, a later load of the
// bytes of a deferred load performs the deferred one first
// (wmoResolveOverlap), so that a load whose address depends on a pending
// load holds back every later load of the same bytes (the suite's RSW
// shapes). With it, the later load may instead (a draw, at the run's
// rate wmoRates.linkPct, from the version-3 stream) be performed at once
// and the deferred one *linked*: it stays pending, and it is performed
// before any store to its bytes becomes visible, by any hart
// (wmoBeforeWrite: a drain, a deferred AMO or LR/SC pair, an AMO or SC or
// store performed in place, a host write). So when it is performed, its
// bytes hold the write the later load read: both read the same write,
// which is what lets the later one go first. A store of its own hart
// older than it and buffered stays readable to it (it drains after the
// link is performed); a younger one to its bytes waits for it anyway
// (rule 1). While any load is linked, no hart's store TLB keeps or takes
// an entry (storeRAM), so every store to RAM goes through a hook.
//
// Litmus runs only: a device's DMA into RAM (RAM.Write) and a page
// walker's A and D bits do not go through the hook, so a machine with
// devices that write memory must not link (the explorer's universes do
// not). Off by default.

// Chances (in percent) that a later load of a deferred load's bytes is
// performed at once, the deferred one linked, one drawn per run.
var wmoLinkPcts = [...]uint64{0, 50, 100}

// SetLinkedLoads lets (or, false, stops) harts under rvwmo link deferred
// loads (see above), from now on. It is part of rvwmo snapshots; under sc
// it does nothing. Only for machines whose RAM no device writes: litmus
// runs.
func (m *Machine) SetLinkedLoads(on bool) {
	if m.wmo != nil {
		m.wmo.linking = on
	}
}

// wmoLinkOverlap is wmoResolveOverlap for a plain load of [pa, pa+size)
// that may link: it reports whether it linked a deferred load (then the
// load must be performed now). An LR, a deferred AMO, an LR/SC pair, or a
// load whose address depends on other loads (after) is resolved as
// before.
func (h *Hart) wmoLinkOverlap(pa uint64, size int) bool {
	w, mw := h.w, h.m.wmo
	if !mw.linking || w.nl == 0 {
		h.wmoResolveOverlap(pa, size)
		return false
	}
	linked := false
	for i := 0; i < w.nl; {
		l := &w.ld[i]
		if !overlaps(l.pa, int(l.size), pa, size) || !l.lr && h.wmoOverwritten(l, pa, size) {
			i++
			continue
		}
		if l.link || !l.lr && l.amo == 0 && h.m.wmoAMOStream() != nil && w.r.linkPct > 0 && mw.amo.Uint64()%100 < w.r.linkPct {
			if !l.link {
				l.link = true
				mw.links++
				for _, g := range h.m.harts {
					g.flushStoreTLBPage(l.pa >> pageShift)
				}
			}
			linked = true
			i++
			continue
		}
		if h.wmoResolve(i) {
			i = 0
		}
	}
	return linked
}

// wmoBeforeWrite performs, before a store to [pa, pa+size) becomes
// visible, every linked load of any hart that overlaps it.
func (m *Machine) wmoBeforeWrite(pa uint64, size int) {
	for _, g := range m.harts {
		w := g.w
		for k := 0; k < w.nl && m.wmo.links > 0; {
			if l := &w.ld[k]; l.link && overlaps(l.pa, int(l.size), pa, size) {
				g.wmoResolveRegs(l.regs())
				k = 0
				continue
			}
			k++
		}
	}
}

// wmoCountLinks recounts the linked loads of every hart (after a squash
// dropped some, or a restore).
func (m *Machine) wmoCountLinks() {
	n := 0
	for _, g := range m.harts {
		for _, l := range g.w.ld[:g.w.nl] {
			if l.link {
				n++
			}
		}
	}
	m.wmo.links = n
}
