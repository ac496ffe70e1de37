package snapshot

import (
	"context"
	"fmt"
	"io"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/pool"
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
	// Workers is the number of goroutines (0: runtime.GOMAXPROCS). Each runs
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
	// Each universe is built, run and released by one worker goroutine
	// and shares only the immutable snapshot; outcomes come back by seed
	// index, so the result does not depend on the number of workers.
	res := pool.Map(context.Background(), c.Workers, len(c.Seeds), func(_ context.Context, i int) (Outcome, error) {
		return c.runOne(c.Seeds[i]), nil
	})
	out := make([]Outcome, len(c.Seeds))
	for i, r := range res {
		out[i] = r.Value
		if r.Err != nil { // a bug in everett: that universe's error
			out[i] = Outcome{Seed: c.Seeds[i], Err: fmt.Errorf("fork: seed %d: %w", c.Seeds[i], r.Err)}
		}
	}
	return out, nil
}

// runOne runs the universe of one seed with its console.
func (c *ForkConfig) runOne(seed uint64) Outcome {
	var console io.Writer = io.Discard
	var closer io.Closer
	if c.Console != nil {
		wc, err := c.Console(seed)
		if err != nil {
			return Outcome{Seed: seed, Err: err}
		}
		console, closer = wc, wc
	}
	o := RunUniverse(c.Spec, c.Snap, seed, c.Limit, console, c.Engine)
	if closer != nil {
		if err := closer.Close(); err != nil && o.Err == nil {
			o.Err = err
		}
	}
	return o
}
