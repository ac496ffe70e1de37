package explorer

import (
	"fmt"

	"everett/emu"
)

// Bisection: find the first instruction count at which a predicate over a
// replayed universe holds. A forward replay takes checkpoint snapshots (cheap:
// copy-on-write) and evaluates the predicate at each; between the last
// checkpoint where it is false and the first where it is true, a binary
// search of short replays from the earlier checkpoint finds N with the
// predicate false at N-1 and true at N. For a predicate that can flip back
// and forth, N is such a transition in the first interval where it was seen
// true, not necessarily the very first one.

// BisectOptions direct a bisection.
type BisectOptions struct {
	Predicate *Predicate // nil: the report's failure
	Until     uint64     // search up to here (0: the report's instruction count)
	Window    int        // instructions of history to show (default 20)
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
			u.watch.console = p.re
		}
		if p.kind == "pc" {
			u.setBreakpoint(p.node, p.addr)
		}
		if p.kind == "trap" {
			w := p.trap
			u.watch.trap = &w
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
						rp.w.breakHit = true
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
