package emu

import (
	"fmt"
	"testing"

	"everett/internal/testelf"
)

// Machines that load the same image share its whole pages (LoadImage,
// imagePages) until one writes them; what they compute is what machines
// loaded with WritePhys compute.

// imageOf assembles prog at the start of an image of a page and a half, so
// the image has one whole page and one partial page.
func imageOf(t *testing.T, prog ...string) []byte {
	t.Helper()
	code, err := testelf.Assemble(DefaultRAMBase, prog...)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]byte, pageSize+pageSize/2)
	copy(img, code)
	img[pageSize+7] = 0x5a // a byte of the partial page
	return img
}

func imageMachine(t *testing.T, e Engine, img []byte, shared bool) *Machine {
	t.Helper()
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1, Quantum: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetEngine(e); err != nil {
		if JITSupported() {
			t.Fatal(err) // the JIT is there: the engine must take
		}
		t.Skip(err)
	}
	load := m.WritePhys
	if shared {
		load = m.LoadImage
	}
	if err := load(DefaultRAMBase, img); err != nil {
		t.Fatal(err)
	}
	m.harts[0].SetPC(DefaultRAMBase)
	m.harts[0].x[11] = 1 // a1
	return m
}

func TestMachinesLoadingOneImageShareItsPagesUntilOneWritesThem(t *testing.T) {
	for _, e := range []Engine{EngineInterp, EngineJIT} {
		t.Run(e.String(), func(t *testing.T) {
			img := imageOf(t, frozenProgram...)
			a := imageMachine(t, e, img, true)
			b := imageMachine(t, e, img, true)
			c := imageMachine(t, e, img, false)
			if a.RAM.readPage(0) != b.RAM.readPage(0) {
				t.Fatal("two machines loading one image do not share its whole page")
			}
			if a.RAM.readPage(1) == b.RAM.readPage(1) {
				t.Fatal("the image's partial page is shared: the rest of that page is each machine's own")
			}
			for _, m := range []*Machine{a, b, c} {
				runMore(t, m, 30_000)
			}
			if ha, hb, hc := a.StateHash(), b.StateHash(), c.StateHash(); ha != hc || hb != hc {
				t.Fatalf("state hashes: shared %#x and %#x, written %#x", ha, hb, hc)
			}
			// a patches its loop to add 2 to a2: b must not see it.
			patch := imageOf(t, "add a0,a0,a1", "addi a2,a2,2", "j 80000000")
			if err := a.WritePhys(DefaultRAMBase, patch[:12]); err != nil {
				t.Fatal(err)
			}
			if a.RAM.readPage(0) == b.RAM.readPage(0) {
				t.Fatal("a write to a shared image page did not copy it")
			}
			if _, da2 := runMore(t, a, 3000); da2 != 2000 {
				t.Fatalf("the patched machine's a2 gained %d in 1000 loops, want 2000", da2)
			}
			if _, da2 := runMore(t, b, 3000); da2 != 1000 {
				t.Fatalf("the other machine's a2 gained %d in 1000 loops, want 1000: it saw the patch", da2)
			}
		})
	}
}

func TestLoadingAnImageOverRunCodeInvalidatesIt(t *testing.T) {
	for _, e := range []Engine{EngineInterp, EngineJIT} {
		t.Run(e.String(), func(t *testing.T) {
			m := imageMachine(t, e, imageOf(t, frozenProgram...), true)
			runMore(t, m, 30_000) // hot: translated under the JIT
			if err := m.LoadImage(DefaultRAMBase, imageOf(t, "add a0,a0,a1", "addi a2,a2,3", "j 80000000")); err != nil {
				t.Fatal(err)
			}
			m.harts[0].SetPC(DefaultRAMBase)
			if _, da2 := runMore(t, m, 3000); da2 != 3000 {
				t.Fatalf("a2 gained %d in 1000 loops of the new image, want 3000: the old code ran", da2)
			}
		})
	}
}

func TestAMachineRunsTheBlocksAnotherDecodedFromASharedPage(t *testing.T) {
	img := imageOf(t, frozenProgram...)
	a := imageMachine(t, EngineInterp, img, true)
	b := imageMachine(t, EngineInterp, img, true)
	runMore(t, a, 30)
	runMore(t, b, 30)
	ba, bb := a.codePage(0).block(0), b.codePage(0).block(0)
	if ba == nil || ba != bb {
		t.Fatal("the second machine decoded the loop again instead of running the first's block")
	}
	if ha, hb := a.StateHash(), b.StateHash(); ha != hb {
		t.Fatalf("state hashes %#x and %#x", ha, hb)
	}
}

func TestTheOnlyMachineOfAProcessOffersNoBlocksAndComputesTheSame(t *testing.T) {
	for i, e := range []Engine{EngineInterp, EngineJIT} {
		t.Run(e.String(), func(t *testing.T) {
			// A program of its own, so that no other machine shares its page.
			img := imageOf(t, "add a0,a0,a1", "addi a2,a2,3", fmt.Sprintf("xori a3,a2,%d", 0x5a0+i), "j 80000000")
			only := imageMachine(t, e, img, true)
			only.OnlyMachine()
			runMore(t, only, 30_000)
			p := only.RAM.readPage(0)
			sharedCode.Lock()
			offered := sharedCode.pages[sharedCodeKey{p, 0}] != nil
			sharedCode.Unlock()
			if offered {
				t.Fatal("the only machine offered the blocks of its image page to other machines")
			}
			other := imageMachine(t, e, img, true)
			runMore(t, other, 30_000)
			if a, b := only.StateHash(), other.StateHash(); a != b {
				t.Fatalf("state hashes: the only machine %#x, another %#x", a, b)
			}
			if hugeSlabs && (only.slab == nil || only.slab.total == 0) {
				t.Fatal("the only machine's blocks did not come from its slab")
			}
			if st := only.JITStats(); e == EngineJIT && st.Insns < 20_000 {
				t.Fatalf("the only machine ran %d of 30000 slots in host code: its hot loop was not translated", st.Insns)
			}
			sharedCode.Lock()
			offered = sharedCode.pages[sharedCodeKey{p, 0}] != nil
			sharedCode.Unlock()
			if !offered {
				t.Fatal("a machine that is not the only one did not offer its blocks")
			}
		})
	}
}
