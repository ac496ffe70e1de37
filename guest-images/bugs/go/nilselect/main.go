// Command nilselect: a relay whose select is left with only nil channels
// (a nil-channel select that blocks for good).
//
// A relay goroutine forwards values from a producer to a consumer and
// keeps the ones the consumer is not ready for in a pending queue. Its
// select enables the send case only when something is pending (a nil
// channel disables a case) and disables the receive case (sets in to nil)
// once the producer has closed in. The relay closes out when in is closed
// and nothing is pending.
//
// The bug: that check is only made when in closes. If values are still
// pending then, the relay sends them and loops into a select whose two
// channels are both nil, which blocks for good; the consumer waits for
// out to close and main for the consumer: Go's runtime finds all
// goroutines asleep and exits 2. Values are pending at the close only if
// the consumer is held up for the producer's last value and the trailer
// it computes before closing; the consumer is quicker than the producer.
//
// Depth: one ordering constraint, but a long one: the consumer kept from
// receiving (one preemption) across the producer's last value and its
// trailer.
//
// The fix (-tags fixed): after each send, close out if in is closed and
// nothing is pending.
package main

import (
	"fmt"

	"everett/guest-images/bugs/go/internal/bug"
)

const values = 6

func relay(in <-chan uint64, out chan<- uint64) {
	var pending []uint64
	for {
		var send chan<- uint64 // nil: the send case is off
		var next uint64
		if len(pending) > 0 {
			send, next = out, pending[0]
		}
		select {
		case v, ok := <-in:
			if !ok {
				in = nil // off from now on
				if len(pending) == 0 {
					close(out)
					return
				}
				continue
			}
			pending = append(pending, v)
		case send <- next:
			pending = pending[1:]
			if bug.Fixed && in == nil && len(pending) == 0 {
				close(out)
				return
			}
			// BUG (without fixed): with in nil and nothing pending, the
			// next select has only nil channels.
		}
	}
}

func main() {
	in := make(chan uint64)
	out := make(chan uint64)
	go func() { // the producer
		var h uint64
		for i := 0; i < values; i++ {
			h = bug.Work(h+uint64(i), 30000) // make a value
			in <- h
		}
		_ = bug.Work(h, 600000) // compute the trailer
		close(in)
	}()
	go relay(in, out)
	var sum uint64
	n := 0
	for v := range out { // the consumer
		sum ^= bug.Work(v, 5000) // store the value
		bug.Window(5000000)
		n++
	}
	if n != values {
		panic(fmt.Sprintf("nilselect: %d values, want %d", n, values))
	}
	fmt.Printf("nilselect: %d values relayed (%02x)\n", n, sum&0xff)
}
