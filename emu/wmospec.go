package emu

import (
	"math/bits"

	"everett/hw"
	"everett/isa"
)

// Speculation past a branch on a pending register (rvwmo only; wmo.go's
// comment describes the model). RVWMO orders a load before a later load
// through a control dependency not at all, and before a later store only
// (rule 11): a branch whose direction needs a deferred load's value may
// therefore let later loads be performed first. At such a branch the
// hart may (a draw, at the run's rate wmoRates.specPct) take a
// checkpoint instead of resolving the load: the integer registers, the
// branch (to decide it later), the count of buffered stores and the
// masks of pending, ordered and tainted registers. It goes the guessed
// way (a draw) and runs on, with only the instructions wmoSpecMay
// allows: integer and M ops, jumps and branches, and plain aligned loads
// and stores to RAM that are untranslated or whose translation is in the
// TLB (a page walk may write A and D bits). Stores buffered
// meanwhile wait for the branch's loads (rule 11, wmoStore.wait) and may
// not drain before the checkpoint is validated (wmoDrainOne), so nothing
// of a wrong path is ever visible to another hart.
//
// The checkpoint is validated (wmoSpecEnd) at the first instruction
// boundary after the branch's loads have resolved (at a drawn step, or
// because something named their registers or overlapped their bytes),
// or before anything else runs: an instruction not allowed, the
// wmoSpecOps-th instruction, a trap (raise: a fault of the wrong path
// vanishes, one of the right path is taken precisely after), an
// interrupt, a fetch from a page the buffer holds a store to, a
// settle. It decides the branch with the registers of the checkpoint,
// updated by every older load that resolved since. A right guess keeps
// everything; a wrong one drops the registers, buffered stores and
// deferred loads of the path and goes on at the branch's other target.
// Older accesses that were performed meanwhile stay performed: any
// moment is a valid one for them.
//
// Counting: a squashed instruction used its slot (steps, the hart's
// local time, the machine's instruction count: virtual time goes on) but
// is not retired: instret drops back to the count at the branch.

// wmoSpecOps bounds a speculation: the instruction after this many on
// the guessed path validates it first.
const wmoSpecOps = 32

// Chances (in percent) that a hart speculates at a branch on a pending
// register, one drawn per run like the other rates: 0 keeps some runs
// without speculation.
var wmoSpecPcts = [...]uint64{0, 50, 90, 100}

// wmoSpecSalt separates speculation's stream from the model's.
const wmoSpecSalt = 0x7370656375 // "specu"

// drawSpecPct draws a speculation rate from speculation's stream.
func (w *machineWMO) drawSpecPct() uint64 {
	return wmoSpecPcts[w.spec.Uint64()%uint64(len(wmoSpecPcts))]
}

// wmoCheckpoint is what a speculating hart needs to undo its guessed
// path or to decide its branch.
type wmoCheckpoint struct {
	x      [regSink + 1]uint64 // registers at the branch, with every older load resolved since written in
	next   uint64              // the branch's two targets: not taken and taken
	target uint64
	kind   isa.Op // the branch (BEQ..BGEU) and its registers
	rs1    uint8
	rs2    uint8
	guess  bool   // the way the hart went: taken or not
	dep    uint64 // the branch's registers whose loads have not resolved yet
	seq    uint64 // hartWMO.seq at the branch: stores buffered since are the path's
	gen    uint32
	ctrl   uint64
	taint  [32]uint64
	tainted,
	retired uint64 // the hart's retired count once the branch retires
	ops int // instructions run on the guessed path
}

// wmoSpeculate is wmoNamed's step for a branch o (op i of its block) on
// the pending registers p: it may take a checkpoint and report true (the
// branch goes w.chk.guess's way), or leave the loads to resolve.
func (h *Hart) wmoSpeculate(o *op, vpc uint64, i int, p uint64) bool {
	w, m := h.w, h.m
	if w.spec || w.r.specPct == 0 || m.comm.on || m.dbg != nil || m.brk.on || m.Tracer != nil || m.wmo.spec.Uint64()%100 >= w.r.specPct {
		return false
	}
	c := &w.chk
	copy(c.x[:], h.x[:regSink+1])
	pc := vpc + uint64(o.off)
	c.next, c.target = pc+uint64(o.len), pc+uint64(o.imm)
	c.kind, c.rs1, c.rs2 = o.kind, o.rs1, o.rs2
	c.guess = m.wmo.spec.Uint64()&1 != 0
	c.dep = p
	c.seq, c.gen, c.ctrl = w.seq, w.gen, w.ctrl
	c.taint, c.tainted = w.taint, w.tainted
	c.retired = h.cnt.retired + uint64(i+1)
	c.ops = 0
	w.spec = true
	w.ready = false
	w.specs++
	w.ctrl |= p // rule 11: later stores wait for the branch's loads
	w.br |= p
	return true
}

// wmoSpecMay reports whether op o may run on a guessed path: an integer
// or M op, a jump or branch, or a plain load or store that cannot trap
// or leave the hart (aligned, its address register not pending,
// untranslated or its translation in the TLB, to plain RAM, a store with
// room in the buffer).
func (h *Hart) wmoSpecMay(o *op) bool {
	w, m := h.w, h.m
	if m.dbg != nil || m.comm.on || m.brk.on {
		return false // attached since the checkpoint: accesses go the ordinary way
	}
	k := o.kind
	size := 0
	switch {
	case k >= isa.ADDI && k <= isa.SRAI, k >= isa.ADDIW && k <= isa.SRAIW,
		k >= isa.ADD && k <= isa.AND, k >= isa.ADDW && k <= isa.SRAW, k >= isa.MUL && k <= isa.REMUW,
		k >= isa.BEQ && k <= isa.BGEU, k == isa.LUI, k == isa.AUIPC, k == isa.JAL, k == isa.JALR:
		return true
	case k == isa.LB || k == isa.LBU, k == isa.SB:
		size = 1
	case k == isa.LH || k == isa.LHU, k == isa.SH:
		size = 2
	case k == isa.LW || k == isa.LWU, k == isa.SW:
		size = 4
	case k == isa.LD, k == isa.SD:
		size = 8
	default:
		return false
	}
	if w.pend&regBit(o.rs1) != 0 {
		return false
	}
	store := k >= isa.SB && k <= isa.SD
	if store && w.ns >= wmoStores {
		return false
	}
	va := h.x[o.rs1] + uint64(o.imm)
	if va&uint64(size-1) != 0 {
		return false
	}
	tlb := h.ltlb
	if store {
		tlb = h.stlb
	}
	var pa uint64
	switch {
	case h.dataPriv == PrivM || h.csr.satp>>60 == satpBare:
		pa = va // untranslated: no walk to write A or D bits
	case tlb != nil && tlb[va>>pageShift&tlbMask].tag == va>>pageShift:
		pa = tlb[va>>pageShift&tlbMask].ppn<<pageShift | va&pageMask
	default:
		return false
	}
	return h.ram.Contains(pa, uint64(size)) && h.ram.flag((pa-h.ram.Base)>>pageShift)&pfWatch == 0
}

// wmoSpecResolved notes that older deferred load l, into registers
// regs, resolved while the hart speculates: its value goes into the
// checkpoint (a squash keeps it), and once the branch's loads have all
// resolved, the next boundary validates.
func (h *Hart) wmoSpecResolved(l *wmoLoad) {
	c := &h.w.chk
	if l.rd <= regSink { // not the register of a deferred AMO with rd = x0
		c.x[l.rd] = h.x[l.rd]
	}
	if l.sc {
		c.x[l.rd2] = h.x[l.rd2]
	}
	if c.dep&l.regs() != 0 {
		c.dep &^= l.regs()
		h.w.ready = c.dep == 0
	}
}

// wmoSpecEnd validates the hart's speculation: the branch's loads
// resolve, and the branch is decided on the checkpoint's registers. A
// right guess keeps the path; a wrong one is squashed and the hart goes
// on at the other target (it reports true). used is how many slots of
// the current block (execWMO) will still be counted as retired.
func (h *Hart) wmoSpecEnd(used int) bool {
	w := h.w
	c := &w.chk
	if c.dep != 0 {
		h.wmoResolveRegs(c.dep)
	}
	x1, x2 := c.x[c.rs1], c.x[c.rs2]
	var taken bool
	switch c.kind {
	case isa.BEQ:
		taken = x1 == x2
	case isa.BNE:
		taken = x1 != x2
	case isa.BLT:
		taken = int64(x1) < int64(x2)
	case isa.BGE:
		taken = int64(x1) >= int64(x2)
	case isa.BLTU:
		taken = x1 < x2
	default:
		taken = x1 >= x2
	}
	w.spec, w.ready = false, false
	if taken == c.guess {
		for k := 0; k < w.nl; k++ {
			w.ld[k].spec = false
		}
		return false
	}
	h.wmoSquash(taken, used)
	return true
}

// wmoSquash drops the guessed path: registers from the checkpoint, the
// path's buffered stores and deferred loads gone, the masks restored to
// the older loads still pending, and the pc at the branch's right target.
func (h *Hart) wmoSquash(taken bool, used int) {
	w := h.w
	c := &w.chk
	copy(h.x[:regSink+1], c.x[:])
	h.x[0] = 0
	h.pc = c.next
	if taken {
		h.pc = c.target
	}
	n := 0
	for k := 0; k < w.ns; k++ {
		if w.st[k].seq < c.seq {
			w.st[n] = w.st[k]
			n++
		}
	}
	w.ns = n
	w.seq = c.seq
	n = 0
	w.pend, w.lr = 0, 0
	for k := 0; k < w.nl; k++ {
		if l := w.ld[k]; !l.spec {
			w.ld[n] = l
			n++
			w.pend |= l.regs()
			if l.lr && !l.sc {
				w.lr |= regBit(l.rd)
			}
		}
	}
	w.nl = n
	h.m.wmoCountLinks() // a squashed load may have been linked
	w.gen = c.gen
	w.ctrl = c.ctrl & w.pend
	w.br &= w.pend // the path's branches may have added some: more for a fence.i to perform, never fewer
	w.tainted = 0
	for r := range w.taint {
		w.setTaint(uint8(r), c.taint[r]&w.pend)
	}
	h.cnt.retired = c.retired - uint64(used)
	w.refetch = true
	w.squashes++
}

// wmoSpecTrap is raise's step under rvwmo: a trap while speculating
// first validates; a squash drops the trap (it was the wrong path's), and
// raise reports it taken but takes nothing.
func (h *Hart) wmoSpecTrap() bool {
	return h.w != nil && h.w.spec && h.wmoSpecEnd(0)
}

// saveWMOSpec writes what speculation adds to the model's state: each
// hart's rate and checkpoint, and which deferred loads began on the
// guessed path. It follows saveWMO's harts, so a snapshot saved before
// speculation existed reads as one with none (rate 0).
func (m *Machine) saveWMOSpec(e *hw.Encoder) {
	e.Tag("rvwmo-spec")
	m.wmo.spec.Save(e)
	for _, h := range m.harts {
		w := h.w
		e.U64(w.r.specPct)
		e.Bool(w.spec)
		if !w.spec {
			continue
		}
		c := &w.chk
		for _, v := range c.x {
			e.U64(v)
		}
		e.U64(c.next)
		e.U64(c.target)
		e.U8(uint8(c.kind))
		e.U8(c.rs1)
		e.U8(c.rs2)
		e.Bool(c.guess)
		e.U64(c.dep)
		e.U64(c.seq)
		e.U32(c.gen)
		e.U64(c.ctrl)
		e.U64(c.tainted)
		for m := c.tainted; m != 0; m &= m - 1 {
			e.U64(c.taint[bits.TrailingZeros64(m)])
		}
		e.U64(c.retired)
		e.U32(uint32(c.ops))
		e.Bool(w.ready)
		var mask uint8
		for k := 0; k < w.nl; k++ {
			if w.ld[k].spec {
				mask |= 1 << k
			}
		}
		e.U8(mask)
	}
}

// restoreWMOSpec reads what saveWMOSpec wrote into the harts' states,
// checking that a checkpoint is one the model could have taken.
func restoreWMOSpec(d *hw.Decoder, w *machineWMO, states []*hartWMO) error {
	d.Tag("rvwmo-spec")
	if err := w.spec.Restore(d); err != nil {
		return err
	}
	for i, w := range states {
		if w.r.specPct = d.U64(); w.r.specPct > 100 {
			d.Fail("hart %d: rvwmo speculation rate %d", i, w.r.specPct)
			return d.Err()
		}
		if w.spec = d.Bool(); !w.spec {
			continue
		}
		c := &w.chk
		for r := range c.x {
			c.x[r] = d.U64()
		}
		c.next, c.target = d.U64(), d.U64()
		c.kind, c.rs1, c.rs2 = isa.Op(d.U8()), d.U8(), d.U8()
		c.guess = d.Bool()
		c.dep, c.seq, c.gen, c.ctrl = d.U64(), d.U64(), d.U32(), d.U64()
		c.tainted = d.U64()
		if c.tainted&^0xfffffffe != 0 {
			d.Fail("hart %d: rvwmo checkpoint taint %#x", i, c.tainted)
			return d.Err()
		}
		for m := c.tainted; m != 0; m &= m - 1 {
			c.taint[bits.TrailingZeros64(m)] = d.U64()
		}
		c.retired = d.U64()
		c.ops = int(d.U32())
		w.ready = d.Bool()
		mask := d.U8()
		if !isBranch(c.kind) || c.rs1 > 31 || c.rs2 > 31 || c.x[0] != 0 || c.dep&^w.pend != 0 ||
			w.ready != (c.dep == 0) || c.seq > w.seq || c.gen > w.gen || c.ops > wmoSpecOps || mask>>w.nl != 0 {
			d.Fail("hart %d: rvwmo checkpoint", i)
			return d.Err()
		}
		for k := 0; k < w.nl; k++ {
			w.ld[k].spec = mask>>k&1 != 0
			if w.ld[k].spec && w.ld[k].seq < c.seq {
				d.Fail("hart %d: rvwmo checkpoint: deferred load %d", i, k)
				return d.Err()
			}
		}
	}
	return d.Err()
}
