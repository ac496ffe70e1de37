// Command ctxlate: a context cancelled too late (a hedged request whose
// loser still writes).
//
// Main sends a request to a primary and a backup replica at once (a
// hedged request) under one context. Each replica computes its answer and
// then, under a mutex, stores it unless the context is cancelled. Main
// takes the first answer to arrive, reads what was stored, and cancels the
// context so that the slower replica keeps out; then it waits for both and
// checks that the stored answer is still the one it read.
//
// The bug: the cancel comes after main has read the store, so between the
// two the slower replica still finds the context live and overwrites the
// answer (a second write): main exits 1. The backup takes several times
// the primary's work, so in a normal run main has long cancelled when the
// backup finishes.
//
// Depth: one ordering constraint, but a long one: main held up between
// reading the answer and cancelling (one preemption) while the backup
// computes.
//
// The fix (-tags fixed): the first replica to store cancels the context
// itself, under the mutex, so that no second store can pass the check.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

type store struct {
	mu     sync.Mutex
	answer string
	writes int
}

func replica(ctx context.Context, cancel context.CancelFunc, s *store, name string, rounds int, done chan<- string) {
	h := bug.Work(uint64(len(name)), rounds) // compute the answer
	s.mu.Lock()
	if ctx.Err() == nil {
		s.answer = fmt.Sprintf("%s:%02x", name, h&0xff)
		s.writes++
		if bug.Fixed {
			cancel()
		}
	}
	s.mu.Unlock()
	done <- name
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &store{}
	done := make(chan string, 2)
	go replica(ctx, cancel, s, "primary", 40000, done)
	go replica(ctx, cancel, s, "backup", 200000, done)
	first := <-done
	s.mu.Lock()
	committed := s.answer
	s.mu.Unlock()
	bug.Window(5000000)
	cancel() // BUG (without fixed): too late, after the answer was read
	<-done
	if s.answer != committed || s.writes != 1 {
		fmt.Printf("ctxlate: committed %q from %s, but the store holds %q after %d writes\n", committed, first, s.answer, s.writes)
		os.Exit(1)
	}
	fmt.Printf("ctxlate: %s answered first (%s)\n", first, committed)
}
