package emu

import (
	"fmt"
	"math/bits"
	"unsafe"

	"everett/hw"
)

// Privilege levels (Privileged ISA §1.2, table 1.1).
const (
	PrivU = 0
	PrivS = 1
	PrivM = 3
)

// Exception causes (Privileged ISA §3.1.15, table 3.6).
const (
	CauseMisalignedFetch = 0
	CauseFetchAccess     = 1
	CauseIllegalInst     = 2
	CauseBreakpoint      = 3
	CauseMisalignedLoad  = 4
	CauseLoadAccess      = 5
	CauseMisalignedStore = 6
	CauseStoreAccess     = 7
	CauseEcallU          = 8
	CauseEcallS          = 9
	CauseEcallM          = 11
	CauseFetchPageFault  = 12
	CauseLoadPageFault   = 13
	CauseStorePageFault  = 15
)

// Interrupt numbers; the interrupt bit of xcause is added on delivery.
const (
	IntSSI = 1
	IntMSI = 3
	IntSTI = 5
	IntMTI = 7
	IntSEI = 9
	IntMEI = 11
)

// mip/mie bits.
const (
	MipSSIP = 1 << IntSSI
	MipMSIP = 1 << IntMSI
	MipSTIP = 1 << IntSTI
	MipMTIP = 1 << IntMTI
	MipSEIP = 1 << IntSEI
	MipMEIP = 1 << IntMEI
)

// mstatus fields (Privileged ISA §3.1.6).
const (
	mstatusSIE  = 1 << 1
	mstatusMIE  = 1 << 3
	mstatusSPIE = 1 << 5
	mstatusUBE  = 1 << 6
	mstatusMPIE = 1 << 7
	mstatusSPP  = 1 << 8
	mstatusVS   = 3 << 9
	mstatusMPP  = 3 << 11
	mstatusFS   = 3 << 13
	mstatusXS   = 3 << 15
	mstatusMPRV = 1 << 17
	mstatusSUM  = 1 << 18
	mstatusMXR  = 1 << 19
	mstatusTVM  = 1 << 20
	mstatusTW   = 1 << 21
	mstatusTSR  = 1 << 22
	mstatusUXL  = 3 << 32
	mstatusSXL  = 3 << 34
	mstatusSD   = 1 << 63

	mstatusMPPShift = 11
	mstatusFSShift  = 13

	// UXL = SXL = 2: XLEN 64 in S and U, read-only.
	mstatusXLFixed = 2<<32 | 2<<34

	mstatusWritable = mstatusSIE | mstatusMIE | mstatusSPIE | mstatusMPIE |
		mstatusSPP | mstatusMPP | mstatusFS | mstatusMPRV | mstatusSUM |
		mstatusMXR | mstatusTVM | mstatusTW | mstatusTSR
	sstatusReadable = mstatusSIE | mstatusSPIE | mstatusUBE | mstatusSPP |
		mstatusVS | mstatusFS | mstatusXS | mstatusSUM | mstatusMXR |
		mstatusUXL | mstatusSD
	sstatusWritable = mstatusSIE | mstatusSPIE | mstatusSPP | mstatusFS |
		mstatusSUM | mstatusMXR
)

// MISA for RV64IMAFDC with S and U modes (Privileged ISA §3.1.1).
var misaValue = uint64(2)<<62 | misaExtBits("ACDFIMSU")

// misaExtBits returns the misa extension bits of the letters in s.
func misaExtBits(s string) uint64 {
	var v uint64
	for _, c := range s {
		v |= 1 << (c - 'A')
	}
	return v
}

// Software TLB geometry: direct-mapped, one per privilege level and access kind.
const (
	tlbBits = 10
	tlbSize = 1 << tlbBits
	tlbMask = tlbSize - 1
	tlbNone = ^uint64(0) // tag of an empty entry: no virtual page number is this large
	// tlbFine marks the tag of an entry for a page the communication
	// tracker follows line by line (comm.go): the fast paths, comparing
	// the tag with the page number alone, miss it, and the slow paths
	// check the line's owner (Hart.lineAllows) instead of walking the page
	// tables, and do the access when the ownership allows it already.
	tlbFine = 1 << 63
)

// tlbEntry caches the translation of one 4 KiB virtual page.
type tlbEntry struct {
	tag  uint64         // virtual page number, or tlbNone; with tlbFine set, a page tracked by line
	host unsafe.Pointer // host address of the physical page (loads, stores); tlbFine: its *commLines
	ppn  uint64         // physical page number
	// addend is the host address of the page minus the virtual address
	// of its start: the JIT's loads and stores add it to the guest
	// address (host keeps the page alive).
	addend uintptr
}

type tlbSet struct {
	fetch [tlbSize]tlbEntry
	load  [tlbSize]tlbEntry
	store [tlbSize]tlbEntry
}

// Jump cache: virtual pc -> decoded block, valid while ctx matches. A
// context (Hart.ctx) is a number the hart never hands out twice, times 4,
// plus the privilege level: U-mode code has one number per ASID (asidCtx),
// S- and M-mode code one for all (kernel code is mapped global), and every
// fence or code change that may invalidate entries hands out new numbers
// instead of visiting them. A block's entry is never used once the block
// is invalid: every code invalidation bumps the harts' epochs, which ends
// every number (Machine.invalidateCode), so translated code chaining
// through the cache need not load the block to check it.
//
// The cache is two-way set-associative: the set of pc is pc>>1 & jcSetMask,
// its two entries are jc[2*set] and jc[2*set+1], and lookup keeps the
// entry it last found or made in way 0 (the other moves to way 1). The
// sets of a page's pcs are 2048 consecutive sets. A direct-mapped cache of
// 16384 entries missed on 16.9M block entries in 6 etcd universes, most of
// them conflicts between hot blocks (measured 2026-12-04, RATIONALE.md
// "Why a two-way jump cache?").
const (
	jcBits    = 16 // log2 of the number of entries
	jcSize    = 1 << jcBits
	jcSets    = jcSize / 2
	jcSetMask = jcSets - 1
)

// jcSet returns the index of way 0 of pc's set in hartCaches.jc.
func jcSet(pc uint64) uint64 { return (pc >> 1 & jcSetMask) * 2 }

// asidSlots is the number of ASIDs whose U-mode context numbers a hart
// keeps (Hart.asids).
const asidSlots = 16

// asidCtx is the U-mode context number of one ASID, valid while epoch is
// the hart's epoch.
type asidCtx struct {
	asid, epoch, n uint64
}

type jcEntry struct {
	pc  uint64
	ctx uint64
	jit uintptr // b.jit when the entry was made or last used (0: not translated then)
	b   *block
}

// regSink is where writes to x0 land: the decoder maps rd=0 to it, so the
// hot loop never has to re-zero x0. Register arrays have 256 entries so that
// indexing with a uint8 needs no bounds check.
const regSink = 32

// counters are a hart's instruction counters. retired counts
// architecturally retired instructions; steps counts every instruction slot
// the hart used (retired or trapped). mcycle reads steps plus cycleOff;
// minstret reads retired plus instretOff.
type counters struct {
	retired    uint64
	steps      uint64
	cycleOff   uint64
	instretOff uint64
}

// lastWalk describes the last translation made for an access (translate):
// its virtual page, and whether it is global (a G bit on its walk, or
// M-mode's identity), which the TLB fill that follows records in the
// entry's non-global bit.
type lastWalk struct {
	page   uint64
	global bool
}

// superpages lists the superpages (superKey) translated since the TLBs
// were last flushed whole, up to len(keys), n of them (more: unknown): an
// sfence.vma of one address outside all of them can flush that page alone.
type superpages struct {
	keys [16]uint64
	n    int
}

// csrFile is the CSRs a hart keeps as registers; the rest are computed
// (csr.go). Translated code reads and writes some of them at offsets
// within Hart (offCSR in jit_lower_amd64.go).
type csrFile struct {
	mstatus    uint64 // without SD, UXL, SXL (computed on read)
	mie        uint64
	mip        uint64 // pending bits as driven by devices and software
	seipSW     bool   // software-written SEIP (mip.SEIP = seipSW | seipLine)
	seipLine   bool   // SEIP as driven by the interrupt controller
	medeleg    uint64
	mideleg    uint64
	mtvec      uint64
	stvec      uint64
	mepc       uint64
	sepc       uint64
	mcause     uint64
	scause     uint64
	mtval      uint64
	stval      uint64
	mscratch   uint64
	sscratch   uint64
	satp       uint64
	mcounteren uint64
	scounteren uint64
	fflags     uint64
	frm        uint64
	pmpcfg     [2]uint64 // pmpcfg0, pmpcfg2: 16 entries
	pmpaddr    [16]uint64
}

// jumpContexts are the context numbers that key a hart's jump-cache
// entries (jcEntry.ctx): which code the hart runs now, by privilege and
// address space, and when the numbers were last invalidated.
type jumpContexts struct {
	epoch uint64 // bumped when translations or code change: ends every context number
	ctx   uint64 // number<<2 | priv: the jump-cache context now (see jcEntry)
	// ctxGen is the last context number handed out (numbers start at 1:
	// an empty jump-cache entry has context 0).
	ctxGen uint64
	// kctx is the context number of S- and M-mode code, valid while
	// kEpoch is the epoch; kNonGlobal says a jump-cache entry under it
	// was made from a non-global fetch translation, which an ASID switch
	// or fence must end.
	kctx, kEpoch uint64
	kNonGlobal   bool
	// asids are the context numbers of U-mode code under recent ASIDs,
	// direct-mapped by ASID: an ASID's number stays while its slot is
	// not taken, so switching back to an address space finds its entries.
	asids [asidSlots]asidCtx
}

// Hart is one RISC-V hardware thread: its architectural state, its CSRs, and
// the caches the engine keeps for it.
type Hart struct {
	x   [256]uint64 // x0..x31; x[regSink] absorbs writes to x0
	f   [256]uint64 // f0..f31, NaN-boxed
	pc  uint64
	ID  int
	m   *Machine
	ram *RAM

	priv     uint8
	dataPriv uint8 // effective privilege of loads and stores (MPRV)

	csr csrFile // the CSRs kept as registers (Privileged ISA §3.1, §4.1)

	cnt counters
	pos int // index within the current block of the op calling a slow path

	// LR/SC reservation (Unprivileged §8.2).
	resValid bool
	resAddr  uint64
	// syncAMO: LRs, AMOs and fences are preemption points
	// (SchedConfig.SyncPoints, in U-mode): translated code leaves to the
	// interpreter before each.
	syncAMO bool

	w *hartWMO // pending accesses under rvwmo (wmo.go); nil under sc

	local   uint64 // virtual time at the start of the current block
	inSlice bool   // the hart's turn in the current slice has begun
	stallAt uint64 // local time at which the scheduler stalls the hart (0: never)
	covPrev uint64 // coverage: hash of the previous block (not state)
	waiting bool   // in WFI
	waitAt  uint64 // virtual time the hart last began to wait in WFI
	// peekWalk: the PTE addresses of the last debugger translation (Peek).
	peekWalk [4]uint64
	halted   bool // stopped by the machine (never started, or powered off)
	trapped  bool // the op that ended the last block raised a trap
	yield    bool // the scheduler preempted the hart before an access (comm.go)
	// yieldAfter: the scheduler preempts the hart after the synchronization
	// op it is executing (comm.go, syncPoint); set and consumed within one
	// op.
	yieldAfter bool
	cut        bool // a device access cut the hart's merged turn (merge.go)

	// Engine caches: never saved, rebuilt on demand. c is allocated when
	// the hart first runs (ensureCaches), so that building or restoring a
	// machine (a fork) does not pay for its caches (2.4 MiB per hart as of
	// 2026-12-04: 2 MiB of jump cache, 384 KiB of TLBs) before it runs;
	// until then ftlb, ltlb and stlb are nil.
	c      *hartCaches
	ftlb   *[tlbSize]tlbEntry
	ltlb   *[tlbSize]tlbEntry
	stlb   *[tlbSize]tlbEntry
	jctx   jumpContexts // the jump cache's context numbers (see jcEntry)
	walk   lastWalk
	j      jitState
	supers superpages

	// The hart in the communication tracker's terms (comm.go), for the
	// line checks of tlbFine entries: a line's writer (ID+1), its bit in
	// a line's readers, and every other hart's.
	commMe, commBit, commOthers uint64
}

// tlbSetSUM is the TLB set of S-mode loads and stores with mstatus.SUM
// set (privilege level 2 has no set of its own): Linux toggles SUM around
// every access to user memory, and keeping those translations apart
// means a toggle switches sets instead of flushing them.
const tlbSetSUM = 2

// hartCaches are a hart's TLBs and jump cache: unsafe.Sizeof(hartCaches{})
// is 2,494,016 bytes on 2026-12-04 (the jump cache 2 MiB of it, the TLBs
// 384 KiB; it was 0.9 MiB while the jump cache had 16384 entries).
type hartCaches struct {
	tlbs [4]tlbSet // indexed by privilege level; 2: S-mode data with SUM
	// nonGlobal has a bit per TLB entry (by set, kind: fetch, load,
	// store, and index) set when the entry was last filled with a
	// non-global translation: those are the entries an ASID switch or an
	// ASID's fence drops. Every live non-global entry is of the current
	// ASID.
	nonGlobal [4][3][tlbSize / 64]uint64
	where     [2]tlbWhere // where the load (0) and store (1) entries of each page are
	jc        [jcSize]jcEntry
	touched   [jitTouched]uint32 // edge slots translated code saw become non-zero (jitState)
}

// ensureCaches allocates the hart's caches, empty, if it has none yet.
func (h *Hart) ensureCaches() {
	if h.c != nil {
		return
	}
	h.c = new(hartCaches)
	h.flushTLB()
	h.updateMode()
}

func newHart(m *Machine, id int) *Hart {
	h := &Hart{ID: id, m: m, ram: m.RAM}
	h.commMe, h.commBit = uint64(id+1), 1<<id
	h.commOthers = ^h.commBit
	h.reset(0)
	return h
}

// reset puts the hart in its reset state (Privileged ISA §3.4) at pc.
func (h *Hart) reset(pc uint64) {
	h.x = [256]uint64{}
	h.f = [256]uint64{}
	h.pc = pc
	h.priv = PrivM
	h.csr.mstatus = 0
	h.csr.mie, h.csr.mip, h.csr.seipSW, h.csr.seipLine = 0, 0, false, false
	h.csr.medeleg, h.csr.mideleg = 0, 0
	h.csr.mtvec, h.csr.stvec = 0, 0
	h.csr.mepc, h.csr.sepc, h.csr.mcause, h.csr.scause, h.csr.mtval, h.csr.stval = 0, 0, 0, 0, 0, 0
	h.csr.mscratch, h.csr.sscratch, h.csr.satp = 0, 0, 0
	h.csr.mcounteren, h.csr.scounteren = 0, 0
	h.csr.fflags, h.csr.frm = 0, 0
	h.csr.pmpcfg = [2]uint64{}
	h.csr.pmpaddr = [16]uint64{}
	h.resValid = false
	h.waiting = false
	h.halted = false
	h.flushTLB()
	h.updateMode()
}

// PC returns the hart's program counter.
func (h *Hart) PC() uint64 { return h.pc }

// SetPC sets the program counter.
func (h *Hart) SetPC(pc uint64) { h.pc = pc }

// X returns integer register i.
func (h *Hart) X(i int) uint64 { return h.x[i&31] }

// SetX sets integer register i (writes to x0 are ignored).
func (h *Hart) SetX(i int, v uint64) {
	if i&31 != 0 {
		h.x[i&31] = v
	}
}

// F returns the raw bits of floating-point register i.
func (h *Hart) F(i int) uint64 { return h.f[i&31] }

// Priv returns the current privilege level.
func (h *Hart) Priv() uint8 { return h.priv }

// Retired returns the number of instructions the hart has retired.
func (h *Hart) Retired() uint64 { return h.cnt.retired }

// Steps returns the number of instruction slots the hart has used: retired
// instructions plus instructions that trapped.
func (h *Hart) Steps() uint64 { return h.cnt.steps }

// Halted reports whether the hart is stopped.
func (h *Hart) Halted() bool { return h.halted }

// Waiting reports whether the hart is stalled in WFI.
func (h *Hart) Waiting() bool { return h.waiting }

// flushTLB empties every TLB and the jump cache of the hart.
func (h *Hart) flushTLB() {
	for p := range h.tlbs() {
		s := &h.c.tlbs[p]
		for i := range s.fetch {
			s.fetch[i].tag = tlbNone
			s.load[i].tag = tlbNone
			s.store[i].tag = tlbNone
		}
	}
	if h.c != nil {
		h.c.where[0].reset(h.ram.Pages())
		h.c.where[1].reset(h.ram.Pages())
		h.c.nonGlobal = [4][3][tlbSize / 64]uint64{}
	}
	h.jctx.epoch++
	h.setCtx()
	h.supers.n = 0
	if h.m != nil {
		h.m.eng.stats.Flushes++
	}
}

// asid returns the ASID field of satp.
func (h *Hart) asid() uint64 { return h.csr.satp >> 44 & 0xffff }

// newCtx hands out a context number never used before by the hart.
func (h *Hart) newCtx() uint64 {
	h.jctx.ctxGen++
	return h.jctx.ctxGen
}

// setCtx recomputes h.ctx, the jump-cache context, for the current
// privilege level, ASID and epoch.
func (h *Hart) setCtx() {
	if h.priv != PrivU {
		if h.jctx.kEpoch != h.jctx.epoch || h.jctx.kctx == 0 {
			h.jctx.kctx, h.jctx.kEpoch, h.jctx.kNonGlobal = h.newCtx(), h.jctx.epoch, false
		}
		h.jctx.ctx = h.jctx.kctx<<2 | uint64(h.priv)
		return
	}
	a := h.asid()
	s := &h.jctx.asids[a%asidSlots]
	if s.asid != a || s.epoch != h.jctx.epoch || s.n == 0 {
		*s = asidCtx{asid: a, epoch: h.jctx.epoch, n: h.newCtx()}
	}
	h.jctx.ctx = s.n<<2 | PrivU
}

// endASIDCtx ends the jump-cache entries of U-mode code under ASID a and,
// if some S- or M-mode entries came from non-global translations, theirs.
func (h *Hart) endASIDCtx(a uint64) {
	if s := &h.jctx.asids[a%asidSlots]; s.asid == a {
		s.n = 0
	}
	if h.jctx.kNonGlobal {
		h.jctx.kctx = 0
	}
	h.setCtx()
}

// markFill records in the non-global bits whether the TLB entry at index
// idx of set p and kind k (0 fetch, 1 load, 2 store) now holds a global
// translation of virtual page vpn (walk.global, when the last walk was of
// that page; any other fill counts as non-global, the safe side).
func (h *Hart) markFill(p, k int, idx, vpn uint64) {
	w := &h.c.nonGlobal[p][k][idx/64]
	if h.walk.global && h.walk.page == vpn {
		*w &^= 1 << (idx % 64)
	} else {
		*w |= 1 << (idx % 64)
	}
}

// dropNonGlobal drops every TLB entry that holds a non-global translation:
// the entries of the current ASID.
func (h *Hart) dropNonGlobal() {
	if h.c == nil {
		return
	}
	for p := range h.c.tlbs {
		s := &h.c.tlbs[p]
		for k, t := range [3]*[tlbSize]tlbEntry{&s.fetch, &s.load, &s.store} {
			ng := &h.c.nonGlobal[p][k]
			for i, w := range ng {
				for w != 0 {
					j := i*64 + bits.TrailingZeros64(w)
					w &= w - 1
					t[j].tag = tlbNone
				}
				ng[i] = 0
			}
		}
	}
}

// switchASID makes the ASID of satp current after a write that changed
// it: the other ASID's translations go (the TLBs hold one ASID's
// non-global entries at a time), the global ones and the jump-cache
// entries of both stay (the jump cache holds each ASID's under its own
// context).
func (h *Hart) switchASID() {
	h.dropNonGlobal()
	if h.jctx.kNonGlobal {
		h.jctx.kctx = 0
	}
	h.setCtx()
	if h.m != nil {
		h.m.eng.stats.Switches++
	}
}

// flushASID is sfence.vma x0, rs2 (Privileged ISA §4.2.1): it drops the
// translations of ASID a except global ones.
func (h *Hart) flushASID(a uint64) {
	if a == h.asid() {
		h.dropNonGlobal()
	}
	h.endASIDCtx(a)
}

// flushASIDVA is sfence.vma rs1, rs2 with both operands: it drops the
// translations of virtual address va under ASID a except global ones.
func (h *Hart) flushASIDVA(va, a uint64) {
	if h.c == nil {
		return
	}
	if h.inSuper(va) {
		h.flushASID(a)
		return
	}
	vpn := va >> pageShift
	idx := vpn & tlbMask
	if a == h.asid() {
		for p := range h.c.tlbs {
			s := &h.c.tlbs[p]
			for k, e := range [3]*tlbEntry{&s.fetch[idx], &s.load[idx], &s.store[idx]} {
				if (e.tag == vpn || e.tag == vpn|tlbFine) && h.c.nonGlobal[p][k][idx/64]&(1<<(idx%64)) != 0 {
					e.tag = tlbNone
				}
			}
		}
	}
	// The page's jump-cache entries, but those of S- and M-mode code
	// from global translations.
	keep := uint64(0)
	if !h.jctx.kNonGlobal {
		keep = h.jctx.kctx
	}
	first := jcSet(vpn << pageShift)
	for i := first; i < first+pageSize; i++ {
		if e := &h.c.jc[i]; e.pc>>pageShift == vpn && (keep == 0 || e.ctx>>2 != keep) {
			e.pc = ^uint64(0)
		}
	}
}

// superKey names the level-i superpage holding va.
func superKey(va uint64, i int) uint64 { return va>>(12+9*uint(i))<<2 | uint64(i) }

// noteSuper records a translation through the level-i superpage holding va.
func (h *Hart) noteSuper(va uint64, i int) {
	k := superKey(va, i)
	n := min(h.supers.n, len(h.supers.keys))
	for j := 0; j < n; j++ {
		if h.supers.keys[j] == k {
			return
		}
	}
	if h.supers.n < len(h.supers.keys) {
		h.supers.keys[h.supers.n] = k
	}
	h.supers.n++
}

// inSuper reports whether a superpage translated since the last full
// flush may hold va.
func (h *Hart) inSuper(va uint64) bool {
	if h.supers.n > len(h.supers.keys) {
		return true
	}
	for j := 0; j < h.supers.n; j++ {
		k := h.supers.keys[j]
		if superKey(va, int(k&3)) == k {
			return true
		}
	}
	return false
}

// flushTLBVA is sfence.vma of one virtual address (Privileged ISA §4.2.1):
// it drops that page's entries from every TLB set and the jump-cache
// entries of code in it, or flushes everything if a superpage translation
// may cover it (the TLBs hold superpages as 4 KiB pieces).
func (h *Hart) flushTLBVA(va uint64) {
	if h.c == nil {
		return
	}
	if h.inSuper(va) {
		h.flushTLB()
		return
	}
	vpn := va >> pageShift
	idx := vpn & tlbMask
	for p := range h.c.tlbs {
		s := &h.c.tlbs[p]
		for _, e := range []*tlbEntry{&s.fetch[idx], &s.load[idx], &s.store[idx]} {
			if e.tag == vpn || e.tag == vpn|tlbFine {
				e.tag = tlbNone
			}
		}
	}
	// The jump-cache entries of pcs in this page: 2048 consecutive sets of
	// two.
	first := jcSet(vpn << pageShift)
	for i := first; i < first+pageSize; i++ {
		if e := &h.c.jc[i]; e.pc>>pageShift == vpn {
			e.pc = ^uint64(0)
		}
	}
}

// flushStoreTLBPage drops any store-TLB entry that maps physical page ppn.
func (h *Hart) flushStoreTLBPage(ppn uint64) { h.dropPage(true, ppn) }

// flushLoadTLBPage drops any load-TLB entry that maps physical page ppn.
func (h *Hart) flushLoadTLBPage(ppn uint64) { h.dropPage(false, ppn) }

// updateMode recomputes the TLB sets in use after a change of privilege
// level or of mstatus.MPRV, MPP or SUM. Each set holds translations made
// for one effective data privilege (and SUM), so a change of mode never
// needs a flush.
func (h *Hart) updateMode() {
	h.syncAMO = h.priv == PrivU && h.m != nil && h.m.sched.cfg.SyncPoints
	h.dataPriv = h.priv
	if h.priv == PrivM && h.csr.mstatus&mstatusMPRV != 0 {
		h.dataPriv = uint8(h.csr.mstatus >> mstatusMPPShift & 3)
	}
	h.setCtx()
	if h.c == nil {
		return
	}
	h.ftlb = &h.c.tlbs[h.priv].fetch
	d := h.dataPriv
	if d == PrivS && h.csr.mstatus&mstatusSUM != 0 {
		d = tlbSetSUM
	}
	h.ltlb = &h.c.tlbs[d].load
	h.stlb = &h.c.tlbs[d].store
}

// tlbs returns the number of TLB sets to visit: none before the caches
// exist.
func (h *Hart) tlbs() int {
	if h.c == nil {
		return 0
	}
	return len(h.c.tlbs)
}

// irqLine drives one mip bit of a hart from a device.
type irqLine struct {
	h   *Hart
	bit uint64
}

func (l irqLine) SetLevel(high bool) {
	h := l.h
	if l.bit == MipSEIP {
		h.csr.seipLine = high
		h.updateSEIP()
		return
	}
	if high {
		h.csr.mip |= l.bit
	} else {
		h.csr.mip &^= l.bit
	}
}

// IRQ returns the interrupt line that drives mip bit irq (IntMSI, IntMTI,
// IntMEI or IntSEI) of this hart.
func (h *Hart) IRQ(irq int) hw.IRQLine { return irqLine{h: h, bit: 1 << irq} }

func (h *Hart) updateSEIP() {
	if h.csr.seipSW || h.csr.seipLine {
		h.csr.mip |= MipSEIP
	} else {
		h.csr.mip &^= MipSEIP
	}
}

// Reg returns integer register i (Caller interface of the SDK handler).
func (h *Hart) Reg(i int) uint64 { return h.X(i) }

// SetReg sets integer register i.
func (h *Hart) SetReg(i int, v uint64) { h.SetX(i, v) }

// HartID returns the hart's id.
func (h *Hart) HartID() int { return h.ID }

// ReadVirt reads guest virtual memory at va as a load at the hart's current
// data privilege would (through the MMU, with MPRV, SUM and MXR), without
// side effects on the hart: a fault is an error, not a trap. Only RAM is
// read.
func (h *Hart) ReadVirt(va uint64, b []byte) error {
	for len(b) > 0 {
		pa, cause, ok := h.translate(va, accLoad, h.dataPriv)
		if !ok {
			return fmt.Errorf("read of %#x faults (cause %d)", va, cause)
		}
		n := min(uint64(len(b)), pageSize-va&pageMask)
		if !h.ram.Contains(pa, n) {
			return fmt.Errorf("read of %#x: physical %#x is not RAM", va, pa)
		}
		h.ram.Read(pa, b[:n])
		b = b[n:]
		va += n
	}
	return nil
}
