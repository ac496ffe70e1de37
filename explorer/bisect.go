package explorer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"

	"everett/emu"
	"everett/hw"
	"everett/isa"
)

// Bisection: find the first instruction count at which a predicate over a
// replayed universe holds. A forward replay takes checkpoint snapshots (cheap:
// copy-on-write) and evaluates the predicate at each; between the last
// checkpoint where it is false and the first where it is true, a binary
// search of short replays from the earlier checkpoint finds N with the
// predicate false at N-1 and true at N. For a predicate that can flip back
// and forth, N is such a transition in the first interval where it was seen
// true, not necessarily the very first one.

// ErrPredicate is wrapped by predicate syntax errors.
var ErrPredicate = errors.New("invalid predicate")

// Predicate is a condition on a universe's state.
type Predicate struct {
	Text  string
	kind  string // failure, mem, console, pc, reg, trap
	addr  uint64
	value uint64
	neg   bool
	trap  trapWatch
	size  int
	re    *regexp.Regexp
	hart  int
	reg   int
	node  int
}

// ParsePredicate parses one of:
//
//	failure               the report's own failure has happened
//	mem:ADDR==V, mem:ADDR!=V   the 64-bit word at guest physical ADDR
//	                      (mem8:, mem16:, mem32: for narrower words); ADDR
//	                      may be a symbol of a bare-metal program
//	console:/REGEX/       some node's console has printed a matching line
//	pc:ADDR, pc:SYMBOL    some hart is about to execute ADDR
//	reg:HART:xN==V        integer register xN of hart HART (also !=)
//	trap:CAUSE            some hart has taken an exception of this cause
//	trap:CAUSE@TVAL       ... with this trap value (hex); CAUSE is a name
//	                      (load-page-fault, illegal-instruction, ...) or
//	                      a number
//
// A predicate applies to node 0 unless prefixed by "nodeK/".
func ParsePredicate(text string, sym func(string) (uint64, bool)) (*Predicate, error) {
	p := &Predicate{Text: text, size: 8}
	t := text
	if rest, ok := strings.CutPrefix(t, "node"); ok {
		n, after, ok := strings.Cut(rest, "/")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 0 || k >= MaxNodes {
			return nil, fmt.Errorf("%w: %q: bad node prefix", ErrPredicate, text)
		}
		p.node, t = k, after
	}
	bad := func(why string) error { return fmt.Errorf("%w: %q: %s", ErrPredicate, text, why) }
	num := func(s string) (uint64, error) {
		s = strings.TrimSpace(s)
		if v, err := strconv.ParseUint(s, 0, 64); err == nil {
			return v, nil
		}
		if v, err := strconv.ParseInt(s, 0, 64); err == nil {
			return uint64(v), nil
		}
		if sym != nil {
			name, off := s, uint64(0)
			if i := strings.LastIndex(s, "+"); i > 0 {
				o, err := strconv.ParseUint(s[i+1:], 0, 64)
				if err == nil {
					name, off = s[:i], o
				}
			}
			if v, ok := sym(name); ok {
				return v + off, nil
			}
		}
		return 0, fmt.Errorf("%q is neither a number nor a known symbol", s)
	}
	cmp := func(s string) (lhs string, v uint64, neg bool, err error) {
		op := "=="
		i := strings.Index(s, "==")
		if j := strings.Index(s, "!="); j >= 0 {
			i, op = j, "!="
		}
		if i < 0 {
			return "", 0, false, fmt.Errorf("want == or !=")
		}
		v, err = num(s[i+2:])
		return s[:i], v, op == "!=", err
	}
	head, rest, _ := strings.Cut(t, ":")
	switch head {
	case "failure":
		p.kind = "failure"
	case "mem", "mem8", "mem16", "mem32", "mem64":
		p.kind = "mem"
		p.size = map[string]int{"mem": 8, "mem8": 1, "mem16": 2, "mem32": 4, "mem64": 8}[head]
		lhs, v, neg, err := cmp(rest)
		if err != nil {
			return nil, bad(err.Error())
		}
		if p.addr, err = num(lhs); err != nil {
			return nil, bad(err.Error())
		}
		p.value, p.neg = v, neg
	case "console":
		p.kind = "console"
		if len(rest) < 2 || rest[0] != '/' || rest[len(rest)-1] != '/' {
			return nil, bad("want console:/REGEX/")
		}
		re, err := regexp.Compile(rest[1 : len(rest)-1])
		if err != nil {
			return nil, bad(err.Error())
		}
		p.re = re
	case "pc":
		p.kind = "pc"
		v, err := num(rest)
		if err != nil {
			return nil, bad(err.Error())
		}
		p.addr = v
	case "reg":
		p.kind = "reg"
		hs, r, ok := strings.Cut(rest, ":")
		if !ok {
			return nil, bad("want reg:HART:xN==V")
		}
		h, err := strconv.Atoi(hs)
		if err != nil || h < 0 || h >= emu.MaxHarts {
			return nil, bad("bad hart number")
		}
		lhs, v, neg, err := cmp(r)
		if err != nil {
			return nil, bad(err.Error())
		}
		x, err := strconv.Atoi(strings.TrimPrefix(lhs, "x"))
		if !strings.HasPrefix(lhs, "x") || err != nil || x < 0 || x > 31 {
			return nil, bad("want a register x0..x31")
		}
		p.hart, p.reg, p.value, p.neg = h, x, v, neg
	case "trap":
		p.kind = "trap"
		c, v, has, err := parseTrapPredicate(rest)
		if err != nil {
			return nil, bad(err.Error())
		}
		p.trap = trapWatch{node: p.node, cause: c, tval: v, hasTval: has}
	default:
		return nil, bad("want failure, mem:, console:, pc:, reg: or trap:")
	}
	return p, nil
}

// holds evaluates a state predicate on u (pc predicates are evaluated by
// breakpoints, console predicates by the console watch).
func (p *Predicate) holds(u *Universe, sig string) bool {
	if p.node >= len(u.nodes) {
		return false
	}
	n := u.nodes[p.node]
	switch p.kind {
	case "failure":
		return u.failure != nil && (sig == "" || u.failure.Signature() == sig)
	case "console":
		return u.consoleHit
	case "trap":
		return u.trapHit
	case "pc":
		if n.b == nil || n.down {
			return false
		}
		for _, h := range n.b.Harts() {
			if h.PC() == p.addr && !h.Halted() {
				return true
			}
		}
		return false
	case "mem":
		if n.b == nil || n.down {
			return false
		}
		var b [8]byte
		if n.b.ReadPhys(p.addr, b[:p.size]) != nil {
			return false
		}
		return (binary.LittleEndian.Uint64(b[:]) == p.value) != p.neg
	case "reg":
		if n.b == nil || n.down || p.hart >= len(n.b.Harts()) {
			return false
		}
		return (n.b.Hart(p.hart).X(p.reg) == p.value) != p.neg
	}
	return false
}

// replayer replays a report's universe, following its fork path, to exact
// instruction counts, and restores from its own checkpoints.
type replayer struct {
	r    *Report
	spec *Spec
	u    *Universe
	next int // index of the next fork in r.Path
}

// newReplayer replays the report's universe from its start (instruction
// 0), booting.
func newReplayer(r *Report, suppress []int) (*replayer, error) {
	return newReplayerSkip(r, suppress, 0, true)
}

// newReplayerSkip is newReplayer for a caller that need not see the
// positions before instruction skip: it starts from the cached boot
// (bootcache.go) when there is one that ends at or before skip. With fork
// it stands past the fork at the setup point, as a replay that booted
// would after advancing there; without, right before it (a replayer that
// boots stands at instruction 0, before every fork).
func newReplayerSkip(r *Report, suppress []int, skip uint64, fork bool) (*replayer, error) {
	if err := r.checkMachine(); err != nil {
		return nil, err
	}
	s := r.spec()
	sup := append(append([]int(nil), suppress...), r.Suppressed...)
	if e := cachedBoot(r, suppressSet(sup)); e != nil && e.snap.ICount <= skip {
		u, err := fromBoot(s, e, suppressSet(sup))
		if err == nil {
			rp := &replayer{r: r, spec: s, u: u, next: 1}
			if fork {
				u.forkAt(r.Path[1])
				rp.next = 2
			}
			return rp, nil
		}
		bootNote("boot cache entry unusable, booting instead: %v", err)
		forget(r)
	}
	u, err := newUniverseEcho(s, r.Path[0], nil, sup)
	if err != nil {
		return nil, err
	}
	if r.Path[0].Plan == PlanBoot {
		replayBoots.Add(1)
	}
	return &replayer{r: r, spec: s, u: u, next: 1}, nil
}

// ended reports whether the universe can go no further.
func (rp *replayer) ended() bool { return rp.u.failure != nil || rp.u.finished }

// advance runs to instruction count n (or the universe's end).
func (rp *replayer) advance(n uint64) {
	u := rp.u
	u.breakHit = false
	for !rp.ended() && u.ICount() < n && !u.breakHit {
		var stop uint64
		if rp.next < len(rp.r.Path) {
			stop = rp.r.Path[rp.next].At
		}
		u.runUntilCount(stop, n)
		if rp.ended() || u.ICount() >= n || u.breakHit {
			return
		}
		if rp.next < len(rp.r.Path) && u.t >= rp.r.Path[rp.next].At {
			if rp.next == 1 {
				keepBoot(rp.r, u)
			}
			u.forkAt(rp.r.Path[rp.next])
			rp.next++
			continue
		}
		if u.t < stop || stop == 0 {
			// A window ended early with no progress possible.
			if u.ICount() < n && stop == 0 && !rp.ended() {
				continue
			}
		}
	}
}

// checkpoint freezes the replay.
type checkpoint struct {
	snap   *UniverseSnapshot
	next   int
	icount uint64
	fail   *Failure
	root   *RootTrap
	fin    bool
}

func (rp *replayer) checkpoint() *checkpoint {
	return &checkpoint{snap: rp.u.Snapshot("checkpoint"), next: rp.next, icount: rp.u.ICount(), fail: rp.u.failure, root: rp.u.root, fin: rp.u.finished}
}

// restore resumes from a checkpoint (no reseeding: the same future).
func (rp *replayer) restore(c *checkpoint) error {
	u, err := restoreUniverse(rp.spec, c.snap, restoreOpts{suppress: rp.u.suppress, dbg: rp.u.dbg, dbgNode: rp.u.dbgNode})
	if err != nil {
		return err
	}
	u.failure, u.root, u.finished = c.fail, c.root, c.fin
	rp.u, rp.next = u, c.next
	return nil
}

// restoreOpts are the host-side settings of a restored universe.
type restoreOpts struct {
	suppress map[int]bool
	dbg      *emu.Debug // attached to node dbgNode's machine
	dbgNode  int
	echo     func(int) interface{ Write([]byte) (int, error) }
	seen     *Seen
	maxSnaps int
}

// restoreUniverse rebuilds a universe exactly as it was at s (no reseeding).
func restoreUniverse(spec *Spec, s *UniverseSnapshot, o restoreOpts) (*Universe, error) {
	u := &Universe{
		spec: spec, plan: s.plan, t: s.T, path: append([]Fork(nil), s.Path...),
		faultSq: s.faultSq, kills: s.kills, chaosAt: s.chaosAt, setupDone: s.setupDone, setupAt: s.setupAt,
		progressAt: s.progressAt, liveStart: s.liveStart,
		decisions: append([]Decision(nil), s.decisions...), nextDecision: s.next,
		suppress: o.suppress, echo: o.echo, seen: o.seen, maxSnaps: o.maxSnaps,
		dbg: o.dbg, dbgNode: o.dbgNode,
	}
	u.setup()
	u.sw = s.sw.clone(u)
	u.asserts.merge(s.asserts)
	for i, ns := range s.nodes {
		n := &node{spec: ns.spec, down: ns.down, downBy: ns.downBy, done: ns.done, icount: ns.icount, tasksDone: ns.tasksDone, ready: ns.ready}
		u.nodes = append(u.nodes, n)
		if ns.down {
			continue
		}
		if err := u.boot(i, true, ns.snap); err != nil {
			return nil, err
		}
		n.console.tail = append([]byte(nil), ns.tail...)
		n.console.line = append([]byte(nil), ns.line...)
		n.console.bytes = ns.written
		n.traps.chains = (&trapTap{chains: ns.traps}).clone()
		n.traps.diverted = append([]trapEntry(nil), ns.diverted...)
		n.traps.lastUser, n.traps.seq = maps.Clone(ns.lastUser), ns.trapSeq
	}
	u.netRNG, u.fltRNG = emu.NewPRNG(0), emu.NewPRNG(0)
	if err := u.netRNG.Restore(hw.NewDecoder(s.net)); err != nil {
		return nil, err
	}
	if err := u.fltRNG.Restore(hw.NewDecoder(s.flt)); err != nil {
		return nil, err
	}
	u.faults = append([]faultEvent(nil), s.faults...)
	return u, nil
}

// BisectOptions direct a bisection.
type BisectOptions struct {
	Predicate *Predicate // nil: the report's failure
	Until     uint64     // search up to here (0: the report's instruction count)
	Window    int        // instructions of history to show (default 20)
}

// Step is one executed instruction of a trace.
type Step struct {
	ICount  uint64 `json:"icount"`
	Node    int    `json:"node"`
	Hart    int    `json:"hart"`
	PC      uint64 `json:"pc"`
	Raw     uint32 `json:"raw"`
	Disasm  string `json:"disasm"`
	Symbol  string `json:"symbol,omitempty"`
	Trapped bool   `json:"trapped,omitempty"`
}

// BisectResult is the first instruction count at which the predicate holds.
type BisectResult struct {
	Found    bool
	First    uint64 // N: false at N-1, true at N
	At       Step   // the instruction that made it true (instruction N)
	History  []Step // the instructions before it, oldest first
	Replays  int    // short replays used by the search
	Interval uint64 // checkpoint spacing of the forward pass
}

// Bisect finds the first instruction count at which the predicate holds in
// the report's universe.
func Bisect(r *Report, o BisectOptions) (*BisectResult, error) {
	p := o.Predicate
	if p == nil {
		p = &Predicate{Text: "failure", kind: "failure"}
	}
	until := o.Until
	if until == 0 {
		until = r.ICount
	}
	if o.Window <= 0 {
		o.Window = 20
	}
	// The report's failure cannot happen during the boot (a boot that
	// fails leaves no snapshot), so its search may skip it; any other
	// predicate may hold there, and the forward pass boots.
	skip := uint64(0)
	if p.kind == "failure" {
		skip = until
	}
	rp, err := newReplayerSkip(r, nil, skip, true)
	if err != nil {
		return nil, err
	}
	sig := r.Signature
	watch := func(u *Universe) {
		if p.kind == "console" {
			u.consoleWatch = p.re
		}
		if p.kind == "pc" {
			u.setBreakpoint(p.node, p.addr)
		}
		if p.kind == "trap" {
			w := p.trap
			u.trapWatch = &w
		}
	}
	watch(rp.u)
	res := &BisectResult{}
	// Forward pass with checkpoints.
	step := max(until/64, 1000)
	res.Interval = step
	prev := rp.checkpoint()
	if p.holds(rp.u, sig) {
		return nil, fmt.Errorf("predicate %q already holds at instruction 0", p.Text)
	}
	var hi uint64
	for n := (rp.u.ICount()/step + 1) * step; ; n += step {
		if n > until {
			n = until
		}
		rp.advance(n)
		if p.holds(rp.u, sig) {
			hi = rp.u.ICount()
			break
		}
		if rp.u.ICount() >= until || rp.ended() {
			// Never seen at a checkpoint. A state that holds only between
			// checkpoints is found by an exact scan: one replay that
			// checks the predicate after every instruction.
			// Failure and trap predicates, once true, stay true: a
			// checkpoint after them would have seen them.
			if until > ExactScanLimit || p.kind == "failure" || p.kind == "trap" {
				return res, nil
			}
			if rp, err = newReplayer(r, nil); err != nil {
				return nil, err
			}
			watch(rp.u)
			first, ok := rp.scan(p, sig, until)
			if !ok {
				return res, nil
			}
			res.Found, res.First, res.Replays = true, first, 1
			return finishBisect(r, rp, res, nil, first, o.Window)
		}
		prev = rp.checkpoint()
	}
	// Binary search in (prev, hi].
	lo := prev.icount
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if err := rp.restore(prev); err != nil {
			return nil, err
		}
		watch(rp.u)
		rp.advance(mid)
		res.Replays++
		if p.holds(rp.u, sig) {
			hi = rp.u.ICount()
		} else {
			lo = mid
			prev = rp.checkpoint()
		}
	}
	res.Found = true
	res.First = hi
	return finishBisect(r, rp, res, prev, hi, o.Window)
}

// ExactScanLimit bounds the runs that bisection scans instruction by
// instruction when checkpoints never see the predicate hold.
const ExactScanLimit = 50_000_000

// finishBisect traces the last window instructions up to hi.
func finishBisect(r *Report, rp *replayer, res *BisectResult, prev *checkpoint, hi uint64, window int) (*BisectResult, error) {
	from := uint64(0)
	if hi > uint64(window) {
		from = hi - uint64(window)
	}
	var err error
	if prev == nil || from < prev.icount {
		if rp, err = newReplayerSkip(r, nil, from, true); err != nil {
			return nil, err
		}
	} else if err := rp.restore(prev); err != nil {
		return nil, err
	}
	rp.advanceExact(from)
	steps := rp.trace(hi)
	if len(steps) > 0 {
		res.At = steps[len(steps)-1]
		res.History = steps[:len(steps)-1]
	}
	return res, nil
}

// scan replays instruction by instruction up to until and returns the first
// count after which p holds.
func (rp *replayer) scan(p *Predicate, sig string, until uint64) (uint64, bool) {
	u := rp.u
	hit, at := false, uint64(0)
	install := func() {
		for _, nd := range u.nodes {
			if nd.b != nil {
				nd.b.Tracer = func(*emu.Hart, uint64, uint32, bool) {
					if !hit && p.holds(u, sig) {
						hit, at = true, u.ICount()
						u.breakHit = true
						u.stopAll()
					}
				}
			}
		}
	}
	install()
	for !hit && !rp.ended() && u.ICount() < until {
		before := u.ICount()
		rp.advance(until)
		if u.ICount() == before && !hit {
			break
		}
		install() // a fork or a restart builds new machines
	}
	for _, nd := range u.nodes {
		if nd.b != nil {
			nd.b.Tracer = nil
		}
	}
	return at, hit
}

// trace single-steps to instruction count n, recording each instruction.
func (rp *replayer) trace(n uint64) []Step {
	u := rp.u
	var steps []Step
	syms := symbolizer(rp.spec)
	for i, nd := range u.nodes {
		if nd.b == nil {
			continue
		}
		node := i
		m := nd.b
		m.Tracer = func(h *emu.Hart, pc uint64, raw uint32, trapped bool) {
			in := isa.Decode(raw)
			st := Step{ICount: u.ICount(), Node: node, Hart: h.ID, PC: pc, Raw: raw, Disasm: isa.Disasm(in, pc), Trapped: trapped}
			if in.Len == 2 {
				st.Raw &= 0xffff
			}
			st.Symbol = syms(node, pc)
			steps = append(steps, st)
		}
	}
	rp.advance(n)
	for _, nd := range u.nodes {
		if nd.b != nil {
			nd.b.Tracer = nil
		}
	}
	return steps
}

// symbolizer returns a function naming the symbol at or below a pc (see
// Spec.symbolize).
func symbolizer(s *Spec) func(node int, pc uint64) string { return s.symbolize }

// TraceWindow replays the report's universe and returns the last k
// instructions up to instruction count end (0: the report's count).
func TraceWindow(r *Report, end uint64, k int) ([]Step, error) {
	if end == 0 {
		end = r.ICount
	}
	skip := uint64(0)
	if uint64(k) < end {
		skip = end - uint64(k)
	}
	rp, err := newReplayerSkip(r, nil, skip, true)
	if err != nil {
		return nil, err
	}
	if uint64(k) < end {
		rp.advance(end - uint64(k))
	}
	return rp.trace(end), nil
}

// advanceExact advances to n, passing breakpoints (tests).
func (rp *replayer) advanceExact(n uint64) {
	for !rp.ended() && rp.u.ICount() < n {
		rp.advance(n)
	}
}
