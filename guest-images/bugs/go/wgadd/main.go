// Command wgadd: WaitGroup.Add called by the goroutines it counts, which
// may come after Wait has started (a misuse of sync.WaitGroup).
//
// Main starts four workers to checksum four blocks, then checksums its own
// block, then waits for the workers with a WaitGroup and checks that every
// block has its checksum. Each worker calls wg.Add(1) as its first step.
//
// The bug: Add belongs before the go statement. If a worker has not run
// its Add when main calls Wait, Wait does not wait for it: main finds a
// block without a checksum and exits 1 (or, when the Add and the Wait
// meet, the WaitGroup panics). Main's own block takes far longer than it
// takes the workers to start, so a normal run does not show it.
//
// Depth: one ordering constraint, but a long one: a worker kept from
// starting (one preemption) while main checksums its block.
//
// The fix (-tags fixed): wg.Add(1) in main, before each go statement.
package main

import (
	"fmt"
	"os"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

const workers = 4

func main() {
	var wg sync.WaitGroup
	var sums [workers]uint64
	for i := 0; i < workers; i++ {
		if bug.Fixed {
			wg.Add(1)
		}
		go func() {
			if !bug.Fixed {
				if i == 0 {
					bug.Window(5000000)
				}
				wg.Add(1) // BUG: may run after main's Wait
			}
			defer wg.Done()
			sums[i] = bug.Work(uint64(i), 5000) | 1 // checksum block i
		}()
	}
	own := bug.Work(100, 1000000) // main's own block
	wg.Wait()
	for i, s := range sums {
		if s == 0 {
			fmt.Printf("wgadd: block %d has no checksum after Wait\n", i)
			os.Exit(1)
		}
	}
	fmt.Printf("wgadd: %d blocks checksummed (%02x)\n", workers+1, own&0xff)
}
