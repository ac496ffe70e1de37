package explorer

import (
	"fmt"

	"everett/emu/enginecheck"
)

// Divergence mode of bisection: two runs from the same state (a report's
// last fork point, or its start) with different seeds — say a failing and a
// passing one — are compared at checkpoints and then by binary search, to
// find the first instruction count at which their states differ and what
// differs there. The result is an enginecheck.Divergence, narrowed to that
// count (Hart -1: the search does not name the instruction slot);
// Components name the differing parts as "node N part" and Diffs carry a
// "nodeN." prefix.

// pairState is a checkpoint of both runs.
type pairState struct {
	a, b *checkpoint
}

// Diverge compares the report's universe with the same universe forked at
// the report's last fork point (or at its start) with seed other. It
// searches up to until instructions (0: the report's count).
func Diverge(r *Report, other uint64, until uint64) (*enginecheck.Divergence, error) {
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
	d := &enginecheck.Divergence{From: common.icount, Narrowed: true, Hart: -1,
		Sides: [2]string{fmt.Sprintf("seed %#x", last.Seed), fmt.Sprintf("seed %#x", other)}}
	if parts, _ := compare(a.u, b.u); len(parts) > 0 {
		d.First, d.ICount, d.LastEqual = common.icount, common.icount, common.icount
		d.Components, d.Diffs = compare(a.u, b.u)
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
	d.First, d.ICount, d.LastEqual = hi, hi, lo
	d.Components, d.Diffs = compare(a.u, b.u)
	return d, nil
}

// compare names the parts of two universes' states that differ, and what
// differs in their harts and RAM.
func compare(a, b *Universe) (parts []string, details []enginecheck.StateDiff) {
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
				for _, x := range enginecheck.DiffRAM(na.b.Machine, nb.b.Machine, enginecheck.MaxDiffs) {
					x.Name = fmt.Sprintf("node%d.%s", i, x.Name)
					details = append(details, x)
				}
			case len(name) > 4 && name[:4] == "hart":
				var h int
				fmt.Sscanf(name, "hart%d", &h)
				prefix := fmt.Sprintf("node%d.hart%d.", i, h)
				details = append(details, enginecheck.DiffHart(na.b.Hart(h), nb.b.Hart(h), prefix, enginecheck.MaxDiffs)...)
			}
		}
	}
	return parts, details
}
