// Command rlock: a read lock taken again while held (a recursive RLock
// that deadlocks when a writer comes in between).
//
// A registry guarded by a sync.RWMutex. describe() read-locks it, reads an
// entry, formats it, and calls size(), which read-locks it again. A writer
// goroutine adds entries now and then under the write lock.
//
// The bug: sync.RWMutex blocks new readers once a writer waits. If the
// writer calls Lock while describe holds its first read lock, the writer
// waits for describe, and describe's second RLock waits behind the
// writer: Go's runtime finds all goroutines asleep and exits 2. The
// window is the formatting between the two RLocks, and the writer locks
// half a request's work after each describe.
//
// Depth: two ordering constraints, one preemption: describe stopped
// between its two RLocks while the writer calls Lock.
//
// The fix (-tags fixed): size() is called after the first read lock is
// released (or describe reads the size under its one lock).
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

type registry struct {
	mu      sync.RWMutex
	entries map[int]uint64
}

func (r *registry) size() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries)
}

func (r *registry) describe(k int) uint64 {
	r.mu.RLock()
	v := r.entries[k]
	line := bug.Work(v, 100) // format the entry
	if bug.Fixed {
		r.mu.RUnlock()
		return line + uint64(r.size())
	}
	bug.Window(5000000)
	n := r.size() // BUG: a second RLock while holding the first
	r.mu.RUnlock()
	return line + uint64(n)
}

func main() {
	r := &registry{entries: map[int]uint64{0: 1}}
	var wg sync.WaitGroup
	var hr uint64
	wg.Add(2)
	go func() { // the reader
		defer wg.Done()
		for i := 0; i < 6; i++ {
			hr = bug.Work(hr+uint64(i), 30000) // handle a request
			hr ^= r.describe(i % 3)
		}
	}()
	go func() { // the writer
		defer wg.Done()
		v := bug.Work(100, 15000) // half a request behind the reader
		for i := 1; i <= 5; i++ {
			v = bug.Work(v+uint64(100+i), 30000) // build an entry
			r.mu.Lock()
			r.entries[i] = v
			r.mu.Unlock()
		}
	}()
	wg.Wait()
	fmt.Printf("rlock: %d entries (%02x)\n", r.size(), hr&0xff)
}
