//go:build linux && amd64

package emu

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"unsafe"

	"everett/emu/internal/codearena"
)

const jitSupported = true

// jitCall enters translated code (jit_amd64.s).
//
//go:noescape
func jitCall(enter, target uintptr, h unsafe.Pointer)

// The shared translation cache. Translations are pure functions of a
// block's instruction bytes (they take the block's virtual pc in a
// register), so every machine in the process, every fork, shares them:
// a universe forked from a booted snapshot finds the kernel's hot code
// translated already. The cache is never part of a snapshot or a hash.
//
// Code lives in a codearena.Arena, one reserved address range filled in
// chunks: a chunk is mapped read-write while translations are written into
// it and then sealed read-execute (never both, W^X); a translation becomes
// runnable when its chunk is sealed. A chunk seals when it is full, or
// early when a block waiting for its translation keeps running
// (jitSealEvery). When the range is full, nothing more is translated: the
// cache is bounded.
const (
	jitRangeBytes = 512 << 20 // the bound on host code
	jitChunkBytes = 256 << 10
)

type jitArena struct {
	mu     sync.Mutex
	code   *codearena.Arena // the reserved range
	base   uintptr          // its address; 0 until made
	failed bool             // the range could not be reserved: no JIT
	chunk  *jitChunk        // the writable chunk's translations; nil: none is open
	wait   []*jitTrans      // translations in the writable chunk
	byKey  map[string]*jitTrans
	heads  map[uint64]struct{}   // jitHeadKey of every region translated
	heat   map[uint64]uint32     // runs reported of heads not translated yet
	byPage map[pageKey]*jitTrans // translations by frozen head page (see remember)
	// headBits has bit jitHeadKey%headBitsN set for every key in heads,
	// so that most blocks that head no translation learn so without mu.
	headBits [headBitsN / 64]atomic.Uint64
	enter    uintptr
	cov      uintptr    // the coverage stub
	fine     [2]uintptr // the line checks of loads and stores (fineStub)
	trans    uint64
	guest    uint64 // guest bytes translated
	bytes    uint64
}

var arena jitArena

const headBitsN = 1 << 17

// mayHead reports whether a region with head key head may have been
// translated: false means none was.
func (ar *jitArena) mayHead(head uint64) bool {
	i := head % headBitsN
	return ar.headBits[i/64].Load()&(1<<(i%64)) != 0
}

// JITCache returns the statistics of the shared translation cache.
func JITCache() JITCacheStats {
	arena.mu.Lock()
	defer arena.mu.Unlock()
	return JITCacheStats{Translations: arena.trans, GuestBytes: arena.guest, HostBytes: arena.bytes, Limit: jitRangeBytes}
}

// init reserves the range and writes the entry stub. Called with mu held.
func (ar *jitArena) init() bool {
	if ar.base != 0 || ar.failed {
		return !ar.failed
	}
	code, err := codearena.Reserve(jitRangeBytes, jitChunkBytes)
	if err != nil {
		ar.failed = true
		return false
	}
	ar.code = code
	ar.base = code.Base()
	ar.byKey = make(map[string]*jitTrans)
	ar.heads = make(map[uint64]struct{})
	ar.heat = make(map[uint64]uint32)
	ar.byPage = make(map[pageKey]*jitTrans)
	// The entry stub: load the registers translations keep constant
	// (jit_lower_amd64.go), then jump to the target in rax.
	var a emitter
	a.Load64(rJC, at(rH, offC))
	a.ALURI(aluAdd, rJC, offJC)
	a.Load64(rLT, at(rH, offLTLB))
	a.Load64(rST, at(rH, offSTLB))
	a.Load64(rRem, at(rH, offJRem))
	a.Load64(rPC, at(rH, offJPC))
	a.MXCSR(2, at(rH, offJMXIn))
	a.JmpR(rax)
	off, ok := ar.place(a.Code)
	if !ok {
		ar.failed = true
		return false
	}
	ar.enter = ar.base + off
	// The coverage stub every translation calls (covStub).
	var c emitter
	covStub(&c)
	off, ok = ar.place(c.Code)
	if !ok {
		ar.failed = true
		return false
	}
	ar.cov = ar.base + off
	// The line checks every translation calls (fineStub).
	for i, tlb := range []reg{rLT, rST} {
		var f emitter
		fineStub(&f, tlb)
		off, ok = ar.place(f.Code)
		if !ok {
			ar.failed = true
			return false
		}
		ar.fine[i] = ar.base + off
	}
	ar.seal()
	return true
}

// place copies code into the writable chunk, opening one if needed, and
// returns its offset. Called with mu held.
func (ar *jitArena) place(code []byte) (uintptr, bool) {
	if ar.chunk == nil || !ar.code.Fits(len(code)) {
		ar.seal()
		if err := ar.code.Open(len(code)); err != nil {
			return 0, false // full
		}
		ar.chunk = &jitChunk{}
	}
	return ar.code.Place(code)
}

// seal makes the writable chunk's code executable and its translations
// runnable. Called with mu held.
func (ar *jitArena) seal() {
	if ar.chunk == nil {
		return
	}
	if err := ar.code.Seal(); err != nil {
		panic("jit: " + err.Error())
	}
	for _, t := range ar.wait {
		t.chain.Store(ar.base + t.chainAt)
		t.goEntry.Store(ar.base + t.goAt)
	}
	ar.wait = ar.wait[:0]
	ar.chunk.sealed.Store(true)
	ar.chunk = nil
}

// jitKey is a region's cache key: the head's page offset, then each
// member's page offset and instruction bytes.
func jitKey(members []*block, offs []uint64) string {
	var buf []byte
	buf = binary.LittleEndian.AppendUint16(buf, uint16(offs[0]))
	for mi, b := range members {
		buf = binary.LittleEndian.AppendUint16(buf, uint16(offs[mi]))
		buf = binary.LittleEndian.AppendUint16(buf, uint16(len(b.ops)))
		for i := range b.ops {
			o := &b.ops[i]
			buf = append(buf, byte(o.raw), byte(o.raw>>8))
			if o.len == 4 {
				buf = append(buf, byte(o.raw>>16), byte(o.raw>>24))
			}
		}
	}
	return string(buf)
}

// jitHeadKey hashes what a region's key starts with: its head's page
// offset and bytes.
func jitHeadKey(b *block) uint64 {
	h := uint64(b.pa&pageMask) * 0x9e3779b97f4a7c15
	for i := range b.ops {
		h = (h ^ uint64(b.ops[i].raw)) * 0x100000001b3
	}
	return h ^ uint64(len(b.ops))
}

// jitTranslate returns the shared translation of the region block b
// heads: made by another machine, or made now if create is set or if the
// runs of b's head counted over the process, with runs more from this
// machine, reach jitHot. It returns nil when there is none yet; no is set
// when there never will be (b cannot be translated, or the cache is
// full). The translation may not be runnable yet (see jitArena).
func (m *Machine) jitTranslate(b *block, runs uint32, create bool) (t *jitTrans, no bool) {
	head := jitHeadKey(b)
	may := arena.mayHead(head) // read without mu: a head made just now may be missed, which only delays
	if runs == 0 && !create && !may {
		// The common case of a block that ran twice: no translation
		// starts with it, and nothing is to be counted yet.
		return nil, false
	}
	if jitPrefix(b) == 0 {
		return nil, true
	}
	pk := pageKey{off: b.pa & pageMask}
	pk.p, pk.frozen = m.RAM.frozenPage((b.pa - m.RAM.Base) >> pageShift)
	arena.mu.Lock()
	if !arena.init() {
		arena.mu.Unlock()
		return nil, true
	}
	made := false
	if may {
		if pk.frozen {
			if t := arena.byPage[pk]; t != nil {
				arena.mu.Unlock()
				return t, false
			}
		}
		_, made = arena.heads[head]
	}
	if !create && runs > 0 {
		n := arena.heat[head] + runs
		arena.heat[head] = n
		create = n >= jitHot
	}
	arena.mu.Unlock()
	if !made && !create {
		// Forming the region decodes its members: only when some
		// translation starts with this block, or one is due.
		return nil, false
	}
	members, offs := m.jitRegion(b, jitPrefix)
	key := jitKey(members, offs)
	ar := &arena
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if t, ok := ar.byKey[key]; ok {
		ar.remember(pk, t)
		return t, false
	}
	if !create {
		// A region with this head, but other members: count on.
		return nil, false
	}
	code, goOff := translateRegion(members, offs)
	off, ok := ar.place(code)
	if !ok {
		return nil, true
	}
	t = &jitTrans{chunk: ar.chunk, chainAt: off, goAt: off + uintptr(goOff)}
	ar.byKey[key] = t
	ar.remember(pk, t)
	ar.heads[head] = struct{}{}
	ar.headBits[head%headBitsN/64].Or(1 << (head % headBitsN % 64))
	delete(ar.heat, head)
	ar.wait = append(ar.wait, t)
	ar.trans++
	for _, mb := range members {
		ar.guest += mb.size
	}
	ar.bytes += uint64(len(code))
	return t, false
}

// pageKey names a region by its head's page and offset. Only a frozen page
// (shared with a snapshot, never written in place) names one: its bytes,
// and so the region jitRegion forms from them (all in that page) and its
// key, never change. The key holds the page, so its address is not reused.
type pageKey struct {
	p      *page
	off    uint64
	frozen bool
}

// maxByPage bounds jitArena.byPage (a cache of lookups).
const maxByPage = 1 << 20

// remember records that the region headed at pk translates to t, so that
// other machines running the same frozen page (sibling universes forked
// from one snapshot) adopt t without forming the region again. Called with
// mu held.
func (ar *jitArena) remember(pk pageKey, t *jitTrans) {
	if pk.frozen && len(ar.byPage) < maxByPage {
		ar.byPage[pk] = t
	}
}

// jitSeal seals chunk c if it is still the writable one.
func jitSeal(c *jitChunk) {
	if c == nil || c.sealed.Load() {
		return
	}
	arena.mu.Lock()
	defer arena.mu.Unlock()
	if arena.chunk == c {
		arena.seal()
	}
}

// runJIT runs hart h from block b (at virtual pc, fully inside budget, its
// coverage counted) in host code, then finishes in the interpreter what
// the host code left, and accounts for it all as runSlice would have.
func (m *Machine) runJIT(h *Hart, b *block, pc, budget uint64) {
	j := &h.j
	j.pc, j.rem = pc, budget
	j.timeEnd, j.ticks, j.mtimeOff = h.local+budget, m.cfg.InsnsPerTick, m.mtimeOff
	if m.cov.edges != nil {
		j.cov = unsafe.Pointer(&m.cov.edges[0])
		j.covLo, j.covSpan, j.covMask, j.covHalf = m.cov.lo, m.cov.span, m.cov.mask, 0
		if h.priv == PrivU {
			j.covHalf = m.cov.half
		}
		j.seen = nil
		if s := m.cov.c.SeenEdges; s != nil {
			j.seen = unsafe.Pointer(&s[0])
		}
		j.newEdges, j.nTouched, j.bucketTop = 0, 0, bucketTop
	} else {
		j.cov = nil
	}
	j.mxcsrIn = mxcsrDefault
	j.fine = arena.fine
	jitCall(arena.enter, b.jitGo.Load(), unsafe.Pointer(h))
	if fl := j.mxcsr & mxcsrFlags; fl != 0 {
		h.csr.fflags |= fflagsOfMXCSR(fl)
	}
	if j.cov != nil {
		c := m.cov.c
		c.TouchedEdges = append(c.TouchedEdges, h.c.touched[:j.nTouched]...)
		c.NewEdges += int(j.newEdges)
	}
	done := budget - j.rem
	h.pc = j.pc
	m.eng.stats.Entries++
	if j.reason == jitExitMid {
		// The block is a member of the region that was running: in the
		// page the region's head is in, mapped, so lookup finds or decodes
		// it without a fault.
		b2 := h.lookup()
		if b2 == nil || b2 == &m.scratch {
			panic("jit: mid-block exit from a block lookup cannot find")
		}
		n := uint64(len(b2.ops))
		done -= n
		h.trapped = false
		m.account(h, int(done))
		mmio := m.eng.mmio
		m.account(h, h.exec(b2, h.pc, int(j.k), int(n)))
		m.eng.stats.Exits[midExitCause(&b2.ops[j.k], m.eng.mmio != mmio)]++
		h.trapped = false
		m.eng.stats.Insns += done + j.k
	} else {
		h.trapped = false
		m.account(h, int(done))
		m.eng.stats.Insns += done
		m.eng.stats.Exits[m.boundaryCause(h, j.rem, j.cov != nil && j.nTouched >= jitTouched)]++
	}
	h.pos = 0
	if h.csr.mip&h.csr.mie != 0 {
		h.checkInterrupts()
	}
}

// MXCSR (Intel SDM vol. 1 §10.2.3): all exceptions masked, round to
// nearest even, no DAZ/FTZ; the flags are bits 0-5.
const (
	mxcsrDefault = 0x1f80
	mxcsrFlags   = 0x3d // IE, ZE, OE, UE, PE (not DE, the denormal-operand flag)
)

// fflagsOfMXCSR maps MXCSR exception flags to fflags (Unprivileged §11.2):
// IE->NV, ZE->DZ, OE->OF, UE->UF, PE->NX.
func fflagsOfMXCSR(m uint32) uint64 {
	var f uint64
	if m&1 != 0 {
		f |= 0x10
	}
	if m&4 != 0 {
		f |= 0x08
	}
	if m&8 != 0 {
		f |= 0x04
	}
	if m&16 != 0 {
		f |= 0x02
	}
	if m&32 != 0 {
		f |= 0x01
	}
	return f
}

// boundaryCause classifies a boundary exit before the block at h.pc with
// rem slots left in the budget, from the jump cache as translated code saw
// it; full says the room for first touches of edge slots is full.
func (m *Machine) boundaryCause(h *Hart, rem uint64, full bool) int {
	set := jcSet(h.pc)
	for _, e := range h.c.jc[set : set+2] {
		if e.pc != h.pc || e.ctx != h.jctx.ctx {
			continue
		}
		switch {
		case e.jit == 0:
			return ExitNotHot
		case uint64(len(e.b.ops)) > rem:
			return ExitBudget
		case full:
			return ExitCoverageRoom
		}
		return ExitInterrupt
	}
	return ExitJumpCache
}
