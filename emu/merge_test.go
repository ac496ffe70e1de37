package emu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"everett/hw"
)

// pokeDev is a device that schedules and cancels events while the hart
// runs: a read now and then moves the pending one, a write
// to offset 0 moves it, a write to offset 8 lowers its interrupt line, and
// each event raises the line and schedules the next. Reads return how many events fired and when the last
// did, so the guest sees exactly when they fire.
type pokeDev struct {
	m                    *Machine
	irq                  hw.IRQLine
	pending              uint64
	reads, fires, lastAt uint64
}

func (d *pokeDev) Read(off uint64, size int) (uint64, bool) {
	d.reads++
	if d.reads%41 == 0 {
		if d.pending != 0 {
			d.m.Cancel(d.pending)
		}
		d.pending = d.m.Schedule(d.m.Now()+1+d.reads%50, d, 0)
	}
	return d.fires<<32 | d.lastAt&0xffff_ffff, true
}

func (d *pokeDev) Write(off uint64, size int, v uint64) bool {
	switch off {
	case 0:
		if d.pending != 0 {
			d.m.Cancel(d.pending)
		}
		d.pending = d.m.Schedule(d.m.Now()+1+v*37%2000, d, 0)
	case 8:
		d.irq.SetLevel(false)
	}
	return true
}

func (d *pokeDev) Fire(now, tag uint64) {
	d.fires++
	d.lastAt = now
	d.irq.SetLevel(true)
	d.pending = d.m.Schedule(now+500+d.fires*7%3000, d, 0) // a tick, so that a wait always ends
}

func (d *pokeDev) Save(e *hw.Encoder) {
	e.U64(d.pending)
	e.U64(d.reads)
	e.U64(d.fires)
	e.U64(d.lastAt)
}

func (d *pokeDev) Restore(dec *hw.Decoder) error { return fmt.Errorf("not restored") }

// pokeProgram reads the device every pass (the load may cut a merged
// turn), stores what it saw into a RAM ring, moves the device's event
// every 16th pass, waits for its interrupt every 64th, and counts
// interrupts in s1.
var pokeProgram = func() []string {
	p := []string{
		"lui t0,0x10000", // 80000000: t0 = the device
		"addi t1,zero,1",
		"slli t1,t1,31",
		"lui t3,0x10",
		"add t1,t1,t3", // 80000010: t1 = 0x8001_0000, the ring
		"addi t2,zero,1",
		"slli t2,t2,31",
		"addi t2,t2,256",
		"csrw mtvec,t2", // 80000020
		"addi t2,zero,1",
		"slli t2,t2,11",
		"csrw mie,t2",     // MEIE
		"csrsi mstatus,8", // 80000030: MIE
		"addi a3,zero,0",
		"addi a2,zero,0",
		"addi s1,zero,0",
		"lw a1,0(t0)", // 80000040: loop
		"add a2,a2,a1",
		"addi a3,a3,1",
		"andi a4,a3,255",
		"slli a4,a4,3", // 80000050
		"add a5,t1,a4",
		"sd a2,0(a5)",
		"andi a6,a3,15",
		"bne a6,zero,80000068", // 80000060
		"sw a3,0(t0)",
		"andi a6,a3,63", // 80000068
		"bne a6,zero,80000078",
		"wfi", // 80000070
		"addi s4,s4,1",
		"csrr a7,minstret", // 80000078
		"add a2,a2,a7",
		"addi s2,s2,3", // 80000080
		"xor s3,s3,a2",
		"j 80000040",
	}
	for len(p) < 0x100/4 {
		p = append(p, "addi zero,zero,0")
	}
	return append(p,
		"sw zero,8(t0)", // 80000100: the handler
		"addi s1,s1,1",
		"sd s1,-8(t1)",
		"mret",
	)
}()

func TestMergedRoundsRunExactlyAsRoundsOneByOne(t *testing.T) {
	engines := []Engine{EngineInterp}
	if JITSupported() {
		engines = append(engines, EngineJIT)
	}
	schedules := []SchedConfig{
		{Mode: SchedFixed},
		{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 64, StallPercent: 20, Seed: 3},
		{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 3000, Seed: 4},
		{Mode: SchedPCT, QuantumMin: 1, QuantumMax: 300, Depth: 5, Span: 50_000, Seed: 5},
	}
	build := programBuild(t, pokeProgram, 1, 100, nil)
	for _, e := range engines {
		for _, sc := range schedules {
			t.Run(fmt.Sprintf("%v/%v/%d", e, sc.Mode, sc.QuantumMax), func(t *testing.T) {
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
					if err := m.SetSchedule(sc); err != nil {
						t.Fatal(err)
					}
					m.SetEngine(e)
					m.MergeRounds(i == 1)
					ms[i] = m
				}
				r := rand.New(rand.NewPCG(1, uint64(sc.Seed)))
				for at := uint64(0); at < 600_000; {
					at += 1 + r.Uint64N(20_000)
					if r.Uint64N(4) == 0 {
						at = ms[0].ICount() + 1 + r.Uint64N(5) // stop a few slots on, often inside a turn
					}
					r0, r1 := ms[0].Run(at), ms[1].Run(at)
					if r0 != r1 || ms[0].ICount() != ms[1].ICount() || ms[0].StateHash() != ms[1].StateHash() {
						t.Fatalf("at %d: rounds one by one stop %v at %d (hash %x), merged %v at %d (hash %x)\n%v\n%v",
							at, r0, ms[0].ICount(), ms[0].StateHash(), r1, ms[1].ICount(), ms[1].StateHash(),
							ms[0].StateHashes(), ms[1].StateHashes())
					}
					if r0 != StopLimit {
						t.Fatalf("stopped with %v at %d", r0, ms[0].ICount())
					}
				}
				h := ms[0].harts[0]
				if h.x[9] == 0 || h.x[20] == 0 {
					t.Fatalf("%d interrupts, %d waits: the program did not get far", h.x[9], h.x[20])
				}
				if ms[0].mergedRounds != 0 || ms[1].mergedRounds == 0 {
					t.Fatalf("rounds merged: %d one by one, %d merged", ms[0].mergedRounds, ms[1].mergedRounds)
				}
				if ms[1].cutLoads == 0 {
					t.Fatal("no device read cut a merged turn")
				}
				t.Logf("%d rounds merged, %d device reads cut a turn", ms[1].mergedRounds, ms[1].cutLoads)
			})
		}
	}
}
