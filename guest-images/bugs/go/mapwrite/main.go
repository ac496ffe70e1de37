// Command mapwrite: two goroutines write one map without a lock (Go's
// runtime detects concurrent map writes).
//
// Two indexers each index eight documents and record each document's
// length in a shared map, under its own keys. Nothing else is shared.
//
// The bug: a Go map is not safe for concurrent writes, even to different
// keys. When one goroutine starts a write while the other is inside one,
// the runtime reports "fatal error: concurrent map writes" and exits 2. A
// write takes a few hundred instructions, the indexers write half a
// document's work apart (a hundred thousand instructions), so a normal
// run does not meet it.
//
// Depth: two ordering constraints, one preemption: an indexer stopped
// inside its map write while the other starts one.
//
// The fix (-tags fixed): a mutex around the writes.
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

const docs = 8

func main() {
	// Sized up front, so that no write grows it (a growth is a long
	// write: allocation, page faults).
	lengths := make(map[int]uint64, 2*docs)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The second indexer opens its batch for half a document's
			// time: the two write half a document apart.
			n := bug.Work(uint64(w), 15000*w)
			for d := 0; d < docs; d++ {
				n = bug.Work(n+uint64(w*100+d), 30000) // index a document
				if bug.Fixed {
					mu.Lock()
				}
				lengths[w*docs+d] = n // BUG (without fixed): no lock
				if bug.Fixed {
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	var h uint64
	for k, v := range lengths {
		h ^= v + uint64(k)
	}
	fmt.Printf("mapwrite: %d documents (%02x)\n", len(lengths), h&0xff)
}
