package emu

import (
	"unsafe"

	sf "everett/emu/internal/softfloat"
	"everett/isa"
)

// F and D execution (Unprivileged §11, §12). Arithmetic is bit-exact through
// package softfloat; this file handles NaN-boxing, rounding-mode resolution,
// fflags accrual and FS dirty tracking.

const boxMask = 0xffffffff_00000000

// unbox reads a single-precision operand: a value not properly NaN-boxed is
// the canonical NaN (§12.2).
func unbox(v uint64) uint32 {
	if v&boxMask != boxMask {
		return sf.CanonicalNaN32
	}
	return uint32(v)
}

func box(v uint32) uint64 { return boxMask | uint64(v) }

// fp executes one F or D op. It returns false when the block must end now
// (a trap was raised, or a store had side effects); h.pc is then set.
func (h *Hart) fp(vpc uint64, o *op, i int) bool {
	x, f := &h.x, &h.f
	rm := o.rm
	if usesRM(o.kind) && rm == isa.DYN {
		rm = uint8(h.csr.frm)
		if rm > isa.RMM {
			h.pc = vpc + uint64(o.off)
			h.pos = i
			h.raise(CauseIllegalInst, uint64(o.raw))
			return false
		}
	}
	var fl sf.Flags
	switch o.kind {
	case isa.FLW, isa.FLD:
		size := 4
		if o.kind == isa.FLD {
			size = 8
		}
		a := x[o.rs1] + uint64(o.imm)
		var v uint64
		if e := &h.ltlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-uint64(size) {
			v = readLE(unsafeBytes(e.host, a&pageMask, size), size)
		} else {
			var ok bool
			if v, ok = h.load(vpc, o, i, a, size); !ok {
				return false
			}
		}
		if size == 4 {
			v = box(uint32(v))
		}
		f[o.rd] = v
		h.dirtyFP()
		return true
	case isa.FSW, isa.FSD:
		size := 4
		if o.kind == isa.FSD {
			size = 8
		}
		a := x[o.rs1] + uint64(o.imm)
		v := f[o.rs2]
		if e := &h.stlb[a>>pageShift&tlbMask]; e.tag == a>>pageShift && a&pageMask <= pageSize-uint64(size) {
			writeLE(unsafeBytes(e.host, a&pageMask, size), size, v)
			return true
		}
		if r := h.store(vpc, o, i, a, size, v); r != stOK {
			if r == stExit {
				// Devices may have changed state: end the block here.
				h.pc = vpc + uint64(o.off) + uint64(o.len)
			}
			return false
		}
		return true

	// Single precision.
	case isa.FMADD_S:
		f[o.rd], fl = boxed(sf.F32MulAdd(unbox(f[o.rs1]), unbox(f[o.rs2]), unbox(f[o.rs3]), rm))
	case isa.FMSUB_S:
		f[o.rd], fl = boxed(sf.F32MulAdd(unbox(f[o.rs1]), unbox(f[o.rs2]), unbox(f[o.rs3])^1<<31, rm))
	case isa.FNMSUB_S:
		f[o.rd], fl = boxed(sf.F32MulAdd(unbox(f[o.rs1])^1<<31, unbox(f[o.rs2]), unbox(f[o.rs3]), rm))
	case isa.FNMADD_S:
		f[o.rd], fl = boxed(sf.F32MulAdd(unbox(f[o.rs1])^1<<31, unbox(f[o.rs2]), unbox(f[o.rs3])^1<<31, rm))
	case isa.FADD_S:
		f[o.rd], fl = boxed(sf.F32Add(unbox(f[o.rs1]), unbox(f[o.rs2]), rm))
	case isa.FSUB_S:
		f[o.rd], fl = boxed(sf.F32Sub(unbox(f[o.rs1]), unbox(f[o.rs2]), rm))
	case isa.FMUL_S:
		f[o.rd], fl = boxed(sf.F32Mul(unbox(f[o.rs1]), unbox(f[o.rs2]), rm))
	case isa.FDIV_S:
		f[o.rd], fl = boxed(sf.F32Div(unbox(f[o.rs1]), unbox(f[o.rs2]), rm))
	case isa.FSQRT_S:
		f[o.rd], fl = boxed(sf.F32Sqrt(unbox(f[o.rs1]), rm))
	case isa.FSGNJ_S:
		a, b := unbox(f[o.rs1]), unbox(f[o.rs2])
		f[o.rd] = box(a&^(1<<31) | b&(1<<31))
	case isa.FSGNJN_S:
		a, b := unbox(f[o.rs1]), unbox(f[o.rs2])
		f[o.rd] = box(a&^(1<<31) | ^b&(1<<31))
	case isa.FSGNJX_S:
		a, b := unbox(f[o.rs1]), unbox(f[o.rs2])
		f[o.rd] = box(a ^ b&(1<<31))
	case isa.FMIN_S:
		f[o.rd], fl = boxed(sf.F32Min(unbox(f[o.rs1]), unbox(f[o.rs2])))
	case isa.FMAX_S:
		f[o.rd], fl = boxed(sf.F32Max(unbox(f[o.rs1]), unbox(f[o.rs2])))
	case isa.FCVT_W_S:
		var v int64
		v, fl = sf.F32ToI32(unbox(f[o.rs1]), rm)
		x[o.rd] = uint64(v)
		return h.fpFlagsOnly(fl)
	case isa.FCVT_WU_S:
		x[o.rd], fl = sf.F32ToU32(unbox(f[o.rs1]), rm)
		return h.fpFlagsOnly(fl)
	case isa.FCVT_L_S:
		var v int64
		v, fl = sf.F32ToI64(unbox(f[o.rs1]), rm)
		x[o.rd] = uint64(v)
		return h.fpFlagsOnly(fl)
	case isa.FCVT_LU_S:
		x[o.rd], fl = sf.F32ToU64(unbox(f[o.rs1]), rm)
		return h.fpFlagsOnly(fl)
	case isa.FMV_X_W:
		x[o.rd] = sext32(uint32(f[o.rs1]))
		return true
	case isa.FEQ_S:
		var r bool
		r, fl = sf.F32Eq(unbox(f[o.rs1]), unbox(f[o.rs2]))
		x[o.rd] = b2u(r)
		return h.fpFlagsOnly(fl)
	case isa.FLT_S:
		var r bool
		r, fl = sf.F32Lt(unbox(f[o.rs1]), unbox(f[o.rs2]))
		x[o.rd] = b2u(r)
		return h.fpFlagsOnly(fl)
	case isa.FLE_S:
		var r bool
		r, fl = sf.F32Le(unbox(f[o.rs1]), unbox(f[o.rs2]))
		x[o.rd] = b2u(r)
		return h.fpFlagsOnly(fl)
	case isa.FCLASS_S:
		x[o.rd] = sf.F32Class(unbox(f[o.rs1]))
		return true
	case isa.FCVT_S_W:
		f[o.rd], fl = boxed(sf.I32ToF32(int32(x[o.rs1]), rm))
	case isa.FCVT_S_WU:
		f[o.rd], fl = boxed(sf.U32ToF32(uint32(x[o.rs1]), rm))
	case isa.FCVT_S_L:
		f[o.rd], fl = boxed(sf.I64ToF32(int64(x[o.rs1]), rm))
	case isa.FCVT_S_LU:
		f[o.rd], fl = boxed(sf.U64ToF32(x[o.rs1], rm))
	case isa.FMV_W_X:
		f[o.rd] = box(uint32(x[o.rs1]))

	// Double precision.
	case isa.FMADD_D:
		f[o.rd], fl = sf.F64MulAdd(f[o.rs1], f[o.rs2], f[o.rs3], rm)
	case isa.FMSUB_D:
		f[o.rd], fl = sf.F64MulAdd(f[o.rs1], f[o.rs2], f[o.rs3]^1<<63, rm)
	case isa.FNMSUB_D:
		f[o.rd], fl = sf.F64MulAdd(f[o.rs1]^1<<63, f[o.rs2], f[o.rs3], rm)
	case isa.FNMADD_D:
		f[o.rd], fl = sf.F64MulAdd(f[o.rs1]^1<<63, f[o.rs2], f[o.rs3]^1<<63, rm)
	case isa.FADD_D:
		f[o.rd], fl = sf.F64Add(f[o.rs1], f[o.rs2], rm)
	case isa.FSUB_D:
		f[o.rd], fl = sf.F64Sub(f[o.rs1], f[o.rs2], rm)
	case isa.FMUL_D:
		f[o.rd], fl = sf.F64Mul(f[o.rs1], f[o.rs2], rm)
	case isa.FDIV_D:
		f[o.rd], fl = sf.F64Div(f[o.rs1], f[o.rs2], rm)
	case isa.FSQRT_D:
		f[o.rd], fl = sf.F64Sqrt(f[o.rs1], rm)
	case isa.FSGNJ_D:
		f[o.rd] = f[o.rs1]&^(1<<63) | f[o.rs2]&(1<<63)
	case isa.FSGNJN_D:
		f[o.rd] = f[o.rs1]&^(1<<63) | ^f[o.rs2]&(1<<63)
	case isa.FSGNJX_D:
		f[o.rd] = f[o.rs1] ^ f[o.rs2]&(1<<63)
	case isa.FMIN_D:
		f[o.rd], fl = sf.F64Min(f[o.rs1], f[o.rs2])
	case isa.FMAX_D:
		f[o.rd], fl = sf.F64Max(f[o.rs1], f[o.rs2])
	case isa.FCVT_S_D:
		f[o.rd], fl = boxed(sf.F64ToF32(f[o.rs1], rm))
	case isa.FCVT_D_S:
		f[o.rd], fl = sf.F32ToF64(unbox(f[o.rs1]))
	case isa.FEQ_D:
		var r bool
		r, fl = sf.F64Eq(f[o.rs1], f[o.rs2])
		x[o.rd] = b2u(r)
		return h.fpFlagsOnly(fl)
	case isa.FLT_D:
		var r bool
		r, fl = sf.F64Lt(f[o.rs1], f[o.rs2])
		x[o.rd] = b2u(r)
		return h.fpFlagsOnly(fl)
	case isa.FLE_D:
		var r bool
		r, fl = sf.F64Le(f[o.rs1], f[o.rs2])
		x[o.rd] = b2u(r)
		return h.fpFlagsOnly(fl)
	case isa.FCLASS_D:
		x[o.rd] = sf.F64Class(f[o.rs1])
		return true
	case isa.FCVT_W_D:
		var v int64
		v, fl = sf.F64ToI32(f[o.rs1], rm)
		x[o.rd] = uint64(v)
		return h.fpFlagsOnly(fl)
	case isa.FCVT_WU_D:
		x[o.rd], fl = sf.F64ToU32(f[o.rs1], rm)
		return h.fpFlagsOnly(fl)
	case isa.FCVT_L_D:
		var v int64
		v, fl = sf.F64ToI64(f[o.rs1], rm)
		x[o.rd] = uint64(v)
		return h.fpFlagsOnly(fl)
	case isa.FCVT_LU_D:
		x[o.rd], fl = sf.F64ToU64(f[o.rs1], rm)
		return h.fpFlagsOnly(fl)
	case isa.FMV_X_D:
		x[o.rd] = f[o.rs1]
		return true
	case isa.FCVT_D_W:
		f[o.rd], fl = sf.I32ToF64(int32(x[o.rs1]), rm)
	case isa.FCVT_D_WU:
		f[o.rd], fl = sf.U32ToF64(uint32(x[o.rs1]), rm)
	case isa.FCVT_D_L:
		f[o.rd], fl = sf.I64ToF64(int64(x[o.rs1]), rm)
	case isa.FCVT_D_LU:
		f[o.rd], fl = sf.U64ToF64(x[o.rs1], rm)
	case isa.FMV_D_X:
		f[o.rd] = x[o.rs1]
	default:
		h.pc = vpc + uint64(o.off)
		h.pos = i
		h.raise(CauseIllegalInst, uint64(o.raw))
		return false
	}
	// An FP register was written.
	h.csr.fflags |= uint64(fl)
	h.dirtyFP()
	return true
}

// fpFlagsOnly accrues flags of an op that writes an integer register.
func (h *Hart) fpFlagsOnly(fl sf.Flags) bool {
	if fl != 0 {
		h.csr.fflags |= uint64(fl)
		h.dirtyFP()
	}
	return true
}

func boxed(v uint32, fl sf.Flags) (uint64, sf.Flags) { return box(v), fl }

// unsafeBytes views size bytes at host address p+off.
func unsafeBytes(p unsafe.Pointer, off uint64, size int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(p, off)), size)
}
