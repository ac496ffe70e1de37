package emu

import (
	"encoding/binary"
	"testing"

	"everett/internal/testelf"
)

// The jump cache and translated code must follow the page tables: code at
// VA 0x40000000 (4 KiB pages, in S-mode) is one of two functions:
// page A adds 1 to a1, page B adds 100.
const (
	remapRoot = DefaultRAMBase + 0x80000 // root table; L1 at +0x1000, L0 at +0x2000 (per hart: +0x4000)
	remapA    = DefaultRAMBase + 0x10000
	remapB    = DefaultRAMBase + 0x11000
)

// remapProgram calls the function at VA 0x40000000 from one call
// site 4,000 times; after the 2,000th call it points the page at B (t0:
// the PTE's address, t1: the new PTE) and flushes that one page.
var remapProgram = []string{
	"lui s0,0x40000", // 80000000
	"addi s1,zero,0",
	"addi s2,zero,2000",
	"addi s3,zero,2000",
	"add s3,s3,s2",  // 80000010
	"jalr ra,0(s0)", // 80000014: the call site
	"addi s1,s1,1",  // 80000018
	"bne s1,s2,80000028",
	"sd t1,0(t0)", // 80000020
	"sfence.vma s0,zero",
	"blt s1,s3,80000014", // 80000028
	"j 8000002c",
}

// remapCallProgram calls the function at VA 0x40000000 forever, counting.
var remapCallProgram = []string{
	"lui s0,0x40000", // 80000000
	"jalr ra,0(s0)",  // 80000004
	"addi s1,s1,1",   // 80000008
	"j 80000004",
}

// remapPaging writes the two functions and, for each hart, page tables
// mapping the kernel (a gigapage at 0x80000000) and VA 0x40000000 to
// code[hart], then starts the hart in S-mode with them. It returns the
// address of hart 0's PTE for VA 0x40000000.
func remapPaging(t *testing.T, m *Machine, code []uint64) uint64 {
	t.Helper()
	write := func(pa, v uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		if err := m.WritePhys(pa, b[:]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		pa  uint64
		src []string
	}{{remapA, []string{"addi a1,a1,1", "jalr zero,0(ra)"}}, {remapB, []string{"addi a1,a1,100", "jalr zero,0(ra)"}}} {
		code, err := testelf.Assemble(f.pa, f.src...)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.WritePhys(f.pa, code); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range m.harts {
		root := remapRoot + uint64(i)*0x4000
		l1, l0 := root+0x1000, root+0x2000
		write(root+8*2, uint64(DefaultRAMBase)>>12<<10|pteV|pteR|pteW|pteX|pteA|pteD) // VA 0x80000000: the kernel
		write(root+8*1, l1>>12<<10|pteV)                                              // VA 0x40000000
		write(l1, l0>>12<<10|pteV)
		write(l0, code[i]>>12<<10|pteV|pteR|pteX|pteA)
		h.priv = PrivS
		h.csr.satp = satpSv39<<60 | root>>12
		h.csr.mtvec = DefaultRAMBase + 0x800 // nothing here should trap
	}
	return remapRoot + 0x2000
}

// remapEngines are the engines this host has.
func remapEngines() []Engine {
	if JITSupported() {
		return []Engine{EngineInterp, EngineJIT}
	}
	return []Engine{EngineInterp}
}

// runOn builds a machine, runs n instruction slots on engine e and
// returns it.
func runOn(t *testing.T, build func() (*Machine, error), e Engine, n uint64) *Machine {
	t.Helper()
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetEngine(e); err != nil {
		t.Fatal(err)
	}
	m.Run(n)
	return m
}

func TestACallSiteRunsTheCodeItsPageMapsAfterAFlushOfThatPage(t *testing.T) {
	for _, e := range remapEngines() {
		t.Run(e.String(), func(t *testing.T) {
			build := programBuild(t, remapProgram, 1, 1000, func(m *Machine) {
				pteAt := remapPaging(t, m, []uint64{remapA})
				h := m.harts[0]
				h.x[5] = pteAt                                              // t0
				h.x[6] = uint64(remapB)>>12<<10 | pteV | pteR | pteX | pteA // t1
			})
			m := runOn(t, build, e, 200_000)
			h := m.harts[0]
			if calls := h.x[9]; calls != 4000 {
				t.Fatalf("%d calls; want 4000 (pc %#x)", calls, h.pc)
			}
			if a1 := h.x[11]; a1 != 2000*1+2000*100 {
				t.Fatalf("a1 = %d; want %d: after sfence.vma of the page, its new code must run", a1, 2000+2000*100)
			}
		})
	}
}

func TestTwoHartsMappingOneVADifferentlyEachRunTheirOwnCode(t *testing.T) {
	for _, e := range remapEngines() {
		t.Run(e.String(), func(t *testing.T) {
			build := programBuild(t, remapCallProgram, 2, 100, func(m *Machine) {
				remapPaging(t, m, []uint64{remapA, remapB})
			})
			m := runOn(t, build, e, 100_000)
			for i, per := range []uint64{1, 100} {
				h := m.harts[i]
				if calls, a1 := h.x[9], h.x[11]; calls < 1000 || a1 != per*calls && a1 != per*(calls+1) {
					t.Errorf("hart %d: a1 = %d after %d calls; want %d per call (the code its own page table maps)", i, a1, calls, per)
				}
			}
		})
	}
}
