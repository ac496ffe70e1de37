package emu

import (
	"encoding/binary"
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

// block is a decoded run of instructions.
type block struct {
	ops   []op
	pa    uint64 // physical address of the first instruction
	size  uint64 // bytes covered
	valid bool

	// JIT (jit.go): host code entry points once translated, or 0.
	// Translated code reads valid and jit, so their offsets are known to it.
	jit    uintptr // entry from other translations
	jitGo  uintptr // entry from the run loop
	hits   uint32  // runs by the interpreter while not translated
	noJIT  bool    // nothing of it can be translated
	jitOps uint8   // 1 + the ops the translator handles (jitPrefix), or 0 if not counted yet
	tr     *jitTrans
}

// codePage holds the blocks that start in one physical page, indexed by
// (offset / 2), in chunks of 64 made on first use: most pages hold blocks
// in a few places, and a flat index would cost 16 KiB per page of code in
// every machine (every fork) that runs it.
type codePage struct {
	chunks [pageSize / 2 / codeChunk]*[codeChunk]*block
	src    *page // the page the blocks were decoded from (see frozenCode)
}

const codeChunk = 64

// block returns the block that starts at offset off of the page, or nil.
func (cp *codePage) block(off uint64) *block {
	if c := cp.chunks[off>>1/codeChunk]; c != nil {
		return c[off>>1%codeChunk]
	}
	return nil
}

// setBlock records b as the block at offset off.
func (cp *codePage) setBlock(off uint64, b *block) {
	c := cp.chunks[off>>1/codeChunk]
	if c == nil {
		c = new([codeChunk]*block)
		cp.chunks[off>>1/codeChunk] = c
	}
	c[off>>1%codeChunk] = b
}

// codeLeaf holds the code pages of one 2 MiB leaf of RAM. Machine.codePages
// is a radix like RAM's, so that a new machine (a fork) allocates one
// pointer per leaf, not one per page.
type codeLeaf [leafPages]*codePage

// frozenCode is the decoded blocks of a machine when it was snapshotted,
// for the machines that restore the snapshot (and the machine itself, which
// hands them over): a fork starts with its parent's blocks instead of
// decoding, counting and adopting translations anew (RATIONALE.md, "Why
// forks inherit decoded blocks"). Nothing writes a frozen block: a machine
// copies one into its own code pages the first time it runs there, and
// only while its RAM still holds the very page the block was decoded from.
// Frozen pages are never written in place (copy-on-write), so the same
// page is the same bytes.
type frozenCode struct {
	pages  []*codeLeaf
	parent *frozenCode // older blocks, of pages this machine never ran
	depth  int
}

// maxFrozenDepth bounds the chain a lookup may walk: a snapshot of a fork
// of a fork ... forgets its oldest ancestors' blocks (only a cache).
const maxFrozenDepth = 8

// freezeCode hands the machine's decoded blocks over to a snapshot and
// returns them. The machine starts over from them like a fork: its jump
// caches are dropped, so it never writes a block it handed over.
func (m *Machine) freezeCode() *frozenCode {
	if m.codeBlocks == 0 {
		return m.frozen
	}
	f := &frozenCode{pages: m.codePages, parent: m.frozen}
	if f.parent != nil {
		f.depth = f.parent.depth + 1
		if f.depth >= maxFrozenDepth {
			f.parent, f.depth = nil, 0
		}
	}
	m.codePages = make([]*codeLeaf, len(m.codePages))
	m.codeBlocks = 0
	m.frozen = f
	for _, h := range m.harts {
		h.epoch++
		h.ctx = h.epoch<<2 | uint64(h.priv)
	}
	return f
}

// thawBlock returns this machine's copy of a frozen block at pa, or nil if
// no snapshot it descends from decoded one from the page it holds now.
func (m *Machine) thawBlock(pa uint64) *block {
	pn := (pa - m.RAM.Base) >> pageShift
	var p *page
	for f := m.frozen; f != nil; f = f.parent {
		cl := f.pages[pn>>leafShift]
		if cl == nil {
			continue
		}
		cp := cl[pn&(leafPages-1)]
		if cp == nil {
			continue
		}
		if p == nil {
			p = m.RAM.readPage(pn)
		}
		if cp.src != p {
			continue // decoded from other bytes: the page was written since
		}
		if fb := cp.block(pa & pageMask); fb != nil {
			b := new(block)
			*b = *fb
			m.addBlock(pn, pa, p, b)
			if b.jitGo != 0 && m.engine == EngineJIT {
				m.jitStats.Blocks++
				m.jitStats.GuestBytes += b.size
			}
			return b
		}
	}
	return nil
}

// codePage returns the decoded blocks of RAM page pn, or nil.
func (m *Machine) codePage(pn uint64) *codePage {
	if cl := m.codePages[pn>>leafShift]; cl != nil {
		return cl[pn&(leafPages-1)]
	}
	return nil
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

// buildBlock decodes the block starting at physical address pa (in RAM). It
// returns nil if the first instruction straddles the end of the page.
func (m *Machine) buildBlock(pa uint64) *block {
	pn := (pa - m.RAM.Base) >> pageShift
	p := m.RAM.readPage(pn)
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
	b := newBlock(n)
	copy(b.ops, buf[:n])
	b.pa, b.size, b.valid = pa, off-start, true
	m.addBlock(pn, pa, p, b)
	return b
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

// blockAt returns the machine's block at pa (in RAM): its own, a frozen
// one, or a new one (nil if the first instruction straddles the page).
func (m *Machine) blockAt(pa uint64) *block {
	pn := (pa - m.RAM.Base) >> pageShift
	if cp := m.codePage(pn); cp != nil {
		if b := cp.block(pa & pageMask); b != nil {
			return b
		}
	}
	if b := m.thawBlock(pa); b != nil {
		return b
	}
	p, shared := m.RAM.frozenPage(pn)
	shared = shared && !m.only
	if shared {
		if b := m.sharedBlock(pn, pa, p); b != nil {
			return b
		}
	}
	b := m.buildBlock(pa)
	if shared && b != nil {
		shareBlock(p, b)
	}
	return b
}

// addBlock records b, decoded from page p (RAM page pn), as the block at
// pa.
func (m *Machine) addBlock(pn, pa uint64, p *page, b *block) {
	cl := m.codePages[pn>>leafShift]
	if cl == nil {
		cl = new(codeLeaf)
		m.codePages[pn>>leafShift] = cl
	}
	cp := cl[pn&(leafPages-1)]
	if cp == nil {
		cp = &codePage{src: p}
		cl[pn&(leafPages-1)] = cp
		if fl := m.RAM.flag(pn); fl&pfCode == 0 {
			m.RAM.setFlag(pn, pfCode)
			if fl&pfStored != 0 {
				// No store may hit a page with code: drop the entries
				// (a page no store TLB was filled for has none).
				for _, h := range m.harts {
					h.flushStoreTLBPage(pa >> pageShift)
				}
				m.RAM.clearFlag(pn, pfStored)
			}
		}
	}
	cp.setBlock(pa&pageMask, b)
	m.codeBlocks++
}

// invalidateCode drops every decoded block of RAM page pn.
func (m *Machine) invalidateCode(pn uint64) {
	cp := m.codePage(pn)
	if cp == nil {
		m.RAM.clearFlag(pn, pfCode)
		return
	}
	for _, c := range cp.chunks {
		if c == nil {
			continue
		}
		for _, b := range c {
			if b != nil {
				b.valid = false
			}
		}
	}
	m.codePages[pn>>leafShift][pn&(leafPages-1)] = nil
	m.RAM.clearFlag(pn, pfCode)
	// The jump caches may hold blocks of the page: none of their entries
	// may be used again (see jcEntry).
	for _, h := range m.harts {
		h.epoch++
		h.ctx = h.epoch<<2 | uint64(h.priv)
	}
}

// FlushCaches drops every decoded block and every hart's TLBs and jump
// cache, as a restore does. Results never depend on these caches; tests use
// this to prove it.
func (m *Machine) FlushCaches() {
	for li, cl := range m.codePages {
		if cl == nil {
			continue
		}
		for i, cp := range cl {
			if cp != nil {
				m.invalidateCode(uint64(li)<<leafShift | uint64(i))
			}
		}
		m.codePages[li] = nil
	}
	m.codeBlocks = 0
	m.frozen = nil
	for _, h := range m.harts {
		h.flushTLB()
		h.updateMode()
	}
}
