package emu

import "everett/isa"

// wmoFailSC performs SC o (no aq, no rl) at once where it must fail: the
// hart holds no reservation for its bytes (none taken, or one for other
// bytes; a deferred LR not yet paired could still take one, so not then).
// A failed SC gives rise to no memory operation (RVWMO chapter, "Memory
// Model Primitives"), so nothing orders it: the hart's pending loads
// stay pending, even those its rs1 or rs2 wait for, and rule 13 does not
// apply to it. Only its address must be known (to take a fault in
// place, it goes the ordinary way). Its rd gets 1, its value known but
// tainted by every load rd, rs1 or rs2 wait for: the chapter makes rd a
// destination register of a successful SC only, so a reader of rd after
// a failed one depends on rd's last writer before it; some readings of
// the herd model make it depend on the SC's sources too: the model takes
// both (stronger than either). It reports false where the SC may succeed
// or its address is not known or would trap: then it goes as before.
// Since WMOVersion 3; the explorer's universes that track communication
// keep the old way.
func (h *Hart) wmoFailSC(o *op) bool {
	w := h.w
	if o.raw>>25&3 != 0 || w.lr != 0 || w.spec || h.m.comm.on || w.pend&regBit(o.rs1) != 0 {
		return false
	}
	size := 4
	if o.kind == isa.SC_D {
		size = 8
	}
	va := h.x[o.rs1]
	if va&uint64(size-1) != 0 {
		return false // a misaligned SC traps
	}
	pa, ok := h.wmoTranslate(va, size, accStore)
	if !ok || h.resValid && h.resAddr == pa {
		return false
	}
	if p := w.pend & regBit(o.rd); p != 0 {
		h.wmoResolveRegs(p) // the load would overwrite the result
	}
	t := w.taintOf(regBit(o.rd)|regBit(o.rs1)|regBit(o.rs2)) | w.pend&regBit(o.rs2)
	h.x[o.rd] = 1
	h.resValid = false
	w.setTaint(o.rd, t)
	return true
}
