package bucket

import "testing"

// The ranges of a search tile its universes with no gap or overlap: two
// of each size from 1 up to the claim size, then that size; a sweep's
// claim size of 1 gives ranges of one, as before the ramp.
func TestRangesGrowFromOneUniverseAndTileTheSearch(t *testing.T) {
	want := map[int][]int{
		1: {1, 1, 1, 1},
		2: {1, 1, 2, 2, 2},
		4: {1, 1, 2, 2, 4, 4},
		8: {1, 1, 2, 2, 4, 4, 8, 8},
		5: {1, 1, 2, 2, 4, 4, 5, 5},
	}
	for size, sizes := range want {
		next := 0
		for r, w := range sizes {
			base, end := rangeAt(r, size)
			if base != next || end-base != w {
				t.Fatalf("claim %d: range %d is %d..%d, want %d..%d", size, r, base, end, next, next+w)
			}
			for u := base; u < end; u++ {
				if got := rangeIndex(u, size); got != r {
					t.Fatalf("claim %d: universe %d is in range %d, rangeIndex says %d", size, u, r, got)
				}
			}
			next = end
		}
	}
	for size := 1; size <= 64; size++ {
		for n := 1; n <= 300; n++ {
			r := rangeCount(n, size) - 1
			base, end := rangeAt(r, size)
			if base >= n || end < n {
				t.Fatalf("claim %d, %d universes: the last of %d ranges is %d..%d", size, n, r+1, base, end)
			}
		}
	}
	if rangeIndex(-1, 4) != -1 {
		t.Fatal("no range holds universe -1")
	}
}
