// Command leak: a goroutine blocked for good on an unbuffered channel
// that nobody reads any more (a goroutine leak).
//
// fetch starts a goroutine to compute a result and send it back on an
// unbuffered channel, while the caller selects on that channel and on the
// search's deadline, which a supervisor goroutine closes when its budget
// of work is spent, halfway through the eight fetches. A fetch that comes
// after the deadline gives up; its goroutine, when it has computed its
// result, sees the deadline closed and returns without sending.
//
// The bug: the goroutine checks the deadline and then sends, in two steps.
// If the deadline closes between the two, the caller gives up (its select
// takes the deadline) and the goroutine blocks on its send for good, with
// no receiver left. At the end, main waits for every fetch's goroutine (a
// WaitGroup): with one leaked, Go's runtime finds all goroutines asleep
// and exits 2, its report showing the leaked goroutine in its channel
// send. The window is the few instructions between the check and the
// send, and the deadline closes at one moment of the run.
//
// Depth: two ordering constraints, one preemption: a fetch's goroutine
// stopped between its check and its send while the supervisor closes the
// deadline and the caller gives up.
//
// The fix (-tags fixed): check and send in one select, which takes the
// deadline when no receiver comes.
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

const fetches = 8

// fetchers counts the goroutines fetch starts, until each has returned.
var fetchers sync.WaitGroup

func fetch(id int, deadline <-chan struct{}) (uint64, bool) {
	ch := make(chan uint64)
	fetchers.Add(1)
	go func() {
		defer fetchers.Done()
		v := bug.Work(uint64(id), 30000) // compute the result
		if bug.Fixed {
			select {
			case ch <- v:
			case <-deadline:
			}
			return
		}
		select { // BUG: check ...
		case <-deadline:
			return
		default:
		}
		bug.Window(5000000)
		ch <- v // ... then send: nobody may be receiving any more
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
		h := bug.Work(99, 110000) // the search's budget
		close(deadline)
		spent <- h
	}()
	var h uint64
	got := 0
	for i := 0; i < fetches; i++ {
		if v, ok := fetch(i, deadline); ok {
			h ^= v
			got++
		}
	}
	h ^= <-spent
	fetchers.Wait() // a leaked goroutine never returns: all asleep
	fmt.Printf("leak: %d of %d results in time (%02x)\n", got, fetches, h&0xff)
}
