package emu

import "fmt"

// Coverage is what a run tells the explorer about the paths it took: hit
// counts of edges between guest basic blocks, with kernel (M and S mode)
// and user (U mode) code in separate halves of the map, and hit counts of
// communication pairs (the pcs of a write and of the access on another
// hart that saw it; see comm.go). Counts saturate at 255 and are compared
// in AFL-style buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+).
//
// Coverage is an observation: recording it never changes what the guest
// does, and it is not part of the machine's state. One Coverage may be
// shared by the machines of a universe (they run on one goroutine).
type Coverage struct {
	// Edges holds a hit count per edge slot: [0, len/2) kernel, [len/2,
	// len) user. Its length is a power of two.
	Edges []uint8
	// Pairs holds a hit count per communication-pair slot (a power of two).
	Pairs []uint8
	// SeenEdges and SeenPairs, when set, are the search's knowledge at the
	// start of the run (read-only while it runs): per slot, the highest
	// bucket any earlier universe reached, plus one (0: never hit).
	SeenEdges, SeenPairs []uint8
	// TouchedEdges and TouchedPairs list the slots that became non-zero,
	// in the order they did.
	TouchedEdges, TouchedPairs []uint32
	// NewEdges and NewPairs count the times a slot's count entered a
	// bucket higher than any in Seen: the novelty of this run.
	NewEdges, NewPairs int
}

// Coverage map sizes.
const (
	// MaxEdgeSlots bounds the edge map (both halves): 2 MiB of counts.
	MaxEdgeSlots = 1 << 21
	// MinEdgeSlots is the smallest edge map.
	MinEdgeSlots = 1 << 12
	// PairSlots is the size of the communication-pair map.
	PairSlots = 1 << 16
)

// NewCoverage returns an empty coverage record with edgeSlots edge slots
// (a power of two in [MinEdgeSlots, MaxEdgeSlots]) and PairSlots pair slots.
func NewCoverage(edgeSlots int) (*Coverage, error) {
	if edgeSlots < MinEdgeSlots || edgeSlots > MaxEdgeSlots || edgeSlots&(edgeSlots-1) != 0 {
		return nil, fmt.Errorf("%w: %d edge slots (want a power of two in [%d, %d])", ErrConfig, edgeSlots, MinEdgeSlots, MaxEdgeSlots)
	}
	return &Coverage{Edges: make([]uint8, edgeSlots), Pairs: make([]uint8, PairSlots)}, nil
}

// EdgeSlotsFor sizes an edge map for codeBytes bytes of code (0: unknown,
// as for a kernel): about eight slots per possible block start, so that
// the map stays sparse, within [MinEdgeSlots, MaxEdgeSlots].
func EdgeSlotsFor(codeBytes uint64) int {
	if codeBytes == 0 || codeBytes > MaxEdgeSlots {
		return MaxEdgeSlots
	}
	n := MinEdgeSlots
	for uint64(n) < codeBytes*4 && n < MaxEdgeSlots {
		n <<= 1
	}
	return n
}

// Bucket returns the AFL-style bucket of hit count c, plus one (0 for 0).
func Bucket(c uint8) uint8 {
	switch {
	case c == 0:
		return 0
	case c <= 3:
		return c
	case c <= 7:
		return 4
	case c <= 15:
		return 5
	case c <= 31:
		return 6
	case c <= 127:
		return 7
	}
	return 8
}

// bucketEdge is called when edge slot i's count becomes c, a bucket's first
// count (1, 2, 3, 4, 8, 16, 32 or 128; 64 is also passed and ignored).
func (c *Coverage) bucketEdge(i uint64, n uint8) {
	if n == 64 {
		return // a power of two inside the 32-127 bucket
	}
	if n == 1 {
		c.TouchedEdges = append(c.TouchedEdges, uint32(i))
	}
	if c.SeenEdges != nil && Bucket(n) > c.SeenEdges[i] {
		c.NewEdges++
	}
}

// pair counts one communication between a write at wpc and an access at
// pc on another hart.
func (c *Coverage) pair(wpc, pc uint64) {
	i := pairKey(wpc, pc) & uint64(len(c.Pairs)-1)
	n := c.Pairs[i]
	if n == 255 {
		return
	}
	n++
	c.Pairs[i] = n
	if n == 1 {
		c.TouchedPairs = append(c.TouchedPairs, uint32(i))
	}
	if (n&(n-1) == 0 && n != 64) || n == 3 {
		if c.SeenPairs != nil && Bucket(n) > c.SeenPairs[i] {
			c.NewPairs++
		}
	}
}

// pairKey hashes a (writer pc, reader pc) pair.
func pairKey(wpc, pc uint64) uint64 { return mix64(wpc*0x9e3779b97f4a7c15 ^ pc) }

// Merge folds a finished run's counts into seen (edges or pairs, as
// SeenEdges is to Edges): seen[i] becomes the highest bucket reached. It
// returns how many slots of seen were zero before.
func Merge(seen, counts []uint8, touched []uint32) int {
	n := 0
	for _, i := range touched {
		b := Bucket(counts[i])
		if seen[i] == 0 && b > 0 {
			n++
		}
		if b > seen[i] {
			seen[i] = b
		}
	}
	return n
}

// EnableCoverage makes the machine record coverage into c: every block
// entry at a pc in [lo, hi) counts the slot indexed by a hash of the
// (previous block, this block) pair of the same hart, in the kernel or
// the user half by the hart's privilege; communication events count their
// pairs when communication tracking is on (TrackCommunication). hi = 0
// means no upper bound.
func (m *Machine) EnableCoverage(c *Coverage, lo, hi uint64) error {
	if c == nil || len(c.Edges) < 2 || len(c.Edges)&(len(c.Edges)-1) != 0 || len(c.Pairs) == 0 || len(c.Pairs)&(len(c.Pairs)-1) != 0 {
		return fmt.Errorf("%w: coverage maps must be non-empty powers of two", ErrConfig)
	}
	if hi == 0 {
		hi = ^uint64(0)
	}
	if hi <= lo {
		return fmt.Errorf("%w: coverage range [%#x, %#x)", ErrConfig, lo, hi)
	}
	half := uint64(len(c.Edges) / 2)
	m.cov.c, m.cov.edges, m.cov.mask, m.cov.half, m.cov.lo, m.cov.span = c, c.Edges, half-1, half, lo, hi-lo
	return nil
}
