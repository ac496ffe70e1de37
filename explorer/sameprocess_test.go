package explorer

import (
	"testing"
)

// A universe is a function of its inputs only: forking the same snapshot
// with the same seed twice in one process gives the same universe, whatever
// the first fork did (here: crash a node and restart it). The explorer's
// results must not depend on what else ran in the process, nor on its
// number of workers.

func TestTwoForksOfASnapshotWithOneSeedAgreeThoughTheFirstRestartedANode(t *testing.T) {
	s := elfSpec(t, "flood", 1)
	s.Nodes[0].Count = 1
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	root, err := newUniverse(s, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := root.Snapshot("test")
	seeds := make([]uint64, len(snap.nodes))
	for i, ns := range snap.nodes {
		seeds[i] = ns.spec.Seed
	}
	run := func() (uint64, uint64) {
		u, err := forkWith(s, snap, Fork{Seed: 5}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		schedule(u, 0, 1000, 3*u.window)
		u.runTo(0)
		if u.nodes[0].spec.Seed == seeds[0] {
			t.Fatal("the restarted node kept its first incarnation's seed")
		}
		return u.StateHash(), u.ICount()
	}
	h1, n1 := run()
	h2, n2 := run()
	if h1 != h2 || n1 != n2 {
		t.Fatalf("the same fork twice: hash %x then %x, %d then %d instructions", h1, h2, n1, n2)
	}
	for i, ns := range snap.nodes {
		if ns.spec.Seed != seeds[i] {
			t.Fatalf("node %d's seed in the snapshot changed from %#x to %#x: a fork wrote to its snapshot", i, seeds[i], ns.spec.Seed)
		}
	}
}
