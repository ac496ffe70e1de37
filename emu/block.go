package emu

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"

	"everett/isa"
)

// Decoded blocks. A block is a run of instructions in one physical page,
// decoded once into compact ops, that ends at the first control transfer,
// system instruction or CSR access, at the end of the page, or at
// maxBlockOps. Blocks are keyed by physical address; a store to a page that
// holds blocks invalidates all of them (self-modifying code), and so does
// fence.i.

const maxBlockOps = 64

// op is one decoded instruction, laid out for the interpreter: the kind to
// switch on, register numbers (rd already redirected to regSink when it is
// x0), the immediate, and the instruction's offset from the block start.
type op struct {
	kind isa.Op
	rd   uint8
	rs1  uint8
	rs2  uint8
	rs3  uint8
	rm   uint8 // FP rounding mode; CSR ops: 1 if the CSR is written
	len  uint8 // 2 or 4
	off  uint16
	csr  uint16
	raw  uint32
	imm  int64
}

// block is a decoded run of instructions. A block is immutable once made,
// but for its JIT fields: the block of a page no machine writes in place
// (a snapshot's page, an image page) is the same object in every machine
// that holds the page, on whatever goroutine runs it (codePage), so those
// fields are atomic.
type block struct {
	ops  []op
	pa   uint64 // physical address of the first instruction
	size uint64 // bytes covered

	// JIT (jit.go): host code entry points once translated, or 0.
	jit    atomic.Uintptr // entry from other translations
	jitGo  atomic.Uintptr // entry from the run loop
	hits   atomic.Uint32  // runs by the interpreter while not translated, over every machine sharing it
	jitOps atomic.Uint32  // 1 + the ops the translator handles (jitPrefix), or 0 if not counted yet
	noJIT  atomic.Bool    // nothing of it can be translated
	tr     atomic.Pointer[jitTrans]
}

// codePage holds the blocks that start in one physical page, indexed by
// (offset / 2), in chunks of 64 made on first use: most pages hold blocks
// in a few places, and a flat index would cost 16 KiB per page of code.
//
// The code page of a page no machine writes in place is shared: every
// machine holding that page (a snapshot's forks, nodes loading one image)
// reads and extends the same codePage, from any goroutine, so its slots
// are atomic and a block, once in a slot, stays there (RATIONALE.md, "Why
// do machines share the decoded blocks of shared pages?"). A machine that
// writes the page copies it (copy-on-write) and stops using its codePage;
// the codePage, like the page, never changes for the others.
type codePage struct {
	chunks [pageSize / 2 / codeChunk]atomic.Pointer[codeChunkSlots]
	src    *page // the page the blocks were decoded from
}

const codeChunk = 64

type codeChunkSlots [codeChunk]atomic.Pointer[block]

// block returns the block that starts at offset off of the page, or nil.
func (cp *codePage) block(off uint64) *block {
	if c := cp.chunks[off>>1/codeChunk].Load(); c != nil {
		return c[off>>1%codeChunk].Load()
	}
	return nil
}

// add records b as the block at offset off, unless another machine did so
// first, and returns the block recorded.
func (cp *codePage) add(off uint64, b *block) *block {
	slot := &cp.chunks[off>>1/codeChunk]
	c := slot.Load()
	if c == nil {
		c = new(codeChunkSlots)
		if !slot.CompareAndSwap(nil, c) {
			c = slot.Load()
		}
	}
	s := &c[off>>1%codeChunk]
	if s.CompareAndSwap(nil, b) {
		return b
	}
	return s.Load()
}

// codeLeaf holds the code pages of one 2 MiB leaf of RAM. Machine.codePages
// is a radix like RAM's, copy-on-write like RAM's: a snapshot keeps the
// top array, and the machine and every fork of the snapshot copy a leaf
// the first time they change it (owner).
type codeLeaf struct {
	owner uint64 // the Machine.codeID that may change it in place
	pages [leafPages]*codePage
}

// freezeCode hands the machine's code pages over to a snapshot: the
// machine goes on with them, and so does every machine that restores the
// snapshot, each copying a leaf when it first changes it. The blocks stay
// valid for all of them as long as they hold the pages the blocks were
// decoded from, which a write to a page ends (invalidateCode).
func (m *Machine) freezeCode() []*codeLeaf {
	top := make([]*codeLeaf, len(m.codePages))
	copy(top, m.codePages)
	m.codeID = newOwnerID()
	return top
}

// inheritCode makes a restored machine's code pages those of its snapshot
// (top, from freezeCode): its RAM is the snapshot's, so every block is
// valid for it.
func (m *Machine) inheritCode(top []*codeLeaf) {
	if len(top) == len(m.codePages) {
		copy(m.codePages, top)
		m.codeID = newOwnerID()
	}
}

// codePage returns the decoded blocks of RAM page pn, or nil.
func (m *Machine) codePage(pn uint64) *codePage {
	if cl := m.codePages[pn>>leafShift]; cl != nil {
		return cl.pages[pn&(leafPages-1)]
	}
	return nil
}

// setCodePage makes cp (nil: none) the code page of RAM page pn.
func (m *Machine) setCodePage(pn uint64, cp *codePage) {
	li := pn >> leafShift
	cl := m.codePages[li]
	switch {
	case cl == nil:
		if cp == nil {
			return
		}
		cl = &codeLeaf{owner: m.codeID}
		m.codePages[li] = cl
	case cl.owner != m.codeID:
		cl = &codeLeaf{owner: m.codeID, pages: cl.pages}
		m.codePages[li] = cl
	}
	cl.pages[pn&(leafPages-1)] = cp
}

// set makes o the op of decoded instruction in, at offset off of its
// block: in place, since decoding a block writes dozens of them.
func (o *op) set(in *isa.Inst, off uint64) {
	*o = op{
		kind: in.Op,
		rd:   in.Rd,
		rs1:  in.Rs1,
		rs2:  in.Rs2,
		rs3:  in.Rs3,
		rm:   in.RM,
		len:  in.Len,
		off:  uint16(off),
		csr:  in.CSR,
		raw:  in.Raw,
		imm:  in.Imm,
	}
	f := opFlags[in.Op]
	if f&ofWritesX != 0 && o.rd == 0 {
		o.rd = regSink
	}
	if f&ofCSRWrite != 0 && (f&ofCSRAlways != 0 || in.Rs1 != 0) {
		o.rm = 1
	}
	if f&ofRM != 0 && (in.RM == 5 || in.RM == 6) {
		// Reserved rounding modes are illegal (Unprivileged §11.2).
		o.kind = isa.ILLEGAL
	}
}

// opFlags holds, per op, what decoding asks of it (writesX, a rounding
// mode, endsBlock, a CSR write): a table, since decoding asks for every
// instruction of every block.
var opFlags = func() (t [isa.NumOps]uint8) {
	for k := range t {
		op := isa.Op(k)
		if writesX(op) {
			t[k] |= ofWritesX
		}
		if isFP(op) && usesRM(op) {
			t[k] |= ofRM
		}
		if endsBlock(op) {
			t[k] |= ofEnds
		}
		switch op {
		case isa.CSRRW, isa.CSRRWI:
			t[k] |= ofCSRWrite | ofCSRAlways
		case isa.CSRRS, isa.CSRRC, isa.CSRRSI, isa.CSRRCI:
			t[k] |= ofCSRWrite // only with a non-zero rs1 (or uimm)
		}
	}
	return t
}()

const (
	ofWritesX   = 1 << iota // writesX
	ofRM                    // an F or D op whose rm is a rounding mode
	ofEnds                  // endsBlock
	ofCSRWrite              // a CSR op that may write the CSR
	ofCSRAlways             // one that always does (rm = 1 in its op)
)

// writesX reports whether op writes integer register rd.
func writesX(k isa.Op) bool {
	switch k {
	case isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU,
		isa.SB, isa.SH, isa.SW, isa.SD, isa.FSW, isa.FSD,
		isa.SB_RL, isa.SH_RL, isa.SW_RL, isa.SD_RL,
		isa.FENCE, isa.FENCE_I, isa.ECALL, isa.EBREAK, isa.MRET, isa.SRET,
		isa.WFI, isa.SFENCE_VMA, isa.ILLEGAL, isa.HYPERCALL:
		return false
	}
	if isFP(k) {
		switch k {
		case isa.FCVT_W_S, isa.FCVT_WU_S, isa.FCVT_L_S, isa.FCVT_LU_S, isa.FMV_X_W,
			isa.FEQ_S, isa.FLT_S, isa.FLE_S, isa.FCLASS_S,
			isa.FCVT_W_D, isa.FCVT_WU_D, isa.FCVT_L_D, isa.FCVT_LU_D, isa.FMV_X_D,
			isa.FEQ_D, isa.FLT_D, isa.FLE_D, isa.FCLASS_D:
			return true
		}
		return false
	}
	return true
}

// isFP reports whether the op belongs to F or D (and so needs mstatus.FS on).
func isFP(k isa.Op) bool { return k >= isa.FLW && k <= isa.FMV_D_X }

// usesRM reports whether the op's rm field is a rounding mode.
func usesRM(k isa.Op) bool {
	switch k {
	case isa.FMADD_S, isa.FMSUB_S, isa.FNMSUB_S, isa.FNMADD_S, isa.FADD_S,
		isa.FSUB_S, isa.FMUL_S, isa.FDIV_S, isa.FSQRT_S, isa.FCVT_W_S,
		isa.FCVT_WU_S, isa.FCVT_L_S, isa.FCVT_LU_S, isa.FCVT_S_W, isa.FCVT_S_WU,
		isa.FCVT_S_L, isa.FCVT_S_LU,
		isa.FMADD_D, isa.FMSUB_D, isa.FNMSUB_D, isa.FNMADD_D, isa.FADD_D,
		isa.FSUB_D, isa.FMUL_D, isa.FDIV_D, isa.FSQRT_D, isa.FCVT_S_D,
		isa.FCVT_D_S, isa.FCVT_W_D, isa.FCVT_WU_D, isa.FCVT_L_D, isa.FCVT_LU_D,
		isa.FCVT_D_W, isa.FCVT_D_WU, isa.FCVT_D_L, isa.FCVT_D_LU:
		return true
	}
	return false
}

// endsBlock reports whether a block must end after this op: control
// transfers, and everything that may change privilege, translation,
// interrupt state or code.
func endsBlock(k isa.Op) bool {
	switch k {
	case isa.JAL, isa.JALR, isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU,
		isa.ECALL, isa.EBREAK, isa.MRET, isa.SRET, isa.WFI, isa.SFENCE_VMA,
		isa.FENCE_I, isa.CSRRW, isa.CSRRS, isa.CSRRC, isa.CSRRWI, isa.CSRRSI,
		isa.CSRRCI, isa.ILLEGAL, isa.HYPERCALL:
		return true
	}
	return false
}

// decodeBlock decodes the block starting at physical address pa, in page p
// of RAM. It returns nil if the first instruction straddles the end of the
// page.
func (m *Machine) decodeBlock(p *page, pa uint64) *block {
	start := pa & pageMask
	off := start
	buf := &m.decodeBuf // decoded here, then copied out at its exact size
	n := 0
	for n < maxBlockOps && off < pageSize {
		var raw uint32
		lo := binary.LittleEndian.Uint16(p[off:])
		if lo&3 == 3 {
			if off+4 > pageSize {
				break // straddles the page: executed on its own
			}
			raw = binary.LittleEndian.Uint32(p[off:])
		} else {
			raw = uint32(lo)
		}
		in := isa.Decode(raw)
		buf[n].set(&in, off-start)
		n++
		off += uint64(in.Len)
		if opFlags[in.Op]&ofEnds != 0 {
			break
		}
	}
	if n == 0 {
		return nil
	}
	b := m.newBlock(n)
	copy(b.ops, buf[:n])
	b.pa, b.size = pa, off-start
	return b
}

// newBlock returns a new block with room for n ops: from the machine's
// slab if it has one (OnlyMachine), else from the heap.
func (m *Machine) newBlock(n int) *block {
	if m.slab != nil {
		if p := m.slab.alloc(int(unsafe.Sizeof(block{})) + n*int(unsafe.Sizeof(op{}))); p != nil {
			b := (*block)(p)
			b.ops = unsafe.Slice((*op)(unsafe.Add(p, unsafe.Sizeof(block{}))), n)
			return b
		}
	}
	return newBlock(n)
}

// newBlock returns a block with room for its n ops allocated with it: one
// allocation instead of two, and the ops right after the block's fields,
// where the run loop reads both (the room rounds n up to a power of two).
func newBlock(n int) *block {
	switch {
	case n <= 2:
		return blockWithRoom[[2]op](n)
	case n <= 4:
		return blockWithRoom[[4]op](n)
	case n <= 8:
		return blockWithRoom[[8]op](n)
	case n <= 16:
		return blockWithRoom[[16]op](n)
	}
	return &block{ops: make([]op, n)}
}

// blockWithRoom allocates a block and an array of ops (A is [k]op, k >= n)
// together, and gives the block the first n.
func blockWithRoom[A any](n int) *block {
	s := new(struct {
		b block
		o A
	})
	s.b.ops = unsafe.Slice((*op)(unsafe.Pointer(&s.o)), n)
	return &s.b
}

// blockAt returns the machine's block at pa (in RAM): one of its code page
// (decoded by this machine, inherited from its snapshot, or decoded by
// another machine sharing the page), or a new one (nil if the first
// instruction straddles the page).
func (m *Machine) blockAt(pa uint64) *block {
	pn := (pa - m.RAM.Base) >> pageShift
	cp := m.codePage(pn)
	if cp != nil {
		if b := cp.block(pa & pageMask); b != nil {
			return b
		}
	} else {
		cp = m.attachCode(pn)
	}
	b := m.decodeBlock(cp.src, pa)
	if b == nil {
		return nil
	}
	return cp.add(pa&pageMask, b)
}

// attachCode gives RAM page pn, which has none, a code page: the shared
// one of its page if the page is frozen (made and offered to the other
// machines if none has one yet), else one of its own.
func (m *Machine) attachCode(pn uint64) *codePage {
	p, frozen := m.RAM.frozenPage(pn)
	var cp *codePage
	if frozen && !m.only {
		cp = sharedCodePage(p, pn)
	} else {
		cp = &codePage{src: m.RAM.readPage(pn)}
	}
	m.setCodePage(pn, cp)
	if m.RAM.flag(pn)&pfStored != 0 {
		// No store may hit a page with code: drop the entries (a page no
		// store TLB was filled for has none).
		pa := m.RAM.Base + pn<<pageShift
		for _, h := range m.harts {
			h.flushStoreTLBPage(pa >> pageShift)
		}
		m.RAM.clearFlag(pn, pfStored)
	}
	return cp
}

// invalidateCode drops the decoded blocks of RAM page pn, about to be
// written: this machine's own, or its use of a shared page's.
func (m *Machine) invalidateCode(pn uint64) {
	if m.codePage(pn) == nil {
		return
	}
	m.setCodePage(pn, nil)
	// The jump caches may hold blocks of the page: none of their entries
	// may be used again (see jcEntry).
	for _, h := range m.harts {
		h.jctx.epoch++
		h.setCtx()
	}
}

// FlushCaches drops every decoded block and every hart's TLBs and jump
// cache, as a restore does. Results never depend on these caches; tests use
// this to prove it.
func (m *Machine) FlushCaches() {
	clear(m.codePages)
	for _, h := range m.harts {
		h.flushTLB()
		h.updateMode()
	}
}
