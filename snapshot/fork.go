package snapshot

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"everett/emu"
	"everett/emu/board"
)

// MaxForkSeeds bounds the universes of one Fork.
const MaxForkSeeds = 1 << 24

// ForkConfig describes a fork: many universes restored from one snapshot,
// each with its own seed.
type ForkConfig struct {
	Spec *board.Spec // with its images loaded
	Snap *emu.Snapshot
	// Seeds are the universes' seeds, one universe each. Outcomes come back
	// in this order.
	Seeds []uint64
	// Workers is the number of goroutines (0: runtime.NumCPU()). Each runs
	// one universe at a time, start to end, on its own: the outcome of a
	// seed never depends on the worker count.
	Workers int
	// Limit is the instruction count (counted from boot, like the
	// snapshot's) at which each universe stops (0: it runs until it stops
	// by itself).
	Limit uint64
	// Console, if not nil, returns where a universe's console goes; its
	// Close is called when the universe ends. nil discards the consoles.
	Console func(seed uint64) (io.WriteCloser, error)
	// Engine runs every universe's guest code (the zero value is the
	// interpreter). It never changes an outcome.
	Engine emu.Engine
}

// Outcome is how one universe ended.
type Outcome struct {
	Seed      uint64
	Reason    emu.StopReason
	ExitCode  int    // the guest's, after a power-off
	ICount    uint64 // instruction count at the end (counted from boot)
	StateHash uint64
	// PagesCopied is how many RAM pages the universe copied or allocated:
	// its memory beyond the snapshot's.
	PagesCopied uint64
	Err         error // the universe could not be built or restored
}

// RunUniverse restores spec's machine from snap, reseeds its PRNG with
// seed, and runs it under engine until it stops or its instruction count
// reaches limit (0: no limit). It is exactly what Fork does for each seed,
// and what `everett restore FILE --seed S` does.
func RunUniverse(spec *board.Spec, snap *emu.Snapshot, seed, limit uint64, console io.Writer, engine emu.Engine) Outcome {
	o := Outcome{Seed: seed}
	b, err := board.Restore(spec, snap, board.BuildOptions{Console: console, Engine: engine}, true, seed)
	if err != nil {
		o.Err = err
		return o
	}
	o.Reason = b.Run(limit)
	o.ExitCode = b.ExitCode()
	o.ICount = b.ICount()
	o.StateHash = b.StateHash()
	o.PagesCopied = b.RAM.PagesCopied()
	return o
}

// Fork runs one universe per seed from the snapshot on Workers goroutines.
// Every universe restores from the same in-memory snapshot and shares its
// pages until it writes them. The outcomes are in seed order.
func Fork(c ForkConfig) ([]Outcome, error) {
	if c.Spec == nil || c.Snap == nil {
		return nil, fmt.Errorf("fork: no snapshot")
	}
	if len(c.Seeds) > MaxForkSeeds {
		return nil, fmt.Errorf("fork: %d seeds, more than the limit %d", len(c.Seeds), MaxForkSeeds)
	}
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, max(len(c.Seeds), 1))
	out := make([]Outcome, len(c.Seeds))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		// Each universe is built, run and released by one worker goroutine
		// and shares only the immutable snapshot; outcomes are stored by
		// seed index, so the result does not depend on workers.
		go func() { // determinism: ok — one goroutine per universe, results by seed index
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(c.Seeds) {
					return
				}
				seed := c.Seeds[i]
				var console io.Writer = io.Discard
				var closer io.Closer
				if c.Console != nil {
					wc, err := c.Console(seed)
					if err != nil {
						out[i] = Outcome{Seed: seed, Err: err}
						continue
					}
					console, closer = wc, wc
				}
				out[i] = RunUniverse(c.Spec, c.Snap, seed, c.Limit, console, c.Engine)
				if closer != nil {
					if err := closer.Close(); err != nil && out[i].Err == nil {
						out[i].Err = err
					}
				}
			}
		}()
	}
	wg.Wait()
	return out, nil
}
