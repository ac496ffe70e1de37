package emu

import (
	"fmt"
	"math/bits"

	"everett/hw"
	"everett/isa"
)

// The rvwmo memory model (RISC-V Unprivileged ISA, chapter "RVWMO Memory
// Consistency Model"; RATIONALE.md, "Why store buffers and deferred loads
// for RVWMO?"). It is operational and sound: every execution it produces
// is one RVWMO allows, though it does not produce every one.
//
// Under rvwmo each hart has
//
//   - a store buffer: plain stores to RAM, translated when they execute
//     (so traps stay precise), wait there; entries drain to the one shared
//     memory in an order drawn from the model's stream, but never two
//     overlapping entries out of order and never across a barrier mark
//     (fence w,w). Drained stores are visible to every hart at once, so
//     the global memory order is multi-copy atomic. A hart's loads read
//     its own buffer first (byte by byte, youngest entry first). A store
//     after a control dependency on a deferred load (a branch whose two
//     targets are the next instruction) waits in the buffer until that
//     load resolves, though its own hart reads it at once: forwarded
//     early, visible late (the rfi shapes).
//   - deferred loads: a plain load from RAM may leave its destination
//     register pending; the value is read when the load resolves, at a
//     drawn later step, or first when a later instruction names the
//     register (address and data dependencies, and control dependencies
//     through a branch with two targets, stay ordered for free), when a
//     later load overlaps it (coherence), or at a fence that orders it
//     before later loads. It reads only the hart's stores older than
//     itself, so a later store to the same bytes may be buffered (and
//     read by later loads) while it is pending; that store waits for it.
//   - tainted registers (since 2026-12-04, evening): xor or sub of a
//     pending register with itself does not resolve the load (the result
//     is 0 whatever it reads); the result, and what integer ops compute
//     from it, is known but tainted by the load. A store whose address or
//     data is tainted is buffered waiting for the load (and a load that
//     reads it from the buffer is performed after the load, rule 12); a
//     load whose address is tainted resolves after it; a branch or jump
//     on a tainted register, and an access with a tainted address, make
//     later stores wait for it (rules 11 and 13). Later independent
//     accesses pass it: the suite's false dependencies order exactly
//     what rules 9 to 13 say.
//   - deferred LRs: an LR without aq or rl may be deferred like a load
//     (where an AMO could pass the pending accesses), and the SC after it
//     to the same bytes paired with it; the two are performed together,
//     in memory, the SC succeeding, when the LR resolves, so later
//     accesses to other bytes may pass the pair. A fence resolves them.
//   - fence waits: a hart with accesses pending may end its turn at a
//     fence instead of performing them (a drawn scheduling choice), so
//     that a load or store stays pending while other harts run on.
//   - speculation (since 2026-12-05, wmospec.go): at a branch that really
//     goes two ways on a pending register, the hart may (a draw from
//     speculation's own stream) take a checkpoint, guess the direction
//     and run on with the load pending, so that later loads are
//     performed before it (RVWMO orders none through a control
//     dependency). Only integer ops, jumps and branches, and plain
//     aligned loads and stores to RAM needing no page walk run on a
//     guessed path; its stores wait for the branch's loads and never
//     drain before the checkpoint is validated, at the first boundary
//     after those loads resolve or before anything else (a trap, an
//     interrupt, any other instruction). A wrong guess is squashed:
//     registers, the path's buffered stores and deferred loads dropped,
//     the hart on at the other target, the path's instructions not
//     retired (they keep their slots: virtual time goes on).
//
// A Zalasr load-acquire (without rl) is performed when it executes, never
// deferred (zalasr.go); a Zalasr store-release (without aq) waits in the
// buffer, after every earlier load resolved, and drains only as the
// oldest entry; a later acquire drains it first. fence.i resolves the
// deferred loads a control dependency is pending on (see the FENCE_I
// case of execWMO; hartWMO.br) and drains the buffer only if a buffered store is to
// a page with decoded code, and a fetch that misses the jump cache
// drains it if a buffered store is to the fetched page, so the hart's
// own fetch sees its stores. Everything else is performed in place
// after the hart settles (every pending load resolved, the buffer
// drained), or for AMOs and LR/SC without rl with the pending accesses
// to other bytes left pending (wmoAtomicMayPass): Zalasr loads with rl
// and stores with aq, CSR accesses, system instructions, sfence.vma,
// floating-point loads and stores, MMIO, accesses that cross a page or
// trap, and traps themselves. What the model still cannot show: an
// access performed before an earlier load its address depends on (no
// address is guessed), loads past anything a guessed path may not run
// (a fence, an atomic, a page walk), and the other approximations
// RATIONALE lists ("Why store buffers and deferred loads for RVWMO?").
// Under sc none of this exists: the hooks are one nil test per block
// (runSlice), per trap (raise, takeTrap, interrupt delivery) and per
// jump-cache miss.

// MemoryModel is a machine's memory consistency model.
type MemoryModel uint8

// Memory models.
const (
	// ModelSC: sequential consistency, the default. One hart runs at a
	// time and every access is performed when it executes.
	ModelSC MemoryModel = iota
	// ModelRVWMO: store buffers and deferred loads within RVWMO.
	ModelRVWMO
)

func (mm MemoryModel) String() string {
	switch mm {
	case ModelSC:
		return "sc"
	case ModelRVWMO:
		return "rvwmo"
	}
	return fmt.Sprintf("model(%d)", uint8(mm))
}

// ParseMemoryModel parses a model name: "sc" (or empty) or "rvwmo".
func ParseMemoryModel(s string) (MemoryModel, error) {
	switch s {
	case "", "sc":
		return ModelSC, nil
	case "rvwmo":
		return ModelRVWMO, nil
	}
	return 0, fmt.Errorf("%w: unknown memory model %q (want sc or rvwmo)", ErrConfig, s)
}

// Bounds of a hart's pending accesses.
const (
	wmoStores = 8 // store-buffer entries
	wmoLoads  = 8 // deferred loads
)

// wmoStore is one store-buffer entry.
type wmoStore struct {
	pa   uint64
	v    uint64
	size uint8
	rel  bool   // a Zalasr store-release: drains only as the oldest entry (rule 6); an acquire drains it first (rule 7)
	amo  bool   // (with rel) an amoswap.rl with rd = x0: the hart's own later loads of its bytes wait for it to drain (rule 3)
	gen  uint32 // barrier generation: entries of a later generation wait for every earlier one
	seq  uint64 // the hart's count of buffered stores before this one
	// wait: registers of deferred loads this store may not become visible
	// before: earlier loads of the same bytes (rule 1), and those a
	// control dependency (rule 11) or a fence r,w (rule 4) orders first. It may not drain before they resolve, but
	// the hart's own loads read it at once (a store performed late but
	// forwarded early: the rfi shapes).
	wait uint64
	// dep: the deferred loads its address or data depends on though
	// its value is known (hartWMO.taint; a subset of wait): a load that
	// reads this store from the buffer is performed after them (rule 12).
	dep uint64
}

// wmoLoad is one deferred load.
type wmoLoad struct {
	pa   uint64
	seq  uint64 // the hart's count of buffered stores when it issued: it reads only older ones
	size uint8
	kind isa.Op // LB..LWU (an LR: LW or LD): width and extension
	rd   uint8  // 1..31
	// An LR (lr) performed late: its reservation is taken when it
	// resolves. Paired with the SC after it (sc), the two are performed
	// together when it resolves, the SC succeeding: rd2 (or the sink)
	// gets 0 and the SC stores v, or the value the LR reads if fromLR.
	lr, sc, fromLR bool
	rd2            uint8
	v              uint64
	// amo: an AMO without aq or rl performed late (wmoDeferAMO), its
	// kind (0 for a load or an LR): when it resolves it reads its bytes
	// and writes them with v (its rs2) combined, in memory at once, and
	// rd gets what it read. An AMO with rd = x0 is pending into one of
	// the registers wmoAMOSink.. that no instruction names.
	amo isa.Op
	// link: a later load of its bytes was performed first (wmolink.go):
	// it is performed before any store to its bytes becomes visible.
	link bool
	// after: older deferred loads its address depends on though it is
	// known (hartWMO.taint): they resolve before it (rule 9). For an LR
	// paired with its SC: the loads the SC's data depends on though it
	// is known (rule 10; since WMOVersion 3), all older than the LR.
	after uint64
	// spec: issued on a guessed path (wmospec.go): a squash drops it.
	spec bool
}

// hartWMO is a hart's pending accesses under rvwmo.
type hartWMO struct {
	st   [wmoStores]wmoStore // oldest first
	ns   int
	ld   [wmoLoads]wmoLoad
	nl   int
	pend uint64 // bit r: x[r] waits for a deferred load
	// ctrl: pending registers that a later store may not become visible
	// before, though later loads may pass them: those a branch whose two
	// targets are the same instruction read (the branch needs no value to
	// go on; a control dependency, rule 11 of preserved program order),
	// and those of loads before a fence r,w (rule 4). A store buffered
	// meanwhile waits for them (wmoStore.wait).
	ctrl uint64
	// br: the part of ctrl a branch or jump put there (a control
	// dependency, not a fence r,w or rule 13): the loads a fence.i
	// performs (since WMOVersion 3; before, it performed all of ctrl).
	br  uint64
	gen uint32
	seq uint64 // stores buffered so far
	// taint[r]: deferred loads that x[r] depends on although its value
	// is known, because every instruction between computed it without
	// their values (xor or sub of a register with itself, then integer
	// ops on the result: the suite's false address and data
	// dependencies). A load, store, branch or jump reading x[r] is
	// ordered after them as its dependency asks (rules 9 to 13) without
	// resolving them now, so later independent accesses may pass them.
	// Bit r of tainted is set exactly when taint[r] is not 0; every mask
	// holds only pending registers (a load resolving leaves them all).
	taint   [32]uint64
	tainted uint64
	lr      uint64 // registers of deferred LRs not paired with an SC yet
	r       wmoRates
	// Speculation past a branch on a pending register (wmospec.go):
	// spec while the hart runs a guessed path from checkpoint chk, ready
	// once the branch's loads have resolved (the next boundary
	// validates), refetch after a squash outside execWMO (a block
	// fetched meanwhile is for the wrong pc).
	spec, ready, refetch bool
	chk                  wmoCheckpoint
	// specs and squashes count checkpoints taken and squashed: statistics
	// for tests, not state (neither saved nor hashed).
	specs, squashes uint64
}

// machineWMO is the model's machine-wide state: its stream, and whether
// harts may wait at fences (SetFenceWaits).
type machineWMO struct {
	rng        *PRNG
	fenceWaits bool
	// spec is speculation's own stream (wmospec.go): its rates and
	// choices, so that a run with no branch on a pending load draws
	// from rng exactly what it drew before speculation existed.
	spec *PRNG
	// amo is the stream of what model version 3 added, deferred AMOs
	// (wmoDeferAMO) and linked loads (wmolink.go), for the same reason:
	// a run with neither draws what it drew before them. It is started
	// from amoSeed (and the harts' amoPct and linkPct drawn from it) the
	// first time a hart could use it (wmoAMOStream): nil until then, so
	// that a run with neither costs no stream.
	amo     *PRNG
	amoSeed uint64
	// linking: harts may link loads (SetLinkedLoads); links: how many
	// loads of all harts are linked.
	linking bool
	links   int
}

// wmoRates are how a hart reorders, drawn from the model's stream when
// it is seeded: for half the seeds one draw for every hart, for the
// others one per hart, so that in some runs one hart keeps its accesses
// pending for long while another lets them go at once.
type wmoRates struct {
	// Chances in percent: that a load is deferred, and per executed
	// instruction that one buffered store drains and that one deferred
	// load resolves.
	deferPct, drainPct, resolvePct uint64
	// fenceWaitPct: the chance that a hart with accesses pending ends its
	// turn at a fence instead of performing them (execWMO); 0 unless
	// the machine allows fence waits (SetFenceWaits).
	fenceWaitPct uint64
	// Biases (wmoAny, wmoOldest or wmoYoungest): which of the stores
	// that may drain drains, and which deferred load a drawn step
	// resolves. Runs that pick the youngest keep the oldest access
	// pending for long, which the rare allowed outcomes of the litmus
	// suite need.
	drainBias, resolveBias uint64
	// specPct: the chance that a branch on a pending register is
	// guessed instead of resolving the load (wmospec.go).
	specPct uint64
	// amoPct: the chance that an AMO without aq or rl is deferred
	// (wmoDeferAMO), drawn from the AMO stream (machineWMO.amo).
	amoPct uint64
	// linkPct: the chance that a later load of a deferred load's bytes
	// links it instead of performing it (wmolink.go), from the same
	// stream.
	linkPct uint64
}

// Biases of a run's choices among pending accesses.
const (
	wmoAny      = iota // drawn uniformly
	wmoOldest          // the oldest (program order)
	wmoYoungest        // the youngest
	wmoBiases
)

// pick picks one of n candidates (oldest first) as bias says, drawing
// from the stream only for wmoAny.
func (w *machineWMO) pick(bias uint64, n int) int {
	switch bias {
	case wmoOldest:
		return 0
	case wmoYoungest:
		return n - 1
	}
	return int(w.rng.Uint64() % uint64(n))
}

// Rates a seed may draw: varied so that some runs keep accesses pending for
// long and others let them go almost at once.
var (
	wmoDeferPcts     = [...]uint64{0, 30, 60, 90, 100}
	wmoDrainPcts     = [...]uint64{1, 3, 10, 30, 60, 90}
	wmoResolvePcts   = [...]uint64{0, 3, 10, 30, 60, 90}
	wmoFenceWaitPcts = [...]uint64{0, 0, 50, 90}
)

// wmoSalt separates the model's stream from the others drawn from a seed.
const wmoSalt = 0x7276776d6f // "rvwmo"

// wmoSeed restarts the model's stream from seed and draws the harts'
// rates.
func (m *Machine) wmoSeed(seed uint64) {
	w := m.wmo
	w.rng = NewPRNG(seed ^ wmoSalt)
	w.spec = NewPRNG(seed ^ wmoSpecSalt)
	w.amo, w.amoSeed = nil, seed^wmoAMOSalt
	shared := w.drawRates()
	shared.specPct = w.drawSpecPct()
	own := w.rng.Uint64()%2 == 0
	for _, h := range m.harts {
		h.w.r = shared
		if own {
			h.w.r = w.drawRates()
			h.w.r.specPct = w.drawSpecPct()
		}
	}
}

func (w *machineWMO) drawRates() wmoRates {
	var r wmoRates
	r.deferPct = wmoDeferPcts[w.rng.Uint64()%uint64(len(wmoDeferPcts))]
	r.drainPct = wmoDrainPcts[w.rng.Uint64()%uint64(len(wmoDrainPcts))]
	r.resolvePct = wmoResolvePcts[w.rng.Uint64()%uint64(len(wmoResolvePcts))]
	r.drainBias = w.rng.Uint64() % wmoBiases
	r.resolveBias = w.rng.Uint64() % wmoBiases
	if fw := wmoFenceWaitPcts[w.rng.Uint64()%uint64(len(wmoFenceWaitPcts))]; w.fenceWaits {
		r.fenceWaitPct = fw
	}
	return r
}

func (w *machineWMO) chance(pct uint64) bool { return w.rng.Uint64()%100 < pct }

// SetMemoryModel puts the machine under a memory model. Switching to sc
// settles every hart first. The rvwmo stream starts from the machine's
// seed, and again from each schedule's seed (SetSchedule). Under rvwmo the
// machine always runs the interpreter: the JIT does not honour the model.
func (m *Machine) SetMemoryModel(mm MemoryModel) error {
	switch mm {
	case ModelSC:
		if m.wmo != nil {
			m.wmoSettleAll()
		}
		m.wmo = nil
		for _, h := range m.harts {
			h.w = nil
		}
		m.eng.cur = m.eng.asked
	case ModelRVWMO:
		if m.wmo == nil {
			m.wmo = &machineWMO{}
			for _, h := range m.harts {
				h.w = new(hartWMO)
			}
			m.wmoSeed(m.cfg.Seed)
		}
		m.eng.cur = EngineInterp
	default:
		return fmt.Errorf("%w: memory model %d", ErrConfig, mm)
	}
	m.cfg.MemoryModel = mm
	return nil
}

// SetFenceWaits lets (or, false, stops) a hart under rvwmo with accesses
// pending end its turn at a fence instead of performing them, with a
// chance drawn per run, from the next time the model's stream is seeded
// (SetSchedule). It is a scheduling bias, never a reordering: litmus
// runs use it so that in the three-thread shapes one thread's load or
// store stays pending while the others run to their ends. Off by
// default: in an operating system's code, where fences are everywhere
// and a turn's rest is virtual time, it costs far more than it shows
// (measured 2026-12-04: a 4-hart Linux boot took 7.4 times the
// instructions and 78 times the virtual time). It is part of rvwmo
// snapshots; under sc it does nothing.
func (m *Machine) SetFenceWaits(on bool) {
	if m.wmo != nil {
		m.wmo.fenceWaits = on
	}
}

// MemoryModel returns the machine's memory model.
func (m *Machine) MemoryModel() MemoryModel {
	if m.wmo != nil {
		return ModelRVWMO
	}
	return ModelSC
}

// wmoSettleAll settles every hart (resolves and drains everything).
func (m *Machine) wmoSettleAll() {
	for _, h := range m.harts {
		h.wmoSettle()
	}
}

// regBit is the pending-mask bit of register r (x0 and the sink never pend).
func regBit(r uint8) uint64 { return 1 << (r & 63) }

// execWMO is exec under rvwmo: ops 0..n-1 of block b, one at a time, with
// plain loads, stores and fences done here and every other op handed to
// exec alone. Ops that may change anything beyond registers (AMOs, CSRs,
// system instructions, floating-point memory ops) run after the hart
// settles and end the block. It returns what exec would.
func (h *Hart) execWMO(b *block, vpc uint64, n int) int {
	w := h.w
	mw := h.m.wmo
	h.trapped = false
	if w.refetch {
		w.refetch = false
		if vpc != h.pc {
			return 0 // a squash moved the hart after this block was fetched
		}
	}
	for i := 0; i < n; i++ {
		o := &b.ops[i]
		// A drawn step: one store may drain and one load may resolve.
		if w.ns > 0 && mw.chance(w.r.drainPct) {
			h.wmoDrainOne(false)
		}
		if w.nl > 0 && mw.chance(w.r.resolvePct) {
			h.wmoResolve(mw.pick(w.r.resolveBias, w.nl))
		}
		if w.spec {
			// On a guessed path (wmospec.go): validate once the
			// branch's loads have resolved, and before anything that
			// may not run there.
			if w.chk.ops++; w.ready || w.chk.ops > wmoSpecOps || !h.wmoSpecMay(o) {
				if h.wmoSpecEnd(i) {
					w.refetch = false
					return i // squashed: h.pc is the branch's other target
				}
			}
		}
		if (o.kind == isa.SC_W || o.kind == isa.SC_D) && (w.nl > 0 || w.tainted != 0) && h.wmoFailSC(o) {
			continue // it must fail: no memory operation (wmosc.go)
		}
		if named := regBit(o.rd) | regBit(o.rs1) | regBit(o.rs2) | regBit(o.rs3); (w.pend|w.tainted)&named != 0 {
			if h.wmoNamed(o, named, vpc, i) {
				return h.branch(vpc, o, w.chk.guess, i) // guessed: the branch ends the block
			}
		}
		r := wmoDone
		switch o.kind {
		case isa.LB, isa.LBU:
			r = h.wmoLoadOp(vpc, o, i, 1)
		case isa.LH, isa.LHU:
			r = h.wmoLoadOp(vpc, o, i, 2)
		case isa.LW, isa.LWU:
			r = h.wmoLoadOp(vpc, o, i, 4)
		case isa.LD:
			r = h.wmoLoadOp(vpc, o, i, 8)
		case isa.SB:
			r = h.wmoStoreOp(vpc, o, i, 1)
		case isa.SH:
			r = h.wmoStoreOp(vpc, o, i, 2)
		case isa.SW:
			r = h.wmoStoreOp(vpc, o, i, 4)
		case isa.SD:
			r = h.wmoStoreOp(vpc, o, i, 8)
		case isa.LB_AQ, isa.LH_AQ, isa.LW_AQ, isa.LD_AQ:
			r = wmoSlow // with rl: in place, after settling
			if o.raw>>25&1 == 0 {
				r = h.wmoLoadAcquire(vpc, o, i) // zalasr.go
			}
		case isa.SB_RL, isa.SH_RL, isa.SW_RL, isa.SD_RL:
			r = h.wmoStoreRelease(vpc, o, i) // zalasr.go
		case isa.LR_W, isa.LR_D:
			if h.wmoDeferLR(vpc, o, i) {
				continue
			}
			if w.lr != 0 || !h.wmoAtomicMayPass(o) {
				h.wmoSettle() // a deferred LR takes its reservation first
			}
			return h.exec(b, vpc, i, i+1)
		case isa.SC_W, isa.SC_D:
			if h.wmoPairSC(o) {
				continue
			}
			if w.lr != 0 || !h.wmoAtomicMayPass(o) {
				h.wmoSettle() // its data may be a deferred LR's register
			}
			return h.exec(b, vpc, i, i+1)
		case isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
			isa.AMOMIN_W, isa.AMOMAX_W, isa.AMOMINU_W, isa.AMOMAXU_W,
			isa.AMOSWAP_D, isa.AMOADD_D, isa.AMOXOR_D, isa.AMOAND_D, isa.AMOOR_D,
			isa.AMOMIN_D, isa.AMOMAX_D, isa.AMOMINU_D, isa.AMOMAXU_D:
			if r = h.wmoSwapRelease(vpc, o, i); r != wmoSlow {
				break
			}
			if h.wmoDeferAMO(o) {
				continue
			}
			if !h.wmoAtomicMayPass(o) {
				h.wmoSettle()
			}
			// Performed in place, in shared memory; the block ends
			// after it.
			return h.exec(b, vpc, i, i+1)
		case isa.FENCE:
			if w.nl > 0 {
				h.wmoResolveLRs() // a deferred SC's or AMO's store is ordered as a store
			}
			if (w.ns > 0 || w.nl > 0) && w.r.fenceWaitPct > 0 && h.othersRun() && mw.chance(w.r.fenceWaitPct) {
				// The hart waits at the fence: its turn ends before it,
				// with everything still pending, and drawn steps go on
				// each time it comes back (a scheduling choice, so any
				// draw is sound). Other harts run meanwhile, which the
				// shapes with three threads need: a load or store kept
				// pending while the others run to their ends.
				h.pc = vpc + uint64(o.off)
				h.pos = i
				h.yield = true
				return i
			}
			h.wmoFence(o.raw)
		case isa.FENCE_I:
			// The deferred loads a control dependency orders before
			// later stores (br; not those of a fence r,w or of rule 13,
			// since WMOVersion 3) resolve: the RVWMO chapter's rules
			// give fence.i no data ordering, but the public suite's
			// generator counts a control dependency and a fence.i as
			// ordering the load before what follows (its SAFE
			// ctrlfencei tests), and the model results that would
			// settle it are not in our copy: stronger than the chapter,
			// never weaker than the suite (RATIONALE). Other loads stay
			// pending (since 2026-12-04, evening). Buffered stores
			// stay unless one is to a page with decoded code, whose
			// blocks the hart's fetch might still find (then all drain,
			// in order; wmoFetch covers pages decoded later).
			h.wmoResolveRegs(w.br)
			h.wmoResolveStoresTo(func(pa uint64) bool { // deferred AMOs and LR/SC pairs store too
				return h.m.codePage((pa-h.ram.Base)>>pageShift) != nil
			})
			if h.wmoToCode() {
				h.wmoDrainAll()
			}
			return h.exec(b, vpc, i, i+1)
		default:
			if wmoPlain(o.kind) {
				// Registers only (or a control transfer, always the
				// block's last op): exec leaves h.pc right.
				if used := h.exec(b, vpc, i, i+1); used != i+1 || h.trapped {
					return used
				}
				if i == len(b.ops)-1 {
					return n
				}
				continue
			}
			r = wmoSlow
		}
		switch r {
		case wmoSlow:
			// Performed in place, in program order with everything
			// before it; the block ends after it. (A guessed path
			// never gets here, wmoSpecMay; if it did, a squash would
			// drop the op with the path.)
			if w.spec && h.wmoSpecEnd(i) {
				w.refetch = false
				return i
			}
			h.wmoSettle()
			return h.exec(b, vpc, i, i+1)
		case wmoYield:
			return i // preempted before the access (comm.go); h.pc is its address
		}
	}
	if n < len(b.ops) {
		h.pc = vpc + uint64(b.ops[n].off)
	} else {
		h.pc = vpc + b.size
	}
	return n
}

// othersRun reports whether another hart of the machine may run: one
// not waiting for an interrupt and not halted. Waiting at a fence for
// nobody is waste.
func (h *Hart) othersRun() bool {
	for _, g := range h.m.harts {
		if g != h && !g.waiting && !g.halted {
			return true
		}
	}
	return false
}

// wmoAtomicMayPass reports whether the AMO, LR or SC o may be performed
// with the hart's pending accesses left pending: performed in shared
// memory at once, it becomes visible before the earlier plain stores
// still buffered, and the earlier deferred loads resolve after it. RVWMO
// allows that for accesses to other bytes unless something orders them:
// o's release bit (rule 6; with aq too, rule 7), a buffered
// store-release (rule 7 against an acquire, kept simple: any), a fence
// w,w since a buffered store (its barrier generation, rule 4), and
// loads a control dependency or a fence r,w orders before later stores
// (ctrl: rules 11 and 4). Dependencies through registers were resolved
// when o named them. Where o's bytes overlap a pending access (rules 1
// and 2 and the hart's own stores it must read), or its address would
// trap or is not plain RAM, the hart settles first, as for every other
// access it does not model.
func (h *Hart) wmoAtomicMayPass(o *op) bool {
	w := h.w
	if o.raw>>25&1 != 0 || w.ctrl != 0 || (w.ns == 0 && w.nl == 0) {
		return w.ns == 0 && w.nl == 0
	}
	size := 4
	if o.raw>>12&7 == 3 {
		size = 8
	}
	va := h.x[o.rs1]
	if va&uint64(size-1) != 0 {
		return false // a misaligned atomic traps
	}
	pa, ok := h.wmoTranslate(va, size, accStore)
	if !ok {
		return false
	}
	for k := 0; k < w.ns; k++ {
		e := &w.st[k]
		if e.rel || e.gen != w.gen || overlaps(e.pa, int(e.size), pa, size) {
			return false
		}
	}
	for k := 0; k < w.nl; k++ {
		if l := &w.ld[k]; overlaps(l.pa, int(l.size), pa, size) {
			return false
		}
	}
	return true
}

// wmoNamed is execWMO's step for an op o that names (in named) a register
// a deferred load is pending into or one that is tainted. A pending
// register the op reads or writes resolves its load, except where the
// op needs no value: a branch whose two targets are the same
// instruction (a control dependency: later stores wait, ctrl), and xor
// or sub of a register with itself (the result is 0 whatever the load
// reads; it is tainted). A tainted register read by an integer op
// taints its result; by a branch or jump, it holds back later stores
// (rule 11); by a load or store, wmoLoadOp and wmoStoreOp order the
// access after the loads it depends on. Any other op (AMOs, Zalasr,
// CSRs, floating point, system) resolves the loads of every register
// it names, pending or tainted.
func (h *Hart) wmoNamed(o *op, named uint64, vpc uint64, i int) bool {
	w := h.w
	rd := regBit(o.rd)
	k := o.kind
	var src uint64
	switch {
	case k >= isa.ADDI && k <= isa.SRAI, k >= isa.ADDIW && k <= isa.SRAIW, k == isa.JALR:
		src = regBit(o.rs1)
	case k >= isa.ADD && k <= isa.AND, k >= isa.ADDW && k <= isa.SRAW, k >= isa.MUL && k <= isa.REMUW,
		k >= isa.BEQ && k <= isa.BGEU:
		src = regBit(o.rs1) | regBit(o.rs2)
	case k == isa.LUI || k == isa.AUIPC || k == isa.JAL:
	case k >= isa.LB && k <= isa.LWU:
		h.wmoResolveRegs(w.pend & (regBit(o.rs1) | rd)) // the address taint: wmoLoadOp
		return false
	case k >= isa.SB && k <= isa.SD:
		h.wmoResolveRegs(w.pend & (regBit(o.rs1) | regBit(o.rs2))) // taints: wmoStoreOp
		return false
	default:
		p := w.pend&named | w.taintOf(named)
		if k == isa.SC_W || k == isa.SC_D {
			if w.lr != 0 && o.rs2 != o.rs1 {
				// It may pair with the LR (wmoPairSC), its store then
				// waiting for the loads its data is tainted by; if it
				// does not pair, the hart settles (execWMO).
				p = w.pend&named | w.taintOf(named&^regBit(o.rs2))
			}
			p &^= w.lr
		}
		h.wmoResolveRegs(p)
		return false
	}
	if isBranch(k) {
		spec := false
		if p := w.pend & src; p != 0 {
			switch {
			case o.imm == int64(o.len):
				w.ctrl |= p // both targets are the next instruction
				w.br |= p
			case h.wmoSpeculate(o, vpc, i, p):
				spec = true // guessed (wmospec.go)
			default:
				h.wmoResolveRegs(p)
			}
		}
		w.ctrl |= w.taintOf(src) // the direction is known: a control dependency
		w.br |= w.taintOf(src)
		return spec
	}
	if w.pend&rd != 0 {
		h.wmoResolveRegs(rd) // the load would overwrite the result
	}
	var t uint64
	if p := w.pend & src; p != 0 {
		if (k == isa.XOR || k == isa.SUB || k == isa.SUBW) && o.rs1 == o.rs2 {
			t = p // 0 whatever the load reads
		} else {
			h.wmoResolveRegs(p)
		}
	}
	t |= w.taintOf(src)
	if k == isa.JAL || k == isa.JALR {
		w.ctrl |= t // a jump through a known register: a control dependency
		w.br |= t
		t = 0 // the link register holds the pc
	}
	w.setTaint(o.rd, t)
	return false
}

// taintOf returns the deferred loads the known values of the registers
// of mask depend on.
func (w *hartWMO) taintOf(mask uint64) uint64 {
	var t uint64
	for m := mask & w.tainted; m != 0; m &= m - 1 {
		t |= w.taint[bits.TrailingZeros64(m)]
	}
	return t
}

// setTaint sets the loads x[r] depends on (nothing for the sink).
func (w *hartWMO) setTaint(r uint8, t uint64) {
	if r >= 32 {
		return
	}
	w.taint[r] = t
	if t != 0 {
		w.tainted |= regBit(r)
	} else {
		w.tainted &^= regBit(r)
	}
}

// isBranch reports whether k is a conditional branch.
func isBranch(k isa.Op) bool {
	switch k {
	case isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU:
		return true
	}
	return false
}

// wmoPlain reports whether an op touches only registers and the pc, so
// that exec may run it with pending accesses around: integer and M ops,
// control transfers, and F/D ops other than loads and stores.
func wmoPlain(k isa.Op) bool {
	switch k {
	case isa.FLW, isa.FLD, isa.FSW, isa.FSD:
		return false
	case isa.LR_W, isa.LR_D, isa.SC_W, isa.SC_D,
		isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
		isa.AMOMIN_W, isa.AMOMAX_W, isa.AMOMINU_W, isa.AMOMAXU_W,
		isa.AMOSWAP_D, isa.AMOADD_D, isa.AMOXOR_D, isa.AMOAND_D, isa.AMOOR_D,
		isa.AMOMIN_D, isa.AMOMAX_D, isa.AMOMINU_D, isa.AMOMAXU_D,
		isa.CSRRW, isa.CSRRS, isa.CSRRC, isa.CSRRWI, isa.CSRRSI, isa.CSRRCI,
		isa.ECALL, isa.EBREAK, isa.MRET, isa.SRET, isa.WFI, isa.SFENCE_VMA,
		isa.FENCE_I, isa.HYPERCALL, isa.ILLEGAL,
		isa.LB_AQ, isa.LH_AQ, isa.LW_AQ, isa.LD_AQ, isa.SB_RL, isa.SH_RL, isa.SW_RL, isa.SD_RL:
		return false
	}
	return true
}

// wmoTranslate translates va for a plain load or store of size bytes, for
// the model to buffer or defer: ok is false where the access must instead
// go the ordinary way (a fault to raise, a page crossing, not RAM, a
// watched page, a debugger watching accesses).
func (h *Hart) wmoTranslate(va uint64, size int, acc access) (uint64, bool) {
	if va&pageMask > pageSize-uint64(size) || h.m.dbg != nil {
		return 0, false
	}
	tlb := h.ltlb
	if acc == accStore {
		tlb = h.stlb
	}
	var pa uint64
	if e := &tlb[va>>pageShift&tlbMask]; e.tag == va>>pageShift {
		pa = e.ppn<<pageShift | va&pageMask
	} else {
		p, _, ok := h.translate(va, acc, h.dataPriv)
		if !ok {
			return 0, false
		}
		pa = p
	}
	if !h.ram.Contains(pa, uint64(size)) || h.ram.flag((pa-h.ram.Base)>>pageShift)&pfWatch != 0 {
		return 0, false
	}
	return pa, true
}

// What execWMO does after a plain load or store.
const (
	wmoDone  = iota // issued: go on
	wmoSlow         // perform it the ordinary way, after settling
	wmoYield        // the scheduler preempted the hart before it
)

// wmoIssue translates a plain access of op i and, when the explorer tracks
// communication between harts, records it there as it issues (the
// scheduler may preempt the hart before it: wmoYield).
func (h *Hart) wmoIssue(vpc uint64, o *op, i, size int, acc access) (uint64, int) {
	pa, ok := h.wmoTranslate(h.x[o.rs1]+uint64(o.imm), size, acc)
	if !ok {
		return 0, wmoSlow
	}
	if m := h.m; m.comm.on {
		h.pc = vpc + uint64(o.off)
		h.pos = i
		if ok, _ := m.commAccess(h, pa, acc == accStore); !ok {
			return 0, wmoYield
		}
	}
	return pa, wmoDone
}

// wmoLoadOp issues a plain load of op i: deferred (its register pending)
// or read now.
func (h *Hart) wmoLoadOp(vpc uint64, o *op, i, size int) int {
	pa, r := h.wmoIssue(vpc, o, i, size, accLoad)
	if r != wmoDone {
		return r
	}
	w, mw := h.w, h.m.wmo
	after := w.taintOf(regBit(o.rs1))    // an address dependency on them (rule 9)
	linked := h.wmoLinkOverlap(pa, size) // CoRR: loads of a byte in program order, unless they read one write
	h.wmoDrainAMOs(pa, size)
	h.wmoResolveForwarded(pa, size)
	after &= w.pend
	w.setTaint(o.rd, 0)
	if !linked && o.rd != regSink && w.nl < wmoLoads && mw.chance(w.r.deferPct) {
		w.ld[w.nl] = wmoLoad{pa: pa, seq: w.seq, size: uint8(size), kind: o.kind, rd: o.rd, after: after, spec: w.spec}
		w.nl++
		w.pend |= regBit(o.rd)
		w.ctrl |= after // rule 13: later stores wait for what its address waits for
		return wmoDone
	}
	if after != 0 {
		h.wmoResolveRegs(after)
	}
	h.x[o.rd] = extendLoad(o.kind, h.wmoRead(pa, size, w.seq))
	return wmoDone
}

// regs are the registers deferred load l writes when it resolves.
func (l *wmoLoad) regs() uint64 {
	if l.sc {
		return regBit(l.rd) | regBit(l.rd2)
	}
	return regBit(l.rd)
}

// wmoResolveLRs resolves every deferred LR (and its SC) and AMO.
func (h *Hart) wmoResolveLRs() {
	w := h.w
	for i := 0; i < w.nl; {
		if w.ld[i].lr || w.ld[i].amo != 0 {
			if h.wmoResolve(i) {
				i = 0
			}
			continue
		}
		i++
	}
}

// wmoDeferLR defers an LR without aq or rl like a load (its register
// pending, read when it resolves), where an AMO could leave the earlier
// accesses pending (wmoAtomicMayPass): its reservation is taken when it
// resolves, and an SC that pairs with it before then (wmoPairSC) is
// performed with it, so that later accesses to other bytes may pass
// both, as RVWMO allows (no preserved-program-order rule orders an LR
// or SC without aq or rl before them). Not when the explorer tracks
// communication (it records accesses when they issue).
func (h *Hart) wmoDeferLR(vpc uint64, o *op, i int) bool {
	w, mw := h.w, h.m.wmo
	if o.raw>>25&3 != 0 || o.rd == regSink || w.nl >= wmoLoads || h.syncAMO || h.m.comm.on || w.pend&regBit(o.rd) != 0 {
		return false
	}
	size, kind := 4, isa.LW
	if o.kind == isa.LR_D {
		size, kind = 8, isa.LD
	}
	va := h.x[o.rs1]
	if va&uint64(size-1) != 0 || !h.wmoAtomicMayPass(o) || !mw.chance(w.r.deferPct) {
		return false
	}
	pa, ok := h.wmoTranslate(va, size, accLoad)
	if !ok {
		return false
	}
	w.ld[w.nl] = wmoLoad{pa: pa, seq: w.seq, size: uint8(size), kind: kind, rd: o.rd, lr: true}
	w.nl++
	w.pend |= regBit(o.rd)
	w.lr |= regBit(o.rd)
	w.setTaint(o.rd, 0)
	h.resValid = false
	return true
}

// wmoPairSC pairs an SC without aq or rl with the youngest deferred LR
// when the two are to the same bytes and nothing the hart did since
// orders the SC's store (another pending access to those bytes, a fence
// w,w mark, a store-release, a control dependency): the SC's register
// becomes pending too, and both are performed when the LR resolves. Its
// data may be the LR's own register (the LR's value is stored).
func (h *Hart) wmoPairSC(o *op) bool {
	w := h.w
	if w.lr == 0 || o.raw>>25&3 != 0 || h.syncAMO || h.m.comm.on || w.ctrl != 0 {
		return false
	}
	k := w.nl - 1
	for ; k >= 0 && !(w.ld[k].lr && !w.ld[k].sc); k-- {
	}
	if k < 0 {
		return false
	}
	l := &w.ld[k]
	size := 4
	if o.kind == isa.SC_D {
		size = 8
	}
	va := h.x[o.rs1]
	if w.pend&regBit(o.rs1) != 0 || w.pend&regBit(o.rs2) != 0 && o.rs2 != l.rd ||
		o.rd == l.rd || w.pend&regBit(o.rd) != 0 || va&uint64(size-1) != 0 || size != int(l.size) {
		return false
	}
	pa, ok := h.wmoTranslate(va, size, accStore)
	if !ok || pa != l.pa {
		return false
	}
	for j := 0; j < w.ns; j++ {
		if e := &w.st[j]; e.rel || e.gen != w.gen || overlaps(e.pa, int(e.size), pa, size) {
			return false
		}
	}
	for j := 0; j < w.nl; j++ {
		if j != k && overlaps(w.ld[j].pa, int(w.ld[j].size), pa, size) {
			return false
		}
	}
	// A data dependency through a tainted register (rule 10): the pair is
	// performed after those loads, if all are older than the LR, so that
	// resolving never loops (wmoResolve performs l.after first).
	after := w.taintOf(regBit(o.rs2))
	if after != 0 {
		var older uint64
		for j := 0; j < k; j++ {
			older |= w.ld[j].regs()
		}
		if after&^older != 0 {
			return false
		}
	}
	l.after = after
	l.sc, l.rd2 = true, o.rd
	if o.rs2 == l.rd {
		l.fromLR = true
	} else {
		l.v = h.x[o.rs2]
	}
	w.lr &^= regBit(l.rd)
	if o.rd != regSink {
		w.pend |= regBit(o.rd)
		w.setTaint(o.rd, 0)
	}
	return true
}

// wmoResolveForwarded resolves the deferred loads that the buffered
// stores a load of [pa, pa+size) would read (the youngest one per byte)
// depend on through their address or data (rule 12). A dependency on the
// rd of an SC paired with a deferred LR is one on the SC's store (its
// success: the SC carries no dependency from its sources to rd), not on
// a load: rule 12 does not apply to it (since WMOVersion 3).
func (h *Hart) wmoResolveForwarded(pa uint64, size int) {
	w := h.w
	any := false
	for k := 0; k < w.ns && !any; k++ {
		any = w.st[k].dep != 0 && overlaps(w.st[k].pa, int(w.st[k].size), pa, size)
	}
	if !any {
		return
	}
	var dep uint64
	for a := pa; a < pa+uint64(size); a++ {
		for k := w.ns - 1; k >= 0; k-- {
			if s := &w.st[k]; s.pa <= a && a < s.pa+uint64(s.size) {
				dep |= s.dep
				break
			}
		}
	}
	for k := 0; k < w.nl && dep != 0; k++ {
		if l := &w.ld[k]; l.sc && l.rd2 != regSink {
			dep &^= regBit(l.rd2)
		}
	}
	h.wmoResolveRegs(dep)
}

// wmoStoreOp buffers a plain store of op i.
func (h *Hart) wmoStoreOp(vpc uint64, o *op, i, size int) int {
	pa, r := h.wmoIssue(vpc, o, i, size, accStore)
	if r != wmoDone {
		return r
	}
	// An address or data dependency on a tainted register: the store
	// waits for the loads, and a load reading it too (rule 12); after an
	// address dependency, so does every later store (rule 13).
	w := h.w
	dep := w.taintOf(regBit(o.rs1) | regBit(o.rs2))
	w.ctrl |= w.taintOf(regBit(o.rs1))
	v := h.x[o.rs2]
	if pa&uint64(size-1) != 0 {
		// A misaligned store is one store per byte, unordered among
		// themselves (RVWMO chapter, "misaligned accesses may be
		// decomposed into ... memory operations of any granularity"):
		// other harts may see its bytes become visible in any order.
		for k := range size {
			h.wmoBuffer(pa+uint64(k), 1, v>>(8*k), false, dep)
		}
		return wmoDone
	}
	h.wmoBuffer(pa, size, v, false, dep)
	return wmoDone
}

// wmoBuffer puts a store in the buffer, waiting for the deferred loads
// that control dependencies order before it.
func (h *Hart) wmoBuffer(pa uint64, size int, v uint64, rel bool, dep uint64) {
	w := h.w
	if w.ns == wmoStores {
		h.wmoDrainOne(true)
	}
	wait := w.ctrl&w.pend | dep
	for k := 0; k < w.nl; k++ {
		// CoRW: an earlier load of these bytes stays pending (it reads
		// only older stores) and this store waits for it.
		if l := &w.ld[k]; overlaps(l.pa, int(l.size), pa, size) {
			wait |= regBit(l.rd)
		}
	}
	w.st[w.ns] = wmoStore{pa: pa, v: v, size: uint8(size), rel: rel, gen: w.gen, seq: w.seq, wait: wait, dep: dep}
	w.ns++
	w.seq++
}

// wmoFence applies a fence's predecessor and successor sets (Unprivileged
// §2.7; fence.tso: fm=1000, which orders R before RW and W before W only).
// Device input and output count as reads and writes: device accesses are
// never pending, so this only over-orders.
func (h *Hart) wmoFence(raw uint32) {
	fm, pred, succ := raw>>28, raw>>24&15, raw>>20&15
	const fI, fO, fR, fW = 8, 4, 2, 1
	pr, pw := pred&(fI|fR) != 0, pred&(fO|fW) != 0
	sr, sw := succ&(fI|fR) != 0, succ&(fO|fW) != 0
	switch {
	case fm == 8 && pred == fR|fW && succ == fR|fW: // fence.tso
		sr = false // W before R is not ordered; R before R and W is
		h.wmoResolveAll()
	case fm != 0:
		h.wmoSettle() // reserved: as strong as can be
		return
	case pr && sr:
		h.wmoResolveAll()
	case pr && sw:
		// Earlier loads before later stores only: the loads stay
		// pending, and every later store waits for them.
		h.w.ctrl |= h.w.pend
	}
	switch {
	case pw && sr:
		h.wmoDrainAll()
	case pw && sw:
		h.w.gen++
	}
}

// wmoToCode reports whether a buffered store is to a RAM page with
// decoded code.
func (h *Hart) wmoToCode() bool {
	w := h.w
	for k := 0; k < w.ns; k++ {
		if h.m.codePage((w.st[k].pa-h.ram.Base)>>pageShift) != nil {
			return true
		}
	}
	return false
}

// wmoFetch drains the buffer, in order, if a buffered store is to the page
// of pa, which the hart is about to fetch from (and perhaps decode), and
// first resolves the deferred AMOs and LR/SC pairs to it: a hart's
// instruction fetch sees its own stores at the latest after a fence.i,
// and seeing them earlier is allowed.
func (h *Hart) wmoFetch(pa uint64) bool {
	w := h.w
	if w.nl > 0 {
		h.wmoResolveStoresTo(func(a uint64) bool { return a>>pageShift == pa>>pageShift })
	}
	for k := 0; k < w.ns; k++ {
		if w.st[k].pa>>pageShift == pa>>pageShift {
			if w.spec && h.wmoSpecEnd(0) {
				return true // squashed: the hart fetches elsewhere
			}
			h.wmoDrainAll()
			return false
		}
	}
	return false
}

// wmoResolveStoresTo resolves the deferred AMOs and LR/SC pairs (which
// store when they resolve) whose address on says: as buffered stores,
// they become visible before a fence.i lets the hart fetch code they may
// have changed (since WMOVersion 3).
func (h *Hart) wmoResolveStoresTo(on func(pa uint64) bool) {
	w := h.w
	for i := 0; i < w.nl; {
		if l := &w.ld[i]; (l.amo != 0 || l.sc) && on(l.pa) {
			if h.wmoResolve(i) {
				i = 0
			}
			continue
		}
		i++
	}
}

// wmoSettle performs everything pending: loads resolve, then the buffer
// drains in program order. Any moment is a valid one to do so. A
// speculating hart validates first (and may be squashed: callers
// within a guessed path never settle, wmoSpecMay).
func (h *Hart) wmoSettle() {
	if h.w.spec {
		h.wmoSpecEnd(0)
	}
	h.wmoResolveAll()
	h.wmoDrainAll()
}

// wmoResolveAll resolves every deferred load, a speculating hart's
// checkpoint validated first (wmoSettle).
func (h *Hart) wmoResolveAll() {
	if h.w.spec {
		h.wmoSpecEnd(0)
	}
	for h.w.nl > 0 {
		h.wmoResolve(0)
	}
}

// wmoResolveRegs resolves the deferred loads into the registers of mask,
// oldest first.
func (h *Hart) wmoResolveRegs(mask uint64) {
	w := h.w
	for i := 0; i < w.nl; {
		if mask&w.ld[i].regs() != 0 {
			if h.wmoResolve(i) {
				i = 0 // older loads resolved first: the indices moved
			}
			continue
		}
		i++
	}
}

// wmoResolveOverlap resolves the deferred loads that overlap a later load
// of [pa, pa+size) (rule 2: loads of the same bytes in program order),
// but not one whose overlapping bytes a store between the two has
// written: that store is still buffered (it waits for the earlier load),
// the later load reads it, and RVWMO does not order the two loads.
func (h *Hart) wmoResolveOverlap(pa uint64, size int) {
	w := h.w
	for i := 0; i < w.nl; {
		if l := &w.ld[i]; overlaps(l.pa, int(l.size), pa, size) && (l.lr || !h.wmoOverwritten(l, pa, size)) {
			if h.wmoResolve(i) {
				i = 0
			}
			continue
		}
		i++
	}
}

// wmoOverwritten reports whether every byte deferred load l and [pa,
// pa+size) share is written by a buffered store younger than l.
func (h *Hart) wmoOverwritten(l *wmoLoad, pa uint64, size int) bool {
	w := h.w
	for a := max(l.pa, pa); a < min(l.pa+uint64(l.size), pa+uint64(size)); a++ {
		covered := false
		for k := 0; k < w.ns && !covered; k++ {
			s := &w.st[k]
			covered = s.seq >= l.seq && s.pa <= a && a < s.pa+uint64(s.size)
		}
		if !covered {
			return false
		}
	}
	return true
}

// wmoResolve performs deferred load i: the older loads its address
// depends on first (then it reports true: the indices moved), then it
// reads its own buffer and memory and writes the register.
func (h *Hart) wmoResolve(i int) bool {
	w := h.w
	moved := false
	if a := w.ld[i].after; a != 0 {
		rd := w.ld[i].rd
		h.wmoResolveRegs(a)
		for i = 0; w.ld[i].rd != rd; i++ {
		}
		moved = true
	}
	l := w.ld[i]
	if l.link {
		h.m.wmo.links--
	}
	v := h.wmoRead(l.pa, int(l.size), l.seq)
	h.x[l.rd] = extendLoad(l.kind, v)
	bit := l.regs()
	if l.lr {
		// Performed now, in memory: an LR takes its reservation; an LR
		// with its SC stores at once, and the SC succeeds.
		h.resValid, h.resAddr = !l.sc, l.pa
		if l.sc {
			if l.fromLR {
				l.v = v
			}
			h.m.wmoWrite(l.pa, int(l.size), l.v)
			h.x[l.rd2] = 0
		}
		w.lr &^= bit
	}
	if l.amo != 0 {
		// Performed now, in memory, read and write at one point.
		h.m.wmoWrite(l.pa, int(l.size), amoValue(l.amo, v, l.v))
	}
	if w.spec && !l.spec {
		h.wmoSpecResolved(&l) // an older load: a squash keeps its value
	}
	w.pend &^= bit
	w.ctrl &^= bit
	w.br &^= bit
	for k := 0; k < w.ns; k++ {
		w.st[k].wait &^= bit
		w.st[k].dep &^= bit
	}
	copy(w.ld[i:w.nl], w.ld[i+1:w.nl])
	w.nl--
	for k := 0; k < w.nl; k++ {
		w.ld[k].after &^= bit
	}
	for m := w.tainted; m != 0; m &= m - 1 {
		r := uint8(bits.TrailingZeros64(m))
		w.setTaint(r, w.taint[r]&^bit)
	}
	return moved
}

// wmoRead reads size bytes at pa (RAM, within a page) as this hart sees
// them: memory, overlaid by its own buffered stores older than seq
// (those it buffered before its seq-th), oldest first, so that each byte
// comes from the youngest such store to it.
func (h *Hart) wmoRead(pa uint64, size int, seq uint64) uint64 {
	p := h.ram.readPage((pa - h.ram.Base) >> pageShift)
	v := readLE(p[pa&pageMask:], size)
	w := h.w
	for k := 0; k < w.ns; k++ {
		s := &w.st[k]
		if s.seq >= seq || !overlaps(s.pa, int(s.size), pa, size) {
			continue
		}
		lo, hi := max(s.pa, pa), min(s.pa+uint64(s.size), pa+uint64(size))
		for a := lo; a < hi; a++ {
			sh, from := 8*(a-pa), 8*(a-s.pa)
			v = v&^(0xff<<sh) | (s.v>>from&0xff)<<sh
		}
	}
	return v
}

// wmoDrainOne drains one buffered store, drawn among those that may go
// first: no older entry overlaps it or belongs to an earlier generation,
// it waits for no load, and if it is a store-release, it is the oldest. When none may, it drains nothing, unless
// forced (the buffer is full): then the oldest goes, after the loads it
// waits for resolve.
func (h *Hart) wmoDrainOne(force bool) {
	w := h.w
	var ok [wmoStores]int
	n := 0
	for j := 0; j < w.ns; j++ {
		s := &w.st[j]
		free := s.gen == w.st[0].gen && s.wait == 0 && (!s.rel || j == 0) && (!w.spec || s.seq < w.chk.seq)
		for k := 0; k < j && free; k++ {
			free = !overlaps(w.st[k].pa, int(w.st[k].size), s.pa, int(s.size))
		}
		if free {
			ok[n] = j
			n++
		}
	}
	if n == 0 && !force {
		return
	}
	j := 0 // none may go: the oldest, after the loads it waits for
	switch {
	case n == 1:
		j = ok[0]
	case n > 1:
		j = ok[h.m.wmo.pick(w.r.drainBias, n)]
	}
	h.wmoDrain(j)
}

func (h *Hart) wmoDrainAll() {
	for h.w.ns > 0 {
		h.wmoDrain(0)
	}
}

// wmoDrain writes buffer entry j to memory and removes it, after the
// loads it waits for resolve.
func (h *Hart) wmoDrain(j int) {
	w := h.w
	if w.st[j].wait != 0 {
		h.wmoResolveRegs(w.st[j].wait)
	}
	if h.m.wmo.links > 0 {
		h.m.wmoBeforeWrite(w.st[j].pa, int(w.st[j].size)) // its own linked loads read it while it is buffered
	}
	s := w.st[j]
	copy(w.st[j:w.ns], w.st[j+1:w.ns])
	w.ns--
	h.m.wmoWrite(s.pa, int(s.size), s.v)
}

// wmoWrite makes a drained store visible to every hart and device at once:
// the one copy of memory changes, decoded code of the page is dropped, a
// watcher of the page is told.
func (m *Machine) wmoWrite(pa uint64, size int, v uint64) {
	if m.wmo.links > 0 {
		m.wmoBeforeWrite(pa, size)
	}
	p, fl := m.pageToWrite((pa-m.RAM.Base)>>pageShift, pa)
	writeLE(p[pa&pageMask:], size, v)
	if fl&pfWatch != 0 {
		m.storeWatched(pa, size)
	}
}

// WMOVersion numbers the rvwmo model's behaviour: which reorderings it
// performs for an instruction, and so which runs a seed gives under it. A
// report of a universe that ran under another version of the model
// cannot be replayed exactly (sc runs do not depend on it).
//
//	1: a misaligned store buffered as one store per byte, an amoswap.rl
//	   with rd = x0 buffered as a store-release (2026-12-04)
//	2: speculation past a branch on a pending register (wmospec.go), a
//	   new per-run rate drawn (2026-12-05)
//	3: AMOs without aq or rl deferred (wmoamo.go), a new per-run rate
//	   drawn from a stream of its own; an SC that must fail fails at once,
//	   its pending loads left pending (wmosc.go); a fence.i performs only
//	   the loads of control dependencies; rule 12 skips a dependency on
//	   a paired SC's success; an SC whose data is tainted pairs, the
//	   pair waiting for those loads; in litmus runs, loads of the same
//	   bytes linked (wmolink.go) (2026-12-05)
const WMOVersion = 3

// WMOChange says what rvwmo model version v changed (0: a model from
// before versions were recorded).
func WMOChange(v int) string {
	switch v {
	case 0:
		return "a model from before its versions were recorded"
	case 1:
		return "misaligned stores buffered per byte, amoswap.rl with rd = x0 buffered as a store-release"
	case 2:
		return "loads performed past a branch on a pending load, guessed and squashed when wrong"
	case 3:
		return "AMOs without aq or rl performed after later accesses to other bytes, SCs that must fail failed without performing pending loads, fence.i performing only control dependencies' loads, loads of one write linked"
	}
	return "unknown"
}

// storeKind is how a store-buffer entry's kind is saved: 0 plain, 1 a
// store-release, 2 an AMO's store-release (a file saved before AMOs were
// buffered has only 0 and 1, as the boolean it was: it reads as it did).
func storeKind(rel, amo bool) uint8 {
	switch {
	case amo:
		return 2
	case rel:
		return 1
	}
	return 0
}

// overlaps reports whether [a, a+n) and [b, b+m) share a byte.
func overlaps(a uint64, n int, b uint64, m int) bool {
	return a < b+uint64(m) && b < a+uint64(n)
}

// extendLoad extends a loaded value as load kind k does.
func extendLoad(k isa.Op, v uint64) uint64 {
	switch k {
	case isa.LB:
		return uint64(int64(int8(v)))
	case isa.LBU:
		return uint64(uint8(v))
	case isa.LH:
		return uint64(int64(int16(v)))
	case isa.LHU:
		return uint64(uint16(v))
	case isa.LW:
		return sext32(uint32(v))
	case isa.LWU:
		return uint64(uint32(v))
	}
	return v
}

// Pending reports how many stores hart i has buffered and how many loads
// it has deferred (both 0 under sc).
func (m *Machine) Pending(i int) (stores, loads int) {
	if h := m.harts[i]; h.w != nil {
		return h.w.ns, h.w.nl
	}
	return 0, 0
}

// saveWMO writes the model's state: its stream, rates and every hart's
// pending accesses. It is written only under rvwmo, so sc snapshots and
// state hashes are what they were before the model existed.
func (m *Machine) saveWMO(e *hw.Encoder) {
	w := m.wmo
	e.Tag("rvwmo")
	w.rng.Save(e)
	e.Bool(w.fenceWaits)
	for _, h := range m.harts {
		hs := h.w
		e.U64(hs.r.deferPct)
		e.U64(hs.r.drainPct)
		e.U64(hs.r.resolvePct)
		e.U64(hs.r.drainBias)
		e.U64(hs.r.resolveBias)
		e.U64(hs.r.fenceWaitPct)
		e.U8(uint8(hs.ns))
		for _, s := range hs.st[:hs.ns] {
			e.U64(s.pa)
			e.U64(s.v)
			e.U8(s.size)
			e.U8(storeKind(s.rel, s.amo))
			e.U32(s.gen)
			e.U64(s.seq)
			e.U64(s.wait)
			e.U64(s.dep)
		}
		e.U8(uint8(hs.nl))
		for _, l := range hs.ld[:hs.nl] {
			e.U64(l.pa)
			e.U64(l.seq)
			e.U8(l.size)
			e.U8(uint8(l.kind))
			e.U8(l.rd)
			e.U64(l.after)
			e.Bool(l.lr)
			e.Bool(l.sc)
			e.Bool(l.fromLR)
			e.U8(l.rd2)
			e.U64(l.v)
		}
		e.U64(hs.ctrl)
		e.U32(hs.gen)
		e.U64(hs.seq)
		e.U64(hs.tainted)
		for m := hs.tainted; m != 0; m &= m - 1 {
			e.U64(hs.taint[bits.TrailingZeros64(m)])
		}
	}
	m.saveWMOSpec(e) // since WMOVersion 2: absent from older snapshots
	m.saveWMOAMO(e)  // since WMOVersion 3
}

// restoreWMO reads what saveWMO wrote and puts the machine under rvwmo,
// checking every entry: a corrupt snapshot is an error, never a pending
// access outside RAM.
func (m *Machine) restoreWMO(d *hw.Decoder) error {
	d.Tag("rvwmo")
	w := &machineWMO{rng: NewPRNG(0), spec: NewPRNG(0)}
	if err := w.rng.Restore(d); err != nil {
		return err
	}
	w.fenceWaits = d.Bool()
	states := make([]*hartWMO, len(m.harts))
	for i := range m.harts {
		hs := new(hartWMO)
		r := &hs.r
		r.deferPct, r.drainPct, r.resolvePct = d.U64(), d.U64(), d.U64()
		r.drainBias, r.resolveBias = d.U64(), d.U64()
		r.fenceWaitPct = d.U64()
		if r.deferPct > 100 || r.drainPct > 100 || r.resolvePct > 100 || r.drainBias >= wmoBiases || r.resolveBias >= wmoBiases ||
			r.fenceWaitPct >= 100 {
			d.Fail("hart %d: rvwmo rates %d %d %d, biases %d %d", i, r.deferPct, r.drainPct, r.resolvePct, r.drainBias, r.resolveBias)
			break
		}
		hs.ns = int(d.U8())
		if hs.ns > wmoStores {
			d.Fail("hart %d: %d buffered stores", i, hs.ns)
			break
		}
		for k := 0; k < hs.ns; k++ {
			s := wmoStore{pa: d.U64(), v: d.U64(), size: d.U8()}
			kind := d.U8()
			s.gen, s.seq, s.wait, s.dep = d.U32(), d.U64(), d.U64(), d.U64()
			if kind > 2 {
				d.Fail("hart %d: store-buffer entry %d of kind %d", i, k, kind)
			}
			s.rel, s.amo = kind >= 1, kind == 2
			if !wmoAccessOK(m, s.pa, s.size) || (k > 0 && s.gen < hs.st[k-1].gen) {
				d.Fail("hart %d: store-buffer entry %d", i, k)
			}
			hs.st[k] = s
		}
		hs.nl = int(d.U8())
		if hs.nl > wmoLoads {
			d.Fail("hart %d: %d deferred loads", i, hs.nl)
			break
		}
		for k := 0; k < hs.nl; k++ {
			l := wmoLoad{pa: d.U64(), seq: d.U64(), size: d.U8(), kind: isa.Op(d.U8()), rd: d.U8(), after: d.U64(),
				lr: d.Bool(), sc: d.Bool(), fromLR: d.Bool(), rd2: d.U8(), v: d.U64()}
			// after names only older loads, so resolving never loops.
			// The register and stored value are checked against the
			// access's kind (wmoLoadOK) once the AMO section is read.
			if !wmoAccessOK(m, l.pa, l.size) || l.rd == 0 || l.rd >= wmoAMOSink+wmoLoads || hs.pend&regBit(l.rd) != 0 ||
				!isLoadKind(l.kind) || l.after&^hs.pend != 0 ||
				(l.sc || l.fromLR || l.rd2 != 0) && !l.lr || l.fromLR && !l.sc ||
				l.lr && (l.kind != isa.LW && l.kind != isa.LD || l.after != 0 && !l.sc || l.size != 4 && l.size != 8) ||
				l.sc && (l.rd2 == 0 || l.rd2 > regSink || l.rd2 == l.rd || l.rd2 != regSink && hs.pend&regBit(l.rd2) != 0) {
				d.Fail("hart %d: deferred load %d", i, k)
			}
			hs.ld[k] = l
			hs.pend |= regBit(l.rd)
			if l.sc && l.rd2 != regSink {
				hs.pend |= regBit(l.rd2)
			}
			if l.lr && !l.sc {
				hs.lr |= regBit(l.rd)
			}
		}
		hs.ctrl = d.U64()
		hs.gen = d.U32()
		hs.seq = d.U64()
		hs.tainted = d.U64()
		if hs.tainted&^0xfffffffe != 0 || hs.tainted&hs.pend != 0 {
			d.Fail("hart %d: rvwmo tainted registers %#x", i, hs.tainted)
			break
		}
		for m := hs.tainted; m != 0; m &= m - 1 {
			r := bits.TrailingZeros64(m)
			if hs.taint[r] = d.U64(); hs.taint[r] == 0 || hs.taint[r]&^hs.pend != 0 {
				d.Fail("hart %d: rvwmo taint of x%d", i, r)
			}
		}
		for k := 0; k < hs.ns; k++ {
			if hs.st[k].wait&^hs.pend != 0 || hs.st[k].dep&^hs.st[k].wait != 0 || hs.st[k].seq >= hs.seq || (k > 0 && hs.st[k].seq <= hs.st[k-1].seq) {
				d.Fail("hart %d: store-buffer entry %d", i, k)
			}
		}
		for k := 0; k < hs.nl; k++ {
			if hs.ld[k].seq > hs.seq {
				d.Fail("hart %d: deferred load %d", i, k)
			}
		}
		if hs.ctrl&^hs.pend != 0 || (hs.ns > 0 && hs.st[hs.ns-1].gen > hs.gen) {
			d.Fail("hart %d: rvwmo state", i)
		}
		states[i] = hs
	}
	if d.Err() == nil && d.Remaining() > 0 {
		if err := restoreWMOSpec(d, w, states); err != nil { // saved since WMOVersion 2
			return err
		}
	}
	if d.Err() == nil && d.Remaining() > 0 {
		if err := restoreWMOAMO(d, w, states); err != nil { // saved since WMOVersion 3
			return err
		}
	} else {
		w.amo = NewPRNG(0) // started, every rate 0: no AMO deferred, no load linked until reseeded
		for _, hs := range states {
			if hs != nil {
				hs.br = hs.ctrl // a version-2 fence.i performed all of them
			}
		}
	}
	for i, hs := range states {
		for k := 0; hs != nil && k < hs.nl && d.Err() == nil; k++ {
			if !wmoLoadOK(&hs.ld[k]) {
				d.Fail("hart %d: deferred load %d", i, k)
			}
		}
	}
	if err := d.Err(); err != nil {
		return err
	}
	m.wmo = w
	for i, h := range m.harts {
		h.w = states[i]
	}
	m.wmoCountLinks()
	m.eng.cur = EngineInterp
	m.cfg.MemoryModel = ModelRVWMO
	return nil
}

// wmoAccessOK reports whether a saved access is one the model could have
// made: a power-of-two size within one page of RAM.
func wmoAccessOK(m *Machine, pa uint64, size uint8) bool {
	switch size {
	case 1, 2, 4, 8:
	default:
		return false
	}
	return m.RAM.Contains(pa, uint64(size)) && pa&pageMask <= pageSize-uint64(size)
}

func isLoadKind(k isa.Op) bool {
	switch k {
	case isa.LB, isa.LBU, isa.LH, isa.LHU, isa.LW, isa.LWU, isa.LD:
		return true
	}
	return false
}
