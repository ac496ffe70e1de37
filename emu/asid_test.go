package emu

import (
	"encoding/binary"
	"fmt"
	"testing"

	"everett/internal/testelf"
	"everett/isa"
)

// Address spaces tagged by ASID (RATIONALE.md, "Why ASIDs?"): two page
// tables map the same virtual addresses to different pages, and the
// kernel switches between them by writing satp alone, without a fence.
const (
	asidRoot   = DefaultRAMBase + 0x80000 // address space i's root: + i*0x4000; L1 at +0x1000, L0 at +0x2000
	asidUCode  = DefaultRAMBase + 0x10000 // + i*0x1000: user code of space i
	asidUData  = DefaultRAMBase + 0x12000 // + i*0x1000: user data of space i
	asidKFunc  = DefaultRAMBase + 0x14000 // + i*0x1000: a kernel function of space i
	asidGlobal = DefaultRAMBase + 0x16000 // + j*0x1000: the pages a global mapping points at
)

// asidSwitchProgram runs in S-mode, N (s2) times: under space A (satp s4)
// it calls the kernel function at VA 0x40002000 (s6) and enters the user
// code at VA 0x40000000 (s0), which traps back with ecall; then the same
// under space B (satp s5). Space A's code and data add 1 to a1, a2 and
// a3; space B's add 100. t3 and t4 are the trap vectors of the second and
// third part.
var asidSwitchProgram = []string{
	"csrw satp,s4",  // 80000000
	"jalr ra,0(s6)", // 80000004
	"csrw stvec,t3", // 80000008
	"csrw sepc,s0",  // 8000000c
	"sret",          // 80000010
	"j 80000014",    // 80000014
	"csrw satp,s5",  // 80000018: t3
	"jalr ra,0(s6)", // 8000001c
	"csrw stvec,t4", // 80000020
	"csrw sepc,s0",  // 80000024
	"sret",          // 80000028
	"j 8000002c",    // 8000002c
	"addi s1,s1,1",  // 80000030: t4
	"blt s1,s2,80000000",
	"j 80000038",
}

// asidPTE writes the page-table entry v at physical address pa.
func asidWrite(t *testing.T, m *Machine, pa, v uint64) {
	t.Helper()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	if err := m.WritePhys(pa, b[:]); err != nil {
		t.Fatal(err)
	}
}

// asidAssemble writes the program src at physical address pa.
func asidAssemble(t *testing.T, m *Machine, pa uint64, src ...string) {
	t.Helper()
	code, err := testelf.Assemble(pa, src...)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WritePhys(pa, code); err != nil {
		t.Fatal(err)
	}
}

// asidSpaces writes the pages and page tables of two address spaces: the
// kernel's gigapage at 0x80000000 (global if kernelGlobal), and at VA
// 0x40000000 user code, at 0x40001000 user data and at 0x40002000 a
// kernel function, space i's adding 1 (A) or 100 (B). It returns the
// roots.
func asidSpaces(t *testing.T, m *Machine, kernelGlobal bool) [2]uint64 {
	var roots [2]uint64
	kg := uint64(0)
	if kernelGlobal {
		kg = pteG
	}
	for i, add := range []int{1, 100} {
		off := uint64(i) * 0x1000
		asidAssemble(t, m, asidUCode+off, "lui t5,0x40001", "ld t6,0(t5)", "add a2,a2,t6", fmt.Sprintf("addi a1,a1,%d", add), "ecall")
		asidWrite(t, m, asidUData+off, uint64(add))
		asidAssemble(t, m, asidKFunc+off, fmt.Sprintf("addi a3,a3,%d", add), "jalr zero,0(ra)")
		root := asidRoot + uint64(i)*0x4000
		l1, l0 := root+0x1000, root+0x2000
		asidWrite(t, m, root+8*2, uint64(DefaultRAMBase)>>12<<10|pteV|pteR|pteW|pteX|pteA|pteD|kg)
		asidWrite(t, m, root+8*1, l1>>12<<10|pteV)
		asidWrite(t, m, l1, l0>>12<<10|pteV)
		asidWrite(t, m, l0+0, (asidUCode+off)>>12<<10|pteV|pteR|pteX|pteU|pteA)
		asidWrite(t, m, l0+8, (asidUData+off)>>12<<10|pteV|pteR|pteU|pteA)
		asidWrite(t, m, l0+16, (asidKFunc+off)>>12<<10|pteV|pteR|pteX|pteA)
		roots[i] = root
	}
	return roots
}

func satpOf(asid, root uint64) uint64 { return satpSv39<<60 | asid<<44 | root>>12 }

func TestSwitchingASIDsWithoutAFenceRunsAndReadsEachSpacesOwnPages(t *testing.T) {
	const n = 2000
	for _, c := range []struct {
		name         string
		a, b         uint64
		kernelGlobal bool
	}{
		{"asids 1 and 2", 1, 2, true},
		{"asids 1 and 17 (one slot of the context table)", 1, 17, true},
		{"asids 5 and 6 under a non-global kernel", 5, 6, false},
		{"asids 0 and 0xffff", 0, 0xffff, true},
	} {
		for _, e := range remapEngines() {
			t.Run(c.name+"/"+e.String(), func(t *testing.T) {
				build := programBuild(t, asidSwitchProgram, 1, 1000, func(m *Machine) {
					roots := asidSpaces(t, m, c.kernelGlobal)
					h := m.harts[0]
					h.priv = PrivS
					h.csr.medeleg = 1 << CauseEcallU
					h.csr.satp = satpOf(c.a, roots[0])
					h.x[8] = 0x40000000                  // s0
					h.x[18] = n                          // s2
					h.x[20] = satpOf(c.a, roots[0])      // s4
					h.x[21] = satpOf(c.b, roots[1])      // s5
					h.x[22] = 0x40002000                 // s6
					h.x[28] = DefaultRAMBase + 0x18      // t3
					h.x[29] = DefaultRAMBase + 0x30      // t4
					h.csr.mtvec = DefaultRAMBase + 0x800 // nothing should reach M-mode
				})
				m := runOn(t, build, e, 400_000)
				h := m.harts[0]
				if h.x[9] != n {
					t.Fatalf("%d rounds; want %d (pc %#x, priv %d, mcause %d)", h.x[9], n, h.pc, h.priv, h.csr.mcause)
				}
				for _, r := range []struct {
					name string
					reg  int
				}{{"user code (a1)", 11}, {"user data (a2)", 12}, {"kernel code (a3)", 13}} {
					if got := h.x[r.reg]; got != n*101 {
						t.Errorf("%s: %d; want %d: each space must see its own pages after a switch", r.name, got, n*101)
					}
				}
				if e == EngineJIT && m.JITStats().Insns == 0 {
					t.Error("no instruction ran as host code")
				}
				if s := m.JITStats(); s.Switches < n {
					t.Errorf("%d ASID switches; want at least %d (a switch must not flush)", s.Switches, n)
				}
			})
		}
	}
}

// asidFenceProgram checks what each form of sfence.vma drops, under ASID
// s7 (its own) and s8 (another): s9 is a non-global mapping, s10 a
// global one; t1 (into t0) and t3 (into t2) point them at other pages
// without a fence. Loads return the page's first doubleword: 1 then 2
// for s9, 10 then 20 for s10.
var asidFenceProgram = []string{
	"ld a0,0(s9)",         // 1
	"ld a1,0(s10)",        // 10
	"sd t1,0(t0)",         // remap the non-global page
	"sd t3,0(t2)",         // and the global one
	"ld a2,0(s9)",         // 1: the TLB still holds it
	"sfence.vma zero,s8",  // another ASID's
	"ld a3,0(s9)",         // 1
	"sfence.vma s9,s8",    // another ASID's, one address
	"ld a4,0(s9)",         // 1
	"sfence.vma zero,s7",  // this ASID's: the non-global entry goes
	"ld a5,0(s9)",         // 2
	"ld a6,0(s10)",        // 10: the global one stays
	"sfence.vma s10,s7",   // this ASID's, that address: global stays
	"ld a7,0(s10)",        // 10
	"sfence.vma s10,zero", // that address in every ASID
	"ld s11,0(s10)",       // 20
	"j 80000040",
}

func TestAnASIDFenceDropsThatASIDsTranslationsButNotGlobalOnes(t *testing.T) {
	for _, e := range remapEngines() {
		t.Run(e.String(), func(t *testing.T) {
			build := programBuild(t, asidFenceProgram, 1, 1000, func(m *Machine) {
				roots := asidSpaces(t, m, true)
				l0 := roots[0] + 0x2000
				for j, v := range []uint64{1, 2, 10, 20} {
					asidWrite(t, m, asidGlobal+uint64(j)*0x1000, v)
				}
				page := func(j int) uint64 { return (asidGlobal + uint64(j)*0x1000) >> 12 << 10 }
				asidWrite(t, m, l0+8*4, page(0)|pteV|pteR|pteA)      // VA 0x40004000: 1, non-global
				asidWrite(t, m, l0+8*5, page(2)|pteV|pteR|pteA|pteG) // VA 0x40005000: 10, global
				h := m.harts[0]
				h.priv = PrivS
				h.csr.satp = satpOf(7, roots[0])
				h.x[23], h.x[24] = 7, 8                         // s7, s8
				h.x[25], h.x[26] = 0x40004000, 0x40005000       // s9, s10
				h.x[5], h.x[6] = l0+8*4, page(1)|pteV|pteR|pteA // t0, t1
				h.x[7], h.x[28] = l0+8*5, page(3)|pteV|pteR|pteA|pteG
				h.csr.mtvec = DefaultRAMBase + 0x800
			})
			m := runOn(t, build, e, 10_000)
			h := m.harts[0]
			if h.pc != DefaultRAMBase+0x40 {
				t.Fatalf("pc %#x; want the final loop (mcause %d)", h.pc, h.csr.mcause)
			}
			for _, r := range []struct {
				reg  int
				want uint64
				what string
			}{
				{10, 1, "first load"}, {11, 10, "first global load"},
				{12, 1, "load after remapping, no fence"},
				{13, 1, "after another ASID's fence"},
				{14, 1, "after another ASID's fence of the address"},
				{15, 2, "after this ASID's fence"},
				{16, 10, "global, after this ASID's fence"},
				{17, 10, "global, after this ASID's fence of the address"},
				{27, 20, "global, after a fence of the address in every ASID"},
			} {
				if got := h.x[r.reg]; got != r.want {
					t.Errorf("%s: x%d = %d; want %d", r.what, r.reg, got, r.want)
				}
			}
		})
	}
}

func TestSatpKeepsAll16ASIDBits(t *testing.T) {
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := m.harts[0]
	h.ensureCaches()
	// Linux's probe (arch/riscv/mm/context.c): ones into the ASID field
	// under Bare, read back.
	if !h.writeCSR(isa.CSRSatp, 0xffff<<44) {
		t.Fatal("the satp write failed")
	}
	v, ok := h.readCSR(isa.CSRSatp)
	if !ok || v>>44&0xffff != 0xffff {
		t.Fatalf("satp reads %#x; want ASID 0xffff", v)
	}
}

// jcFenceProgram calls a kernel function at s6, points the page holding
// it at another page of code (t1 into t0) and fences that address alone,
// then calls it again: the second call must run the new code.
var jcFenceProgram = []string{
	"jalr ra,0(s6)",      // 80000000
	"sd t1,0(t0)",        // 80000004
	"sfence.vma s6,zero", // 80000008
	"jalr ra,0(s6)",      // 8000000c
	"j 80000010",
}

func TestAFenceOfOneAddressDropsTheJumpCacheEntriesOfCodeAnywhereInItsPage(t *testing.T) {
	// Functions at the start, the middle and the end of the page: the
	// jump-cache sets of a page's pcs must all be visited.
	for _, off := range []uint64{0x10, 0x7f0, 0x800, 0xff0} {
		for _, e := range remapEngines() {
			t.Run(fmt.Sprintf("offset %#x/%s", off, e), func(t *testing.T) {
				build := programBuild(t, jcFenceProgram, 1, 1000, func(m *Machine) {
					roots := asidSpaces(t, m, true)
					l0 := roots[0] + 0x2000
					for i, add := range []int{1, 100} {
						asidAssemble(t, m, asidKFunc+uint64(i)*0x1000+off, fmt.Sprintf("addi a3,a3,%d", add), "jalr zero,0(ra)")
					}
					h := m.harts[0]
					h.priv = PrivS
					h.csr.satp = satpOf(3, roots[0])
					h.x[22] = 0x40002000 + off // s6
					h.x[5], h.x[6] = l0+16, (asidKFunc+0x1000)>>12<<10|pteV|pteR|pteX|pteA
					h.csr.mtvec = DefaultRAMBase + 0x800
				})
				m := runOn(t, build, e, 1_000)
				h := m.harts[0]
				if h.pc != DefaultRAMBase+0x10 {
					t.Fatalf("pc %#x; want the final loop (mcause %d)", h.pc, h.csr.mcause)
				}
				if got := h.x[13]; got != 101 {
					t.Errorf("a3 = %d; want 101: the call after the fence must run the page's new code", got)
				}
			})
		}
	}
}
