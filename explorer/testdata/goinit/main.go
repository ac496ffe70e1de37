// Command goinit is a correct Linux init (PID 1) for the explorer's control
// tests: goroutines on every hart sum a range over a channel, the result is
// checked with an SDK assertion, and the machine powers off (no SDK exit: a
// universe of it ends the way an unmodified program ends, by power-off).
package main

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"

	"everett/guest-images/sdk/go/everett"
)

const (
	workers = 4
	items   = 20000
)

func main() {
	if err := syscall.Mount("proc", "/proc", "proc", 0, ""); err != nil {
		fmt.Printf("goinit: mount /proc: %v\n", err)
	}
	fmt.Printf("goinit: %d CPUs\n", runtime.NumCPU())
	everett.SetupComplete() // booted: a natural point to fork universes from
	work := make(chan int, 64)
	sums := make([]int, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range work {
				sums[w] += v
			}
		}()
	}
	for v := 1; v <= items; v++ {
		work <- v
		if v%5000 == 0 {
			everett.Progress(uint64(v))
		}
	}
	close(work)
	wg.Wait()
	total := 0
	for _, s := range sums {
		total += s
	}
	everett.Always(total == items*(items+1)/2, "goinit: the workers' sums add up")
	fmt.Printf("goinit: sum %d; powering off\n", total)
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}
