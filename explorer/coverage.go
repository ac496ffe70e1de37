package explorer

import (
	"fmt"
	"slices"

	"everett/emu"
)

// Coverage feedback (RATIONALE.md, "Why two coverage signals, in buckets,
// kernel and user apart?"). A universe records two signals into its own
// emu.Coverage: edges between guest basic blocks (hit counts in AFL-style
// buckets, kernel and user code in separate halves of a map sized to the
// code it covers) and interleaving pairs (the pcs of the two accesses of a
// communication event between harts). A universe is new when a slot of
// either map reaches a bucket that no earlier universe of the search
// reached; it then asks for a snapshot, which joins the corpus.

// Seen is what the search knows of both signals: per slot, the highest
// bucket any merged universe reached (emu.Bucket), 0 for never. It is only
// written between batches, so universes read it without locks and the
// search stays a function of its seed.
type Seen struct {
	Edges, Pairs         []uint8
	edgesUsed, pairsUsed int
}

// newSeen makes the search's record for spec s.
func newSeen(s *Spec) *Seen {
	return &Seen{Edges: make([]uint8, s.edgeSlots()), Pairs: make([]uint8, emu.PairSlots)}
}

// merge folds a finished universe's coverage into the record.
func (k *Seen) merge(c *emu.Coverage) {
	if c == nil || len(c.Edges) != len(k.Edges) {
		return
	}
	k.edgesUsed += emu.Merge(k.Edges, c.Edges, c.TouchedEdges)
	k.pairsUsed += emu.Merge(k.Pairs, c.Pairs, c.TouchedPairs)
}

// EdgesCovered returns the edge slots in use.
func (k *Seen) EdgesCovered() int { return k.edgesUsed }

// PairsCovered returns the interleaving-pair slots in use.
func (k *Seen) PairsCovered() int { return k.pairsUsed }

// Fill returns the fraction of the edge map's slots in use.
func (k *Seen) Fill() float64 {
	if len(k.Edges) == 0 {
		return 0
	}
	return float64(k.edgesUsed) / float64(len(k.Edges))
}

// edgeSlots sizes the edge map of the spec's universes: to the covered
// range of a bare-metal program, to the largest map for a kernel.
func (s *Spec) edgeSlots() int {
	lo, hi, _ := s.coverageRange()
	if hi > lo && hi != ^uint64(0) {
		return emu.EdgeSlotsFor(hi - lo)
	}
	if s.bareMetal() {
		var code uint64
		if e, err := emu.ParseELF(s.nodes[0].ELF.Data); err == nil {
			for _, g := range e.Segments {
				code += g.MemSize
			}
		}
		return emu.EdgeSlotsFor(code)
	}
	return emu.MaxEdgeSlots
}

// newCoverage makes a universe's coverage record, or nil when the spec
// turns coverage off.
func (u *Universe) newCoverage() {
	if lo, hi, _ := u.spec.coverageRange(); hi <= lo {
		return
	}
	c, err := emu.NewCoverage(u.spec.edgeSlots())
	if err != nil {
		panic(fmt.Sprintf("explorer: coverage map: %v", err)) // edgeSlots only makes valid sizes
	}
	if u.seen != nil {
		c.SeenEdges, c.SeenPairs = u.seen.Edges, u.seen.Pairs
	}
	u.cov = c
}

// checkCoverage asks for a snapshot when the universe reached new buckets
// since the last check.
func (u *Universe) checkCoverage() {
	if u.cov == nil || u.seen == nil {
		return
	}
	if n := u.cov.NewEdges + u.cov.NewPairs; n > u.newEdges {
		u.newEdges = n
		u.interesting(fmt.Sprintf("new coverage (%d edge and %d interleaving buckets)", u.cov.NewEdges, u.cov.NewPairs))
	}
}

// coveredEdges lists the edge slots the universe touched, ascending.
func (u *Universe) coveredEdges() []uint32 {
	if u.cov == nil {
		return nil
	}
	out := append([]uint32(nil), u.cov.TouchedEdges...)
	slices.Sort(out)
	return out
}
