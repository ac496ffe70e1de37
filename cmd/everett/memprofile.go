package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// memProfileEvery is how often the hidden --memprofile flag samples the Go
// heap.
const memProfileEvery = 2 * time.Second

// startMemProfile samples the Go heap every memProfileEvery (the hidden
// --memprofile flag of explore) and, each time the heap in use is the
// largest seen so far, writes a Go heap profile to path: the file ends
// as the profile of the heap at its peak (to a sample's precision). stop
// ends the sampling and prints the peak to w. It reads only the host
// process's own statistics, never a universe's state.
func startMemProfile(path string, w io.Writer) (stop func(), err error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, usageErr("--memprofile: %v", err)
	}
	pf.Close()
	done := make(chan struct{})
	ended := make(chan struct{})
	var peak runtime.MemStats
	var peakAt time.Duration
	var writeErr error
	start := time.Now()
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse <= peak.HeapInuse {
			return
		}
		peak, peakAt = ms, time.Since(start)
		f, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil && writeErr == nil {
			writeErr = err
		}
	}
	go func() {
		defer close(ended)
		t := time.NewTicker(memProfileEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		if writeErr != nil {
			fmt.Fprintf(w, "everett: --memprofile: %v\n", writeErr)
		}
		const mib = 1 << 20
		fmt.Fprintf(w, "everett: Go heap at its peak (%s in): %d MiB in use, %d MiB of objects, %d MiB from the OS (heap %d MiB, stacks %d MiB, other %d MiB); profile in %s\n",
			peakAt.Round(time.Second), peak.HeapInuse/mib, peak.HeapAlloc/mib, peak.Sys/mib, peak.HeapSys/mib, peak.StackSys/mib,
			(peak.Sys-peak.HeapSys-peak.StackSys)/mib, path)
	}, nil
}
