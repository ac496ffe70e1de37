package snapshot

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"everett/emu"
	"everett/emu/board"
)

// Benchmarks of forking a booted Linux guest (run by `make bench` through
// scripts/bench-fork.sh):
//
//	go test -run XXX -bench . -benchtime 2000x ./snapshot/
//
// BenchmarkForkBootedLinux reports the median time to make a child from an
// in-memory snapshot (board.Restore: build the machine's structure without
// images, restore the snapshot, reseed): the target is 50 µs.
// BenchmarkChildMemory reports the pages a child copies while it runs, for
// two RAM sizes: they follow the pages it dirties, not the RAM size.
// BenchmarkForkThroughput runs Fork with 1 and 2 workers.

// forkPoint is where the benchmarks snapshot the boot: well into the
// kernel's boot (about 68M instructions to power-off on 2 harts).
const forkPoint = 30_000_000

type booted struct {
	spec *board.Spec
	snap *emu.Snapshot
}

var (
	bootedMu sync.Mutex
	bootedBy = map[uint64]booted{}
)

// bootedLinux boots a 2-hart Linux guest with ramBytes of RAM to forkPoint
// and snapshots it, once per RAM size.
func bootedLinux(b testing.TB, ramBytes uint64) booted {
	b.Helper()
	bootedMu.Lock()
	defer bootedMu.Unlock()
	if g, ok := bootedBy[ramBytes]; ok {
		return g
	}
	spec := linuxSpec(b, 2, ramBytes, 1)
	m, err := board.Build(spec, board.BuildOptions{Console: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	if r := m.Run(forkPoint); r != emu.StopLimit {
		b.Fatalf("boot stopped with %v before %d instructions", r, forkPoint)
	}
	g := booted{spec: spec, snap: m.Snapshot()}
	bootedBy[ramBytes] = g
	return g
}

func BenchmarkForkBootedLinux(b *testing.B) {
	g := bootedLinux(b, 256<<20)
	// run: 0 measures the fork alone; 1000 adds the child's first 1000
	// instructions (its hart caches are allocated then, its first blocks
	// decoded, its first pages copied).
	for _, run := range []uint64{0, 1000} {
		b.Run(fmt.Sprintf("then-run=%d", run), func(b *testing.B) {
			var times []time.Duration
			seed := uint64(0)
			for b.Loop() {
				seed++
				t0 := time.Now()
				c, err := board.Restore(g.spec, g.snap, board.BuildOptions{Console: io.Discard}, true, seed)
				if err != nil {
					b.Fatal(err)
				}
				if run > 0 {
					c.Run(g.snap.ICount + run)
				}
				times = append(times, time.Since(t0))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-µs/fork")
			b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds())/1e3, "p90-µs/fork")
		})
	}
}

func BenchmarkChildMemory(b *testing.B) {
	for _, ram := range []uint64{256 << 20, 1 << 30} {
		for _, insns := range []uint64{1_000_000, 10_000_000} {
			b.Run(fmt.Sprintf("ram=%dMiB/insns=%dM", ram>>20, insns/1_000_000), func(b *testing.B) {
				g := bootedLinux(b, ram)
				var copied, leaves, heap uint64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					c, err := board.Restore(g.spec, g.snap, board.BuildOptions{Console: io.Discard}, true, 1)
					if err != nil {
						b.Fatal(err)
					}
					c.Run(g.snap.ICount + insns)
					runtime.ReadMemStats(&after)
					copied, leaves = c.RAM.PagesCopied(), c.RAM.LeavesCopied()
					heap = after.TotalAlloc - before.TotalAlloc
				}
				b.ReportMetric(float64(heap)/(1<<20), "heap-MiB-allocated")
				b.ReportMetric(float64(copied), "pages-copied")
				b.ReportMetric(float64(copied*emu.PageBytes)/(1<<20), "MiB-copied")
				b.ReportMetric(float64(leaves), "leaves-copied")
				b.ReportMetric(float64(ram/emu.PageBytes), "guest-pages")
			})
		}
	}
}

func BenchmarkForkThroughput(b *testing.B) {
	g := bootedLinux(b, 256<<20)
	const universes = 4
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var n int
			t0 := time.Now()
			for b.Loop() {
				seeds := make([]uint64, universes)
				for i := range seeds {
					seeds[i] = uint64(i + 1)
				}
				outs, err := Fork(ForkConfig{Spec: g.spec, Snap: g.snap, Seeds: seeds, Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range outs {
					if o.Err != nil {
						b.Fatal(o.Err)
					}
				}
				n += len(outs)
			}
			b.ReportMetric(float64(n)/time.Since(t0).Seconds(), "universes/s")
		})
	}
}
