package emu

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// A cancelled run stops at the next round boundary, and a run continued
// after it is exactly the run that was never cancelled: cancellation can
// end a universe early, never change one.
func TestACancelledRunStopsBetweenRoundsAndContinuesAsIfNeverCancelled(t *testing.T) {
	engines := []Engine{EngineInterp}
	if JITSupported() {
		engines = append(engines, EngineJIT)
	}
	build := programBuild(t, pokeProgram, 1, 100, nil)
	for _, e := range engines {
		for _, merged := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/merged=%v", e, merged), func(t *testing.T) {
				var ms [2]*Machine
				for i := range ms {
					m, err := build()
					if err != nil {
						t.Fatal(err)
					}
					d := &pokeDev{m: m, irq: m.harts[0].IRQ(IntMEI)}
					if err := m.Map(0x1000_0000, 0x1000, "poke", d); err != nil {
						t.Fatal(err)
					}
					m.Register("poke", d)
					if err := m.SetSchedule(SchedConfig{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 3000, Seed: 4}); err != nil {
						t.Fatal(err)
					}
					m.SetEngine(e)
					m.MergeRounds(merged)
					ms[i] = m
				}
				var cancel atomic.Bool
				ms[1].SetCancel(&cancel)
				r := rand.New(rand.NewPCG(1, 2))
				cancelled, early := 0, 0
				for at := uint64(0); at < 400_000; {
					at += 1 + r.Uint64N(20_000)
					if r.Uint64N(4) == 0 {
						at = ms[0].ICount() + 1 + r.Uint64N(5) // often inside a round
					}
					if r.Uint64N(2) == 0 {
						cancel.Store(true)
						before := ms[1].ICount()
						switch got := ms[1].Run(at); {
						case got == StopLimit && ms[1].ICount() == at:
							// The limit fell inside the round it was in.
						case got != StopCancel:
							t.Fatalf("a cancelled run stopped with %v at %d", got, ms[1].ICount())
						case ms[1].round.in:
							t.Fatalf("cancelled inside a round, at %d", ms[1].ICount())
						default:
							cancelled++
							if ms[1].ICount() > before {
								early++ // it finished the round it was in, and no more
							}
						}
						cancel.Store(false)
					}
					r0, r1 := ms[0].Run(at), ms[1].Run(at)
					if r0 != r1 || ms[0].ICount() != ms[1].ICount() || ms[0].StateHash() != ms[1].StateHash() {
						t.Fatalf("at %d: never cancelled: %v at %d (hash %x); cancelled and continued: %v at %d (hash %x)",
							at, r0, ms[0].ICount(), ms[0].StateHash(), r1, ms[1].ICount(), ms[1].StateHash())
					}
				}
				if cancelled == 0 || early == 0 {
					t.Fatalf("%d cancellations, %d of them inside a round: the test did not test", cancelled, early)
				}
			})
		}
	}
}
