package emu

import "everett/isa"

// Why translated code returned to the run loop, and why the run loop ran
// a block in the interpreter instead of entering host code: host
// bookkeeping (JITStats.Exits), in no hash or report. A mid-block exit is
// named by the op it stopped before; a boundary exit by what the run loop
// finds for the next pc.
const (
	// Boundary exits: before the block at pc.
	ExitBudget       = iota // the budget (slice end: round, event, stall) does not cover the next block
	ExitJumpCache           // the next pc is not in the jump cache for the current context
	ExitNotHot              // the next block is in the jump cache but has no host code
	ExitCoverageRoom        // no room for first touches of edge slots
	ExitInterrupt           // after a CSR write, an interrupt is pending and enabled in mie
	// Mid-block exits: before op k.
	ExitMMIO    // a load or store, and the interpreter's run of the block's rest accessed a device
	ExitMemory  // a load or store without device access: a TLB miss, an ownership change, a watched line
	ExitCSR     // a CSR op the translator does not handle, or one whose write it leaves (sstatus)
	ExitECALL   // ecall or ebreak
	ExitXRET    // sret or mret
	ExitWFI     // wfi
	ExitSFENCE  // sfence.vma or fence.i
	ExitAMO     // an atomic the translator leaves (or one whose access misses)
	ExitFP      // a floating-point op the translator leaves
	ExitOtherOp // any other op
	// Blocks the run loop ran in the interpreter.
	InterpNotHot    // the block has no host code
	InterpBudget    // the budget does not cover the block
	InterpInterrupt // an interrupt is pending and enabled
	NumExitCauses
)

// ExitCauseName names an exit cause for the engine statistics.
func ExitCauseName(c int) string {
	switch c {
	case ExitBudget:
		return "boundary: budget"
	case ExitJumpCache:
		return "boundary: jump-cache miss"
	case ExitNotHot:
		return "boundary: next block not translated"
	case ExitCoverageRoom:
		return "boundary: coverage room"
	case ExitInterrupt:
		return "boundary: interrupt check after a CSR write"
	case ExitMMIO:
		return "mid: load/store to a device"
	case ExitMemory:
		return "mid: load/store (TLB miss, ownership)"
	case ExitCSR:
		return "mid: csr"
	case ExitECALL:
		return "mid: ecall/ebreak"
	case ExitXRET:
		return "mid: sret/mret"
	case ExitWFI:
		return "mid: wfi"
	case ExitSFENCE:
		return "mid: sfence.vma/fence.i"
	case ExitAMO:
		return "mid: amo"
	case ExitFP:
		return "mid: fp"
	case ExitOtherOp:
		return "mid: other op"
	case InterpNotHot:
		return "interp block: not translated"
	case InterpBudget:
		return "interp block: budget"
	case InterpInterrupt:
		return "interp block: interrupt pending"
	}
	return "unknown"
}

// midExitCause classifies a mid-block exit before op o; mmio says the
// interpreter's run of the rest of the block accessed a device.
func midExitCause(o *op, mmio bool) int {
	k := o.kind
	switch {
	case isAMO(k):
		return ExitAMO
	case isMemOp(k):
		if mmio {
			return ExitMMIO
		}
		return ExitMemory
	}
	switch k {
	case isa.CSRRW, isa.CSRRS, isa.CSRRC, isa.CSRRWI, isa.CSRRSI, isa.CSRRCI:
		return ExitCSR
	case isa.ECALL, isa.EBREAK:
		return ExitECALL
	case isa.SRET, isa.MRET:
		return ExitXRET
	case isa.WFI:
		return ExitWFI
	case isa.SFENCE_VMA, isa.FENCE_I:
		return ExitSFENCE
	}
	if isFP(k) {
		return ExitFP
	}
	return ExitOtherOp
}

// isMemOp reports whether k is a load or store (integer or FP, not an AMO).
func isMemOp(k isa.Op) bool {
	switch k {
	case isa.LB, isa.LH, isa.LW, isa.LD, isa.LBU, isa.LHU, isa.LWU,
		isa.SB, isa.SH, isa.SW, isa.SD, isa.FLW, isa.FLD, isa.FSW, isa.FSD:
		return true
	}
	return false
}
