// Command locksend: a mutex held across a channel send (a deadlock
// between a lock and a channel).
//
// A publisher updates a shared state under a mutex and announces each
// update on an event channel with room for one event; a subscriber
// receives each event, then locks the mutex to read the state, then
// renders it. Rendering takes a little longer than an update, so the
// channel is often full and the publisher often waits in its send, with
// the mutex held: the publisher sends before it unlocks.
//
// The bug: that is harmless as long as the subscriber, when it wants the
// mutex, has just received (which let the publisher's send through). But
// if the subscriber is held up between its receive and its Lock for as
// long as the publisher takes to unlock, make the next update and block
// in its next send, each waits for the other: Go's runtime finds all
// goroutines asleep and exits 2. In a normal run the subscriber goes from
// its receive to its Lock at once.
//
// Depth: one ordering constraint, at a point: the subscriber stopped
// right after a receive (one preemption) for as long as an update.
//
// The fix (-tags fixed): send after unlocking.
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

const updates = 6

func main() {
	var mu sync.Mutex
	var state int
	events := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	var hp, hs uint64
	go func() { // the publisher
		defer wg.Done()
		for i := 1; i <= updates; i++ {
			hp ^= bug.Work(uint64(i), 100000) // compute the update
			mu.Lock()
			state = i
			if bug.Fixed {
				mu.Unlock()
				events <- i
			} else {
				events <- i // BUG: sent with the mutex held
				mu.Unlock()
			}
		}
		close(events)
	}()
	go func() { // the subscriber
		defer wg.Done()
		for ev := range events {
			bug.Window(5000000)
			mu.Lock()
			s := state
			mu.Unlock()
			if s < ev {
				panic(fmt.Sprintf("state %d older than event %d", s, ev))
			}
			hs ^= bug.Work(uint64(s), 130000) // render the state
		}
	}()
	wg.Wait()
	fmt.Printf("locksend: %d updates (%02x)\n", state, (hp^hs)&0xff)
}
