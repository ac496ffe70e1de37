// Package bug holds what the Go programs of the bug suite share: Fixed,
// which says whether this build is a program's correct twin (build tag
// "fixed"), and Work, the private work its goroutines do between their
// shared accesses.
package bug

// Work stands for what a goroutine does on its own (parsing, hashing,
// formatting): a hash stretched over rounds rounds, touching no memory
// but its own. Nothing depends on time: a run's length is a function of
// its instructions alone. The caller must use the result, or the
// compiler may drop the loop.
func Work(seed uint64, rounds int) uint64 {
	h := 1469598103934665603 ^ seed
	for i := 0; i < rounds; i++ {
		h = (h ^ uint64(i)) * 1099511628211
	}
	return h
}
