package explorer

import (
	"fmt"
	"sort"
)

// Shrinking: remove decisions (faults, packet fates, delays) from a failing
// universe while its failure still reproduces. Decisions are suppressed by
// index: the streams still draw the same values, so suppressing one leaves
// every other draw in place, but the guest may then behave differently and
// meet different later decisions. The shrunk report records the suppressed
// indices; replaying it suppresses them again and is exact.

// ShrinkResult is a smaller report and how it was found.
type ShrinkResult struct {
	Report  *Report
	Before  int // decisions applied in the original universe
	After   int // decisions applied in the shrunk one
	Replays int
}

// Shrink suppresses as many of the report's decisions as it can (chunks,
// then single decisions: a greedy delta debugging) within maxReplays
// replays (0: 200), keeping the failure's signature.
func Shrink(r *Report, maxReplays int) (*ShrinkResult, error) {
	if maxReplays <= 0 {
		maxReplays = 200
	}
	res := &ShrinkResult{Before: len(r.Decisions)}
	base := map[int]bool{}
	for _, k := range r.Suppressed {
		base[k] = true
	}
	all := make([]int, 0, len(r.Decisions))
	for _, d := range r.Decisions {
		all = append(all, d.Index)
	}
	kept := append([]int(nil), all...)
	var best *ReplayResult
	try := func(keep []int) (*ReplayResult, bool, error) {
		in := map[int]bool{}
		for _, k := range keep {
			in[k] = true
		}
		var sup []int
		for _, k := range all {
			if !in[k] {
				sup = append(sup, k)
			}
		}
		for k := range base {
			sup = append(sup, k)
		}
		sort.Ints(sup)
		res.Replays++
		rr, err := Replay(r, ReplayOptions{Suppress: sup})
		if err != nil {
			return nil, false, err
		}
		rr.suppressed = sup
		return rr, rr.Failure != nil && rr.Failure.Signature() == r.Signature, nil
	}
	for chunk := max(len(kept)/2, 1); chunk >= 1 && res.Replays < maxReplays; chunk /= 2 {
		for i := 0; i < len(kept) && res.Replays < maxReplays; {
			cand := append(append([]int(nil), kept[:i]...), kept[min(i+chunk, len(kept)):]...)
			rr, ok, err := try(cand)
			if err != nil {
				return nil, err
			}
			if ok {
				kept, best = cand, rr
			} else {
				i += chunk
			}
		}
		if chunk == 1 {
			break
		}
	}
	if best == nil {
		rr, ok, err := try(kept)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("the report does not reproduce: %s", r.Signature)
		}
		best = rr
	}
	out := *r
	u := best.Universe
	out.Suppressed = best.suppressed
	out.Decisions = append([]Decision(nil), u.decisions...)
	out.ICount = best.ICount
	out.Time = best.Time
	out.StateHash = best.StateHash
	out.Console = best.Console
	out.Failure = *best.Failure
	out.RootTrap = best.RootTrap
	out.Replay = ""
	res.Report = &out
	res.After = len(out.Decisions)
	return res, nil
}
