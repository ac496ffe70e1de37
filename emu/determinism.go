package emu

import "fmt"

// Divergence describes the first checkpoint at which two runs that should be
// identical differ.
type Divergence struct {
	ICount     uint64   // instruction count of the first differing checkpoint
	Components []string // the parts of the state that differ there
	LastEqual  uint64   // the last checkpoint at which they agreed
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("runs diverge by instruction %d (equal at %d): %v differ", d.ICount, d.LastEqual, d.Components)
}

// CompareRuns runs a and b (two machines built from the same inputs) side by
// side, comparing their state hashes every `every` instructions until both
// stop or reach limit (0: no limit). It returns the stop reason and nil, or
// the first divergence. Use it to find determinism leaks: any difference is
// a bug in everett.
func CompareRuns(a, b *Machine, every, limit uint64) (StopReason, *Divergence) {
	if every == 0 {
		every = 1_000_000
	}
	var last uint64
	for at := every; ; at += every {
		if limit != 0 && at > limit {
			at = limit
		}
		ra, rb := a.Run(at), b.Run(at)
		ha, hb := a.StateHashes(), b.StateHashes()
		var diff []string
		for i := range ha {
			if i >= len(hb) || ha[i] != hb[i] {
				diff = append(diff, ha[i].Name)
			}
		}
		if ra != rb || a.ICount() != b.ICount() {
			diff = append(diff, fmt.Sprintf("stop (%v at %d vs %v at %d)", ra, a.ICount(), rb, b.ICount()))
		}
		if len(diff) > 0 {
			return ra, &Divergence{ICount: a.ICount(), Components: diff, LastEqual: last}
		}
		last = a.ICount()
		if ra != StopLimit || (limit != 0 && at >= limit) {
			return ra, nil
		}
	}
}
