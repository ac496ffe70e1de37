// Command dblclose: two goroutines may both close one channel (a double
// close, through a check-then-act on a flag).
//
// Two workers each finish a part of a job; whichever finishes first stops
// the job: stop() closes the done channel that a watcher waits on, and a
// flag keeps the second caller from closing it again.
//
// The bug: stop() tests the flag and then sets it, in two steps, without
// a lock. If both workers test it before either sets it, both close the
// channel and the second close panics ("close of closed channel"): exit
// 2. The workers finish their parts at different moments, and the window
// is a few instructions.
//
// Depth: two ordering constraints, one preemption: a worker stopped
// between its test and its set while the other tests.
//
// The fix (-tags fixed): sync.Once.
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

type job struct {
	closed bool
	once   sync.Once
	done   chan struct{}
}

// stop ends the job; noinline keeps the test and the set of the flag
// loads and stores of shared memory.
//
//go:noinline
func (j *job) stop() {
	if bug.Fixed {
		j.once.Do(func() { close(j.done) })
		return
	}
	if !j.closed { // BUG: test ...
		bug.Window(5000000)
		j.closed = true // ... then set
		close(j.done)
	}
}

func main() {
	j := &job{done: make(chan struct{})}
	var wg sync.WaitGroup
	var hs [2]uint64
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs[w] = bug.Work(uint64(w), 50000+w*30000) // finish my part
			j.stop()
		}()
	}
	<-j.done // the watcher
	wg.Wait()
	fmt.Printf("dblclose: stopped once (%02x)\n", (hs[0]^hs[1])&0xff)
}
