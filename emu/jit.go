package emu

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"everett/isa"
)

// The parts of the JIT every host shares: the per-hart exchange area with
// translated code, and the hotness bookkeeping of decoded blocks. The
// translator itself is jit_amd64.go (emitter emu/internal/amd64, code
// memory emu/internal/codearena, lowering jit_lower_amd64.go, entry
// jit_amd64.s).
//
// Translated code runs whole decoded blocks and chains from one to the next
// through the hart's jump cache, never calling back into Go. Whatever it
// does not do itself it leaves to the interpreter, at one of two exits:
// at a block boundary (the next block is not translated or not in the jump
// cache, the budget does not cover it, or its coverage slot reaches a new
// bucket) or in the middle of a block, before op k (a TLB miss, MMIO, an
// ownership change, a CSR, an AMO or an FP operation it does not
// translate, a system instruction): the interpreter then runs the rest of
// that block from op k, exactly as if it had run it all. Translated code
// writes only the integer and FP registers, mstatus (FS dirty, sstatus
// writes, M-mode writes that keep the TLB sets), the plain CSRs (plainCSRs), mie, mip and seipSW (interruptCSR), the LR/SC reservation, the hart's
// load and store TLB pointers (it switches TLB sets when SUM changes), the
// coverage map and covPrev, the edge slots it saw become non-zero
// (hartCaches.touched), its own scratch in jitState, and RAM pages its
// soft TLBs already grant; the integer registers it keeps in host
// registers it writes back at every exit, so at every exit the hart's
// state is the interpreter's.

// jitOpMutant, when set (by tests only), is asked which operation to
// translate for each register-register ALU op (its kind, unless the test
// mutates it) and whether its destination lives in a host register: a
// test of the tests makes the JIT deliberately wrong with it, to prove the
// engine comparisons catch a wrong case of the lowering.
var jitOpMutant func(o *op, rdCached bool) isa.Op

// Exit reasons, in jitState.reason.
const (
	jitExitBoundary = 1 // stopped before the block at pc
	jitExitMid      = 2 // stopped before op k of the block at pc
)

// jitAdopt is how many times the interpreter runs a block before it looks
// for the block's translation in the shared cache (another machine, a
// parent or sibling universe, may have made it), and jitHot how many runs,
// counted over every machine of the process, before the block is
// translated. A translation costs about as much as a few hundred
// interpreted runs of its block, so code that runs fewer times (a boot's
// setup) is not worth translating; finding one made already costs little.
// Counting over machines matters to the explorer: each universe runs a
// fork's warm code a few dozen times, and thousands of universes run it.
// A machine reports a block's runs to the shared count once it has run
// jitCount times, and every jitHeatEvery runs after. jitHot was 512 while
// every universe counted runs of its own copies of the blocks; since the
// machines holding a page share its blocks, and so their counts, 128 ran
// the kv example's universes 7% faster (8 rounds of scripts/ab-explore.sh;
// 64 was no better).
const (
	jitAdopt     = 2
	jitCount     = 32
	jitHot       = 128
	jitHeatEvery = 64
)

// jitHotOnly is jitHot for the only machine of a process (OnlyMachine),
// which counts its blocks' runs itself. Tuned on the 1-hart Linux boot
// (BenchmarkTranslateKernelRegions: a region costs about 7 us to translate
// now, half what it did when jitHot was chosen): 256 and 128 both ran the
// boot about 3% faster than 512 (30 pairs of boots run side by side).
const jitHotOnly = 256

// jitSealEvery is how many more runs of a block waiting for its
// translation force the shared code chunk to be sealed (made executable).
const jitSealEvery = 64

// jitTouched is the room translated code has for edge slots that become
// non-zero; when it is full, a first touch leaves to the run loop.
const jitTouched = 512

// bucketTop is, per bucket (emu.Bucket, plus one), its highest count: a
// count n reaches a bucket higher than b when n > bucketTop[b].
var bucketTop = [16]uint8{0, 1, 2, 3, 7, 15, 31, 127, 255}

// jitState is the exchange area between the Go run loop and translated
// code. Translated code writes only the fields marked out, and tmp.
type jitState struct {
	pc     uint64 // in: pc of the first block; out: pc of the block at the exit
	rem    uint64 // in: instruction slots in the budget; out: slots left
	k      uint64 // out: op index of a mid-block exit
	reason uint64 // out: jitExitBoundary or jitExitMid

	// Coverage (see runSlice): the machine's settings, copied at entry.
	cov     unsafe.Pointer // &Coverage.Edges[0], or nil: off
	covLo   uint64
	covSpan uint64
	covMask uint64
	covHalf uint64         // the user half's offset if the hart runs in U-mode, else 0
	seen    unsafe.Pointer // &Coverage.SeenEdges[0], or nil
	// What Coverage.bucketEdge would have recorded: new buckets, and the
	// slots that became non-zero, in order, in hartCaches.touched (runJIT
	// adds them).
	newEdges  uint64 // out
	nTouched  uint64 // out
	bucketTop [16]uint8

	// FP: MXCSR loaded at entry (round to nearest even, all exceptions
	// masked, no flags) and stored at exit, whose flags runJIT accrues.
	mxcsrIn uint32
	mxcsr   uint32

	// The time CSR: the local time at which rem would reach 0, the
	// machine's InsnsPerTick and its mtime offset, set at entry.
	timeEnd  uint64
	ticks    uint64
	mtimeOff uint64
	fine     [2]uintptr // the line checks of loads and stores, called by translated code (fineStub)
	tmp      uint64     // scratch for translated code
	tmp2     uint64
}

// jitTrans is one translation in the shared cache. Its entry points are
// zero until the code chunk holding it is executable.
type jitTrans struct {
	chain   atomic.Uintptr // entry from another translation: checks budget, counts coverage
	goEntry atomic.Uintptr // entry from the run loop, which did both already
	chunk   *jitChunk      // the chunk the code is in, for sealing on demand
	chainAt uintptr        // offsets of the entries in the code range
	goAt    uintptr
}

// jitChunk is a run of code pages filled before they become executable.
type jitChunk struct {
	sealed atomic.Bool
}

// jitPrepare counts a run of block b under the JIT engine and gives it host
// code once it is hot and its translation is executable. Other machines may
// run b at the same time (a shared page's block): each count is one atomic
// add, so every count is seen by exactly one machine.
func (m *Machine) jitPrepare(b *block) {
	if t := b.tr.Load(); t != nil {
		if e := t.goEntry.Load(); e != 0 {
			b.jit.Store(t.chain.Load())
			b.jitGo.Store(e)
			return
		}
		if b.hits.Add(1)%jitSealEvery == 0 {
			jitSeal(t.chunk)
		}
		return
	}
	h := b.hits.Add(1)
	if m.eng.eager {
		// The lockstep harness: translate all it can, at once.
		if h == 2 {
			m.jitSet(b, 0, true)
		}
		return
	}
	if m.only {
		// No other machine adds to the counts (OnlyMachine): count here,
		// without the cache's lock. The second run still looks, for code
		// this machine translated before and decodes again.
		switch h {
		case jitAdopt:
			m.jitSet(b, 0, false)
		case jitHotOnly:
			m.jitSet(b, 0, true)
		}
		return
	}
	var runs uint32
	switch {
	case h == jitAdopt:
		// Only look: most blocks run a few times, and counting them all
		// would cost a boot more than it saves.
	case h == jitCount:
		runs = h
	case h > jitCount && (h-jitCount)%jitHeatEvery == 0:
		runs = jitHeatEvery
	default:
		return
	}
	m.jitSet(b, runs, false)
}

// jitSet looks for (or makes, see jitTranslate) the translation of the
// region b heads and records what it found in b.
func (m *Machine) jitSet(b *block, runs uint32, create bool) {
	t, no := m.jitTranslate(b, runs, create)
	if t != nil {
		b.tr.CompareAndSwap(nil, t)
	}
	if no {
		b.noJIT.Store(true)
	}
}

// staticNext returns where block b may go next, as offsets from its
// start: its branch's or jal's targets, or its fall-through; none if it
// ends in a jalr or its prefix translated ops (prefix) stop short of its
// end (it ends in the interpreter).
func staticNext(b *block, prefix int) []int64 {
	if prefix < len(b.ops) {
		return nil
	}
	last := &b.ops[len(b.ops)-1]
	switch last.kind {
	case isa.JAL:
		return []int64{int64(last.off) + last.imm}
	case isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU:
		return []int64{int64(last.off) + int64(last.len), int64(last.off) + last.imm}
	case isa.JALR:
		return nil
	}
	return []int64{int64(b.size)}
}

// jitRegionBlocks bounds a region: the blocks translated together with a
// hot block, so that jumps among them are direct (loops in one page).
const jitRegionBlocks = 12

// jitRegion returns the region headed by block b: b, then the blocks its
// static successors (branch targets, jal targets, fall-throughs) start in
// the same page, breadth first, and their page offsets. Every member's
// bytes are this machine's now; a region's translation is keyed by all of
// them, and a store to the page invalidates every member at once.
func (m *Machine) jitRegion(b *block, prefix func(*block) int) ([]*block, []uint64) {
	base := b.pa &^ pageMask
	members := []*block{b}
	offs := []uint64{b.pa & pageMask}
	for i := 0; i < len(members) && len(members) < jitRegionBlocks; i++ {
		mb := members[i]
		start := int64(offs[i])
		for _, d := range staticNext(mb, prefix(mb)) {
			t := start + d
			if t < 0 || t >= pageSize || len(members) >= jitRegionBlocks {
				continue
			}
			if slices.Contains(offs, uint64(t)) {
				continue
			}
			// Whether or not this machine ran them yet: a region must be a
			// function of the page's bytes alone, so that every machine
			// (every fork) forms the same one and finds it translated.
			nb := m.blockAt(base + uint64(t))
			if nb == nil || prefix(nb) == 0 {
				continue
			}
			members = append(members, nb)
			offs = append(offs, uint64(t))
		}
	}
	return members, offs
}
