package emu

import "everett/isa"

// system executes ecall, ebreak, xRET, wfi, sfence.vma, the hypercall and
// illegal instructions. h.pc is the instruction's address on entry.
func (h *Hart) system(o *op) {
	next := h.pc + uint64(o.len)
	switch o.kind {
	case isa.ECALL:
		// Privileged §3.3.1: the cause encodes the privilege level.
		h.raise(CauseEcallU+uint64(h.priv), 0)
	case isa.EBREAK:
		h.raise(CauseBreakpoint, h.pc)
	case isa.MRET:
		if h.priv < PrivM {
			h.raise(CauseIllegalInst, uint64(o.raw))
			return
		}
		h.mret()
	case isa.SRET:
		if h.priv < PrivS || (h.priv == PrivS && h.csr.mstatus&mstatusTSR != 0) {
			h.raise(CauseIllegalInst, uint64(o.raw))
			return
		}
		h.sret()
	case isa.WFI:
		// §3.1.6.5: in U-mode, or in S-mode with TW=1, wfi is illegal (we
		// choose a time limit of zero).
		if h.priv == PrivU || (h.priv < PrivM && h.csr.mstatus&mstatusTW != 0) {
			h.raise(CauseIllegalInst, uint64(o.raw))
			return
		}
		h.pc = next
		// The hart resumes when an interrupt is pending and enabled in
		// mie (at once if one already is), whatever mstatus.xIE and
		// mideleg say; one pending but not enabled in mie does not wake
		// it (§3.3.3 "should avoid resuming"; RATIONALE.md: Linux idles
		// in wfi with sip.STIP pending and sie.STIE clear).
		if !h.wakeable() {
			h.waiting = true
			h.waitAt = h.m.Now()
		}
	case isa.SFENCE_VMA:
		if h.priv == PrivU || (h.priv == PrivS && h.csr.mstatus&mstatusTVM != 0) {
			h.raise(CauseIllegalInst, uint64(o.raw))
			return
		}
		// rs1 names one virtual address, rs2 one ASID (§4.2.1): an
		// ASID's fence keeps global translations.
		switch {
		case o.rs1 != 0 && o.rs2 != 0:
			h.flushASIDVA(h.x[o.rs1], h.x[o.rs2]&0xffff)
		case o.rs1 != 0:
			h.flushTLBVA(h.x[o.rs1])
		case o.rs2 != 0:
			h.flushASID(h.x[o.rs2] & 0xffff)
		default:
			h.flushTLB()
		}
		h.pc = next
	case isa.HYPERCALL:
		if h.m.Hypercall == nil {
			h.raise(CauseIllegalInst, uint64(o.raw))
			return
		}
		h.pc = next
		h.m.Hypercall(h)
	default:
		h.raise(CauseIllegalInst, uint64(o.raw))
	}
}

// amo executes LR, SC and the AMOs (Unprivileged §8). It returns stOK, stTrap
// or stExit like a store.
func (h *Hart) amo(o *op) int {
	x := &h.x
	size := 8
	switch o.kind {
	case isa.LR_W, isa.SC_W, isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W,
		isa.AMOOR_W, isa.AMOMIN_W, isa.AMOMAX_W, isa.AMOMINU_W, isa.AMOMAXU_W:
		size = 4
	}
	va := x[o.rs1]
	if h.syncAMO && o.kind != isa.SC_W && o.kind != isa.SC_D && !h.m.syncPoint(h) {
		return stTrap // preempted before the access (h.yield says so)
	}
	if o.kind == isa.LR_W || o.kind == isa.LR_D {
		pa, ok := h.translateAMO(va, size, accLoad)
		if !ok {
			return stTrap
		}
		p := h.ram.readPage((pa - h.ram.Base) >> pageShift)
		v := readLE(p[pa&pageMask:], size)
		if size == 4 {
			v = sext32(uint32(v))
		}
		x[o.rd] = v
		h.resValid = true
		h.resAddr = pa
		h.pc += uint64(o.len)
		return stOK
	}
	pa, ok := h.translateAMO(va, size, accStore)
	if !ok {
		return stTrap
	}
	if o.kind == isa.SC_W || o.kind == isa.SC_D {
		if !h.resValid || h.resAddr != pa {
			h.resValid = false
			x[o.rd] = 1
			h.pc += uint64(o.len)
			return stOK
		}
		h.resValid = false
		r := h.storeRAM(va, pa, size, x[o.rs2], true)
		x[o.rd] = 0
		h.pc += uint64(o.len)
		return r
	}
	p := h.ram.readPage((pa - h.ram.Base) >> pageShift)
	old := readLE(p[pa&pageMask:], size)
	nv := amoValue(o.kind, old, x[o.rs2])
	if size == 4 {
		old = sext32(uint32(old))
	}
	r := h.storeRAM(va, pa, size, nv, true)
	x[o.rd] = old
	h.pc += uint64(o.len)
	return r
}

// amoValue is what AMO k writes to bytes that held old (read as
// unsigned) with src in its rs2: for a .W AMO the low 32 bits,
// zero-extended.
func amoValue(k isa.Op, old, src uint64) uint64 {
	var nv uint64
	switch k {
	case isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
		isa.AMOMIN_W, isa.AMOMAX_W, isa.AMOMINU_W, isa.AMOMAXU_W:
		a, b := int32(old), int32(src)
		var r int32
		switch k {
		case isa.AMOSWAP_W:
			r = b
		case isa.AMOADD_W:
			r = a + b
		case isa.AMOXOR_W:
			r = a ^ b
		case isa.AMOAND_W:
			r = a & b
		case isa.AMOOR_W:
			r = a | b
		case isa.AMOMIN_W:
			r = min(a, b)
		case isa.AMOMAX_W:
			r = max(a, b)
		case isa.AMOMINU_W:
			r = int32(min(uint32(a), uint32(b)))
		case isa.AMOMAXU_W:
			r = int32(max(uint32(a), uint32(b)))
		}
		nv = uint64(uint32(r))
	default:
		switch k {
		case isa.AMOSWAP_D:
			nv = src
		case isa.AMOADD_D:
			nv = old + src
		case isa.AMOXOR_D:
			nv = old ^ src
		case isa.AMOAND_D:
			nv = old & src
		case isa.AMOOR_D:
			nv = old | src
		case isa.AMOMIN_D:
			nv = uint64(min(int64(old), int64(src)))
		case isa.AMOMAX_D:
			nv = uint64(max(int64(old), int64(src)))
		case isa.AMOMINU_D:
			nv = min(old, src)
		case isa.AMOMAXU_D:
			nv = max(old, src)
		}
	}
	return nv
}
