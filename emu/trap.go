package emu

// Traps (Privileged ISA §3.1.7-§3.1.16, §4.1.1-§4.1.9, §3.3.2).

const causeInterrupt = 1 << 63

// raise takes exception cause with trap value tval at the current pc (the
// faulting instruction). It never returns an error: a guest fault is
// architectural state.
func (h *Hart) raise(cause uint64, tval uint64) {
	h.trapped = true
	if h.w != nil && h.wmoSpecTrap() {
		return // rvwmo: a fault of a wrong guessed path is squashed with it
	}
	if h.m.trapObs != nil {
		h.observeTrap(cause, tval)
		return
	}
	h.takeTrap(cause, tval, false)
}

// takeTrap delivers a trap to M or S mode according to medeleg/mideleg.
func (h *Hart) takeTrap(cause uint64, tval uint64, interrupt bool) {
	if h.w != nil {
		h.wmoSettle() // under rvwmo: nothing pending crosses a trap
	}
	h.resValid = false
	deleg := h.csr.medeleg
	xcause := cause
	if interrupt {
		deleg = h.csr.mideleg
		xcause |= causeInterrupt
	}
	if h.priv <= PrivS && deleg>>cause&1 != 0 {
		// Trap into S-mode (§4.1.1).
		h.csr.sepc = h.pc
		h.csr.scause = xcause
		h.csr.stval = tval
		s := h.csr.mstatus
		s &^= mstatusSPIE | mstatusSPP
		if s&mstatusSIE != 0 {
			s |= mstatusSPIE
		}
		if h.priv == PrivS {
			s |= mstatusSPP
		}
		s &^= mstatusSIE
		h.csr.mstatus = s
		h.priv = PrivS
		h.pc = trapVector(h.csr.stvec, cause, interrupt)
	} else {
		h.csr.mepc = h.pc
		h.csr.mcause = xcause
		h.csr.mtval = tval
		s := h.csr.mstatus
		s &^= mstatusMPIE | mstatusMPP
		if s&mstatusMIE != 0 {
			s |= mstatusMPIE
		}
		s |= uint64(h.priv) << mstatusMPPShift
		s &^= mstatusMIE
		h.csr.mstatus = s
		h.priv = PrivM
		h.pc = trapVector(h.csr.mtvec, cause, interrupt)
	}
	h.updateMode()
}

// trapVector computes the handler address from xtvec (§3.1.7): in vectored
// mode, interrupts go to BASE+4*cause.
func trapVector(tvec, cause uint64, interrupt bool) uint64 {
	base := tvec &^ 3
	if interrupt && tvec&3 == 1 {
		return base + 4*cause
	}
	return base
}

// interruptOrder is the architected priority of simultaneous interrupts
// (§3.1.9): MEI, MSI, MTI, SEI, SSI, STI.
var interruptOrder = [...]uint64{IntMEI, IntMSI, IntMTI, IntSEI, IntSSI, IntSTI}

// pendingMIP returns mip as a CSR read sees it.
func (h *Hart) pendingMIP() uint64 { return h.csr.mip }

// interruptible reports whether checkInterrupts would take an interrupt
// now. Translated code runs only while it would not (an interrupt pending
// and enabled in mie but masked, in a handler or with SIE clear, is
// common): nothing it does changes that but an SIE set, after which it
// checks mip and mie.
func (h *Hart) interruptible() bool {
	pend := h.pendingMIP() & h.csr.mie
	if pend == 0 {
		return false
	}
	mEnabled := h.priv < PrivM || h.csr.mstatus&mstatusMIE != 0
	sEnabled := h.priv < PrivS || (h.priv == PrivS && h.csr.mstatus&mstatusSIE != 0)
	return pend&^h.csr.mideleg != 0 && mEnabled || pend&h.csr.mideleg != 0 && sEnabled
}

// checkInterrupts takes the highest-priority interrupt that is pending,
// enabled, and not masked by the current privilege level (§3.1.9). It
// reports whether one was taken.
func (h *Hart) checkInterrupts() bool {
	pend := h.pendingMIP() & h.csr.mie
	if pend == 0 {
		return false
	}
	// Interrupts for M-mode: not delegated; enabled when below M or MIE set.
	mEnabled := h.priv < PrivM || h.csr.mstatus&mstatusMIE != 0
	sEnabled := h.priv < PrivS || (h.priv == PrivS && h.csr.mstatus&mstatusSIE != 0)
	m := pend &^ h.csr.mideleg
	s := pend & h.csr.mideleg
	var take uint64
	switch {
	case m != 0 && mEnabled:
		take = m
	case s != 0 && sEnabled:
		take = s
	default:
		return false
	}
	for _, i := range interruptOrder {
		if take>>i&1 != 0 {
			if h.w != nil && h.w.spec {
				h.wmoSpecEnd(0) // rvwmo: validated before the trap records the pc
			}
			h.waiting = false
			if h.m.trapObs != nil {
				h.observeInterrupt(i)
				return true
			}
			h.takeTrap(i, 0, true)
			return true
		}
	}
	return false
}

// wakeable reports whether an interrupt would end WFI (§3.3.3): pending and
// enabled in mie, regardless of the global enables and delegation.
func (h *Hart) wakeable() bool {
	return h.pendingMIP()&h.csr.mie != 0
}

// mret returns from an M-mode trap (§3.3.2).
func (h *Hart) mret() {
	s := h.csr.mstatus
	mpp := uint8(s >> mstatusMPPShift & 3)
	s &^= mstatusMIE
	if s&mstatusMPIE != 0 {
		s |= mstatusMIE
	}
	s |= mstatusMPIE
	s &^= mstatusMPP // least-privileged supported mode: U
	if mpp != PrivM {
		s &^= mstatusMPRV
	}
	h.csr.mstatus = s
	h.priv = mpp
	h.pc = h.csr.mepc
	if mpp == PrivU {
		h.m.enteredU = true // xRET is rare: this costs the hot loop nothing
	}
	h.updateMode()
	if o := h.m.trapObs; o != nil {
		o.Return(h.ID, PrivM, mpp, h.pc)
	}
}

// sret returns from an S-mode trap (§3.3.2, §4.1.1).
func (h *Hart) sret() {
	s := h.csr.mstatus
	spp := uint8(PrivU)
	if s&mstatusSPP != 0 {
		spp = PrivS
	}
	s &^= mstatusSIE
	if s&mstatusSPIE != 0 {
		s |= mstatusSIE
	}
	s |= mstatusSPIE
	s &^= mstatusSPP
	s &^= mstatusMPRV // spp is never M
	h.csr.mstatus = s
	h.priv = spp
	h.pc = h.csr.sepc
	if spp == PrivU {
		h.m.enteredU = true
	}
	h.updateMode()
	if o := h.m.trapObs; o != nil {
		o.Return(h.ID, PrivS, spp, h.pc)
	}
}
