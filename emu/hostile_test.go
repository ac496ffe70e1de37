package emu

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// A hostile guest: random instruction words in every privilege mode it can
// reach (it may write any CSR, satp, mtvec, …), run for a while. The host
// must never panic or hang, whatever the bits; guest faults are traps.
func runRandomCode(t testing.TB, seed uint64, words int, steps uint64) {
	m, err := newRandomCode(seed, words)
	if err != nil {
		t.Fatal(err)
	}
	m.Run(steps)
	if m.ICount() > steps {
		t.Fatalf("ran %d instructions past the limit %d", m.ICount(), steps)
	}
	// Whatever the guest did, its state (the communication tracker's
	// included) survives a snapshot exactly.
	c, err := New(Config{RAMBytes: 1 << 20, Harts: 2, Quantum: 97})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RestoreSnapshot(m.Snapshot()); err != nil {
		t.Fatalf("seed %d: restore: %v", seed, err)
	}
	if c.StateHash() != m.StateHash() {
		t.Fatalf("seed %d: a restored machine hashes differently", seed)
	}
}

func TestRandomCodeNeverCrashesTheHost(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 30
	}
	for seed := uint64(0); seed < uint64(n); seed++ {
		runRandomCode(t, seed, 1024, 20_000)
	}
}

func FuzzRandomCode(f *testing.F) {
	f.Add(uint64(1))
	f.Fuzz(func(t *testing.T, seed uint64) {
		runRandomCode(t, seed, 512, 5_000)
	})
}

// newRandomCode builds the machine of runRandomCode: two harts with random
// instruction words in RAM, random registers and trap vectors, and (odd
// seeds) preemption at communication events.
func newRandomCode(seed uint64, words int) (*Machine, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 2, Quantum: 97})
	if err != nil {
		return nil, err
	}
	code := make([]byte, 4*words)
	for i := 0; i < words; i++ {
		w := r.Uint32()
		switch r.IntN(4) {
		case 0: // mostly valid-looking 32-bit encodings
			w |= 3
		case 1: // system and CSR instructions, to reach S/U and the MMU
			w = w&^0x7f | 0x73
		}
		binary.LittleEndian.PutUint32(code[4*i:], w)
	}
	if err := m.WritePhys(DefaultRAMBase, code); err != nil {
		return nil, err
	}
	for _, h := range m.Harts() {
		h.SetPC(DefaultRAMBase + uint64(r.IntN(words))*4)
		for i := 1; i < 32; i++ {
			v := r.Uint64()
			if r.IntN(2) == 0 {
				v = DefaultRAMBase + v%(1<<20) // point into RAM
			}
			h.SetX(i, v)
		}
		h.csr.mtvec = DefaultRAMBase + uint64(r.IntN(words))*4
	}
	if seed%2 == 1 {
		// Preemption at communication events, as the explorer runs it.
		if err := m.SetSchedule(SchedConfig{Mode: SchedRandom, QuantumMin: 1, QuantumMax: 200, Seed: seed,
			Comm: true, Preemptions: 50, PreemptOdds: 1, YieldMin: 10, YieldMax: 500}); err != nil {
			return nil, err
		}
	}
	return m, nil
}
