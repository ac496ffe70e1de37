package litmus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"everett/isa"
)

// The oracle: which final states a memory model allows, found by
// enumerating every candidate execution of a test, independently of emu.
// It is the yardstick the runner is measured against (the suite sample in
// oracle_test.go, scripts/bench-litmus.sh): a state the runner shows that
// the oracle does not list is a forbidden outcome; a condition the oracle
// can satisfy that no run satisfied is an allowed outcome not shown.
//
// It works as herd does, axiomatically (RISC-V Unprivileged ISA, chapter
// "RVWMO Memory Consistency Model", and the herd model of its appendix
// "Formal Memory Model Specifications"):
//
//  1. Each thread is run alone on every value each of its loads could
//     return (the bytes of the initial state and of every store any
//     thread can make, to a fixed point), giving each thread's possible
//     traces: its memory events with their values, annotations, fences
//     and syntactic dependencies (address, data, control) found by
//     following registers.
//  2. For one trace per thread, every reads-from (each byte of each load
//     from one store of that byte value, or the initial state) and every
//     coherence order (per overlapping group of stores) is tried.
//  3. A candidate is kept when it satisfies the model's axioms: for both
//     models, coherence (acyclic po-loc | rf | co | fr) and atomicity (no
//     store of another hart between an LR or AMO's read and its store);
//     for sc, acyclic po | rf | co | fr; for rvwmo, acyclic ppo | rfe |
//     co | fr with the thirteen rules of preserved program order.
//
// Mixed sizes: an aligned access is one event, single-copy atomic, which
// reads each of its bytes from some store of that byte (the load value
// axiom is per byte); coherence orders the stores of each overlapping
// group, so per byte. A misaligned plain load or store is, under rvwmo,
// one event per byte ("a misaligned load or store instruction may be
// decomposed into a set of component memory operations of any
// granularity", RVWMO chapter, "Memory Model Primitives"; bytes allow
// every outcome a coarser decomposition does): the bytes are unordered
// with each other and ordered with the events of other instructions by
// the rules as any event is (each overlaps what its byte overlaps, and
// each carries the instruction's dependencies). Under sc a misaligned
// access stays one event: sc is sequential consistency over whole
// instructions, as the sc machine performs them. A misaligned LR, SC,
// AMO, load-acquire or store-release traps on the machine and is refused.
//
// One ordering beyond the thirteen rules: a fence.i after a control
// dependency on a load orders that load before every later access, as
// the suite's generator takes it (its SAFE ctrlfencei tests; the RVWMO
// chapter's rules give fence.i no data ordering, and the suite's model
// results are not in our copy), so that an outcome only the weaker
// reading allows is never counted as allowed. Also: an SC succeeds only within the bytes its thread's last
// LR read (a reservation set is implementation-defined; herd's choice)
// and may always fail; an AMO with rd = x0 is still a load and a store.
// Loops are followed for oracleBackMax backward jumps and oracleStepsMax
// instructions per thread; longer paths are dropped and Reach.Truncated
// says so. The values of step 1 come from rounds: each round runs every
// thread on the byte values known so far and adds those its stores make;
// as many rounds as the test has store instructions, plus one, give every
// value of a loop-free execution (each is made by a chain of at most that
// many stores, one reading the one before).

// Bounds of the oracle: beyond them a test is refused (ErrOracle).
const (
	oracleStepsMax  = 64      // instructions one thread's path may execute
	oracleBackMax   = 2       // backward jumps (loop iterations) one path may take
	oracleEventsMax = 64      // memory events of one candidate execution
	oracleValuesMax = 256     // values one load may return
	oracleTracesMax = 4096    // traces of one thread
	oracleRoundsMax = 6       // rounds of the value fixed point
	oracleCandsMax  = 1e7     // candidate executions of one test
	oracleNoPair    = -1      // oEvent.pair of an event without a partner
	oracleInit      = -1      // writer of a byte read from the initial state
	oracleMemBytes  = 1 << 16 // largest data area the oracle follows
)

// ErrOracle says the oracle cannot enumerate a test: an instruction or an
// access it does not follow, or a bound above.
var ErrOracle = errors.New("litmus oracle")

// Reach is what the oracle found a model allows for a test.
type Reach struct {
	Model string
	Locs  []Loc // observed locations, as Result.Locs
	// States are the allowed final states (after the filter), keyed as the
	// runner keys its histogram: 8 bytes per location, little-endian,
	// extended by the location's type.
	States map[string]bool
	// Sat: some allowed state satisfies the condition's proposition;
	// Unsat: some does not.
	Sat, Unsat bool
	// Truncated: some path of a thread was longer than oracleStepsMax
	// instructions and was dropped (a loop).
	Truncated bool
	Cands     int // candidate executions tried
}

// Verdict is what the model says of the test's condition: for exists,
// Allowed or Forbidden; for ~exists, the same read the other way round
// (Allowed: a state satisfying the proposition is reachable); for forall,
// Required when every allowed state satisfies it, else Allowed.
func (r *Reach) Verdict(q Quantifier) Verdict {
	if q == Forall {
		if r.Unsat {
			return Allowed
		}
		return Required
	}
	if r.Sat {
		return Allowed
	}
	return Forbidden
}

// Event kinds.
const (
	evR = iota
	evW
	evF
)

// oEvent is one event of a thread's trace.
type oEvent struct {
	kind       uint8
	size       uint8
	aq, rl     bool
	atomic     bool // a store of an AMO or an SC (rule 3), or an AMO's load
	part       bool // one byte of a misaligned load or store (rvwmo only)
	step       int  // the instruction that made the event: its place on the thread's path
	tso        bool // fence.tso
	fenceI     bool // fence.i: orders the loads of its ctrlDep before what follows
	pred, succ uint8
	pair       int // the other event of an AMO or LR/SC pair, or oracleNoPair
	addr, val  uint64
	// Dependencies on the thread's earlier loads, bit i for event i.
	addrDep, dataDep, ctrlDep uint64
}

func (e *oEvent) mem() bool { return e.kind != evF }

// oTrace is one path of one thread: its events and final registers.
type oTrace struct {
	ev []oEvent
	x  [32]uint64
}

// oPath is a thread's state while the oracle follows it.
type oPath struct {
	pc    uint64
	x     [32]uint64
	taint [32]uint64 // per register, the loads its value depends on
	ctrl  uint64     // loads some earlier branch depended on
	ev    []oEvent
	resv  int // event of the last LR, or -1
	steps int
	back  int // backward jumps taken
}

// oracle is the state of one enumeration.
type oracle struct {
	t      *Test
	p      *Program
	model  string
	code   [][]isa.Inst
	lo, hi uint64      // data area
	init   []byte      // initial bytes of the data area
	cand   [][]byte    // per byte of the data area: values it may hold, sorted
	traces [][]oTrace  // per thread
	seen   [][256]bool // per byte: cand as a set
	grew   bool        // a store added a byte value this round
	trunc  bool
	err    error
}

// Reachable enumerates the final states model ("sc" or "rvwmo") allows
// for t.
func Reachable(t *Test, model string) (*Reach, error) {
	if model != ModelSC && model != ModelRVWMO {
		return nil, fmt.Errorf("%w %q: the oracle knows sc and rvwmo", ErrModel, model)
	}
	p, err := Layout(t)
	if err != nil {
		return nil, err
	}
	o := &oracle{t: t, p: p, model: model}
	if err := o.setup(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	if err := o.fixpoint(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	r, err := o.combine()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	return r, nil
}

func (o *oracle) setup() error {
	p := o.p
	for i := range p.Threads {
		th := &p.Threads[i]
		n := len(th.lines)
		col := th.Words[MaxDelay : MaxDelay+n]
		ins := make([]isa.Inst, n)
		for k, w := range col {
			ins[k] = isa.Decode(w)
		}
		o.code = append(o.code, ins)
	}
	o.lo = p.DataBase
	o.hi = p.DataBase + uint64(max(len(o.t.Vars), 1))*lineSize
	if o.hi-o.lo > oracleMemBytes {
		return fmt.Errorf("%w: %d bytes of data", ErrOracle, o.hi-o.lo)
	}
	img := p.image()
	o.init = img[o.lo-RAMBase : o.hi-RAMBase]
	o.seen = make([][256]bool, len(o.init))
	o.cand = make([][]byte, len(o.init))
	for i, b := range o.init {
		o.seen[i][b] = true
		o.cand[i] = []byte{b}
	}
	return nil
}

// fixpoint runs every thread on every value its loads may read until the
// set of byte values stores make stops growing.
func (o *oracle) fixpoint() error {
	rounds := 1
	for _, code := range o.code {
		for _, in := range code {
			if storeLike(in.Op) {
				rounds++
			}
		}
	}
	for range rounds {
		o.grew = false
		o.traces = make([][]oTrace, len(o.code))
		for i := range o.code {
			s := oPath{pc: o.p.Threads[i].Entry, resv: -1}
			for _, r := range o.t.Regs {
				if r.Thread == i && r.Reg > 0 && r.Reg < 32 {
					s.x[r.Reg] = o.p.regValue(r)
				}
			}
			o.run(i, s)
			if o.err != nil {
				return o.err
			}
		}
		if !o.grew {
			return nil
		}
		for i := range o.cand {
			o.cand[i] = o.cand[i][:0]
			for v := range 256 {
				if o.seen[i][v] {
					o.cand[i] = append(o.cand[i], byte(v))
				}
			}
		}
	}
	return nil
}

func (o *oracle) fail(format string, a ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: "+format, append([]any{ErrOracle}, a...)...)
	}
}

// access checks an access of the data area and returns its offset. A
// misaligned access is followed for a plain load or store (misaligned
// says so); an LR, SC, AMO, load-acquire or store-release must be
// aligned, as the machine raises an address-misaligned exception for
// them, which the oracle does not follow.
func (o *oracle) access(th int, a uint64, size int, misaligned bool) (int, bool) {
	switch {
	case a < o.lo || a+uint64(size) > o.hi:
		o.fail("P%d: an access of %d bytes at %#x is outside the test's locations", th, size, a)
		return 0, false
	case a&uint64(size-1) != 0 && !misaligned:
		o.fail("P%d: a misaligned atomic or annotated access of %d bytes at %#x (it traps)", th, size, a)
		return 0, false
	}
	return int(a - o.lo), true
}

// split reports whether a plain access of size bytes at a becomes one
// event per byte: under rvwmo when it is misaligned ("a misaligned load or
// store instruction may be decomposed into a set of component memory
// operations of any granularity", RVWMO chapter, "Memory Model
// Primitives"; bytes are the finest, so they allow every outcome a
// coarser split does). Under sc the instruction stays one event: sc is
// sequential consistency over instructions, each performed whole, as the
// sc machine performs them.
func (o *oracle) split(a uint64, size int) bool {
	return o.model == ModelRVWMO && a&uint64(size-1) != 0
}

// addAccess adds the events of a plain load or store e of e.size bytes
// whose value is e.val: e itself, or e.size byte events when split says
// so. It returns the loads' bits (for taints).
func (s *oPath) addAccess(e oEvent, split bool) uint64 {
	e.step = s.steps
	if !split {
		return 1 << s.add(e)
	}
	var bits uint64
	for k := range uint64(e.size) {
		p := e
		p.size, p.part = 1, true
		p.addr, p.val = e.addr+k, e.val>>(8*k)&0xff
		bits |= 1 << s.add(p)
	}
	return bits
}

// values lists what a load of size bytes at offset off may return.
func (o *oracle) values(off, size int) []uint64 {
	vals := []uint64{0}
	for k := size - 1; k >= 0; k-- {
		var next []uint64
		for _, v := range vals {
			for _, b := range o.cand[off+k] {
				next = append(next, v<<8|uint64(b))
			}
		}
		vals = next
		if len(vals) > oracleValuesMax {
			o.fail("a load at offset %d may return more than %d values", off, oracleValuesMax)
			return nil
		}
	}
	return vals
}

// store records the byte values a store makes.
func (o *oracle) store(off, size int, v uint64) {
	for k := range size {
		b := byte(v >> (8 * k))
		if !o.seen[off+k][b] {
			o.seen[off+k][b] = true
			o.grew = true
		}
	}
}

func (s *oPath) set(rd uint8, v, taint uint64) {
	if rd != 0 {
		s.x[rd], s.taint[rd] = v, taint
	}
}

func (s *oPath) add(e oEvent) int {
	s.ev = append(s.ev[:len(s.ev):len(s.ev)], e) // never share a tail between paths
	return len(s.ev) - 1
}

// run follows thread th from s to the end of its column, forking at every
// load (one path per value) and every SC (success and failure).
func (o *oracle) run(th int, s oPath) {
	code := o.code[th]
	entry := o.p.Threads[th].Entry
	for o.err == nil {
		idx := int((s.pc - entry) / 4)
		if s.pc < entry || s.pc&3 != 0 || idx > len(code) {
			o.fail("P%d: control leaves the column (pc %#x)", th, s.pc)
			return
		}
		if idx == len(code) {
			if len(o.traces[th]) >= oracleTracesMax {
				o.fail("P%d: more than %d traces", th, oracleTracesMax)
				return
			}
			o.traces[th] = append(o.traces[th], oTrace{ev: s.ev, x: s.x})
			return
		}
		if s.steps++; s.steps > oracleStepsMax {
			o.trunc = true
			return
		}
		in := &code[idx]
		x, tn := &s.x, &s.taint
		rs1, rs2 := x[in.Rs1], x[in.Rs2]
		t12 := tn[in.Rs1] | tn[in.Rs2]
		next := s.pc + 4
		switch in.Op {
		case isa.LUI:
			s.set(in.Rd, uint64(in.Imm), 0)
		case isa.AUIPC:
			s.set(in.Rd, s.pc+uint64(in.Imm), 0)
		case isa.ADDI, isa.XORI, isa.ORI, isa.ANDI, isa.SLTI, isa.SLTIU, isa.SLLI, isa.SRLI, isa.SRAI, isa.ADDIW:
			s.set(in.Rd, aluImm(in.Op, rs1, in.Imm), tn[in.Rs1])
		case isa.ADD, isa.SUB, isa.XOR, isa.OR, isa.AND, isa.SLL, isa.SRL, isa.SRA, isa.SLT, isa.SLTU,
			isa.ADDW, isa.SUBW, isa.MUL:
			s.set(in.Rd, aluReg(in.Op, rs1, rs2), t12)
		case isa.JAL:
			s.set(in.Rd, next, 0)
			next = s.pc + uint64(in.Imm)
		case isa.JALR:
			s.set(in.Rd, next, 0)
			s.ctrl |= tn[in.Rs1]
			next = (rs1 + uint64(in.Imm)) &^ 1
		case isa.BEQ, isa.BNE, isa.BLT, isa.BGE, isa.BLTU, isa.BGEU:
			s.ctrl |= t12
			if branchTaken(in.Op, rs1, rs2) {
				next = s.pc + uint64(in.Imm)
			}
		case isa.FENCE:
			fm, pred, succ := in.Imm>>8&15, in.Imm>>4&15, in.Imm&15
			e := oEvent{kind: evF, pair: oracleNoPair, pred: fenceRW(pred), succ: fenceRW(succ)}
			switch {
			case fm == 8 && pred == 3 && succ == 3:
				e.tso = true
			case fm != 0:
				o.fail("P%d: fence with reserved fm %d", th, fm)
				return
			}
			s.add(e)
		case isa.FENCE_I:
			// After a control dependency, orders those loads before
			// everything later (see the package comment above).
			s.add(oEvent{kind: evF, fenceI: true, pair: oracleNoPair, ctrlDep: s.ctrl})
		case isa.LB, isa.LH, isa.LW, isa.LD, isa.LBU, isa.LHU, isa.LWU,
			isa.LB_AQ, isa.LH_AQ, isa.LW_AQ, isa.LD_AQ:
			size, kind := loadShape(in.Op)
			a := rs1 + uint64(in.Imm)
			plain := !in.AQ && !in.RL
			off, ok := o.access(th, a, size, plain)
			if !ok {
				return
			}
			e := oEvent{kind: evR, size: uint8(size), addr: a, aq: in.AQ, rl: in.RL, pair: oracleNoPair,
				addrDep: tn[in.Rs1], ctrlDep: s.ctrl}
			split := o.split(a, size)
			vals := o.values(off, size)
			for _, v := range vals {
				c := s
				c.pc = next
				e.val = v
				c.set(in.Rd, extendLoad(kind, v), c.addAccess(e, split))
				o.run(th, c)
			}
			return
		case isa.SB, isa.SH, isa.SW, isa.SD, isa.SB_RL, isa.SH_RL, isa.SW_RL, isa.SD_RL:
			size := storeSize(in.Op)
			a := rs1 + uint64(in.Imm)
			off, ok := o.access(th, a, size, !in.AQ && !in.RL)
			if !ok {
				return
			}
			v := rs2 & sizeMask(size)
			o.store(off, size, v)
			s.addAccess(oEvent{kind: evW, size: uint8(size), addr: a, val: v, aq: in.AQ, rl: in.RL, pair: oracleNoPair,
				addrDep: tn[in.Rs1], dataDep: tn[in.Rs2], ctrlDep: s.ctrl}, o.split(a, size))
		case isa.LR_W, isa.LR_D:
			size := amoSize(in.Op)
			off, ok := o.access(th, rs1, size, false)
			if !ok {
				return
			}
			e := oEvent{kind: evR, size: uint8(size), addr: rs1, aq: in.AQ, rl: in.RL, pair: oracleNoPair,
				addrDep: tn[in.Rs1], ctrlDep: s.ctrl}
			for _, v := range o.values(off, size) {
				c := s
				c.pc = next
				e.val = v
				i := c.add(e)
				c.resv = i
				c.set(in.Rd, extendLoad(amoKind(size), v), 1<<i)
				o.run(th, c)
			}
			return
		case isa.SC_W, isa.SC_D:
			size := amoSize(in.Op)
			off, ok := o.access(th, rs1, size, false)
			if !ok {
				return
			}
			r := s.resv
			s.resv = -1
			if r >= 0 && s.ev[r].addr <= rs1 && rs1+uint64(size) <= s.ev[r].addr+uint64(s.ev[r].size) {
				c := s // success
				c.pc = next
				v := rs2 & sizeMask(size)
				o.store(off, size, v)
				i := c.add(oEvent{kind: evW, size: uint8(size), addr: rs1, val: v, aq: in.AQ, rl: in.RL, atomic: true,
					pair: r, addrDep: tn[in.Rs1], dataDep: tn[in.Rs2], ctrlDep: s.ctrl})
				c.ev[r].pair = i
				// A successful SC has rd as a destination register
				// (RVWMO chapter, "Syntactic Dependencies", the note on
				// SC; its register listing: "rd, if successful"), so
				// what reads it depends on the SC's store.
				c.set(in.Rd, 0, 1<<i)
				o.run(th, c)
			}
			// Failure, always possible: no memory operation, and rd is
			// not a destination register of a failed SC, so a reader of
			// rd keeps the dependencies of rd's last writer before it.
			if in.Rd != 0 {
				s.x[in.Rd] = 1
			}
		case isa.AMOSWAP_W, isa.AMOADD_W, isa.AMOXOR_W, isa.AMOAND_W, isa.AMOOR_W,
			isa.AMOMIN_W, isa.AMOMAX_W, isa.AMOMINU_W, isa.AMOMAXU_W,
			isa.AMOSWAP_D, isa.AMOADD_D, isa.AMOXOR_D, isa.AMOAND_D, isa.AMOOR_D,
			isa.AMOMIN_D, isa.AMOMAX_D, isa.AMOMINU_D, isa.AMOMAXU_D:
			size := amoSize(in.Op)
			off, ok := o.access(th, rs1, size, false)
			if !ok {
				return
			}
			for _, v := range o.values(off, size) {
				c := s
				c.pc = next
				r := c.add(oEvent{kind: evR, size: uint8(size), addr: rs1, val: v, aq: in.AQ, rl: in.RL, atomic: true,
					addrDep: tn[in.Rs1], ctrlDep: s.ctrl})
				nv := amoResult(in.Op, v, rs2) & sizeMask(size)
				o.store(off, size, nv)
				w := c.add(oEvent{kind: evW, size: uint8(size), addr: rs1, val: nv, aq: in.AQ, rl: in.RL, atomic: true,
					pair: r, addrDep: tn[in.Rs1], dataDep: tn[in.Rs2], ctrlDep: s.ctrl})
				c.ev[r].pair = w
				c.set(in.Rd, extendLoad(amoKind(size), v), 1<<r)
				o.run(th, c)
			}
			return
		default:
			o.fail("P%d: %s is not an instruction the oracle follows", th, isa.Disasm(*in, s.pc))
			return
		}
		s.x[0], s.taint[0] = 0, 0
		if next <= s.pc {
			if s.back++; s.back > oracleBackMax {
				o.trunc = true
				return
			}
		}
		s.pc = next
	}
}

// fenceRW folds a fence set's I and O bits into R and W (device input
// and output are reads and writes; no test has devices).
func fenceRW(set int64) uint8 {
	var r uint8
	if set&(8|2) != 0 {
		r |= 2
	}
	if set&(4|1) != 0 {
		r |= 1
	}
	return r
}

// storeLike reports whether k may write memory: a store, a
// store-release, an SC or an AMO.
func storeLike(k isa.Op) bool {
	switch {
	case k >= isa.SB && k <= isa.SD, k >= isa.SB_RL && k <= isa.SD_RL:
		return true
	case k >= isa.SC_W && k <= isa.AMOMAXU_W, k >= isa.SC_D && k <= isa.AMOMAXU_D:
		return true
	}
	return false
}

func sizeMask(size int) uint64 {
	if size >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*size) - 1
}

func loadShape(k isa.Op) (int, isa.Op) {
	switch k {
	case isa.LB, isa.LB_AQ:
		return 1, isa.LB
	case isa.LBU:
		return 1, isa.LBU
	case isa.LH, isa.LH_AQ:
		return 2, isa.LH
	case isa.LHU:
		return 2, isa.LHU
	case isa.LW, isa.LW_AQ:
		return 4, isa.LW
	case isa.LWU:
		return 4, isa.LWU
	}
	return 8, isa.LD
}

func storeSize(k isa.Op) int {
	switch k {
	case isa.SB, isa.SB_RL:
		return 1
	case isa.SH, isa.SH_RL:
		return 2
	case isa.SW, isa.SW_RL:
		return 4
	}
	return 8
}

func amoSize(k isa.Op) int {
	if k >= isa.LR_D && k <= isa.AMOMAXU_D {
		return 8
	}
	return 4
}

func amoKind(size int) isa.Op {
	if size == 4 {
		return isa.LW
	}
	return isa.LD
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
		return uint64(int64(int32(v)))
	case isa.LWU:
		return uint64(uint32(v))
	}
	return v
}

func amoResult(k isa.Op, old, src uint64) uint64 {
	w := k <= isa.AMOMAXU_W
	if w {
		old, src = uint64(int64(int32(old))), uint64(int64(int32(src)))
	}
	switch k {
	case isa.AMOSWAP_W, isa.AMOSWAP_D:
		return src
	case isa.AMOADD_W, isa.AMOADD_D:
		return old + src
	case isa.AMOXOR_W, isa.AMOXOR_D:
		return old ^ src
	case isa.AMOAND_W, isa.AMOAND_D:
		return old & src
	case isa.AMOOR_W, isa.AMOOR_D:
		return old | src
	case isa.AMOMIN_W, isa.AMOMIN_D:
		return uint64(min(int64(old), int64(src)))
	case isa.AMOMAX_W, isa.AMOMAX_D:
		return uint64(max(int64(old), int64(src)))
	case isa.AMOMINU_W:
		return uint64(min(uint32(old), uint32(src)))
	case isa.AMOMAXU_W:
		return uint64(max(uint32(old), uint32(src)))
	case isa.AMOMINU_D:
		return min(old, src)
	}
	return max(old, src) // AMOMAXU_D
}

func aluImm(k isa.Op, a uint64, imm int64) uint64 {
	b := uint64(imm)
	switch k {
	case isa.ADDI:
		return a + b
	case isa.XORI:
		return a ^ b
	case isa.ORI:
		return a | b
	case isa.ANDI:
		return a & b
	case isa.SLTI:
		return b2u(int64(a) < imm)
	case isa.SLTIU:
		return b2u(a < b)
	case isa.SLLI:
		return a << (b & 63)
	case isa.SRLI:
		return a >> (b & 63)
	case isa.SRAI:
		return uint64(int64(a) >> (b & 63))
	}
	return uint64(int64(int32(a + b))) // ADDIW
}

func aluReg(k isa.Op, a, b uint64) uint64 {
	switch k {
	case isa.ADD:
		return a + b
	case isa.SUB:
		return a - b
	case isa.XOR:
		return a ^ b
	case isa.OR:
		return a | b
	case isa.AND:
		return a & b
	case isa.SLL:
		return a << (b & 63)
	case isa.SRL:
		return a >> (b & 63)
	case isa.SRA:
		return uint64(int64(a) >> (b & 63))
	case isa.SLT:
		return b2u(int64(a) < int64(b))
	case isa.SLTU:
		return b2u(a < b)
	case isa.ADDW:
		return uint64(int64(int32(a + b)))
	case isa.SUBW:
		return uint64(int64(int32(a - b)))
	}
	return a * b // MUL
}

func b2u(c bool) uint64 {
	if c {
		return 1
	}
	return 0
}

func branchTaken(k isa.Op, a, b uint64) bool {
	switch k {
	case isa.BEQ:
		return a == b
	case isa.BNE:
		return a != b
	case isa.BLT:
		return int64(a) < int64(b)
	case isa.BGE:
		return int64(a) >= int64(b)
	case isa.BLTU:
		return a < b
	}
	return a >= b // BGEU
}

// gEvent is a memory event of a candidate execution: a thread's event
// placed among all threads'.
type gEvent struct {
	*oEvent
	th, li int // thread, index in the thread's trace
}

// cand is one combination of traces, one per thread, being checked.
type cand struct {
	o   *oracle
	ev  []gEvent
	trs []*oTrace
	gid [][]int // per thread, per trace event: global index or -1
	// rf: per load event, per byte, the writer (global index) or oracleInit.
	rf [][]int
	// pos: per store, its place in the coherence order of its group.
	pos  []int
	byts map[int][]int // data-area byte offset -> stores covering it
	wr   []int         // store events, global indices
	rd   []int         // load events
}

// combine tries every combination of traces, reads-from and coherence
// order, and collects the final states of the consistent ones.
func (o *oracle) combine() (*Reach, error) {
	t := o.t
	r := &Reach{Model: o.model, Locs: observed(t), States: map[string]bool{}, Truncated: o.trunc}
	for _, trs := range o.traces {
		if len(trs) == 0 {
			return r, nil // a thread with no complete path (all dropped): nothing reachable
		}
	}
	pick := make([]int, len(o.traces))
	for {
		c := o.newCand(pick)
		if c == nil {
			return nil, o.err
		}
		if err := c.enumerate(r); err != nil {
			return nil, err
		}
		k := 0
		for ; k < len(pick); k++ {
			if pick[k]++; pick[k] < len(o.traces[k]) {
				break
			}
			pick[k] = 0
		}
		if k == len(pick) {
			break
		}
	}
	for key := range r.States {
		sat := o.holds(t.Cond, r.Locs, key)
		r.Sat = r.Sat || sat
		r.Unsat = r.Unsat || !sat
	}
	return r, nil
}

func (o *oracle) newCand(pick []int) *cand {
	c := &cand{o: o, byts: map[int][]int{}}
	for th, k := range pick {
		tr := &o.traces[th][k]
		c.trs = append(c.trs, tr)
		ids := make([]int, len(tr.ev))
		for li := range tr.ev {
			ids[li] = -1
			if tr.ev[li].mem() {
				ids[li] = len(c.ev)
				c.ev = append(c.ev, gEvent{&tr.ev[li], th, li})
			}
		}
		c.gid = append(c.gid, ids)
	}
	if len(c.ev) > oracleEventsMax {
		o.fail("%d memory events", len(c.ev))
		return nil
	}
	for g, e := range c.ev {
		if e.kind == evW {
			c.wr = append(c.wr, g)
			for b := range int(e.size) {
				off := int(e.addr-o.lo) + b
				c.byts[off] = append(c.byts[off], g)
			}
		} else {
			c.rd = append(c.rd, g)
		}
	}
	c.rf = make([][]int, len(c.ev))
	c.pos = make([]int, len(c.ev))
	return c
}

// rfChoices lists, for load g, every assignment of writers to its bytes
// that gives the value it read: bytes covered by the same stores read
// from the same one (else coherence fails at once).
func (c *cand) rfChoices(g int) [][]int {
	e := c.ev[g]
	o := c.o
	n := int(e.size)
	base := int(e.addr - o.lo)
	out := [][]int{make([]int, n)}
	done := make([]bool, n)
	for b := range n {
		if done[b] {
			continue
		}
		cover := c.byts[base+b]
		var same []int // bytes of the same class
		for b2 := b; b2 < n; b2++ {
			if !done[b2] && slices.Equal(c.byts[base+b2], cover) {
				same = append(same, b2)
				done[b2] = true
			}
		}
		var ws []int
		if c.matches(oracleInit, e, same) {
			ws = append(ws, oracleInit)
		}
		for _, w := range cover {
			if c.matches(w, e, same) {
				ws = append(ws, w)
			}
		}
		var next [][]int
		for _, a := range out {
			for _, w := range ws {
				na := slices.Clone(a)
				for _, b2 := range same {
					na[b2] = w
				}
				next = append(next, na)
			}
		}
		out = next
	}
	return out
}

// matches reports whether writer w (or the initial state) holds, at the
// bytes of load e listed, the values e read.
func (c *cand) matches(w int, e gEvent, bytesOf []int) bool {
	for _, b := range bytesOf {
		a := e.addr + uint64(b)
		want := byte(e.val >> (8 * b))
		var got byte
		if w == oracleInit {
			got = c.o.init[a-c.o.lo]
		} else {
			s := c.ev[w]
			got = byte(s.val >> (8 * (a - s.addr)))
		}
		if got != want {
			return false
		}
	}
	return true
}

// enumerate tries every reads-from and coherence order of c.
func (c *cand) enumerate(r *Reach) error {
	choices := make([][][]int, len(c.rd))
	for i, g := range c.rd {
		choices[i] = c.rfChoices(g)
		if len(choices[i]) == 0 {
			return nil // a value no store gives
		}
	}
	// Coherence groups: stores connected by overlap.
	group := make([]int, len(c.ev))
	for i := range group {
		group[i] = -1
	}
	var groups [][]int
	for _, w := range c.wr {
		if group[w] >= 0 {
			continue
		}
		gi := len(groups)
		stack, members := []int{w}, []int{}
		group[w] = gi
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			members = append(members, x)
			for _, y := range c.wr {
				if group[y] < 0 && overlap(c.ev[x].oEvent, c.ev[y].oEvent) {
					group[y] = gi
					stack = append(stack, y)
				}
			}
		}
		slices.Sort(members)
		groups = append(groups, members)
	}
	perms := make([][][]int, len(groups))
	for i, g := range groups {
		perms[i] = permutations(g)
	}
	rfPick := make([]int, len(c.rd))
	coPick := make([]int, len(groups))
	for {
		for i, g := range c.rd {
			c.rf[g] = choices[i][rfPick[i]]
		}
		for {
			for i := range groups {
				for k, w := range perms[i][coPick[i]] {
					c.pos[w] = k
				}
			}
			if r.Cands++; r.Cands > oracleCandsMax {
				return fmt.Errorf("%w: more than %d candidate executions", ErrOracle, int(oracleCandsMax))
			}
			if c.consistent() {
				if key, ok := c.finalKey(r.Locs); ok {
					r.States[key] = true
				}
			}
			if !bump(coPick, func(i int) int { return len(perms[i]) }) {
				break
			}
		}
		if !bump(rfPick, func(i int) int { return len(choices[i]) }) {
			break
		}
	}
	return nil
}

// bump advances a mixed-radix counter; false when it wraps to zero.
func bump(d []int, radix func(int) int) bool {
	for i := range d {
		if d[i]++; d[i] < radix(i) {
			return true
		}
		d[i] = 0
	}
	return false
}

func permutations(s []int) [][]int {
	if len(s) <= 1 {
		return [][]int{slices.Clone(s)}
	}
	var out [][]int
	for i := range s {
		rest := append(slices.Clone(s[:i]), s[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int{s[i]}, p...))
		}
	}
	return out
}

func overlap(a, b *oEvent) bool {
	return a.addr < b.addr+uint64(b.size) && b.addr < a.addr+uint64(a.size)
}

// coBefore reports whether store a precedes store b in coherence order
// (they overlap: same group); the initial state precedes every store.
func (c *cand) coBefore(a, b int) bool {
	if a == oracleInit {
		return b != oracleInit
	}
	if b == oracleInit {
		return false
	}
	return c.pos[a] < c.pos[b]
}

// consistent checks the axioms of the model on the candidate.
func (c *cand) consistent() bool {
	n := len(c.ev)
	var com, co, rfe, fr [oracleEventsMax]uint64
	// rf, co, fr.
	for _, g := range c.rd {
		e := c.ev[g]
		for b, w := range c.rf[g] {
			if w != oracleInit {
				com[w] |= 1 << g
				if c.ev[w].th != e.th {
					rfe[w] |= 1 << g
				}
			}
			off := int(e.addr-c.o.lo) + b
			for _, w2 := range c.byts[off] {
				if c.coBefore(w, w2) {
					fr[g] |= 1 << w2
				}
			}
		}
	}
	for _, a := range c.wr {
		for _, b := range c.wr {
			if a != b && overlap(c.ev[a].oEvent, c.ev[b].oEvent) && c.pos[a] < c.pos[b] {
				co[a] |= 1 << b
			}
		}
	}
	for i := range n {
		com[i] |= co[i] | fr[i]
	}
	// Coherence: po-loc | rf | co | fr.
	var g [oracleEventsMax]uint64
	for i := range n {
		g[i] = com[i]
		for j := i + 1; j < n; j++ {
			if c.ev[j].th == c.ev[i].th && overlap(c.ev[i].oEvent, c.ev[j].oEvent) {
				g[i] |= 1 << j
			}
		}
	}
	if !acyclic(g[:n]) {
		return false
	}
	// Atomicity (RVWMO chapter, "Atomicity Axiom"): for each byte an
	// atomic pair's load reads, no store of another hart to it comes
	// after the store the load read from and before the pair's store in
	// the global memory order. Such a store is one the load reads from
	// before (fr), so it must follow the pair's store: an edge of the
	// order the models below check for cycles, and a failure at once when
	// coherence already puts it first.
	var atom [oracleEventsMax]uint64
	for _, rg := range c.rd {
		e := c.ev[rg]
		if e.pair < 0 {
			continue
		}
		wg := c.gid[e.th][e.pair]
		for _, w2 := range c.wr {
			if c.ev[w2].th != e.th && fr[rg]&(1<<w2) != 0 {
				if co[w2]&(1<<wg) != 0 {
					return false
				}
				atom[wg] |= 1 << w2
			}
		}
	}
	if c.o.model == ModelSC {
		for i := range n {
			g[i] = com[i] | atom[i]
			for j := i + 1; j < n; j++ {
				if c.ev[j].th == c.ev[i].th {
					g[i] |= 1 << j
				}
			}
		}
		return acyclic(g[:n])
	}
	for i := range n {
		g[i] = co[i] | rfe[i] | fr[i] | atom[i]
	}
	for th := range c.trs {
		c.ppo(th, g[:n])
	}
	return acyclic(g[:n])
}

// ppo adds the preserved program order of thread th to g (RISC-V
// Unprivileged ISA, "RVWMO Memory Consistency Model", "Preserved Program
// Order", rules 1-13).
func (c *cand) ppo(th int, g []uint64) {
	ev := c.trs[th].ev
	ids := c.gid[th]
	for j := range ev {
		if !ev[j].mem() {
			continue
		}
		for i := range j {
			if ev[i].mem() && c.ordered(th, i, j) {
				g[ids[i]] |= 1 << ids[j]
			}
		}
	}
}

// readsFrom reports whether load j of thread th reads some byte from the
// thread's store i.
func (c *cand) readsFrom(th, i, j int) bool {
	return slices.Contains(c.rf[c.gid[th][j]], c.gid[th][i])
}

// ordered reports whether the rules of preserved program order order
// event i of thread th's trace before its later event j.
func (c *cand) ordered(th, i, j int) bool {
	ev := c.trs[th].ev
	a, b := &ev[i], &ev[j]
	if a.part && b.part && a.step == b.step {
		// Bytes of one misaligned access: "not ordered with respect to
		// each other in program order" (RVWMO chapter, "Memory Model
		// Primitives"); no rule below would order them anyway (they do
		// not overlap, carry no annotation and depend on nothing the
		// other reads).
		return false
	}
	bit := uint64(1) << i
	switch {
	case b.kind == evW && overlap(a, b): // 1
		return true
	case a.kind == evR && b.kind == evR && overlap(a, b) && c.sameLoadsDiffer(th, i, j): // 2
		return true
	case a.kind == evW && a.atomic && b.kind == evR && c.readsFrom(th, i, j): // 3
		return true
	case a.aq || b.rl: // 5, 6
		return true
	case (a.aq || a.rl) && (b.aq || b.rl): // 7: every annotation is RCsc
		return true
	case a.pair == j: // 8
		return true
	case b.addrDep&bit != 0: // 9
		return true
	case b.kind == evW && (b.dataDep|b.ctrlDep)&bit != 0: // 10, 11
		return true
	}
	for k := i + 1; k < j; k++ {
		f := &ev[k]
		switch {
		case f.kind == evF && f.fenceI: // the suite's ctrl+fence.i
			if f.ctrlDep&bit != 0 {
				return true
			}
		case f.kind == evF && f.tso: // 4, fence.tso
			if a.kind == evR || b.kind == evW {
				return true
			}
		case f.kind == evF: // 4
			if f.pred&fenceBit(a) != 0 && f.succ&fenceBit(b) != 0 {
				return true
			}
		case a.kind == evR && f.kind == evW && (f.addrDep|f.dataDep)&bit != 0 && b.kind == evR && c.readsFrom(th, k, j): // 12
			return true
		case a.kind == evR && f.addrDep&bit != 0 && b.kind == evW: // 13
			return true
		}
	}
	return false
}

func fenceBit(e *oEvent) uint8 {
	if e.kind == evR {
		return 2
	}
	return 1
}

// sameLoadsDiffer is rule 2's condition for loads i < j of thread th that
// overlap: some byte they both read has no store to it between them in
// program order, and they read it from different stores.
func (c *cand) sameLoadsDiffer(th, i, j int) bool {
	ev := c.trs[th].ev
	a, b := &ev[i], &ev[j]
	ra, rb := c.rf[c.gid[th][i]], c.rf[c.gid[th][j]]
	for x := max(a.addr, b.addr); x < min(a.addr+uint64(a.size), b.addr+uint64(b.size)); x++ {
		between := false
		for k := i + 1; k < j && !between; k++ {
			f := &ev[k]
			between = f.kind == evW && f.addr <= x && x < f.addr+uint64(f.size)
		}
		if !between && ra[x-a.addr] != rb[x-b.addr] {
			return true
		}
	}
	return false
}

// acyclic reports whether the graph (g[i] bit j: an edge i -> j) has no
// cycle.
func acyclic(g []uint64) bool {
	n := len(g)
	var indeg [oracleEventsMax]int
	for i := range n {
		for m := g[i]; m != 0; m &= m - 1 {
			indeg[bits.TrailingZeros64(m)]++
		}
	}
	var stack [oracleEventsMax]int
	sp, seen := 0, 0
	for i := range n {
		if indeg[i] == 0 {
			stack[sp] = i
			sp++
		}
	}
	for sp > 0 {
		sp--
		i := stack[sp]
		seen++
		for m := g[i]; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if indeg[j]--; indeg[j] == 0 {
				stack[sp] = j
				sp++
			}
		}
	}
	return seen == n
}

// finalKey builds the final state's histogram key; false if the test's
// filter rejects it.
func (c *cand) finalKey(locs []Loc) (string, bool) {
	o := c.o
	key := make([]byte, 8*len(locs))
	for i, l := range locs {
		var v uint64
		if l.Thread >= 0 {
			v = extend(c.trs[l.Thread].x[l.Reg], o.t.regTypeOf(l.Thread, l.Reg))
		} else {
			vr := o.t.Var(l.Var)
			a := o.p.addrOf(l.Var)
			for b := vr.Type.Bytes - 1; b >= 0; b-- {
				v = v<<8 | uint64(c.finalByte(int(a-o.lo)+b))
			}
			v = extend(v, vr.Type)
		}
		binary.LittleEndian.PutUint64(key[8*i:], v)
	}
	if o.t.Filter != nil && !o.holds(o.t.Filter, locs, string(key)) {
		return "", false
	}
	return string(key), true
}

// finalByte is the byte at data offset off after the execution: from the
// last store to it in coherence order, or the initial state.
func (c *cand) finalByte(off int) byte {
	last := oracleInit
	for _, w := range c.byts[off] {
		if last == oracleInit || c.pos[w] > c.pos[last] {
			last = w
		}
	}
	if last == oracleInit {
		return c.o.init[off]
	}
	s := c.ev[last]
	return byte(s.val >> (8 * (uint64(off) + c.o.lo - s.addr)))
}

// holds evaluates proposition p on a state key.
func (o *oracle) holds(p *Prop, locs []Loc, key string) bool {
	return p.Eval(func(a *Atom) bool {
		i := slices.Index(locs, a.Loc)
		var typ Type
		if a.Loc.Thread >= 0 {
			typ = o.t.regTypeOf(a.Loc.Thread, a.Loc.Reg)
		} else {
			typ = o.t.Var(a.Loc.Var).Type
		}
		want := uint64(a.Value)
		if a.AddrOf != "" {
			want = o.p.addrOf(a.AddrOf)
		}
		return binary.LittleEndian.Uint64([]byte(key[8*i:])) == extend(want, typ)
	})
}
