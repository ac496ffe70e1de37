package emu

import "testing"

func TestBucketsAreAFLs(t *testing.T) {
	for _, c := range []struct {
		hits, want uint8
	}{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {7, 4}, {8, 5}, {15, 5}, {16, 6}, {31, 6}, {32, 7}, {127, 7}, {128, 8}, {255, 8}} {
		if got := Bucket(c.hits); got != c.want {
			t.Errorf("bucket of %d hits: %d, want %d", c.hits, got, c.want)
		}
	}
}

func TestARunIsNewWhereItReachesABucketTheSearchHasNot(t *testing.T) {
	seen := make([]uint8, MinEdgeSlots)
	seen[5] = Bucket(2) // an earlier universe took edge 5 twice
	c, err := NewCoverage(MinEdgeSlots)
	if err != nil {
		t.Fatal(err)
	}
	c.SeenEdges = seen
	hit := func(i uint64, n int) {
		for k := 0; k < n; k++ {
			if v := c.Edges[i]; v != 255 {
				v++
				c.Edges[i] = v
				if v&(v-1) == 0 || v == 3 {
					c.bucketEdge(i, v)
				}
			}
		}
	}
	hit(5, 2)
	if c.NewEdges != 0 {
		t.Fatalf("taking edge 5 twice, as the search has, counted %d new buckets", c.NewEdges)
	}
	hit(5, 1)
	if c.NewEdges != 1 {
		t.Fatalf("a third time: %d new buckets, want 1", c.NewEdges)
	}
	hit(9, 300) // saturates at 255: buckets 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+
	if c.NewEdges != 9 || c.Edges[9] != 255 {
		t.Fatalf("edge 9 taken 300 times: %d new buckets, count %d", c.NewEdges, c.Edges[9])
	}
	if got := Merge(seen, c.Edges, c.TouchedEdges); got != 1 {
		t.Fatalf("merge filled %d new slots, want 1 (edge 9)", got)
	}
	if seen[5] != Bucket(3) || seen[9] != Bucket(255) {
		t.Fatalf("merged buckets %d and %d", seen[5], seen[9])
	}
	if EdgeSlotsFor(0) != MaxEdgeSlots || EdgeSlotsFor(100) != MinEdgeSlots || EdgeSlotsFor(1<<16) != 1<<18 {
		t.Fatalf("map sizes %d %d %d", EdgeSlotsFor(0), EdgeSlotsFor(100), EdgeSlotsFor(1<<16))
	}
}
