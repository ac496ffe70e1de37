// Command leak: a goroutine blocked for good on an unbuffered channel
// that nobody reads any more (a goroutine leak).
//
// fetch starts a goroutine to compute a result and sends it back on an
// unbuffered channel, while the caller selects on that channel and on the
// search's deadline, closed by a supervisor goroutine when its budget of
// work is spent. The four fetches need a fraction of that budget.
//
// The bug: when the deadline wins the select, fetch returns and nobody
// ever receives from the channel: the goroutine computing the result
// blocks on its send for good. At the end, main waits for every fetch's
// goroutine (a WaitGroup): with one leaked, Go's runtime finds all
// goroutines asleep and exits 2, its report showing the leaked goroutine
// in its channel send. The deadline wins only if a fetch's goroutine is
// held up for most of the supervisor's budget, which a normal run does
// not do.
//
// Depth: one ordering constraint, but a long one: a fetch's goroutine kept
// from running (one preemption) while the supervisor spends its budget.
//
// The fix (-tags fixed): a channel with room for the one result, so that
// the send never blocks.
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

// fetchers counts the goroutines fetch starts, until each has delivered
// its result.
var fetchers sync.WaitGroup

func fetch(id int, deadline <-chan struct{}) (uint64, bool) {
	var ch chan uint64
	if bug.Fixed {
		ch = make(chan uint64, 1)
	} else {
		ch = make(chan uint64) // BUG: unbuffered: the send waits for a receiver
	}
	fetchers.Add(1)
	go func() {
		defer fetchers.Done()
		ch <- bug.Work(uint64(id), 20000) // compute the result
	}()
	select {
	case v := <-ch:
		return v, true
	case <-deadline:
		return 0, false
	}
}

func main() {
	deadline := make(chan struct{})
	spent := make(chan uint64)
	go func() {
		h := bug.Work(99, 1000000) // the search's budget
		close(deadline)
		spent <- h
	}()
	var h uint64
	got := 0
	for i := 0; i < 4; i++ {
		if v, ok := fetch(i, deadline); ok {
			h ^= v
			got++
		}
	}
	h ^= <-spent
	fetchers.Wait() // a leaked goroutine never gets here: all asleep
	fmt.Printf("leak: %d of 4 results in time (%02x)\n", got, h&0xff)
}
