package emu

import "everett/isa"

// Zalasr: load-acquire and store-release ("Zalasr" Atomic Load-Acquire and
// Store-Release Instructions, version 1.0, in the Unprivileged ISA). Each
// is a naturally aligned load or store of 1, 2, 4 or 8 bytes whose address
// is rs1 alone; a misaligned address raises the address-misaligned
// exception. The ordering they carry costs nothing under sc, where one
// hart runs at a time and every access is performed in program order, so
// there they are the plain load or store. Under rvwmo (wmo.go) a
// load-acquire without rl is performed when it executes, never deferred,
// so that every later access comes after it, after draining every
// buffered store-release (rule 7); a store-release without aq resolves
// every earlier load and waits in the store buffer, draining only as its
// oldest entry, so every earlier store drains first, while later plain
// loads and stores may pass it; a load with rl and a store with aq settle the hart
// first and are performed in place (stronger than the instruction asks,
// never weaker). The JIT does not translate
// them: a block is translated up to its first Zalasr op, and the
// interpreter runs the rest.

// lasrPlain maps a Zalasr op to the plain load or store of its width and
// extension (the loads sign-extend, as lb, lh, lw and ld do).
var lasrPlain = [...]isa.Op{
	0 /* LB_AQ */ : isa.LB, isa.LH_AQ - isa.LB_AQ: isa.LH,
	isa.LW_AQ - isa.LB_AQ: isa.LW, isa.LD_AQ - isa.LB_AQ: isa.LD,
	isa.SB_RL - isa.LB_AQ: isa.SB, isa.SH_RL - isa.LB_AQ: isa.SH,
	isa.SW_RL - isa.LB_AQ: isa.SW, isa.SD_RL - isa.LB_AQ: isa.SD,
}

// isZalasr reports whether k is a Zalasr load-acquire or store-release.
func isZalasr(k isa.Op) bool { return k >= isa.LB_AQ && k <= isa.SD_RL }

// lasrSize is the access width of Zalasr op k, in bytes.
func lasrSize(k isa.Op) int { return 1 << ((k - isa.LB_AQ) & 3) }

// loadAcquire executes a Zalasr load op i the ordinary way: it reports
// false if the load trapped or the hart was preempted before it.
func (h *Hart) loadAcquire(vpc uint64, o *op, i int) bool {
	size := lasrSize(o.kind)
	a := h.x[o.rs1]
	if a&uint64(size-1) != 0 {
		h.pc = vpc + uint64(o.off)
		h.pos = i
		h.raise(CauseMisalignedLoad, a)
		return false
	}
	v, ok := h.load(vpc, o, i, a, size)
	if !ok {
		return false
	}
	h.x[o.rd] = extendLoad(lasrPlain[o.kind-isa.LB_AQ], v)
	return true
}

// storeRelease executes a Zalasr store op i the ordinary way; it returns
// what a store's slow path does.
func (h *Hart) storeRelease(vpc uint64, o *op, i int) int {
	size := lasrSize(o.kind)
	a := h.x[o.rs1]
	if a&uint64(size-1) != 0 {
		h.pc = vpc + uint64(o.off)
		h.pos = i
		h.raise(CauseMisalignedStore, a)
		return stTrap
	}
	return h.store(vpc, o, i, a, size, h.x[o.rs2])
}

// wmoLoadAcquire issues a Zalasr load without rl under rvwmo: performed
// now (never deferred), so later loads, which are performed when they
// execute or later, and later stores, which drain after they execute,
// all follow it in the global memory order (rule 5 of preserved program
// order). Earlier accesses may still be pending: an acquire does not
// order them. No store-release is ever pending (they are performed in
// place), so rule 7 (release before acquire) holds too. It reads through
// the hart's own store buffer like a plain load, which the Load Value
// Axiom allows. A misaligned address or an access the model does not
// buffer goes the slow way.
func (h *Hart) wmoLoadAcquire(vpc uint64, o *op, i int) int {
	size := lasrSize(o.kind)
	if h.x[o.rs1]&uint64(size-1) != 0 {
		return wmoSlow
	}
	pa, r := h.wmoIssue(vpc, o, i, size, accLoad)
	if r != wmoDone {
		return r
	}
	h.wmoDrainReleases()
	h.wmoResolveOverlap(pa, size)   // CoRR with an earlier deferred load
	h.wmoResolveForwarded(pa, size) // rule 12: a buffered store it reads may depend on a pending load
	h.x[o.rd] = extendLoad(lasrPlain[o.kind-isa.LB_AQ], h.wmoRead(pa, size, h.w.seq))
	return wmoDone
}

// wmoDrainReleases drains the buffer up to its youngest store-release, in
// order, so that every store-release is performed before a later
// acquire (rule 7: both are RCsc).
func (h *Hart) wmoDrainReleases() {
	w := h.w
	last := -1
	for k := 0; k < w.ns; k++ {
		if w.st[k].rel {
			last = k
		}
	}
	for ; last >= 0; last-- {
		h.wmoDrain(0)
	}
}

// wmoStoreRelease issues a Zalasr store-release (without aq) under rvwmo:
// every earlier load resolves now and every earlier store drains before
// it (rule 6: a release entry drains only as the oldest), but it waits in
// the buffer like a plain store, so later loads and stores may pass it,
// as RVWMO allows;
// only a later acquire drains it first (wmoDrainReleases). A misaligned
// address, one with aq, or an access the model does not buffer goes the
// slow way (settled, in place).
func (h *Hart) wmoStoreRelease(vpc uint64, o *op, i int) int {
	size := lasrSize(o.kind)
	if h.x[o.rs1]&uint64(size-1) != 0 || o.raw>>26&1 != 0 {
		return wmoSlow
	}
	return h.wmoBufferRelease(vpc, o, i, size, false)
}

// wmoBufferRelease issues the store of op i and buffers it as a
// store-release (amo: an AMO's, which the hart's own loads do not read
// from the buffer), after every earlier load resolves.
func (h *Hart) wmoBufferRelease(vpc uint64, o *op, i, size int, amo bool) int {
	pa, r := h.wmoIssue(vpc, o, i, size, accStore)
	if r != wmoDone {
		return r
	}
	h.wmoResolveAll()
	h.wmoBuffer(pa, size, h.x[o.rs2], true, 0)
	h.w.st[h.w.ns-1].amo = amo
	return wmoDone
}

// wmoSwapRelease issues an amoswap.w.rl or amoswap.d.rl with rd = x0 (no
// aq) under rvwmo as a store-release in the buffer: the swap's read
// returns nothing anyone sees, and its write lands whole when the entry
// drains, so buffering it is the AMO performed then, read and write at
// one point of the global memory order (the atomicity axiom). As for
// wmoStoreRelease, every earlier access is performed before it (rule 6:
// earlier loads resolve now, earlier stores drain first), and later
// accesses may pass it, which RVWMO allows; only a later acquire or AMO
// drains it first (rule 7), and a later load of its bytes waits for it to
// drain instead of reading it from the buffer (rule 3: a load that
// returns an AMO's value follows the AMO). Any other AMO, a misaligned
// address (it traps) or an access the model does not buffer: wmoSlow.
func (h *Hart) wmoSwapRelease(vpc uint64, o *op, i int) int {
	if (o.kind != isa.AMOSWAP_W && o.kind != isa.AMOSWAP_D) || o.rd != regSink || o.raw>>26&1 != 0 || o.raw>>25&1 == 0 {
		return wmoSlow
	}
	size := 4
	if o.kind == isa.AMOSWAP_D {
		size = 8
	}
	if h.x[o.rs1]&uint64(size-1) != 0 || h.w.lr != 0 {
		return wmoSlow
	}
	return h.wmoBufferRelease(vpc, o, i, size, true)
}

// wmoDrainAMOs drains the buffer, in order, up to the youngest AMO entry
// a load of [pa, pa+size) overlaps (rule 3).
func (h *Hart) wmoDrainAMOs(pa uint64, size int) {
	w := h.w
	last := -1
	for k := 0; k < w.ns; k++ {
		if s := &w.st[k]; s.amo && overlaps(s.pa, int(s.size), pa, size) {
			last = k
		}
	}
	for ; last >= 0; last-- {
		h.wmoDrain(0)
	}
}
