// Command counter: an unprotected count++ shared by two goroutines (a
// data race on a counter, with an assertion).
//
// Two servers count the requests they serve in one shared counter with a
// load, an add and a store (what served++ compiles to); main checks the
// total when both are done.
//
// The bug: the increment is not atomic. If one goroutine loads the counter
// and the other's increment lands before the first stores, an increment is
// lost: main exits 1. Each server increments 8 times, half a request's
// work (sixty thousand instructions) apart from the other's, so the few
// instructions of one increment rarely meet the other's.
//
// Depth: two ordering constraints, one preemption: a goroutine stopped
// between its load and its store while the other increments.
//
// The fix (-tags fixed): sync/atomic.
package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"everett/guest-images/bugs/go/internal/bug"
)

const requests = 8

var served int64

// count adds one served request; noinline keeps it a load, an add and a
// store of the shared variable in every call.
//
//go:noinline
func count() {
	if bug.Fixed {
		atomic.AddInt64(&served, 1)
	} else {
		n := served // BUG: load, ...
		bug.Window(5000000)
		served = n + 1 // ... add, store
	}
}

func main() {
	var wg sync.WaitGroup
	var hs [2]uint64
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The second server starts half a request later: the two
			// count half a request's work apart.
			h := bug.Work(uint64(s), 15000*s)
			for i := 0; i < requests; i++ {
				h = bug.Work(h+uint64(s*100+i), 30000) // serve a request
				count()
			}
			hs[s] = h
		}()
	}
	wg.Wait()
	if served != 2*requests {
		fmt.Printf("counter: served %d, want %d\n", served, 2*requests)
		os.Exit(1)
	}
	fmt.Printf("counter: served %d (%02x)\n", served, (hs[0]^hs[1])&0xff)
}
