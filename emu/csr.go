package emu

import "everett/isa"

// CSR access (Unprivileged §9, Privileged §2, §3.1, §4.1).

// csrOp executes a Zicsr instruction. src is the rs1 value or the zimm.
// write is false for CSRRS/CSRRC with rs1=x0 (or zimm 0), which must not
// write (§9.1). It returns false after raising illegal-instruction.
func (h *Hart) csrOp(kind isa.Op, csr uint16, rd uint8, src uint64, write bool, raw uint32) bool {
	// Privilege: bits [9:8] are the lowest privilege that may access (§2.1).
	if uint8(csr>>8&3) > h.priv {
		h.raise(CauseIllegalInst, uint64(raw))
		return false
	}
	if write && csr>>10 == 3 {
		// Read-only CSR.
		h.raise(CauseIllegalInst, uint64(raw))
		return false
	}
	old, ok := h.readCSR(csr)
	if !ok {
		h.raise(CauseIllegalInst, uint64(raw))
		return false
	}
	if write {
		base := old
		if csr == isa.CSRMip {
			// Only the software-writable SEIP bit takes part in the
			// read-modify-write; the interrupt controller's signal is read
			// but never written back (Privileged ISA §3.1.9).
			base &^= MipSEIP
			if h.csr.seipSW {
				base |= MipSEIP
			}
		}
		var nv uint64
		switch kind {
		case isa.CSRRW, isa.CSRRWI:
			nv = src
		case isa.CSRRS, isa.CSRRSI:
			nv = base | src
		default:
			nv = base &^ src
		}
		if !h.writeCSR(csr, nv) {
			h.raise(CauseIllegalInst, uint64(raw))
			return false
		}
	}
	h.x[rd] = old
	return true
}

// counterAllowed applies mcounteren/scounteren to the user counters
// (§3.1.11, §4.1.5). bit is the counter's index (0 cycle, 1 time, 2 instret).
func (h *Hart) counterAllowed(bit uint) bool {
	if h.priv == PrivM {
		return true
	}
	if h.csr.mcounteren>>bit&1 == 0 {
		return false
	}
	if h.priv == PrivU && h.csr.scounteren>>bit&1 == 0 {
		return false
	}
	return true
}

func (h *Hart) fpEnabled() bool { return h.csr.mstatus&mstatusFS != 0 }

// dirtyFP marks the FP state dirty (§3.1.6.6).
func (h *Hart) dirtyFP() { h.csr.mstatus |= mstatusFS }

func (h *Hart) readMstatus() uint64 {
	s := h.csr.mstatus | mstatusXLFixed
	if s&mstatusFS == mstatusFS {
		s |= mstatusSD
	}
	return s
}

// Cycle returns mcycle. Inside a block, h.pos ops of the block have
// completed but are not yet added to steps and retired.
func (h *Hart) Cycle() uint64 { return h.cnt.steps + uint64(h.pos) + h.cnt.cycleOff }

// Instret returns minstret.
func (h *Hart) Instret() uint64 { return h.cnt.retired + uint64(h.pos) + h.cnt.instretOff }

// readCSR returns a CSR's value, or ok=false if it does not exist or may not
// be read here (illegal instruction).
func (h *Hart) readCSR(csr uint16) (uint64, bool) {
	switch csr {
	case isa.CSRFflags:
		if !h.fpEnabled() {
			return 0, false
		}
		return h.csr.fflags, true
	case isa.CSRFrm:
		if !h.fpEnabled() {
			return 0, false
		}
		return h.csr.frm, true
	case isa.CSRFcsr:
		if !h.fpEnabled() {
			return 0, false
		}
		return h.csr.frm<<5 | h.csr.fflags, true
	case isa.CSRCycle:
		if !h.counterAllowed(0) {
			return 0, false
		}
		return h.Cycle(), true
	case isa.CSRTime:
		if !h.counterAllowed(1) {
			return 0, false
		}
		return h.m.mtime(), true
	case isa.CSRInstret:
		if !h.counterAllowed(2) {
			return 0, false
		}
		return h.Instret(), true

	case isa.CSRSstatus:
		return h.readMstatus() & sstatusReadable, true
	case isa.CSRSie:
		return h.csr.mie & h.csr.mideleg, true
	case isa.CSRStvec:
		return h.csr.stvec, true
	case isa.CSRScounteren:
		return h.csr.scounteren, true
	case isa.CSRSenvcfg:
		return 0, true
	case isa.CSRSscratch:
		return h.csr.sscratch, true
	case isa.CSRSepc:
		return h.csr.sepc, true
	case isa.CSRScause:
		return h.csr.scause, true
	case isa.CSRStval:
		return h.csr.stval, true
	case isa.CSRSip:
		return h.pendingMIP() & h.csr.mideleg, true
	case isa.CSRSatp:
		if h.priv == PrivS && h.csr.mstatus&mstatusTVM != 0 {
			return 0, false
		}
		return h.csr.satp, true

	case isa.CSRMvendorid, isa.CSRMarchid, isa.CSRMimpid, isa.CSRMconfigptr:
		return 0, true
	case isa.CSRMhartid:
		return uint64(h.ID), true
	case isa.CSRMstatus:
		return h.readMstatus(), true
	case isa.CSRMisa:
		return misaValue, true
	case isa.CSRMedeleg:
		return h.csr.medeleg, true
	case isa.CSRMideleg:
		return h.csr.mideleg, true
	case isa.CSRMie:
		return h.csr.mie, true
	case isa.CSRMtvec:
		return h.csr.mtvec, true
	case isa.CSRMcounteren:
		return h.csr.mcounteren, true
	case isa.CSRMenvcfg, isa.CSRMcountinhibit:
		return 0, true
	case isa.CSRMscratch:
		return h.csr.mscratch, true
	case isa.CSRMepc:
		return h.csr.mepc, true
	case isa.CSRMcause:
		return h.csr.mcause, true
	case isa.CSRMtval:
		return h.csr.mtval, true
	case isa.CSRMip:
		return h.pendingMIP(), true
	case isa.CSRMtinst, isa.CSRMtval2:
		return 0, true
	case isa.CSRMcycle:
		return h.Cycle(), true
	case isa.CSRMinstret:
		return h.Instret(), true
	case isa.CSRTselect, isa.CSRTdata1, isa.CSRTdata2, isa.CSRTdata3:
		// No triggers: tdata1 reads type 0 ("no trigger"), writes are ignored.
		return 0, true
	}
	switch {
	case csr >= isa.CSRPmpcfg0 && csr <= isa.CSRPmpcfg0+15:
		i := csr - isa.CSRPmpcfg0
		if i&1 != 0 {
			return 0, false // odd pmpcfg registers do not exist on RV64 (§3.7.1)
		}
		if i/2 < uint16(len(h.csr.pmpcfg)) {
			return h.csr.pmpcfg[i/2], true
		}
		return 0, true
	case csr >= isa.CSRPmpaddr0 && csr <= isa.CSRPmpaddr0+63:
		i := csr - isa.CSRPmpaddr0
		if int(i) < len(h.csr.pmpaddr) {
			return h.csr.pmpaddr[i], true
		}
		return 0, true
	case csr >= isa.CSRMhpmcounter3 && csr <= isa.CSRMhpmcounter3+28,
		csr >= isa.CSRMhpmevent3 && csr <= isa.CSRMhpmevent3+28:
		return 0, true
	case csr >= isa.CSRHpmcounter3 && csr <= isa.CSRHpmcounter3+28:
		if !h.counterAllowed(uint(csr - isa.CSRCycle)) {
			return 0, false
		}
		return 0, true
	}
	return 0, false
}

// writeCSR writes a CSR with its WARL rules. The CSR exists (readCSR said
// so). It returns false when the write itself is illegal.
func (h *Hart) writeCSR(csr uint16, v uint64) bool {
	switch csr {
	case isa.CSRFflags:
		h.csr.fflags = v & 0x1f
		h.dirtyFP()
	case isa.CSRFrm:
		h.csr.frm = v & 7
		h.dirtyFP()
	case isa.CSRFcsr:
		h.csr.fflags = v & 0x1f
		h.csr.frm = v >> 5 & 7
		h.dirtyFP()

	case isa.CSRSstatus:
		h.setMstatus(h.csr.mstatus&^sstatusWritable | v&sstatusWritable)
	case isa.CSRSie:
		h.csr.mie = h.csr.mie&^h.csr.mideleg | v&h.csr.mideleg
	case isa.CSRStvec:
		h.csr.stvec = legalTvec(h.csr.stvec, v)
	case isa.CSRScounteren:
		h.csr.scounteren = v & 0xffffffff
	case isa.CSRSenvcfg:
	case isa.CSRSscratch:
		h.csr.sscratch = v
	case isa.CSRSepc:
		h.csr.sepc = v &^ 1
	case isa.CSRScause:
		h.csr.scause = v
	case isa.CSRStval:
		h.csr.stval = v
	case isa.CSRSip:
		// Only SSIP is writable from S-mode, and only if delegated (§4.1.3).
		mask := uint64(MipSSIP) & h.csr.mideleg
		h.csr.mip = h.csr.mip&^mask | v&mask
	case isa.CSRSatp:
		if h.priv == PrivS && h.csr.mstatus&mstatusTVM != 0 {
			return false
		}
		h.writeSatp(v)

	case isa.CSRMstatus:
		h.setMstatus(v)
	case isa.CSRMisa:
		// WARL: the extensions are fixed.
	case isa.CSRMedeleg:
		// ecall from M-mode cannot be delegated (§3.1.8).
		h.csr.medeleg = v & 0xb3ff
	case isa.CSRMideleg:
		h.csr.mideleg = v & (MipSSIP | MipSTIP | MipSEIP)
	case isa.CSRMie:
		h.csr.mie = v & (MipSSIP | MipMSIP | MipSTIP | MipMTIP | MipSEIP | MipMEIP)
	case isa.CSRMtvec:
		h.csr.mtvec = legalTvec(h.csr.mtvec, v)
	case isa.CSRMcounteren:
		h.csr.mcounteren = v & 0xffffffff
	case isa.CSRMenvcfg, isa.CSRMcountinhibit:
	case isa.CSRMscratch:
		h.csr.mscratch = v
	case isa.CSRMepc:
		h.csr.mepc = v &^ 1
	case isa.CSRMcause:
		h.csr.mcause = v
	case isa.CSRMtval:
		h.csr.mtval = v
	case isa.CSRMip:
		mask := uint64(MipSSIP | MipSTIP)
		h.csr.mip = h.csr.mip&^mask | v&mask
		h.csr.seipSW = v&MipSEIP != 0
		h.updateSEIP()
	case isa.CSRMtinst, isa.CSRMtval2:
	case isa.CSRMcycle:
		// The write replaces this instruction's increment (Unprivileged §9.1).
		h.cnt.cycleOff = v - (h.cnt.steps + uint64(h.pos)) - 1
	case isa.CSRMinstret:
		h.cnt.instretOff = v - (h.cnt.retired + uint64(h.pos)) - 1
	case isa.CSRTselect, isa.CSRTdata1, isa.CSRTdata2, isa.CSRTdata3:
	default:
		switch {
		case csr >= isa.CSRPmpcfg0 && csr <= isa.CSRPmpcfg0+15:
			i := (csr - isa.CSRPmpcfg0) / 2
			if int(i) < len(h.csr.pmpcfg) {
				h.csr.pmpcfg[i] = legalPmpcfg(h.csr.pmpcfg[i], v)
			}
		case csr >= isa.CSRPmpaddr0 && csr <= isa.CSRPmpaddr0+63:
			i := csr - isa.CSRPmpaddr0
			if int(i) < len(h.csr.pmpaddr) && !h.pmpLocked(int(i)) {
				h.csr.pmpaddr[i] = v & (1<<54 - 1)
			}
		}
	}
	return true
}

// legalTvec keeps xtvec's MODE at 0 (direct) or 1 (vectored); reserved
// modes leave the register unchanged (WARL, §3.1.7).
func legalTvec(old, v uint64) uint64 {
	if v&3 >= 2 {
		return old
	}
	return v
}

// setMstatus writes mstatus's writable fields; MPP=2 (reserved) keeps the
// old MPP (WARL).
func (h *Hart) setMstatus(v uint64) {
	old := h.csr.mstatus
	nv := old&^mstatusWritable | v&mstatusWritable
	if nv>>mstatusMPPShift&3 == 2 {
		nv = nv&^mstatusMPP | old&mstatusMPP
	}
	h.csr.mstatus = nv
	// MXR changes what a load may read through every set: flush. MPRV,
	// MPP and SUM only choose the set data accesses use (updateMode).
	if (old^nv)&mstatusMXR != 0 {
		h.flushTLB()
	}
	if (old^nv)&(mstatusMPRV|mstatusMPP|mstatusSUM|mstatusMXR) != 0 {
		h.updateMode()
	}
}

// writeSatp accepts Bare, Sv39 and Sv48; a write with any other MODE has no
// effect (§4.1.11). The ASID field has all 16 bits (ASIDLEN 16: Linux
// finds them by writing ones and reading back). The TLBs keep translations
// per ASID (RATIONALE.md, "Why ASIDs?"): a write that changes the ASID
// (and the root table with it, as a switch of address space does) keeps
// the global translations and every ASID's jump-cache entries; one that
// changes the mode or the root table under the same ASID flushes
// everything, as a write always did before ASIDs, since a guest that does
// not use ASIDs may not fence after it; a write of the same value changes
// nothing.
func (h *Hart) writeSatp(v uint64) {
	switch v >> 60 {
	case satpBare, satpSv39, satpSv48:
	default:
		return
	}
	// ASID is 16 bits; PPN 44 bits.
	old := h.csr.satp
	h.csr.satp = v & (0xf<<60 | 0xffff<<44 | (1<<44 - 1))
	switch {
	case h.csr.satp == old:
	case (h.csr.satp^old)>>44&0xffff != 0:
		h.switchASID()
	default:
		h.flushTLB()
	}
}

// pmpLocked reports whether PMP entry i is locked (§3.7.1), which also locks
// pmpaddr i-1 when entry i is TOR.
func (h *Hart) pmpLocked(i int) bool {
	cfg := func(j int) uint8 { return uint8(h.csr.pmpcfg[j/8] >> (8 * (j % 8))) }
	if cfg(i)&0x80 != 0 {
		return true
	}
	if i+1 < 16 {
		c := cfg(i + 1)
		if c&0x80 != 0 && c>>3&3 == 1 {
			return true
		}
	}
	return false
}

// legalPmpcfg applies the WARL rules to one pmpcfg register of 8 entries:
// locked entries keep their value; W=1,R=0 is reserved and reads back as 0.
func legalPmpcfg(old, v uint64) uint64 {
	var out uint64
	for i := 0; i < 8; i++ {
		o := uint8(old >> (8 * i))
		n := uint8(v >> (8 * i))
		if o&0x80 != 0 {
			n = o
		} else {
			n &= 0x9f
			if n&3 == 2 {
				n &^= 3
			}
		}
		out |= uint64(n) << (8 * i)
	}
	return out
}
