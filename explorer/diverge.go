package explorer

import (
	"fmt"

	"everett/emu"
)

// Divergence mode of bisection: two runs from the same state (a report's
// last fork point, or its start) with different seeds — say a failing and a
// passing one — are compared at checkpoints and then by binary search, to
// find the first instruction count at which their states differ and what
// differs there.

// Divergence is the first difference between two runs.
type Divergence struct {
	From    uint64   // instruction count of the common start
	First   uint64   // first instruction count at which the states differ
	Parts   []string // the components that differ there
	Details []string // registers, memory pages, devices
	Replays int
}

// pairState is a checkpoint of both runs.
type pairState struct {
	a, b *checkpoint
}

// Diverge compares the report's universe with the same universe forked at
// the report's last fork point (or at its start) with seed other. It
// searches up to until instructions (0: the report's count).
func Diverge(r *Report, other uint64, until uint64) (*Divergence, error) {
	if until == 0 {
		until = r.ICount
	}
	// The common past starts at the cached boot when there is one: it
	// stands before the fork at the setup point, as a booting replay does.
	base, err := newReplayerSkip(r, nil, ^uint64(0), false)
	if err != nil {
		return nil, err
	}
	last := r.Path[len(r.Path)-1]
	// Run the common past up to the last fork, taking the forks before it
	// at their times.
	if len(r.Path) > 1 {
		for base.next < len(r.Path)-1 && !base.ended() {
			f := r.Path[base.next]
			if base.u.t < f.At {
				base.u.runTo(f.At)
			}
			if base.ended() || base.u.t != f.At {
				break
			}
			if base.next == 1 {
				keepBoot(r, base.u)
			}
			base.u.forkAt(f)
			base.next++
		}
		if base.next == len(r.Path)-1 && base.u.t < last.At && !base.ended() {
			base.u.runTo(last.At)
		}
		if base.next != len(r.Path)-1 || base.u.t != last.At {
			return nil, fmt.Errorf("%w: the universe ended before its last fork", ErrReport)
		}
		if base.next == 1 {
			keepBoot(r, base.u)
		}
	}
	common := base.checkpoint()
	mk := func(seed uint64) (*replayer, error) {
		u, err := restoreUniverse(base.spec, common.snap, restoreOpts{})
		if err != nil {
			return nil, err
		}
		u.forkAt(Fork{Seed: seed, Plan: last.Plan})
		return replayerOf(r, base.spec, u, len(r.Path)), nil
	}
	a, err := mk(last.Seed)
	if err != nil {
		return nil, err
	}
	b, err := mk(other)
	if err != nil {
		return nil, err
	}
	d := &Divergence{From: common.icount}
	if parts, _ := compare(a.u, b.u); len(parts) > 0 {
		d.First = common.icount
		d.Parts, d.Details = compare(a.u, b.u)
		return d, nil
	}
	step := max((until-common.icount)/64, 1000)
	prev := pairState{a.checkpoint(), b.checkpoint()}
	var hi uint64
	for n := common.icount + step; ; n += step {
		n = min(n, until)
		a.advance(n)
		b.advance(n)
		if parts, _ := compare(a.u, b.u); len(parts) > 0 {
			hi = n
			break
		}
		if n >= until || (a.ended() && b.ended()) {
			return nil, fmt.Errorf("the two runs do not differ by instruction %d", n)
		}
		prev = pairState{a.checkpoint(), b.checkpoint()}
	}
	lo := prev.a.icount
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if err := a.restore(prev.a); err != nil {
			return nil, err
		}
		if err := b.restore(prev.b); err != nil {
			return nil, err
		}
		a.advance(mid)
		b.advance(mid)
		d.Replays++
		if parts, _ := compare(a.u, b.u); len(parts) > 0 {
			hi = mid
		} else {
			lo = mid
			prev = pairState{a.checkpoint(), b.checkpoint()}
		}
	}
	if err := a.restore(prev.a); err != nil {
		return nil, err
	}
	if err := b.restore(prev.b); err != nil {
		return nil, err
	}
	a.advance(hi)
	b.advance(hi)
	d.First = hi
	d.Parts, d.Details = compare(a.u, b.u)
	return d, nil
}

// compare names the parts of two universes' states that differ.
func compare(a, b *Universe) (parts, details []string) {
	if a.ICount() != b.ICount() {
		parts = append(parts, "instruction count")
	}
	for i := range a.nodes {
		na, nb := a.nodes[i], b.nodes[i]
		if na.down != nb.down {
			parts = append(parts, fmt.Sprintf("node %d power", i))
			continue
		}
		if na.b == nil || nb.b == nil {
			continue
		}
		ha, hb := na.b.StateHashes(), nb.b.StateHashes()
		for k := range ha {
			if k >= len(hb) || ha[k] == hb[k] || ha[k].Name == "prng" || ha[k].Name == "sched" {
				// The streams differ by construction (different seeds).
				continue
			}
			name := ha[k].Name
			parts = append(parts, fmt.Sprintf("node %d %s", i, name))
			switch {
			case name == "ram":
				pages := emu.DiffPages(na.b.Machine, nb.b.Machine, 16)
				for _, pn := range pages {
					details = append(details, fmt.Sprintf("node %d memory page %#x (physical %#x)", i, pn, na.b.Config().RAMBase+pn*emu.PageBytes))
				}
			case len(name) > 4 && name[:4] == "hart":
				var h int
				fmt.Sscanf(name, "hart%d", &h)
				for _, r := range na.b.Hart(h).DiffRegs(nb.b.Hart(h)) {
					details = append(details, fmt.Sprintf("node %d hart %d %s", i, h, r))
				}
			}
		}
	}
	return parts, details
}
