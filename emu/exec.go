package emu

import (
	"math/bits"
	"unsafe"

	"everett/isa"
)

// exec runs ops start..n-1 of block b, whose first instruction is at
// virtual address vpc (start is 0 except where the JIT ran ops 0..start-1
// already). It returns how many instruction slots of the block were used,
// counted from op 0: ops that completed plus, if h.trapped is set, the op
// that trapped. On return h.pc is the next instruction to execute (or the
// trap handler).
//
// This is the interpreter's hot loop: registers and TLBs are reached through
// locals, each op is one case of a switch on a small integer, and the common
// path of a load or store is a TLB probe and a host memory access.
func (h *Hart) exec(b *block, vpc uint64, start, n int) int {
	ops := b.ops[:n]
	x := &h.x
	h.trapped = false
	for i := start; i < len(ops); i++ {
		o := &ops[i]
		switch o.kind {
		case isa.LUI: // lui
			x[o.rd] = uint64(o.imm)
		case isa.AUIPC: // auipc
			x[o.rd] = vpc + uint64(o.off) + uint64(o.imm)
		case isa.JAL: // jal
			pc := vpc + uint64(o.off)
			x[o.rd] = pc + uint64(o.len)
			h.pc = pc + uint64(o.imm)
			return i + 1
		case isa.JALR: // jalr
			pc := vpc + uint64(o.off)
			t := (x[o.rs1] + uint64(o.imm)) &^ 1
			x[o.rd] = pc + uint64(o.len)
			h.pc = t
			return i + 1
		case isa.BEQ:
			return h.branch(vpc, o, x[o.rs1] == x[o.rs2], i)
		case isa.BNE:
			return h.branch(vpc, o, x[o.rs1] != x[o.rs2], i)
		case isa.BLT:
			return h.branch(vpc, o, int64(x[o.rs1]) < int64(x[o.rs2]), i)
		case isa.BGE:
			return h.branch(vpc, o, int64(x[o.rs1]) >= int64(x[o.rs2]), i)
		case isa.BLTU:
			return h.branch(vpc, o, x[o.rs1] < x[o.rs2], i)
		case isa.BGEU:
			return h.branch(vpc, o, x[o.rs1] >= x[o.rs2], i)

		case isa.LB:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift {
				x[o.rd] = uint64(int64(*(*int8)(unsafe.Add(e.host, a&pageMask))))
			} else if v, ok := h.load(vpc, o, i, a, 1); ok {
				x[o.rd] = uint64(int64(int8(v)))
			} else {
				return h.ended(i)
			}
		case isa.LBU:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift {
				x[o.rd] = uint64(*(*uint8)(unsafe.Add(e.host, a&pageMask)))
			} else if v, ok := h.load(vpc, o, i, a, 1); ok {
				x[o.rd] = uint64(uint8(v))
			} else {
				return h.ended(i)
			}
		case isa.LH:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-2 {
				x[o.rd] = uint64(int64(*(*int16)(unsafe.Add(e.host, a&pageMask))))
			} else if v, ok := h.load(vpc, o, i, a, 2); ok {
				x[o.rd] = uint64(int64(int16(v)))
			} else {
				return h.ended(i)
			}
		case isa.LHU:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-2 {
				x[o.rd] = uint64(*(*uint16)(unsafe.Add(e.host, a&pageMask)))
			} else if v, ok := h.load(vpc, o, i, a, 2); ok {
				x[o.rd] = uint64(uint16(v))
			} else {
				return h.ended(i)
			}
		case isa.LW:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-4 {
				x[o.rd] = uint64(int64(*(*int32)(unsafe.Add(e.host, a&pageMask))))
			} else if v, ok := h.load(vpc, o, i, a, 4); ok {
				x[o.rd] = uint64(int64(int32(v)))
			} else {
				return h.ended(i)
			}
		case isa.LWU:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-4 {
				x[o.rd] = uint64(*(*uint32)(unsafe.Add(e.host, a&pageMask)))
			} else if v, ok := h.load(vpc, o, i, a, 4); ok {
				x[o.rd] = uint64(uint32(v))
			} else {
				return h.ended(i)
			}
		case isa.LD:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-8 {
				x[o.rd] = *(*uint64)(unsafe.Add(e.host, a&pageMask))
			} else if v, ok := h.load(vpc, o, i, a, 8); ok {
				x[o.rd] = v
			} else {
				return h.ended(i)
			}

		case isa.SB:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.stlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift {
				*(*uint8)(unsafe.Add(e.host, a&pageMask)) = uint8(x[o.rs2])
			} else if r := h.store(vpc, o, i, a, 1, x[o.rs2]); r != stOK {
				return h.afterStore(vpc, o, i, r)
			}
		case isa.SH:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.stlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-2 {
				*(*uint16)(unsafe.Add(e.host, a&pageMask)) = uint16(x[o.rs2])
			} else if r := h.store(vpc, o, i, a, 2, x[o.rs2]); r != stOK {
				return h.afterStore(vpc, o, i, r)
			}
		case isa.SW:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.stlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-4 {
				*(*uint32)(unsafe.Add(e.host, a&pageMask)) = uint32(x[o.rs2])
			} else if r := h.store(vpc, o, i, a, 4, x[o.rs2]); r != stOK {
				return h.afterStore(vpc, o, i, r)
			}
		case isa.SD:
			a := x[o.rs1] + uint64(o.imm)
			if e := &h.stlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-8 {
				*(*uint64)(unsafe.Add(e.host, a&pageMask)) = x[o.rs2]
			} else if r := h.store(vpc, o, i, a, 8, x[o.rs2]); r != stOK {
				return h.afterStore(vpc, o, i, r)
			}

		case isa.LB_AQ, isa.LH_AQ, isa.LW_AQ, isa.LD_AQ: // l{b,h,w,d}.aq (zalasr.go)
			if !h.loadAcquire(vpc, o, i) {
				return h.ended(i)
			}
		case isa.SB_RL, isa.SH_RL, isa.SW_RL, isa.SD_RL: // s{b,h,w,d}.rl
			if r := h.storeRelease(vpc, o, i); r != stOK {
				return h.afterStore(vpc, o, i, r)
			}

		case isa.ADDI:
			x[o.rd] = x[o.rs1] + uint64(o.imm)
		case isa.SLTI:
			x[o.rd] = b2u(int64(x[o.rs1]) < o.imm)
		case isa.SLTIU:
			x[o.rd] = b2u(x[o.rs1] < uint64(o.imm))
		case isa.XORI:
			x[o.rd] = x[o.rs1] ^ uint64(o.imm)
		case isa.ORI:
			x[o.rd] = x[o.rs1] | uint64(o.imm)
		case isa.ANDI:
			x[o.rd] = x[o.rs1] & uint64(o.imm)
		case isa.SLLI:
			x[o.rd] = x[o.rs1] << (o.imm & 63)
		case isa.SRLI:
			x[o.rd] = x[o.rs1] >> (o.imm & 63)
		case isa.SRAI:
			x[o.rd] = uint64(int64(x[o.rs1]) >> (o.imm & 63))
		case isa.ADD:
			x[o.rd] = x[o.rs1] + x[o.rs2]
		case isa.SUB:
			x[o.rd] = x[o.rs1] - x[o.rs2]
		case isa.SLL:
			x[o.rd] = x[o.rs1] << (x[o.rs2] & 63)
		case isa.SLT:
			x[o.rd] = b2u(int64(x[o.rs1]) < int64(x[o.rs2]))
		case isa.SLTU:
			x[o.rd] = b2u(x[o.rs1] < x[o.rs2])
		case isa.XOR:
			x[o.rd] = x[o.rs1] ^ x[o.rs2]
		case isa.SRL:
			x[o.rd] = x[o.rs1] >> (x[o.rs2] & 63)
		case isa.SRA:
			x[o.rd] = uint64(int64(x[o.rs1]) >> (x[o.rs2] & 63))
		case isa.OR:
			x[o.rd] = x[o.rs1] | x[o.rs2]
		case isa.AND:
			x[o.rd] = x[o.rs1] & x[o.rs2]
		case isa.ADDIW:
			x[o.rd] = sext32(uint32(x[o.rs1]) + uint32(o.imm))
		case isa.SLLIW:
			x[o.rd] = sext32(uint32(x[o.rs1]) << (o.imm & 31))
		case isa.SRLIW:
			x[o.rd] = sext32(uint32(x[o.rs1]) >> (o.imm & 31))
		case isa.SRAIW:
			x[o.rd] = uint64(int64(int32(x[o.rs1]) >> (o.imm & 31)))
		case isa.ADDW:
			x[o.rd] = sext32(uint32(x[o.rs1]) + uint32(x[o.rs2]))
		case isa.SUBW:
			x[o.rd] = sext32(uint32(x[o.rs1]) - uint32(x[o.rs2]))
		case isa.SLLW:
			x[o.rd] = sext32(uint32(x[o.rs1]) << (x[o.rs2] & 31))
		case isa.SRLW:
			x[o.rd] = sext32(uint32(x[o.rs1]) >> (x[o.rs2] & 31))
		case isa.SRAW:
			x[o.rd] = uint64(int64(int32(x[o.rs1]) >> (x[o.rs2] & 31)))

		case isa.MUL:
			x[o.rd] = x[o.rs1] * x[o.rs2]
		case isa.MULH:
			x[o.rd] = mulh(int64(x[o.rs1]), int64(x[o.rs2]))
		case isa.MULHSU:
			x[o.rd] = mulhsu(int64(x[o.rs1]), x[o.rs2])
		case isa.MULHU:
			hi, _ := bits.Mul64(x[o.rs1], x[o.rs2])
			x[o.rd] = hi
		case isa.DIV:
			x[o.rd] = div(x[o.rs1], x[o.rs2])
		case isa.DIVU:
			x[o.rd] = divu(x[o.rs1], x[o.rs2])
		case isa.REM:
			x[o.rd] = rem(x[o.rs1], x[o.rs2])
		case isa.REMU:
			x[o.rd] = remu(x[o.rs1], x[o.rs2])
		case isa.MULW:
			x[o.rd] = sext32(uint32(x[o.rs1]) * uint32(x[o.rs2]))
		case isa.DIVW:
			x[o.rd] = divw(x[o.rs1], x[o.rs2])
		case isa.DIVUW:
			x[o.rd] = divuw(x[o.rs1], x[o.rs2])
		case isa.REMW:
			x[o.rd] = remw(x[o.rs1], x[o.rs2])
		case isa.REMUW:
			x[o.rd] = remuw(x[o.rs1], x[o.rs2])

		case isa.FENCE:
			// One hart runs at a time and devices see memory in program
			// order: every fence is satisfied already. A fence in user
			// mode (a release store's, an acquire load's) may be a
			// preemption point.
			if h.syncAMO {
				h.pc = vpc + uint64(o.off)
				h.pos = i
				if !h.m.syncPoint(h) {
					return h.ended(i)
				}
				if h.yieldAfter {
					h.pc += uint64(o.len)
					h.preemptedAfter()
					return i + 1
				}
			}
		case isa.FENCE_I:
			// Decoded blocks are invalidated by the stores that change code,
			// so the instruction stream is always coherent; fence.i only ends
			// the block.
			h.pc = vpc + uint64(o.off) + uint64(o.len)
			return i + 1

		case isa.LR_W, isa.LR_D, isa.SC_W, isa.SC_D,
			isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
			isa.AMOMIN_W, isa.AMOMAX_W, isa.AMOMINU_W, isa.AMOMAXU_W,
			isa.AMOSWAP_D, isa.AMOADD_D, isa.AMOXOR_D, isa.AMOAND_D, isa.AMOOR_D,
			isa.AMOMIN_D, isa.AMOMAX_D, isa.AMOMINU_D, isa.AMOMAXU_D:
			h.pc = vpc + uint64(o.off)
			h.pos = i
			r := h.amo(o)
			if h.yieldAfter {
				h.preemptedAfter() // the op ran (or trapped): the hart stops now
				return i + 1
			}
			if r != stOK {
				return h.ended(i)
			}

		case isa.CSRRW, isa.CSRRS, isa.CSRRC:
			h.pc = vpc + uint64(o.off)
			h.pos = i
			if !h.csrOp(o.kind, o.csr, o.rd, x[o.rs1], o.rm != 0, o.raw) {
				return i + 1
			}
			h.pc += uint64(o.len)
			return i + 1
		case isa.CSRRWI, isa.CSRRSI, isa.CSRRCI:
			h.pc = vpc + uint64(o.off)
			h.pos = i
			if !h.csrOp(o.kind, o.csr, o.rd, uint64(o.rs1), o.rm != 0, o.raw) {
				return i + 1
			}
			h.pc += uint64(o.len)
			return i + 1

		case isa.ECALL, isa.EBREAK, isa.MRET, isa.SRET, isa.WFI, isa.SFENCE_VMA,
			isa.HYPERCALL, isa.ILLEGAL:
			h.pc = vpc + uint64(o.off)
			h.pos = i
			if h.syncAMO && o.kind == isa.ECALL && !h.m.syscallPoint(h, h.pc+uint64(o.len)) {
				return h.ended(i)
			}
			h.system(o)
			if o.kind == isa.SRET && h.m.comm.on && h.m.returnPoint(h) {
				return i + 1 // preempted on the return to user mode
			}
			return i + 1

		default:
			// F and D.
			if !h.fpEnabled() {
				h.pc = vpc + uint64(o.off)
				h.pos = i
				h.raise(CauseIllegalInst, uint64(o.raw))
				return i + 1
			}
			if !h.fp(vpc, o, i) {
				return h.ended(i)
			}
		}
	}
	if n < len(b.ops) {
		h.pc = vpc + uint64(b.ops[n].off)
	} else {
		h.pc = vpc + b.size
	}
	return n
}

func (h *Hart) branch(vpc uint64, o *op, taken bool, i int) int {
	pc := vpc + uint64(o.off)
	if taken {
		h.pc = pc + uint64(o.imm)
	} else {
		h.pc = pc + uint64(o.len)
	}
	return i + 1
}

// load is the slow path of a load op.
func (h *Hart) load(vpc uint64, o *op, i int, a uint64, size int) (uint64, bool) {
	h.pc = vpc + uint64(o.off)
	h.pos = i
	h.cut = false
	v, ok := h.loadSlow(a, size)
	if ok && (h.cut || h.yieldAfter) {
		// A device cut the turn, or the scheduler preempts the hart
		// after this load: the block ends with it.
		h.cutLoad(o, v)
		return 0, false
	}
	return v, ok
}

// cutLoad finishes load op o, which read v from a device that scheduled
// an event and so cut the hart's merged turn (merge.go): it writes the
// destination and ends the block after the op (ended counts its slot),
// so that no instruction runs past the round the event fires at.
func (h *Hart) cutLoad(o *op, v uint64) {
	if h.cut {
		h.m.cutLoads++
	}
	k := o.kind
	if isZalasr(k) {
		k = lasrPlain[k-isa.LB_AQ]
	}
	switch k {
	case isa.LB:
		h.x[o.rd] = uint64(int64(int8(v)))
	case isa.LBU:
		h.x[o.rd] = uint64(uint8(v))
	case isa.LH:
		h.x[o.rd] = uint64(int64(int16(v)))
	case isa.LHU:
		h.x[o.rd] = uint64(uint16(v))
	case isa.LW:
		h.x[o.rd] = uint64(int64(int32(v)))
	case isa.LWU:
		h.x[o.rd] = uint64(uint32(v))
	case isa.LD:
		h.x[o.rd] = v
	case isa.FLW:
		h.f[o.rd] = box(uint32(v))
		h.dirtyFP()
	case isa.FLD:
		h.f[o.rd] = v
		h.dirtyFP()
	}
	h.pc += uint64(o.len)
}

// store is the slow path of a store op.
func (h *Hart) store(vpc uint64, o *op, i int, a uint64, size int, v uint64) int {
	h.pc = vpc + uint64(o.off)
	h.pos = i
	return h.storeSlow(a, size, v)
}

// afterStore ends the block after a store whose slow path trapped or asked
// for the block to end.
func (h *Hart) afterStore(vpc uint64, o *op, i int, r int) int {
	if h.yield {
		return i // preempted before the store: it runs when the hart does
	}
	if r == stExit {
		h.pc = vpc + uint64(o.off) + uint64(o.len)
	}
	return i + 1
}

// ended is the slot count of a block that ends at op i because its slow
// path trapped (op i used a slot) or the scheduler preempted the hart
// before it (op i did not run; h.pc is its address).
func (h *Hart) ended(i int) int {
	if h.yield {
		return i
	}
	return i + 1
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func sext32(v uint32) uint64 { return uint64(int64(int32(v))) }

// M extension helpers (Unprivileged §7.2, table 7.1 for division by zero and
// overflow).

func mulh(a, b int64) uint64 {
	hi, _ := bits.Mul64(uint64(a), uint64(b))
	// Correct the unsigned high word for the signs.
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	return hi
}

func mulhsu(a int64, b uint64) uint64 {
	hi, _ := bits.Mul64(uint64(a), b)
	if a < 0 {
		hi -= b
	}
	return hi
}

func div(a, b uint64) uint64 {
	switch {
	case b == 0:
		return ^uint64(0)
	case int64(a) == -1<<63 && int64(b) == -1:
		return a
	}
	return uint64(int64(a) / int64(b))
}

func divu(a, b uint64) uint64 {
	if b == 0 {
		return ^uint64(0)
	}
	return a / b
}

func rem(a, b uint64) uint64 {
	switch {
	case b == 0:
		return a
	case int64(a) == -1<<63 && int64(b) == -1:
		return 0
	}
	return uint64(int64(a) % int64(b))
}

func remu(a, b uint64) uint64 {
	if b == 0 {
		return a
	}
	return a % b
}

func divw(a, b uint64) uint64 {
	x, y := int32(a), int32(b)
	switch {
	case y == 0:
		return ^uint64(0)
	case x == -1<<31 && y == -1:
		return uint64(int64(x))
	}
	return uint64(int64(x / y))
}

func divuw(a, b uint64) uint64 {
	x, y := uint32(a), uint32(b)
	if y == 0 {
		return ^uint64(0)
	}
	return sext32(x / y)
}

func remw(a, b uint64) uint64 {
	x, y := int32(a), int32(b)
	switch {
	case y == 0:
		return uint64(int64(x))
	case x == -1<<31 && y == -1:
		return 0
	}
	return uint64(int64(x % y))
}

func remuw(a, b uint64) uint64 {
	x, y := uint32(a), uint32(b)
	if y == 0 {
		return sext32(x)
	}
	return sext32(x % y)
}
