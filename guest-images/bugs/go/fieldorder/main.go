// Command fieldorder: a field set after the goroutine that uses it has
// started (an order violation).
//
// Main creates a server, starts its request loop in a goroutine and then
// installs the server's handler: `go s.serve(); s.handler = ...`. The loop
// first warms up its cache (its own work) and then passes each request to
// s.handler.
//
// The bug: nothing orders the store of the handler before the loop's first
// call through it; the loop relies on its warm-up being longer than main's
// next statement. If main is held up right after the go statement while
// the loop warms up, the loop calls a nil function: a panic, exit 2.
//
// Depth: one ordering constraint, but a long one: main stopped right after
// its go statement (one preemption) for as long as the warm-up.
//
// The fix (-tags fixed): install the handler before starting the loop.
package main

import (
	"fmt"

	"everett/guest-images/bugs/go/internal/bug"
)

type server struct {
	handler func(req uint64) uint64
	served  chan uint64
}

func (s *server) serve(reqs int) {
	h := bug.Work(7, 60000) // warm up the cache
	for i := 0; i < reqs; i++ {
		h ^= s.handler(h + uint64(i)) // BUG (without fixed): may still be nil
	}
	s.served <- h
}

func handle(req uint64) uint64 { return bug.Work(req, 10000) }

func main() {
	s := &server{served: make(chan uint64)}
	if bug.Fixed {
		s.handler = handle
		go s.serve(3)
	} else {
		go s.serve(3)
		bug.Window(5000000)
		s.handler = handle // BUG: after the loop started
	}
	h := <-s.served
	fmt.Printf("fieldorder: served 3 requests (%02x)\n", h&0xff)
}
