package emu

import (
	"everett/hw"
	"everett/isa"
)

// Deferred AMOs (rvwmo only, since WMOVersion 3; wmo.go's comment
// describes the model). An AMO without aq or rl is ordered by no rule of
// preserved program order before later accesses to other bytes, nor
// after earlier ones to other bytes when no fence, release or control
// dependency is involved (wmoAtomicMayPass): RVWMO lets a hart perform
// it after later loads and stores. The hart may (a draw, at the run's
// rate wmoRates.amoPct, from a stream of its own) defer it as it defers
// a load: its address is translated at once (as a store: a fault is
// taken in place, not deferred), its rs2 value kept, its rd pending. When
// it resolves (a drawn step, a later instruction naming rd, a later
// load of its bytes, a fence, a settle), it reads its bytes and writes
// the combined value in shared memory at one point, as the atomicity
// axiom wants, and rd gets what it read. So the AMO is one memory
// operation, both load and store, placed later in the global memory
// order than its program order, and every rule that orders it is kept:
//
//   - rule 1: a later store to its bytes waits in the buffer for it
//     (wmoBuffer, as for a deferred load of those bytes);
//   - rules 2 and 3: a later load of its bytes resolves it first, unless
//     a buffered store between writes every shared byte (the later load
//     reads that store, not the AMO: wmoResolveOverlap); a later AMO, LR
//     or SC of its bytes settles the hart (wmoAtomicMayPass);
//   - rule 4: every fence resolves deferred AMOs first (its store, or its
//     load, might be a predecessor);
//   - rules 5 to 7: only AMOs without aq and rl are deferred; a later
//     release (AMO or SC with rl, Zalasr store-release) performs
//     everything pending before it;
//   - rules 9 to 13: its rs1 and rs2 were resolved (with their taints)
//     before it issued (wmoNamed), and what reads rd reads a pending
//     register: it resolves the AMO, or is tainted by it, as for a load.
//
// An AMO with rd = x0 is pending into a register of its own above the
// sink (wmoAMOSink..wmoAMOSink+wmoLoads-1), which no instruction names,
// so it resolves only at a drawn step or when something orders it.

// wmoAMOSink is the first register a deferred AMO with rd = x0 is
// pending into (the hart's register file has room beyond the sink).
const wmoAMOSink = regSink + 1

// Chances (in percent) that a hart defers an AMO it may defer, one drawn
// per run: 0 keeps some runs as they were.
var wmoAMOPcts = [...]uint64{0, 50, 90, 100}

// wmoAMOSalt separates the AMO stream from the model's.
const wmoAMOSalt = 0x616d6f646566 // "amodef"

// wmoAMOStream returns the version-3 stream, starting it (and drawing
// every hart's amoPct and linkPct from it: for half the seeds one draw
// for all harts, for the others one per hart) the first time.
func (m *Machine) wmoAMOStream() *PRNG {
	w := m.wmo
	if w.amo != nil {
		return w.amo
	}
	w.amo = NewPRNG(w.amoSeed)
	draw := func(set []uint64) uint64 { return set[w.amo.Uint64()%uint64(len(set))] }
	amoPct, linkPct := draw(wmoAMOPcts[:]), draw(wmoLinkPcts[:])
	own := w.amo.Uint64()%2 == 0
	for _, h := range m.harts {
		if own {
			amoPct, linkPct = draw(wmoAMOPcts[:]), draw(wmoLinkPcts[:])
		}
		h.w.r.amoPct, h.w.r.linkPct = amoPct, linkPct
	}
	return w.amo
}

// wmoDeferAMO defers AMO o (no aq, no rl) where it may pass the hart's
// pending accesses (wmoAtomicMayPass) and a draw says so. Not when the
// explorer tracks communication (it records accesses when they issue),
// not while an LR is deferred unpaired, not on a guessed path.
func (h *Hart) wmoDeferAMO(o *op) bool {
	w := h.w
	if o.raw>>25&3 != 0 || w.nl >= wmoLoads || h.syncAMO || h.m.comm.on || w.lr != 0 || w.spec {
		return false
	}
	amo := h.m.wmoAMOStream()
	if w.r.amoPct == 0 {
		return false
	}
	rd := o.rd
	if rd == regSink {
		for rd = wmoAMOSink; w.pend&regBit(rd) != 0; rd++ {
		}
	} else if w.pend&regBit(rd) != 0 {
		return false
	}
	size, kind := 4, isa.LW
	if o.kind >= isa.AMOSWAP_D && o.kind <= isa.AMOMAXU_D {
		size, kind = 8, isa.LD
	}
	va := h.x[o.rs1]
	if va&uint64(size-1) != 0 || !h.wmoAtomicMayPass(o) || amo.Uint64()%100 >= w.r.amoPct {
		return false
	}
	pa, ok := h.wmoTranslate(va, size, accStore)
	if !ok {
		return false
	}
	w.ld[w.nl] = wmoLoad{pa: pa, seq: w.seq, size: uint8(size), kind: kind, rd: rd, amo: o.kind, v: h.x[o.rs2]}
	w.nl++
	w.pend |= regBit(rd)
	w.setTaint(rd, 0)
	return true
}

// isAMOKind reports whether k is an AMO (not an LR or SC).
func isAMOKind(k isa.Op) bool {
	return k >= isa.AMOSWAP_W && k <= isa.AMOMAXU_W || k >= isa.AMOSWAP_D && k <= isa.AMOMAXU_D
}

// saveWMOAMO writes what WMOVersion 3 adds to the model's state: the AMO
// stream, each hart's rate, the kind of each deferred access (0 but for
// AMOs) and the loads a fence.i performs (hartWMO.br). It follows
// saveWMOSpec, so a snapshot saved before version 3 simply ends before
// it (then a fence.i performs every load of ctrl, as it did).
func (m *Machine) saveWMOAMO(e *hw.Encoder) {
	e.Tag("rvwmo-amo")
	e.U64(m.wmo.amoSeed)
	e.Bool(m.wmo.amo != nil)
	if m.wmo.amo != nil {
		m.wmo.amo.Save(e)
	}
	for _, h := range m.harts {
		w := h.w
		e.U64(w.r.amoPct)
		for _, l := range w.ld[:w.nl] {
			e.U8(uint8(l.amo))
			e.Bool(l.link)
		}
		e.U64(w.br)
		e.U64(w.r.linkPct)
	}
	e.Bool(m.wmo.linking)
}

// restoreWMOAMO reads what saveWMOAMO wrote into the harts' states.
// restoreWMO checks each deferred access against its kind afterwards.
func restoreWMOAMO(d *hw.Decoder, w *machineWMO, states []*hartWMO) error {
	d.Tag("rvwmo-amo")
	w.amoSeed = d.U64()
	w.amo = nil
	if d.Bool() {
		w.amo = NewPRNG(0)
		if err := w.amo.Restore(d); err != nil {
			return err
		}
	}
	for i, hs := range states {
		if hs.r.amoPct = d.U64(); hs.r.amoPct > 100 {
			d.Fail("hart %d: rvwmo AMO rate %d", i, hs.r.amoPct)
			return d.Err()
		}
		for k := 0; k < hs.nl; k++ {
			hs.ld[k].amo = isa.Op(d.U8())
			hs.ld[k].link = d.Bool()
		}
		if hs.br = d.U64(); hs.br&^hs.ctrl != 0 {
			d.Fail("hart %d: rvwmo control dependencies %#x", i, hs.br)
			return d.Err()
		}
		if hs.r.linkPct = d.U64(); hs.r.linkPct > 100 {
			d.Fail("hart %d: rvwmo link rate %d", i, hs.r.linkPct)
			return d.Err()
		}
	}
	w.linking = d.Bool()
	return d.Err()
}

// wmoLoadOK reports whether deferred access l (restored) is one the
// model could have made, as far as its kind decides: an AMO is aligned,
// of its own width, neither an LR nor dependent on another load; its
// register is a real one or, for rd = x0, one of its own; a plain load
// or LR has a real register and stores nothing unless paired.
func wmoLoadOK(l *wmoLoad) bool {
	if l.link && (l.lr || l.amo != 0) {
		return false // only plain loads are linked
	}
	if l.amo == 0 {
		return l.rd >= 1 && l.rd <= 31 && (l.fromLR || l.v == 0 || l.sc)
	}
	w := l.amo <= isa.AMOMAXU_W
	return isAMOKind(l.amo) && !l.lr && l.after == 0 && l.pa%uint64(l.size) == 0 &&
		(w && l.size == 4 && l.kind == isa.LW || !w && l.size == 8 && l.kind == isa.LD) &&
		(l.rd >= 1 && l.rd <= 31 || l.rd >= wmoAMOSink && l.rd < wmoAMOSink+wmoLoads)
}
