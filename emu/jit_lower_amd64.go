//go:build linux && amd64

package emu

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"everett/isa"
)

// Lowering decoded blocks to amd64. Guest registers live in the Hart (h.x
// and h.f), except that a region keeps up to five of its most used integer
// registers (len(cacheRegs)) in host registers while it runs (assignRegs);
// every FP register stays in h.f. The host registers below hold what
// stays constant while translated code runs.
const (
	rH   = r15 // *Hart
	rJC  = rbx // &h.c.jc[0]
	rLT  = r13 // h.ltlb: the load TLB in use
	rST  = r12 // h.stlb: the store TLB in use
	rRem = r11 // instruction slots left in the budget
	rPC  = r10 // virtual pc of the current block
)

// Offsets translated code uses: in the Hart, its jitState, the jump cache,
// blocks and TLB entries.
const (
	offX          = int32(unsafe.Offsetof(Hart{}.x))
	offCSR        = int32(unsafe.Offsetof(Hart{}.csr))
	offCtx        = int32(unsafe.Offsetof(Hart{}.jctx) + unsafe.Offsetof(jumpContexts{}.ctx))
	offF          = int32(unsafe.Offsetof(Hart{}.f))
	offMstatus    = offCSR + int32(unsafe.Offsetof(csrFile{}.mstatus))
	offPriv       = int32(unsafe.Offsetof(Hart{}.priv))
	offMip        = offCSR + int32(unsafe.Offsetof(csrFile{}.mip))
	offMie        = offCSR + int32(unsafe.Offsetof(csrFile{}.mie))
	offMideleg    = offCSR + int32(unsafe.Offsetof(csrFile{}.mideleg))
	offSeipSW     = offCSR + int32(unsafe.Offsetof(csrFile{}.seipSW))
	offSeipLine   = offCSR + int32(unsafe.Offsetof(csrFile{}.seipLine))
	offMcounteren = offCSR + int32(unsafe.Offsetof(csrFile{}.mcounteren))
	offScounteren = offCSR + int32(unsafe.Offsetof(csrFile{}.scounteren))
	offJTimeEnd   = offJ + int32(unsafe.Offsetof(jitState{}.timeEnd))
	offJTicks     = offJ + int32(unsafe.Offsetof(jitState{}.ticks))
	offJMtimeOff  = offJ + int32(unsafe.Offsetof(jitState{}.mtimeOff))
	offFrm        = offCSR + int32(unsafe.Offsetof(csrFile{}.frm))
	offJMXCSR     = offJ + int32(unsafe.Offsetof(jitState{}.mxcsr))
	offJMXIn      = offJ + int32(unsafe.Offsetof(jitState{}.mxcsrIn))
	offJTmp       = offJ + int32(unsafe.Offsetof(jitState{}.tmp))
	offCovPrev    = int32(unsafe.Offsetof(Hart{}.covPrev))
	offC          = int32(unsafe.Offsetof(Hart{}.c))
	offLTLB       = int32(unsafe.Offsetof(Hart{}.ltlb))
	offSTLB       = int32(unsafe.Offsetof(Hart{}.stlb))
	offJ          = int32(unsafe.Offsetof(Hart{}.j))
	offJPC        = offJ + int32(unsafe.Offsetof(jitState{}.pc))
	offJRem       = offJ + int32(unsafe.Offsetof(jitState{}.rem))
	offJK         = offJ + int32(unsafe.Offsetof(jitState{}.k))
	offJReason    = offJ + int32(unsafe.Offsetof(jitState{}.reason))
	offJCov       = offJ + int32(unsafe.Offsetof(jitState{}.cov))
	offJCovLo     = offJ + int32(unsafe.Offsetof(jitState{}.covLo))
	offJCovSp     = offJ + int32(unsafe.Offsetof(jitState{}.covSpan))
	offJCovMsk    = offJ + int32(unsafe.Offsetof(jitState{}.covMask))
	offJCovHlf    = offJ + int32(unsafe.Offsetof(jitState{}.covHalf))
	offJSeen      = offJ + int32(unsafe.Offsetof(jitState{}.seen))
	offJNew       = offJ + int32(unsafe.Offsetof(jitState{}.newEdges))
	offJNT        = offJ + int32(unsafe.Offsetof(jitState{}.nTouched))
	offCTouch     = int32(unsafe.Offsetof(hartCaches{}.touched)) - offJC // from rJC
	offJBTop      = offJ + int32(unsafe.Offsetof(jitState{}.bucketTop))
	offJTmp2      = offJ + int32(unsafe.Offsetof(jitState{}.tmp2))
	offJC         = int32(unsafe.Offsetof(hartCaches{}.jc))
	jcEntBytes    = int32(unsafe.Sizeof(jcEntry{}))
	tlbEntSize    = int32(unsafe.Sizeof(tlbEntry{}))
	offTLBAdd     = int32(unsafe.Offsetof(tlbEntry{}.addend))
	offTLBPPN     = int32(unsafe.Offsetof(tlbEntry{}.ppn))
	offTLBHost    = int32(unsafe.Offsetof(tlbEntry{}.host))
	offJFine      = offJ + int32(unsafe.Offsetof(jitState{}.fine))
	offCommMe     = int32(unsafe.Offsetof(Hart{}.commMe))
	offCommBit    = int32(unsafe.Offsetof(Hart{}.commBit))
	offCommOthers = int32(unsafe.Offsetof(Hart{}.commOthers))
	offLineWriter = int32(unsafe.Offsetof(commPage{}.writer))
	offLineReads  = int32(unsafe.Offsetof(commPage{}.readers))
	offResVal     = int32(unsafe.Offsetof(Hart{}.resValid))
	offSyncAMO    = int32(unsafe.Offsetof(Hart{}.syncAMO))
	offResAddr    = int32(unsafe.Offsetof(Hart{}.resAddr))
	offJCCtx      = int32(unsafe.Offsetof(jcEntry{}.ctx))
	offJCJit      = int32(unsafe.Offsetof(jcEntry{}.jit))
	offID         = int32(unsafe.Offsetof(Hart{}.ID))
	offTLBs       = int32(unsafe.Offsetof(hartCaches{}.tlbs))
	tlbSetBytes   = int32(unsafe.Sizeof(tlbSet{}))
	offTLBLoad    = int32(unsafe.Offsetof(tlbSet{}.load))
	offTLBStore   = int32(unsafe.Offsetof(tlbSet{}.store))
)

func init() {
	// The lowering scales jump-cache and TLB indices by 32: keep the
	// structs that size.
	if jcEntBytes != 32 || tlbEntSize != 32 || unsafe.Offsetof(jcEntry{}.pc) != 0 || unsafe.Offsetof(tlbEntry{}.tag) != 0 {
		panic("emu: jcEntry or tlbEntry layout changed; update jit_lower_amd64.go")
	}
	// fineStub scales a line's page offset (a multiple of 64) by half.
	if unsafe.Sizeof(commPage{}) != 1<<(lineShift-1) {
		panic("emu: commPage layout changed; update fineStub")
	}
}

// xm is the memory operand of guest register i.
func xm(i uint8) mem { return at(rH, offX+8*int32(i)) }

// fm is the memory operand of FP register i.
func fm(i uint8) mem { return at(rH, offF+8*int32(i)) }

// jitOp reports whether the translator handles op o; a block is
// translated up to its first op that is not.
func jitOp(o *op) bool {
	switch o.kind {
	case isa.LUI, isa.AUIPC, isa.JAL, isa.JALR,
		isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU,
		isa.LB, isa.LBU, isa.LH, isa.LHU, isa.LW, isa.LWU, isa.LD,
		isa.SB, isa.SH, isa.SW, isa.SD,
		isa.ADDI, isa.SLTI, isa.SLTIU, isa.XORI, isa.ORI, isa.ANDI,
		isa.SLLI, isa.SRLI, isa.SRAI,
		isa.ADD, isa.SUB, isa.SLL, isa.SLT, isa.SLTU, isa.XOR, isa.SRL, isa.SRA, isa.OR, isa.AND,
		isa.ADDIW, isa.SLLIW, isa.SRLIW, isa.SRAIW,
		isa.ADDW, isa.SUBW, isa.SLLW, isa.SRLW, isa.SRAW,
		isa.MUL, isa.MULH, isa.MULHSU, isa.MULHU, isa.DIV, isa.DIVU, isa.REM, isa.REMU,
		isa.MULW, isa.DIVW, isa.DIVUW, isa.REMW, isa.REMUW,
		isa.FENCE,
		isa.FLD, isa.FSD, isa.FLW, isa.FSW, isa.FSGNJ_D, isa.FSGNJN_D, isa.FSGNJX_D,
		isa.FMV_D_X, isa.FMV_X_D, isa.FCVT_D_W, isa.FCVT_D_WU:
		return true // the conversions from 32 bits are exact in every rounding mode
	case isa.FCVT_D_L:
		return o.rm == isa.RNE || o.rm == isa.DYN
	case isa.LR_W, isa.LR_D, isa.SC_W, isa.SC_D,
		isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
		isa.AMOSWAP_D, isa.AMOADD_D, isa.AMOXOR_D, isa.AMOAND_D, isa.AMOOR_D:
		return true
	case isa.FADD_D, isa.FSUB_D, isa.FMUL_D, isa.FDIV_D, isa.FSQRT_D:
		return o.rm == isa.RNE || o.rm == isa.DYN
	case isa.FMADD_D, isa.FMSUB_D, isa.FNMSUB_D, isa.FNMADD_D:
		return cpu.X86.HasFMA && (o.rm == isa.RNE || o.rm == isa.DYN)
	case isa.CSRRW, isa.CSRRWI, isa.CSRRS, isa.CSRRC, isa.CSRRSI, isa.CSRRCI:
		_, plain := plainCSRs[o.csr]
		switch o.csr {
		case isa.CSRSstatus:
			return true
		case isa.CSRTime, isa.CSRMhartid:
			return o.rm == 0 && o.kind != isa.CSRRW && o.kind != isa.CSRRWI
		case isa.CSRMstatus:
			return true
		case isa.CSRSie, isa.CSRMie, isa.CSRMip:
			return true
		}
		return plain
	}
	return false
}

// plainCSRs are the CSRs that are one field of the hart, read as they are
// and written with at most bit 0 cleared (Hart.readCSR, writeCSR): the
// scratch, epc, cause and tval registers trap entries and exits read and
// write one after another. The value is the field's offset.
var plainCSRs = map[uint16]int32{
	isa.CSRSscratch: offCSR + int32(unsafe.Offsetof(csrFile{}.sscratch)),
	isa.CSRSepc:     offCSR + int32(unsafe.Offsetof(csrFile{}.sepc)),
	isa.CSRScause:   offCSR + int32(unsafe.Offsetof(csrFile{}.scause)),
	isa.CSRStval:    offCSR + int32(unsafe.Offsetof(csrFile{}.stval)),
	isa.CSRMscratch: offCSR + int32(unsafe.Offsetof(csrFile{}.mscratch)),
	isa.CSRMepc:     offCSR + int32(unsafe.Offsetof(csrFile{}.mepc)),
	isa.CSRMcause:   offCSR + int32(unsafe.Offsetof(csrFile{}.mcause)),
	isa.CSRMtval:    offCSR + int32(unsafe.Offsetof(csrFile{}.mtval)),
}

// lowering is the state of one translation: a region of decoded blocks
// in one page, starting at its head (see jitRegion).
type lowering struct {
	a       emitter
	members []*block
	offs    []uint64 // page offset of each member
	entries []*label // chain entry of each member
	cur     uint64   // page offset of the member being lowered
	mi      int      // its index in members
	curOps  int32    // ops in the member being lowered
	exitB   *label   // boundary exit: nothing of the block at rPC has run
	exitM   *label   // mid-block exit: ecx holds k
	misses  []miss
	covs    []covCall // out-of-line coverage calls, emitted after the members
	cold    []func()  // other out-of-line code, emitted after them
	chainL  *label    // the chain sequence (chainBody), if any exit needs it

	host       [256]reg // host register caching each guest register, or 0
	cachedList []uint8  // the cached guest registers
	dirtyList  []uint8  // those the region writes
}

// theLowering is reused by every translation (they run under the arena's
// lock), its slices' room included.
var theLowering lowering

// emitBuf is reused by every translation (they run under the arena's
// lock): the code is copied into the arena when placed.
var emitBuf = make([]byte, 0, 64<<10)

// miss is an out-of-line exit before op k (a TLB miss).
type miss struct {
	l *label
	k int
}

// missExit returns the label of a new out-of-line exit before op k.
func (l *lowering) missExit(k int) *label {
	ms := miss{l: newLabel(), k: k}
	l.misses = append(l.misses, ms)
	return ms.l
}

// jitPrefix is the number of leading ops of b the translator handles.
func jitPrefix(b *block) int {
	if k := b.jitOps.Load(); k != 0 {
		return int(k - 1)
	}
	n := 0
	for n < len(b.ops) && jitOp(&b.ops[n]) {
		n++
	}
	b.jitOps.Store(uint32(n + 1)) // every machine computes the same
	return n
}

// translateRegion returns the host code of a region (members[0] is its
// head; offs their page offsets) and the offset of its run-loop entry.
//
// Layout, for each member: its chain entry (budget check, coverage), for
// the head the run-loop entry (budget taken), the ops, the member's end (a
// direct jump to another member, a chain through the jump cache, or a
// mid-block exit before the first op left to the interpreter). Then the
// out-of-line exits.
func translateRegion(members []*block, offs []uint64) (code []byte, goOff int) {
	freeLabels()
	l := &theLowering
	*l = lowering{members: members, offs: offs, exitB: newLabel(), exitM: newLabel(),
		entries: l.entries[:0], misses: l.misses[:0], covs: l.covs[:0], cold: l.cold[:0],
		cachedList: l.cachedList[:0], dirtyList: l.dirtyList[:0]}
	l.a.Code = emitBuf[:0]
	defer func() {
		emitBuf = l.a.Code[:0]
		clear(l.cold) // keep nothing alive
		l.members, l.offs = nil, nil
	}()
	for range members {
		l.entries = append(l.entries, newLabel())
	}
	a := &l.a
	l.assignRegs()
	l.loadCached() // the chain entry
	post := newLabel()
	for mi, b := range members {
		l.cur, l.mi = offs[mi], mi
		n := jitPrefix(b)
		size := int32(len(b.ops))
		l.curOps = size
		a.Bind(l.entries[mi])
		a.ALURI(aluCmp, rRem, size)
		a.Jcc(ccB, l.exitB)
		l.coverage()
		if mi == 0 {
			a.Bind(post)
		}
		a.ALURI(aluSub, rRem, size)
		ended := false
		for i := 0; i < n; i++ {
			ended = l.op(&b.ops[i], i)
		}
		if !ended {
			if n < len(b.ops) {
				a.MovImm(rcx, int64(n))
				a.Jmp(l.exitM)
			} else {
				l.jumpTo(int64(b.size), true)
			}
		}
	}
	for _, c := range l.covs {
		l.covCall(c)
	}
	for _, c := range l.cold {
		c()
	}
	for _, ms := range l.misses {
		a.Bind(ms.l)
		a.MovImm(rcx, int64(ms.k))
		a.Jmp(l.exitM)
	}
	// The run-loop entry: the run loop checked the budget and counted
	// coverage.
	goOff = len(a.Code)
	l.loadCached()
	a.Jmp(post)
	// Exits: store the state the run loop reads and return to jitCall.
	a.Bind(l.exitB)
	a.Zero(rcx)
	a.MovImm(rax, jitExitBoundary)
	done := newLabel()
	a.Jmp(done)
	a.Bind(l.exitM)
	a.MovImm(rax, jitExitMid)
	a.Bind(done)
	l.writeBack()
	a.Store64(at(rH, offJPC), rPC)
	a.Store64(at(rH, offJRem), rRem)
	a.Store64(at(rH, offJReason), rax)
	a.Store64(at(rH, offJK), rcx)
	a.MXCSR(3, at(rH, offJMXCSR))
	a.Ret()
	return a.Code, goOff
}

// member returns the index of the region member at page offset off, or -1.
func (l *lowering) member(off int64) int {
	for i, o := range l.offs {
		if int64(o) == off {
			return i
		}
	}
	return -1
}

// jumpTo moves rPC by delta (from the current member's start) and goes
// there: directly if a member starts there, else through the jump cache.
// last says that nothing of the current member follows, so that a jump to
// the next member, whose entry comes next, is left out.
func (l *lowering) jumpTo(delta int64, last bool) {
	if delta != 0 {
		l.a.ALURI(aluAdd, rPC, int32(delta))
	}
	if mi := l.member(int64(l.cur) + delta); mi >= 0 {
		if !last || mi != l.mi+1 {
			l.a.Jmp(l.entries[mi])
		}
		return
	}
	l.chain()
}

// coverage counts the edge into the block at rPC, as runSlice does, if the
// machine collects coverage: a compare on the hot path, then, out of line,
// a call of the arena's one coverage stub (covStub), which leaves ZF clear
// when the block must leave at the boundary instead. One shared copy keeps
// the instruction cache for the guest's code: inline, the count and its
// bucket bookkeeping were most of a translation's bytes, and every block
// ran its own copy.
func (l *lowering) coverage() {
	a := &l.a
	skip := newLabel()
	body := newLabel()
	a.ALUMI(aluCmp, at(rH, offJCov), 0)
	a.Jcc(ccNE, body)
	a.Bind(skip)
	l.covs = append(l.covs, covCall{body: body, skip: skip})
}

// covCall is one out-of-line call of the coverage stub: from body, back
// to skip.
type covCall struct{ body, skip *label }

func (l *lowering) covCall(c covCall) {
	a := &l.a
	a.Bind(c.body)
	a.MovImm(rax, int64(arena.cov))
	a.CallR(rax)
	a.Jcc(ccNE, l.exitB)
	a.Jmp(c.skip)
}

// covStub emits the coverage stub: it counts the edge into the block at
// rPC if rPC is in the covered range. A count that reaches a new bucket is
// recorded as Coverage.bucketEdge would (see jitState); when the room for
// first touches is full, it returns with ZF clear and nothing written, and
// the caller leaves at the boundary. Otherwise it returns with ZF set. It
// uses rax, rcx and rdx only (the others may cache guest registers) and
// needs rH and rJC.
func covStub(a *emitter) {
	done, exit := newLabel(), newLabel()
	commit := newLabel()
	a.MovRR(rax, rPC)
	a.ALURM(aluSub, rax, at(rH, offJCovLo))
	a.ALURM(aluCmp, rax, at(rH, offJCovSp))
	a.Jcc(ccAE, done)
	a.MovRR(rax, rPC)
	a.ShiftRI(shiftShr, rax, 1)
	a.MovImm(rcx, 0x9e3779b1)
	a.ImulRR(rax, rcx) // cur
	a.MovRR(rdx, rax)
	a.ALURM(aluXor, rdx, at(rH, offCovPrev))
	a.ALURM(aluAnd, rdx, at(rH, offJCovMsk))
	a.ALURM(aluAdd, rdx, at(rH, offJCovHlf)) // the slot
	a.ShiftRI(shiftShr, rax, 1)
	a.Store64(at(rH, offJTmp), rax) // the next covPrev
	a.ALURM(aluAdd, rdx, at(rH, offJCov))
	a.LoadU8(rax, at(rdx, 0))
	a.ALURI(aluCmp, rax, 255)
	a.Jcc(ccE, commit)
	a.Lea(rcx, at(rax, 1))
	bucket, store := newLabel(), newLabel()
	a.TestRR(rcx, rax)
	a.Jcc(ccE, bucket) // a power of two: a bucket's first count
	a.ALURI(aluCmp, rcx, 3)
	a.Jcc(ccE, bucket)
	a.Bind(store)
	a.Store8(at(rdx, 0), rcx)
	a.Bind(commit)
	a.Load64(rax, at(rH, offJTmp))
	a.Store64(at(rH, offCovPrev), rax)
	a.Bind(done)
	a.ALURR(aluXor, rax, rax) // ZF set: go on
	a.Ret()
	a.Bind(exit)
	a.MovImm(rax, 1)
	a.TestRR(rax, rax) // ZF clear: leave at the boundary
	a.Ret()
	covBucket(a, bucket, store, exit)
}

// covBucket records the count in rcx (a bucket's first count), of the slot
// at rdx, then goes to store; it goes to exit, with nothing written, when
// there is no room for a first touch.
func covBucket(a *emitter, bucket, store, exit *label) {
	a.Bind(bucket)
	a.ALURI(aluCmp, rcx, 64)
	a.Jcc(ccE, store) // inside the 32-127 bucket
	a.Store64(at(rH, offJTmp2), rcx)
	touched, done := newLabel(), newLabel()
	a.ALURI(aluCmp, rcx, 1)
	a.Jcc(ccNE, touched)
	a.Load64(rcx, at(rH, offJNT))
	a.ALURI(aluCmp, rcx, jitTouched)
	a.Jcc(ccAE, exit)
	a.MovRR(rax, rdx)
	a.ALURM(aluSub, rax, at(rH, offJCov)) // the slot's index
	a.Store32(atIdx(rJC, rcx, 4, offCTouch), rax)
	a.ALURI(aluAdd, rcx, 1)
	a.Store64(at(rH, offJNT), rcx)
	a.Bind(touched)
	a.Load64(rax, at(rH, offJSeen))
	a.TestRR(rax, rax)
	a.Jcc(ccE, done)
	a.ALURM(aluSub, rax, at(rH, offJCov))
	a.ALURR(aluAdd, rax, rdx)
	a.LoadU8(rax, at(rax, 0)) // the bucket seen, plus one
	a.LoadU8(rax, atIdx(rH, rax, 1, offJBTop))
	a.ALURM(aluCmp, rax, at(rH, offJTmp2))
	a.Jcc(ccAE, done)
	a.ALUMI(aluAdd, at(rH, offJNew), 1) // a new bucket
	a.Bind(done)
	a.Load64(rcx, at(rH, offJTmp2))
	a.Jmp(store)
}

// chain jumps to the translation of the block at rPC if the jump cache
// holds it for the current context, else leaves at the boundary.
func (l *lowering) chain() {
	if l.chainL == nil {
		l.chainL = newLabel()
		l.cold = append(l.cold, l.chainBody)
	}
	l.a.Jmp(l.chainL)
}

// chainBody is the one chain sequence of a translation, out of line.
func (l *lowering) chainBody() {
	a := &l.a
	a.Bind(l.chainL)
	way1, hit := newLabel(), newLabel()
	a.MovRR(rax, rPC)
	a.ShiftRI(shiftShr, rax, 1)
	a.ALURI32(aluAnd, rax, jcSetMask)
	a.ShiftRI32(shiftShl, rax, 6) // the set's way 0: two entries of 32 bytes
	a.ALURM(aluCmp, rPC, atIdx(rJC, rax, 1, 0))
	a.Jcc(ccNE, way1)
	a.Load64(rcx, atIdx(rJC, rax, 1, offJCCtx))
	a.ALURM(aluCmp, rcx, at(rH, offCtx))
	a.Jcc(ccE, hit)
	a.Bind(way1)
	a.ALURI(aluAdd, rax, jcEntBytes)
	a.ALURM(aluCmp, rPC, atIdx(rJC, rax, 1, 0))
	a.Jcc(ccNE, l.exitB)
	a.Load64(rcx, atIdx(rJC, rax, 1, offJCCtx))
	a.ALURM(aluCmp, rcx, at(rH, offCtx))
	a.Jcc(ccNE, l.exitB)
	a.Bind(hit)
	a.Load64(rcx, atIdx(rJC, rax, 1, offJCJit))
	a.TestRR(rcx, rcx)
	a.Jcc(ccE, l.exitB)
	l.writeBack()
	a.JmpR(rcx)
}

// Guest register caching. A region keeps its most used integer registers
// in host registers from its entry to its exits: loaded at the head's
// entries, written back at every exit and before chaining to another
// translation. Everything else lives in h.x.
var cacheRegs = [...]reg{rsi, rdi, r8, r9, r14}

// assignRegs picks the guest registers the region caches: the most used,
// if used at least twice.
func (l *lowering) assignRegs() {
	var uses [32]int
	loops := l.inLoops()
	for mi, b := range l.members {
		w := 1
		if loops&(1<<mi) != 0 {
			w = loopWeight
		}
		n := jitPrefix(b)
		for i := 0; i < n; i++ {
			o := &b.ops[i]
			for _, r := range opRegs(o) {
				if r != 0 && r < 32 {
					uses[r] += w
				}
			}
		}
	}
	var written [32]bool
	for _, b := range l.members {
		n := jitPrefix(b)
		for i := 0; i < n; i++ {
			if o := &b.ops[i]; writesX(o.kind) && o.rd < 32 {
				written[o.rd] = true
			}
		}
	}
	for k := range cacheRegs {
		best, bestN := 0, 1
		for r := 1; r < 32; r++ {
			if uses[r] > bestN {
				best, bestN = r, uses[r]
			}
		}
		if best == 0 {
			break
		}
		uses[best] = 0
		l.host[best] = cacheRegs[k]
		l.cachedList = append(l.cachedList, uint8(best))
		if written[best] {
			l.dirtyList = append(l.dirtyList, uint8(best))
		}
	}
}

// loopWeight is how much more a use counts, when assignRegs picks the
// registers to cache, in a member on a loop of the region than elsewhere:
// a loop body runs many times for each run of the code around it (the
// CPU benchmark's integer loop kept its accumulator in memory when every
// use counted alike, since the region's other members used other
// registers more).
const loopWeight = 16

// inLoops returns the members (bit i: member i) on a cycle of the region's
// static edges (staticNext between members): a function of the region's
// bytes alone, as the translation must be.
func (l *lowering) inLoops() uint64 {
	n := len(l.members)
	var next [jitRegionBlocks]uint64
	for i, b := range l.members {
		for _, d := range staticNext(b, jitPrefix(b)) {
			if j := l.member(int64(l.offs[i]) + d); j >= 0 {
				next[i] |= 1 << j
			}
		}
	}
	// reach[i]: the members reachable from i in one or more steps.
	reach := next
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			r := reach[i]
			for j := 0; j < n; j++ {
				if r&(1<<j) != 0 {
					r |= reach[j]
				}
			}
			if r != reach[i] {
				reach[i], changed = r, true
			}
		}
	}
	var loops uint64
	for i := 0; i < n; i++ {
		if reach[i]&(1<<i) != 0 {
			loops |= 1 << i
		}
	}
	return loops
}

// opRegs lists the integer registers op o reads or writes.
func opRegs(o *op) []uint8 {
	switch o.kind {
	case isa.LUI, isa.AUIPC, isa.JAL:
		return []uint8{o.rd}
	case isa.FLD, isa.FLW, isa.FSD, isa.FSW, isa.FMV_D_X, isa.FCVT_D_W, isa.FCVT_D_WU, isa.FCVT_D_L:
		return []uint8{o.rs1}
	case isa.FMV_X_D:
		return []uint8{o.rd}
	case isa.FSGNJ_D, isa.FSGNJN_D, isa.FSGNJX_D, isa.FADD_D, isa.FSUB_D, isa.FMUL_D,
		isa.FDIV_D, isa.FSQRT_D, isa.FMADD_D, isa.FMSUB_D, isa.FNMSUB_D, isa.FNMADD_D, isa.FENCE:
		return nil
	case isa.SB, isa.SH, isa.SW, isa.SD, isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU:
		return []uint8{o.rs1, o.rs2}
	}
	return []uint8{o.rd, o.rs1, o.rs2}
}

// loadCached loads every cached guest register into its host register.
func (l *lowering) loadCached() {
	for _, r := range l.cachedList {
		l.a.Load64(l.host[r], xm(r))
	}
}

// writeBack stores every cached guest register the region writes to h.x.
func (l *lowering) writeBack() {
	for _, r := range l.dirtyList {
		l.a.Store64(xm(r), l.host[r])
	}
}

// getX reads guest register r into dst.
func (l *lowering) getX(dst reg, r uint8) {
	if h := l.host[r]; h != 0 && r != 0 {
		if h != dst {
			l.a.MovRR(dst, h)
		}
		return
	}
	l.a.Load64(dst, xm(r))
}

// aluX: dst op= guest register r.
func (l *lowering) aluX(op aluOp, dst reg, r uint8) {
	if h := l.host[r]; h != 0 && r != 0 {
		l.a.ALURR(op, dst, h)
		return
	}
	l.a.ALURM(op, dst, xm(r))
}

// aluX32: dst32 op= guest register r (low 32 bits).
func (l *lowering) aluX32(op aluOp, dst reg, r uint8) {
	if h := l.host[r]; h != 0 && r != 0 {
		l.a.ALURR32(op, dst, h)
		return
	}
	l.a.ALURM32(op, dst, xm(r))
}

// setX writes src to guest register rd (nothing for x0).
func (l *lowering) setX(rd uint8, src reg) {
	if rd == regSink {
		return
	}
	if h := l.host[rd]; h != 0 {
		if h != src {
			l.a.MovRR(h, src)
		}
		return
	}
	l.a.Store64(xm(rd), src)
}

// setXImm writes a constant to guest register rd.
func (l *lowering) setXImm(rd uint8, v int64) {
	if rd == regSink {
		return
	}
	if h := l.host[rd]; h != 0 {
		l.a.MovImm(h, v)
		return
	}
	if v >= -1<<31 && v < 1<<31 {
		l.a.StoreMI(xm(rd), int32(v))
		return
	}
	l.a.MovImm(rax, v)
	l.a.Store64(xm(rd), rax)
}

var (
	branchCond = map[isa.Op]cond{isa.BEQ: ccE, isa.BNE: ccNE, isa.BLT: ccL, isa.BGE: ccGE, isa.BLTU: ccB, isa.BGEU: ccAE}
	immALU     = map[isa.Op]aluOp{isa.ADDI: aluAdd, isa.XORI: aluXor, isa.ORI: aluOr, isa.ANDI: aluAnd}
	regALU     = map[isa.Op]aluOp{isa.ADD: aluAdd, isa.SUB: aluSub, isa.XOR: aluXor, isa.OR: aluOr, isa.AND: aluAnd}
	shifts     = map[isa.Op]shiftOp{isa.SLLI: shiftShl, isa.SRLI: shiftShr, isa.SRAI: shiftSar,
		isa.SLL: shiftShl, isa.SRL: shiftShr, isa.SRA: shiftSar,
		isa.SLLW: shiftShl, isa.SRLW: shiftShr, isa.SRAW: shiftSar,
		isa.SLLIW: shiftShl, isa.SRLIW: shiftShr, isa.SRAIW: shiftSar}
	loadSize  = map[isa.Op]int{isa.LB: 1, isa.LBU: 1, isa.LH: 2, isa.LHU: 2, isa.LW: 4, isa.LWU: 4, isa.LD: 8}
	storeSize = map[isa.Op]int{isa.SB: 1, isa.SH: 2, isa.SW: 4, isa.SD: 8}
	fmaOp     = map[isa.Op]byte{isa.FMADD_D: 0xa9, isa.FMSUB_D: 0xab, isa.FNMSUB_D: 0xad, isa.FNMADD_D: 0xaf}
	sseOp     = map[isa.Op]byte{isa.FADD_D: 0x58, isa.FSUB_D: 0x5c, isa.FMUL_D: 0x59, isa.FDIV_D: 0x5e}
)

// onlyWritesX reports whether op kind k (one jitOp handles) does nothing
// but write integer register rd: then a write to x0 is no op at all.
func onlyWritesX(k isa.Op) bool {
	switch k {
	case isa.JAL, isa.JALR, isa.LB, isa.LBU, isa.LH, isa.LHU, isa.LW, isa.LWU, isa.LD,
		isa.CSRRW, isa.CSRRS, isa.CSRRC, isa.CSRRWI, isa.CSRRSI, isa.CSRRCI:
		return false
	}
	return writesX(k) && !isFP(k) && !isAMO(k)
}

// op lowers one op; it reports whether it ended the block (a control
// transfer, which chains).
func (l *lowering) op(o *op, i int) bool {
	a := &l.a
	pcOff := int64(o.off)
	if o.rd == regSink && onlyWritesX(o.kind) {
		return false // a write to x0 with no other effect
	}
	switch o.kind {
	case isa.LUI:
		l.setXImm(o.rd, o.imm)
	case isa.AUIPC:
		if o.rd != regSink {
			a.MovImm(rax, pcOff+o.imm)
			a.ALURR(aluAdd, rax, rPC)
			l.setX(o.rd, rax)
		}
	case isa.JAL:
		if o.rd != regSink {
			a.Lea(rax, at(rPC, int32(pcOff)+int32(o.len)))
			l.setX(o.rd, rax)
		}
		l.jumpTo(pcOff+o.imm, true)
		return true
	case isa.JALR:
		l.getX(rax, o.rs1)
		a.ALURI(aluAdd, rax, int32(o.imm))
		a.ALURI(aluAnd, rax, -2)
		if o.rd != regSink {
			a.Lea(rcx, at(rPC, int32(pcOff)+int32(o.len)))
			l.setX(o.rd, rcx)
		}
		a.MovRR(rPC, rax)
		l.chain()
		return true
	case isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU:
		other := newLabel()
		l.getX(rax, o.rs1)
		l.aluX(aluCmp, rax, o.rs2)
		// The fall-through first, the taken path at other; but if the
		// fall-through is the next member, it goes last, so that it needs
		// no jump, and the jump to other is on the opposite condition.
		cc, first, second := branchCond[o.kind], pcOff+int64(o.len), pcOff+o.imm
		if l.member(int64(l.cur)+first) == l.mi+1 {
			cc, first, second = cc^1, second, first
		}
		a.Jcc(cc, other)
		l.jumpTo(first, false)
		a.Bind(other)
		l.jumpTo(second, true)
		return true

	case isa.LB, isa.LBU, isa.LH, isa.LHU, isa.LW, isa.LWU, isa.LD:
		l.load(o, i)
	case isa.SB, isa.SH, isa.SW, isa.SD:
		l.store(o, i)

	case isa.ADDI, isa.XORI, isa.ORI, isa.ANDI:
		op := immALU[o.kind]
		if o.rs1 == 0 {
			v := o.imm // x0 op imm
			if o.kind == isa.ANDI {
				v = 0
			}
			l.setXImm(o.rd, v)
			break
		}
		if o.rd == o.rs1 {
			if h := l.host[o.rd]; h != 0 {
				a.ALURI(op, h, int32(o.imm))
			} else {
				a.ALUMI(op, xm(o.rd), int32(o.imm))
			}
			break
		}
		l.getX(rax, o.rs1)
		a.ALURI(op, rax, int32(o.imm))
		l.setX(o.rd, rax)
	case isa.SLTI, isa.SLTIU, isa.SLT, isa.SLTU:
		c := ccL
		if o.kind == isa.SLTIU || o.kind == isa.SLTU {
			c = ccB
		}
		a.Zero(rdx)
		l.getX(rax, o.rs1)
		if o.kind == isa.SLTI || o.kind == isa.SLTIU {
			a.ALURI(aluCmp, rax, int32(o.imm))
		} else {
			l.aluX(aluCmp, rax, o.rs2)
		}
		a.Setcc(c, rdx)
		l.setX(o.rd, rdx)
	case isa.SLLI, isa.SRLI, isa.SRAI:
		l.getX(rax, o.rs1)
		a.ShiftRI(shifts[o.kind], rax, uint8(o.imm&63))
		l.setX(o.rd, rax)
	case isa.ADD, isa.SUB, isa.XOR, isa.OR, isa.AND:
		op := regALU[o.kind]
		if jitOpMutant != nil {
			op = regALU[jitOpMutant(o, l.host[o.rd] != 0)]
		}
		if o.rd == o.rs1 && o.rs2 != o.rd {
			if h := l.host[o.rd]; h != 0 {
				l.aluX(op, h, o.rs2)
				break
			}
			l.getX(rax, o.rs2)
			a.ALUMR(op, xm(o.rd), rax)
			break
		}
		l.getX(rax, o.rs1)
		l.aluX(op, rax, o.rs2)
		l.setX(o.rd, rax)
	case isa.SLL, isa.SRL, isa.SRA, isa.SLLW, isa.SRLW, isa.SRAW:
		w := o.kind == isa.SLL || o.kind == isa.SRL || o.kind == isa.SRA
		l.getX(rcx, o.rs2)
		l.getX(rax, o.rs1)
		a.ShiftRCL(w, shifts[o.kind], rax)
		if !w {
			a.Movsxd(rax, rax)
		}
		l.setX(o.rd, rax)
	case isa.ADDIW:
		l.getX(rax, o.rs1)
		a.ALURI32(aluAdd, rax, int32(o.imm))
		a.Movsxd(rax, rax)
		l.setX(o.rd, rax)
	case isa.SLLIW, isa.SRLIW, isa.SRAIW:
		l.getX(rax, o.rs1)
		a.ShiftRI32(shifts[o.kind], rax, uint8(o.imm&31))
		a.Movsxd(rax, rax)
		l.setX(o.rd, rax)
	case isa.ADDW, isa.SUBW:
		op := aluAdd
		if o.kind == isa.SUBW {
			op = aluSub
		}
		l.getX(rax, o.rs1)
		l.aluX32(op, rax, o.rs2)
		a.Movsxd(rax, rax)
		l.setX(o.rd, rax)
	case isa.MUL, isa.MULW:
		l.getX(rax, o.rs1)
		l.getX(rcx, o.rs2)
		if o.kind == isa.MUL {
			a.ImulRR(rax, rcx)
		} else {
			a.ImulRR32(rax, rcx)
			a.Movsxd(rax, rax)
		}
		l.setX(o.rd, rax)
	case isa.MULH, isa.MULHU:
		l.getX(rax, o.rs1)
		l.getX(rcx, o.rs2)
		if o.kind == isa.MULH {
			a.UnaryR(true, 5, rcx) // imul: rdx:rax = rax * rcx, signed
		} else {
			a.UnaryR(true, 4, rcx) // mul: unsigned
		}
		l.setX(o.rd, rdx)
	case isa.MULHSU:
		// The unsigned high word, less rs2 when rs1 is negative.
		l.getX(rax, o.rs1)
		l.getX(rcx, o.rs2)
		a.UnaryR(true, 4, rcx)
		l.getX(rax, o.rs1)
		a.ShiftRI(shiftSar, rax, 63)
		a.ALURR(aluAnd, rax, rcx)
		a.ALURR(aluSub, rdx, rax)
		l.setX(o.rd, rdx)
	case isa.DIV, isa.DIVU, isa.REM, isa.REMU, isa.DIVW, isa.DIVUW, isa.REMW, isa.REMUW:
		l.div(o)
	case isa.LR_W, isa.LR_D, isa.SC_W, isa.SC_D,
		isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
		isa.AMOSWAP_D, isa.AMOADD_D, isa.AMOXOR_D, isa.AMOAND_D, isa.AMOOR_D:
		l.amo(o, i)
	case isa.FENCE:
		// As in exec: one hart runs at a time, in program order; a
		// preemption point leaves to exec.
		l.a.CmpMI8(at(rH, offSyncAMO), 0)
		l.a.Jcc(ccNE, l.missExit(i))
	case isa.CSRRW, isa.CSRRS, isa.CSRRC, isa.CSRRWI, isa.CSRRSI, isa.CSRRCI:
		switch o.csr {
		case isa.CSRSstatus:
			l.sstatus(o, i)
		case isa.CSRTime:
			l.time(o, i)
		case isa.CSRMhartid:
			l.machineRead(o, i)
		case isa.CSRMstatus:
			if o.rm == 0 && o.kind != isa.CSRRW && o.kind != isa.CSRRWI {
				l.machineRead(o, i)
			} else {
				l.mstatusWrite(o, i)
			}
		case isa.CSRSie, isa.CSRMie, isa.CSRMip:
			l.interruptCSR(o, i)
		default:
			l.plainCSR(o, i)
		}
	case isa.FLD, isa.FLW, isa.FSD, isa.FSW, isa.FSGNJ_D, isa.FSGNJN_D, isa.FSGNJX_D,
		isa.FADD_D, isa.FSUB_D, isa.FMUL_D, isa.FDIV_D, isa.FSQRT_D,
		isa.FMADD_D, isa.FMSUB_D, isa.FNMSUB_D, isa.FNMADD_D,
		isa.FMV_D_X, isa.FMV_X_D, isa.FCVT_D_W, isa.FCVT_D_WU, isa.FCVT_D_L:
		l.fp(o, i)
	default:
		panic("jit: lowering an op jitOp refuses")
	}
	return false
}

// div lowers the M extension's divisions with their defined results for a
// zero divisor and for overflow (Unprivileged §7.2, table 7.1), so that the
// host never divides by zero or overflows (#DE).
func (l *lowering) div(o *op) {
	a := &l.a
	w := o.kind == isa.DIV || o.kind == isa.DIVU || o.kind == isa.REM || o.kind == isa.REMU
	signed := o.kind == isa.DIV || o.kind == isa.REM || o.kind == isa.DIVW || o.kind == isa.REMW
	isRem := o.kind == isa.REM || o.kind == isa.REMU || o.kind == isa.REMW || o.kind == isa.REMUW
	store := newLabel()
	normal := newLabel()
	l.getX(rax, o.rs1)
	l.getX(rcx, o.rs2)
	if w {
		a.TestRR(rcx, rcx)
	} else {
		a.TestRR32(rcx, rcx)
	}
	a.Jcc(ccNE, normal)
	// Divisor zero: quotient all ones, remainder the dividend.
	if !isRem {
		a.MovImm(rax, -1)
	} else if !w {
		a.Movsxd(rax, rax)
	}
	a.Jmp(store)
	a.Bind(normal)
	if signed {
		// Divisor -1: the quotient is the negated dividend (which wraps for
		// the most negative one, the defined overflow result) and the
		// remainder 0.
		div := newLabel()
		a.ALURIW(w, aluCmp, rcx, -1)
		a.Jcc(ccNE, div)
		if isRem {
			a.Zero(rax)
		} else {
			a.UnaryR(w, 3, rax) // neg
			if !w {
				a.Movsxd(rax, rax)
			}
		}
		a.Jmp(store)
		a.Bind(div)
		a.Cqo(w)
		a.UnaryR(w, 7, rcx) // idiv
	} else {
		a.Zero(rdx)
		a.UnaryR(w, 6, rcx) // div
	}
	if isRem {
		a.MovRR(rax, rdx)
	}
	if !w {
		a.Movsxd(rax, rax)
	}
	a.Bind(store)
	l.setX(o.rd, rax)
}

// tlbProbe turns the guest address in rax into the host address of the
// access, or jumps to the op's miss exit: the TLB probe of exec's fast
// path. Comparing the tag with the page of the access's last byte also
// sends accesses that cross the page to the slow path, as exec does. A
// miss first calls, out of line, the line check of a page tracked by line
// (fineStub); tlb is rLT or rST, and says which access it is.
func (l *lowering) tlbProbe(tlb reg, size int, k int) {
	a := &l.a
	leave := l.missExit(k)
	fine, hit := newLabel(), newLabel()
	tlbIndex(a)
	if size == 1 {
		a.MovRR(rdx, rax)
	} else {
		a.Lea(rdx, at(rax, int32(size-1)))
	}
	a.ShiftRI(shiftShr, rdx, pageShift)
	a.ALURM(aluCmp, rdx, atIdx(tlb, rcx, 1, 0))
	a.Jcc(ccNE, fine)
	a.Bind(hit)
	a.ALURM(aluAdd, rax, atIdx(tlb, rcx, 1, offTLBAdd))
	stub := offJFine
	if tlb == rST {
		stub += 8
	}
	l.cold = append(l.cold, func() {
		a.Bind(fine)
		a.CallM(at(rH, stub))
		a.Jcc(ccNE, leave)
		a.Jmp(hit)
	})
}

// tlbIndex sets rcx to the byte offset of the TLB entry of the address in
// rax.
func tlbIndex(a *emitter) {
	a.MovRR(rcx, rax)
	a.ShiftRI(shiftShr, rcx, pageShift)
	a.ALURI32(aluAnd, rcx, tlbMask)
	a.ShiftRI32(shiftShl, rcx, 5)
}

// fineStub emits the line check translated code calls when its TLB probe
// misses (tlbProbe), one for loads (tlb = rLT) and one for stores (rST):
// with rax the guest address, rcx its entry's offset and rdx the page of
// the access's last byte, it returns with ZF set and rcx the entry's
// offset again if the entry is the tlbFine entry of that page and the
// line's ownership allows the access as it is (Hart.lineAllows), and with
// ZF clear if not. It uses rcx and rdx only, and writes nothing: an access
// the ownership allows changes nothing of the tracker's state.
func fineStub(a *emitter, tlb reg) {
	ok, no := newLabel(), newLabel()
	a.BtsRI(rdx, 63) // tlbFine
	a.ALURM(aluCmp, rdx, atIdx(tlb, rcx, 1, 0))
	a.Jcc(ccNE, no)
	a.Load64(rdx, atIdx(tlb, rcx, 1, offTLBHost)) // *commLines
	a.MovRR(rcx, rax)
	a.ALURI32(aluAnd, rcx, pageMask&^(1<<lineShift-1))
	a.ShiftRI32(shiftShr, rcx, 1) // the line's offset in commLines
	a.Lea(rdx, atIdx(rdx, rcx, 1, 0))
	a.LoadU8(rcx, at(rdx, offLineWriter))
	a.ALURM(aluCmp, rcx, at(rH, offCommMe))
	if tlb == rST {
		// The writer, and no other hart read it since.
		a.Jcc(ccNE, no)
		a.Load64(rcx, at(rdx, offLineReads))
		a.ALURM(aluAnd, rcx, at(rH, offCommOthers))
		a.Jcc(ccNE, no)
	} else {
		// The writer, or one of the readers.
		a.Jcc(ccE, ok)
		a.Load64(rcx, at(rdx, offLineReads))
		a.ALURM(aluAnd, rcx, at(rH, offCommBit))
		a.Jcc(ccE, no)
	}
	a.Bind(ok)
	tlbIndex(a)
	a.Zero(rdx) // ZF set
	a.Ret()
	a.Bind(no)
	a.MovImm(rdx, 1)
	a.TestRR(rdx, rdx) // ZF clear
	a.Ret()
}

func (l *lowering) load(o *op, k int) {
	a := &l.a
	size := loadSize[o.kind]
	l.getX(rax, o.rs1)
	if o.imm != 0 {
		a.ALURI(aluAdd, rax, int32(o.imm))
	}
	l.tlbProbe(rLT, size, k)
	m := at(rax, 0)
	switch o.kind {
	case isa.LB:
		a.LoadS8(rax, m)
	case isa.LBU:
		a.LoadU8(rax, m)
	case isa.LH:
		a.LoadS16(rax, m)
	case isa.LHU:
		a.LoadU16(rax, m)
	case isa.LW:
		a.LoadS32(rax, m)
	case isa.LWU:
		a.LoadU32(rax, m)
	case isa.LD:
		a.Load64(rax, m)
	}
	l.setX(o.rd, rax)
}

func (l *lowering) store(o *op, k int) {
	a := &l.a
	size := storeSize[o.kind]
	l.getX(rax, o.rs1)
	if o.imm != 0 {
		a.ALURI(aluAdd, rax, int32(o.imm))
	}
	l.tlbProbe(rST, size, k)
	l.getX(rcx, o.rs2)
	m := at(rax, 0)
	switch size {
	case 1:
		a.Store8(m, rcx)
	case 2:
		a.Store16(m, rcx)
	case 4:
		a.Store32(m, rcx)
	case 8:
		a.Store64(m, rcx)
	}
}

// sstatus lowers the sstatus accesses a kernel makes all the time: reads,
// and the sets and clears of SIE that disable and enable interrupts
// (csrrci/csrrsi with 2, csrrs/csrrc with a register that holds no other
// bit). Everything else about sstatus leaves to the interpreter before the
// op, as do U-mode accesses (which trap). Translated code runs only while
// no interrupt can be taken (runSlice's condition, Hart.interruptible),
// and only an SIE set can change that: after one, if any interrupt is
// pending and enabled in mie, the code leaves at the boundary after the
// op, where the run loop takes it as the interpreter would after the
// op's block. Only SIE changes, so setMstatus's flushes do not apply.
func (l *lowering) sstatus(o *op, k int) {
	a := &l.a
	leave := l.missExit(k)
	write := o.rm != 0
	reg := o.kind == isa.CSRRS || o.kind == isa.CSRRC
	if write && !reg && (o.kind != isa.CSRRSI && o.kind != isa.CSRRCI || o.rs1 != mstatusSIE) {
		l.sstatusWrite(o, leave)
		return
	}
	a.CmpMI8(at(rH, offPriv), PrivS)
	a.Jcc(ccB, leave)
	if write && reg {
		general, done := newLabel(), newLabel()
		l.getX(rcx, o.rs1)
		a.MovRR(rdx, rcx)
		a.ALURI(aluAnd, rdx, ^int32(mstatusSIE))
		a.Jcc(ccNE, general) // a bit other than SIE
		defer func() {
			a.Bind(done)
			l.cold = append(l.cold, func() {
				a.Bind(general)
				l.sstatusWrite(o, leave)
				a.Jmp(done)
			})
		}()
	}
	l.readSstatus()
	if write {
		set := o.kind == isa.CSRRS || o.kind == isa.CSRRSI
		if !reg {
			a.MovImm(rcx, mstatusSIE)
		}
		a.Load64(rdx, at(rH, offMstatus))
		if set {
			a.ALURR(aluOr, rdx, rcx)
		} else {
			a.ALURR(aluOr, rdx, rcx)
			a.ALURR(aluXor, rdx, rcx)
		}
		a.Store64(at(rH, offMstatus), rdx)
	}
	l.setX(o.rd, rax)
	if write && (o.kind == isa.CSRRS || o.kind == isa.CSRRSI) {
		// The op is its block's last (CSR ops end blocks): the boundary
		// after it is the next block's.
		wake := newLabel()
		a.Load64(rdx, at(rH, offMip))
		a.ALURM(aluAnd, rdx, at(rH, offMie))
		a.Jcc(ccNE, wake)
		next := int64(o.off) + int64(o.len)
		l.cold = append(l.cold, func() {
			a.Bind(wake)
			a.ALURI(aluAdd, rPC, int32(next))
			a.Jmp(l.exitB)
		})
	}
}

// readSstatus leaves readMstatus() & sstatusReadable in rax (SD only when
// FS is dirty); it uses rdx.
func (l *lowering) readSstatus() {
	a := &l.a
	a.Load64(rax, at(rH, offMstatus))
	a.MovImm(rdx, int64(mstatusXLFixed))
	a.ALURR(aluOr, rax, rdx)
	a.MovImm(rdx, int64(sstatusReadable&^mstatusSD))
	a.ALURR(aluAnd, rax, rdx)
	l.orSD()
}

// orSD sets SD (bit 63) in rax if its FS field is dirty; it uses rdx.
func (l *lowering) orSD() {
	a := &l.a
	a.MovRR(rdx, rax)
	a.ALURI(aluAnd, rdx, mstatusFS)
	a.ALURI(aluCmp, rdx, mstatusFS)
	noSD := newLabel()
	a.Jcc(ccNE, noSD)
	a.MovImm(rdx, -1<<63)
	a.ALURR(aluOr, rax, rdx)
	a.Bind(noSD)
}

// sstatusWrite lowers any other write of sstatus in S-mode, as csrOp and
// setMstatus do it (the rest leaves to the interpreter before the op, at
// leave): the old value to rd, the new one's writable bits (SIE, SPIE,
// SPP, FS, SUM, MXR) to mstatus. Linux sets and clears SUM around every
// access to user memory and writes sstatus whole on every trap entry and
// return. A change of SUM switches the TLB set data accesses use, as
// updateMode does (S-mode data accesses with SUM have their own set,
// tlbSetSUM), in rLT and rST and in the hart. A change of MXR, which
// flushes the TLBs, leaves. With SIE set, an interrupt pending and enabled
// leaves at the boundary after the op, as the SIE fast path does.
func (l *lowering) sstatusWrite(o *op, leave *label) {
	a := &l.a
	a.CmpMI8(at(rH, offPriv), PrivS)
	a.Jcc(ccNE, leave)
	l.readSstatus() // the old value, for rd and for the set or clear
	l.csrSource(o)
	l.csrNew(o)
	a.ALURI(aluAnd, rdx, sstatusWritable)
	a.Load64(rcx, at(rH, offMstatus))
	a.ALURI(aluAnd, rcx, ^int32(sstatusWritable))
	a.ALURR(aluOr, rcx, rdx) // the new mstatus
	a.MovRR(rdx, rcx)
	a.ALURM(aluXor, rdx, at(rH, offMstatus)) // the bits that change
	a.TestRI(rdx, mstatusMXR)
	a.Jcc(ccNE, leave)
	a.Store64(at(rH, offMstatus), rcx)
	same := newLabel()
	a.TestRI(rdx, mstatusSUM)
	a.Jcc(ccE, same)
	// S-mode data accesses: set PrivS, or tlbSetSUM with SUM set.
	a.Lea(rdx, at(rJC, offTLBs-offJC+PrivS*tlbSetBytes))
	noSUM := newLabel()
	a.TestRI(rcx, mstatusSUM)
	a.Jcc(ccE, noSUM)
	a.Lea(rdx, at(rJC, offTLBs-offJC+tlbSetSUM*tlbSetBytes))
	a.Bind(noSUM)
	a.Lea(rLT, at(rdx, offTLBLoad))
	a.Lea(rST, at(rdx, offTLBStore))
	a.Store64(at(rH, offLTLB), rLT)
	a.Store64(at(rH, offSTLB), rST)
	a.Bind(same)
	l.setX(o.rd, rax)
	done := newLabel()
	a.TestRI(rcx, mstatusSIE)
	a.Jcc(ccE, done)
	l.leaveIfInterruptReady(o)
	a.Bind(done)
}

// machineRead lowers a read of mhartid or mstatus (csrr, no write), in
// M-mode only, as readCSR does it: OpenSBI reads both on every trap.
// Below M it leaves to the interpreter before the op, which raises the
// trap.
func (l *lowering) machineRead(o *op, k int) {
	a := &l.a
	leave := l.missExit(k)
	a.CmpMI8(at(rH, offPriv), PrivM)
	a.Jcc(ccNE, leave)
	switch o.csr {
	case isa.CSRMhartid:
		a.Load64(rax, at(rH, offID))
	case isa.CSRMstatus:
		a.Load64(rax, at(rH, offMstatus))
		a.MovImm(rdx, int64(mstatusXLFixed))
		a.ALURR(aluOr, rax, rdx)
		l.orSD()
	}
	l.setX(o.rd, rax)
}

// mstatusWrite lowers a write of mstatus in M-mode as csrOp and
// setMstatus make it: OpenSBI writes back the mstatus it saved before
// every mret. The old value (readMstatus) goes to rd, the new one's
// writable bits to mstatus. Below M, or when the write would change MPRV,
// MPP, SUM or MXR (which choose or flush the TLB sets: updateMode,
// flushTLB), it leaves to the interpreter before the op, having written
// nothing; a write of the reserved MPP value 2, which setMstatus ignores,
// is such a change (MPP is never 2).
// Only a write that sets MIE or SIE can make an interrupt takeable
// (Hart.interruptible was false when translated code ran it): after one,
// if any interrupt is pending and enabled in mie, the code leaves at the
// boundary after the op, its block's last.
func (l *lowering) mstatusWrite(o *op, k int) {
	a := &l.a
	leave := l.missExit(k)
	a.CmpMI8(at(rH, offPriv), PrivM)
	a.Jcc(ccNE, leave)
	l.csrSource(o) // rcx
	a.Load64(rax, at(rH, offMstatus))
	a.MovImm(rdx, int64(mstatusXLFixed))
	a.ALURR(aluOr, rax, rdx)
	l.orSD() // the old value, as readMstatus makes it
	l.csrNew(o)
	a.MovImm(rcx, int64(mstatusWritable))
	a.ALURR(aluAnd, rdx, rcx) // the new value's writable bits
	a.Load64(rcx, at(rH, offMstatus))
	a.ALURI(aluAnd, rcx, ^int32(mstatusWritable))
	a.ALURR(aluOr, rcx, rdx) // the new mstatus
	a.MovRR(rdx, rcx)
	a.ALURM(aluXor, rdx, at(rH, offMstatus)) // the bits that change
	a.TestRI(rdx, mstatusMPRV|mstatusMPP|mstatusSUM|mstatusMXR)
	a.Jcc(ccNE, leave)
	a.Store64(at(rH, offMstatus), rcx)
	l.setX(o.rd, rax)
	done := newLabel()
	a.ALURR(aluAnd, rdx, rcx) // the bits that were set
	a.TestRI(rdx, mstatusMIE|mstatusSIE)
	a.Jcc(ccE, done)
	l.leaveIfInterruptReady(o)
	a.Bind(done)
}

// csrSource puts a CSR write's source in rcx: rs1, or the immediate.
func (l *lowering) csrSource(o *op) {
	if o.kind == isa.CSRRW || o.kind == isa.CSRRS || o.kind == isa.CSRRC {
		l.getX(rcx, o.rs1)
	} else {
		l.a.MovImm(rcx, int64(o.rs1)) // the immediate
	}
}

// csrNew puts in rdx the value a CSR write writes, as csrOp makes it from
// the old value in rax and the source in rcx: the source, or the old value
// with the source's bits set or cleared.
func (l *lowering) csrNew(o *op) {
	a := &l.a
	switch o.kind {
	case isa.CSRRW, isa.CSRRWI:
		a.MovRR(rdx, rcx)
	case isa.CSRRS, isa.CSRRSI:
		a.MovRR(rdx, rax)
		a.ALURR(aluOr, rdx, rcx)
	default:
		a.MovRR(rdx, rax)
		a.ALURR(aluOr, rdx, rcx)
		a.ALURR(aluXor, rdx, rcx)
	}
}

// plainCSR lowers an access to one of plainCSRs as csrOp does it: below
// the CSR's privilege (bits 9:8 of its number) it leaves to the
// interpreter before the op, which raises the trap; otherwise the old value
// goes to rd and, if the op writes, the new one (the source, or the old
// value with the source's bits set or cleared; an epc's bit 0 cleared) to
// the field.
func (l *lowering) plainCSR(o *op, k int) {
	a := &l.a
	off := plainCSRs[o.csr]
	leave := l.missExit(k)
	a.CmpMI8(at(rH, offPriv), uint8(o.csr>>8&3))
	a.Jcc(ccB, leave)
	write := o.rm != 0 // as exec passes it to csrOp
	if write {
		l.csrSource(o)
	}
	a.Load64(rax, at(rH, off))
	if write {
		l.csrNew(o)
		if o.csr == isa.CSRSepc || o.csr == isa.CSRMepc {
			a.ALURI(aluAnd, rdx, -2)
		}
		a.Store64(at(rH, off), rdx)
	}
	l.setX(o.rd, rax)
}

// interruptCSR lowers the accesses to sie, mie and mip as csrOp and
// writeCSR make them: Linux sets and clears sie.STIE whenever it programs
// the timer, and OpenSBI moves a timer interrupt from M to S with mie and
// mip. Below the CSR's privilege it leaves to the interpreter before the
// op, which raises the trap. The old value goes to rd (sie: mie & mideleg;
// mip: mip as pendingMIP reads it) and, if the op writes, the new one
// (from the old, for mip with SEIP as software wrote it) to the fields:
// sie the delegated bits of mie, mie its six interrupt bits, mip SSIP and
// STIP, seipSW, and SEIP again as updateSEIP makes it. Translated code
// runs only while no interrupt can be taken (Hart.interruptible), and
// only a write here can change that: after one, if any interrupt is
// pending and enabled in mie, the code leaves at the boundary after the op
// (its block's last: CSR ops end blocks), where the run loop checks for
// interrupts as it would after the op's block in the interpreter.
func (l *lowering) interruptCSR(o *op, k int) {
	a := &l.a
	leave := l.missExit(k)
	a.CmpMI8(at(rH, offPriv), uint8(o.csr>>8&3))
	a.Jcc(ccB, leave)
	write := o.rm != 0 // as exec passes it to csrOp
	if write {
		l.csrSource(o) // rcx, before rd is written (rd may be rs1)
	}
	switch o.csr {
	case isa.CSRSie:
		a.Load64(rax, at(rH, offMie))
		a.ALURM(aluAnd, rax, at(rH, offMideleg))
	case isa.CSRMie:
		a.Load64(rax, at(rH, offMie))
	case isa.CSRMip:
		a.Load64(rax, at(rH, offMip))
	}
	l.setX(o.rd, rax)
	if !write {
		return
	}
	if o.csr == isa.CSRMip {
		// The base of a set or clear: SEIP as software wrote it.
		a.ALURI(aluAnd, rax, ^int32(MipSEIP))
		a.LoadU8(rdx, at(rH, offSeipSW))
		a.ShiftRI(shiftShl, rdx, IntSEI)
		a.ALURR(aluOr, rax, rdx)
	}
	l.csrNew(o) // rdx
	switch o.csr {
	case isa.CSRSie:
		a.Load64(rcx, at(rH, offMideleg))
		a.ALURR(aluAnd, rdx, rcx)
		a.ALURI(aluXor, rcx, -1)
		a.ALURM(aluAnd, rcx, at(rH, offMie))
		a.ALURR(aluOr, rcx, rdx)
		a.Store64(at(rH, offMie), rcx)
	case isa.CSRMie:
		a.ALURI(aluAnd, rdx, MipSSIP|MipMSIP|MipSTIP|MipMTIP|MipSEIP|MipMEIP)
		a.Store64(at(rH, offMie), rdx)
	case isa.CSRMip:
		a.MovRR(rcx, rdx)
		a.ShiftRI(shiftShr, rcx, IntSEI)
		a.ALURI(aluAnd, rcx, 1)
		a.Store8(at(rH, offSeipSW), rcx) // seipSW
		a.ALURI(aluAnd, rdx, MipSSIP|MipSTIP)
		a.Load64(rax, at(rH, offMip))
		a.ALURI(aluAnd, rax, ^int32(MipSSIP|MipSTIP|MipSEIP))
		a.ALURR(aluOr, rax, rdx)
		a.LoadU8(rdx, at(rH, offSeipLine))
		a.ALURR(aluOr, rcx, rdx)
		a.ShiftRI(shiftShl, rcx, IntSEI)
		a.ALURR(aluOr, rax, rcx) // SEIP: seipSW or seipLine
		a.Store64(at(rH, offMip), rax)
	}
	l.leaveIfInterruptReady(o)
}

// leaveIfInterruptReady leaves translated code at the boundary after o
// (rdx clobbered) when an interrupt is pending and enabled in mie, so
// that the run loop checks it there as it does after the interpreter's
// block: after a write that may have enabled one.
func (l *lowering) leaveIfInterruptReady(o *op) {
	a := &l.a
	wake := newLabel()
	a.Load64(rdx, at(rH, offMip))
	a.ALURM(aluAnd, rdx, at(rH, offMie))
	a.Jcc(ccNE, wake)
	next := int64(o.off) + int64(o.len)
	l.cold = append(l.cold, func() {
		a.Bind(wake)
		a.ALURI(aluAdd, rPC, int32(next))
		a.Jmp(l.exitB)
	})
}

// time lowers a read of the time CSR (the vDSO's clock, the kernel's
// get_cycles), as Hart.readCSR does it: mtime, the virtual time of the
// instruction in timebase ticks plus the machine's offset. The
// instruction's time is the hart's at entry plus the slots run since:
// runJIT leaves the time the budget would run out at in jitState.timeEnd,
// and rRem has this block's slots taken already. Below M, the counter
// must be enabled in mcounteren (and scounteren for U), or it leaves to
// the interpreter, which raises the trap.
func (l *lowering) time(o *op, k int) {
	a := &l.a
	leave := l.missExit(k)
	allowed := newLabel()
	a.CmpMI8(at(rH, offPriv), PrivM)
	a.Jcc(ccE, allowed)
	a.Load64(rax, at(rH, offMcounteren))
	sMode := newLabel()
	a.CmpMI8(at(rH, offPriv), PrivU)
	a.Jcc(ccNE, sMode)
	a.ALURM(aluAnd, rax, at(rH, offScounteren))
	a.Bind(sMode)
	a.ALURI(aluAnd, rax, 1<<1) // TM
	a.Jcc(ccE, leave)
	a.Bind(allowed)
	a.Load64(rax, at(rH, offJTimeEnd))
	a.ALURR(aluSub, rax, rRem)
	a.ALURI(aluSub, rax, l.curOps-int32(k))
	a.Zero(rdx)
	a.Load64(rcx, at(rH, offJTicks))
	a.UnaryR(true, 6, rcx) // div: rax = time / InsnsPerTick
	a.ALURM(aluAdd, rax, at(rH, offJMtimeOff))
	l.setX(o.rd, rax)
}

// isAMO reports whether k is an LR, an SC or an AMO.
func isAMO(k isa.Op) bool { return k >= isa.LR_W && k <= isa.AMOMAXU_D }

// amo lowers LR, SC and the AMOs swap, add, xor, and, or on a soft-TLB hit,
// as Hart.amo does. A misaligned address or a TLB miss leaves to the
// interpreter before the op. A TLB hit needs no other check: a store TLB
// entry exists only for a page this machine owns that holds no code and
// no watched address, and, when the machine tracks communication, only
// while the ownership allows this hart's stores there (or, for a page
// tracked by line, when fineStub finds that the line's does): Hart.amo
// would record nothing.
func (l *lowering) amo(o *op, k int) {
	a := &l.a
	size := 8
	switch o.kind {
	case isa.LR_W, isa.SC_W, isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W:
		size = 4
	}
	leave := l.missExit(k)
	lr := o.kind == isa.LR_W || o.kind == isa.LR_D
	sc := o.kind == isa.SC_W || o.kind == isa.SC_D
	tlb := rST
	if lr {
		tlb = rLT
	}
	l.getX(rax, o.rs1)
	a.MovRR(rcx, rax)
	a.ALURI32(aluAnd, rcx, int32(size-1))
	a.Jcc(ccNE, leave) // misaligned: the interpreter raises it
	if !sc {
		a.CmpMI8(at(rH, offSyncAMO), 0)
		a.Jcc(ccNE, leave) // a preemption point: Hart.amo decides
	}
	l.tlbProbe(tlb, size, k)
	at0 := at(rax, 0)
	if lr || sc {
		// The physical address, as the reservation holds it: the page
		// from the entry, the offset from the guest address (rax minus
		// the entry's addend). Not from the host address: a page's
		// host copy need not be page-aligned (the shared zero page is
		// not), and then an SC would fail where exec's succeeds.
		a.MovRR(rdx, rax)
		a.ALURM(aluSub, rdx, atIdx(tlb, rcx, 1, offTLBAdd))
		a.ALURI32(aluAnd, rdx, pageMask)
		a.Load64(rcx, atIdx(tlb, rcx, 1, offTLBPPN))
		a.ShiftRI(shiftShl, rcx, pageShift)
		a.ALURR(aluOr, rdx, rcx)
	}
	switch {
	case lr:
		a.Store64(at(rH, offResAddr), rdx)
		a.MovImm(rcx, 1)
		a.Store8(at(rH, offResVal), rcx)
		if size == 4 {
			a.LoadS32(rax, at0)
		} else {
			a.Load64(rax, at0)
		}
		l.setX(o.rd, rax)
	case sc:
		fail, done := newLabel(), newLabel()
		a.CmpMI8(at(rH, offResVal), 0)
		a.Jcc(ccE, fail)
		a.ALURM(aluCmp, rdx, at(rH, offResAddr))
		a.Jcc(ccNE, fail)
		l.getX(rcx, o.rs2)
		if size == 4 {
			a.Store32(at0, rcx)
		} else {
			a.Store64(at0, rcx)
		}
		a.Zero(rcx)
		a.Store8(at(rH, offResVal), rcx)
		l.setXImm(o.rd, 0)
		a.Jmp(done)
		a.Bind(fail)
		a.Zero(rcx)
		a.Store8(at(rH, offResVal), rcx)
		l.setXImm(o.rd, 1)
		a.Bind(done)
	default:
		l.getX(rcx, o.rs2)
		if size == 4 {
			a.LoadS32(rdx, at0) // the old value, sign-extended
		} else {
			a.Load64(rdx, at0)
		}
		switch o.kind {
		case isa.AMOADD_W, isa.AMOADD_D:
			a.ALURR(aluAdd, rcx, rdx)
		case isa.AMOXOR_W, isa.AMOXOR_D:
			a.ALURR(aluXor, rcx, rdx)
		case isa.AMOAND_W, isa.AMOAND_D:
			a.ALURR(aluAnd, rcx, rdx)
		case isa.AMOOR_W, isa.AMOOR_D:
			a.ALURR(aluOr, rcx, rdx)
		}
		if size == 4 {
			a.Store32(at0, rcx)
		} else {
			a.Store64(at0, rcx)
		}
		l.setX(o.rd, rdx)
	}
}

// fp lowers the F and D ops the JIT handles: loads, stores, sign
// injection, and double-precision arithmetic on the host's SSE2 and FMA
// units in round-to-nearest-even, which give the same IEEE 754 results as
// softfloat except for NaNs. A NaN result leaves to the interpreter before
// the op is written back, which recomputes it (canonical NaN) with its
// flags; the host's flags for such an op (invalid only) are a subset of
// the interpreter's, so accruing both is exact. Other flags accrue in
// MXCSR and reach fflags at every exit (runJIT), as they would op by op.
func (l *lowering) fp(o *op, k int) {
	a := &l.a
	leave := l.missExit(k)
	// mstatus.FS off: illegal instruction, which the interpreter raises.
	a.TestMI(at(rH, offMstatus), mstatusFS)
	a.Jcc(ccE, leave)
	if usesRM(o.kind) && o.rm == isa.DYN {
		a.ALUMI(aluCmp, at(rH, offFrm), isa.RNE)
		a.Jcc(ccNE, leave)
	}
	dirty := true
	switch o.kind {
	case isa.FLD, isa.FLW:
		l.getX(rax, o.rs1)
		if o.imm != 0 {
			a.ALURI(aluAdd, rax, int32(o.imm))
		}
		if o.kind == isa.FLD {
			l.tlbProbe(rLT, 8, k)
			a.Load64(rcx, at(rax, 0))
		} else {
			l.tlbProbe(rLT, 4, k)
			a.LoadU32(rcx, at(rax, 0))
			a.MovImm(rdx, boxMask-1<<64)
			a.ALURR(aluOr, rcx, rdx)
		}
		a.Store64(fm(o.rd), rcx)
	case isa.FSD, isa.FSW:
		dirty = false
		l.getX(rax, o.rs1)
		if o.imm != 0 {
			a.ALURI(aluAdd, rax, int32(o.imm))
		}
		if o.kind == isa.FSD {
			l.tlbProbe(rST, 8, k)
			a.Load64(rcx, fm(o.rs2))
			a.Store64(at(rax, 0), rcx)
		} else {
			l.tlbProbe(rST, 4, k)
			a.Load64(rcx, fm(o.rs2))
			a.Store32(at(rax, 0), rcx)
		}
	case isa.FSGNJ_D, isa.FSGNJN_D, isa.FSGNJX_D:
		a.Load64(rax, fm(o.rs1))
		a.Load64(rcx, fm(o.rs2))
		if o.kind == isa.FSGNJN_D {
			a.Not(rcx)
		}
		a.ShiftRI(shiftShr, rcx, 63)
		a.ShiftRI(shiftShl, rcx, 63)
		if o.kind == isa.FSGNJX_D {
			a.ALURR(aluXor, rax, rcx)
		} else {
			a.ShiftRI(shiftShl, rax, 1)
			a.ShiftRI(shiftShr, rax, 1)
			a.ALURR(aluOr, rax, rcx)
		}
		a.Store64(fm(o.rd), rax)
	case isa.FMV_D_X:
		l.getX(rax, o.rs1)
		a.Store64(fm(o.rd), rax)
	case isa.FMV_X_D:
		dirty = false
		a.Load64(rax, fm(o.rs1))
		l.setX(o.rd, rax)
	case isa.FCVT_D_W, isa.FCVT_D_WU, isa.FCVT_D_L:
		// cvtsi2sd rounds as MXCSR says (to nearest even, as frm is
		// here) and sets PE, which becomes NX, when it is inexact.
		const xmm0 = reg(0)
		l.getX(rax, o.rs1)
		switch o.kind {
		case isa.FCVT_D_W:
			a.Cvtsi2sd(xmm0, rax, false)
		case isa.FCVT_D_WU:
			a.MovRR32(rax, rax) // zero-extend
			a.Cvtsi2sd(xmm0, rax, true)
		default:
			a.Cvtsi2sd(xmm0, rax, true)
		}
		a.MovsdStore(fm(o.rd), xmm0)
	default:
		const xmm0, xmm1 = reg(0), reg(1)
		switch o.kind {
		case isa.FSQRT_D:
			a.SSEArith(0x51, xmm0, fm(o.rs1))
		case isa.FMADD_D, isa.FMSUB_D, isa.FNMSUB_D, isa.FNMADD_D:
			op := fmaOp[o.kind]
			a.MovsdLoad(xmm0, fm(o.rs1))
			a.MovsdLoad(xmm1, fm(o.rs2))
			a.FMA213(op, xmm0, xmm1, fm(o.rs3))
		default:
			op := sseOp[o.kind]
			a.MovsdLoad(xmm0, fm(o.rs1))
			a.SSEArith(op, xmm0, fm(o.rs2))
		}
		a.UcomisdRR(xmm0, xmm0)
		a.Jcc(ccP, leave)
		a.MovsdStore(fm(o.rd), xmm0)
	}
	if dirty {
		a.ALUMI(aluOr, at(rH, offMstatus), mstatusFS)
	}
}
