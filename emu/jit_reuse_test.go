//go:build linux && amd64

package emu

import (
	"bytes"
	"testing"
)

// Every translation reuses one lowering, one emit buffer and the label
// pool (theLowering, emitBuf, labelPool): what one translation leaves in
// them must not reach the next. A region translated again after another,
// larger one must come out byte for byte as it did the first time.
// reuseProgram is a loop of several blocks in one page, with loads,
// stores, a CSR the translator handles out of line and a jump out.
var reuseProgram = []string{
	"addi a0,a0,1", // 80000000
	"ld a1,256(zero)",
	"andi t0,a0,3",
	"beq t0,zero,80000018",
	"sd a0,512(zero)", // 80000010
	"j 80000000",
	"csrrsi zero,sstatus,2", // 80000018
	"csrrci zero,sstatus,2",
	"bne a0,zero,80000000", // 80000020
	"jalr zero,0(a1)",
}

func TestATranslationDoesNotDependOnTheOneBefore(t *testing.T) {
	region := func(program []string, setup func(*Machine)) ([]*block, []uint64) {
		m, err := programBuild(t, program, 1, 1000, setup)()
		if err != nil {
			t.Fatal(err)
		}
		b := m.blockAt(DefaultRAMBase)
		if b == nil || jitPrefix(b) == 0 {
			t.Fatal("no translatable block at the program's start")
		}
		return m.jitRegion(b, jitPrefix)
	}
	small, smallOffs := region(lockstepProgram[7:], nil) // the counting loop: loads, stores, a branch back
	big, bigOffs := region(reuseProgram, nil)
	if len(big) < 3 {
		t.Fatalf("the larger region has %d members; want several", len(big))
	}
	arena.mu.Lock()
	defer arena.mu.Unlock()
	translate := func(members []*block, offs []uint64) []byte {
		code, _ := translateRegion(members, offs)
		return bytes.Clone(code) // the emit buffer is reused
	}
	first := translate(small, smallOffs)
	other := translate(big, bigOffs)
	again := translate(small, smallOffs)
	if !bytes.Equal(first, again) {
		t.Fatalf("translated after another region: %d bytes, unlike the %d of the first translation", len(again), len(first))
	}
	if bytes.Equal(first, other) {
		t.Fatal("two different regions translated alike")
	}
}

// loopRegion is a loop on s2 and a0 followed, in the same page, by code
// that uses five other registers more often than the loop uses s2.
var loopRegion = []string{
	"xor s2,s2,a0", // 80000000: the loop
	"mul s2,s2,a0",
	"addi a0,a0,1",
	"bne a0,a1,80000000",
	"add a2,a2,a3", // 80000010: after it
	"add a3,a3,a4",
	"add a4,a4,a5",
	"add a5,a5,a6",
	"add a6,a6,a2",
	"add a2,a2,a3",
	"add a3,a3,a4",
	"add a4,a4,a5",
	"add a5,a5,a6",
	"add a6,a6,a2",
	"jalr zero,0(ra)",
}

func TestARegionKeepsTheRegistersOfItsLoopsInHostRegisters(t *testing.T) {
	m, err := programBuild(t, loopRegion, 1, 1000, nil)()
	if err != nil {
		t.Fatal(err)
	}
	members, offs := m.jitRegion(m.blockAt(DefaultRAMBase), jitPrefix)
	if len(members) != 2 {
		t.Fatalf("the region has %d members, want the loop and the code after it", len(members))
	}
	if loops := (&lowering{members: members, offs: offs}).inLoops(); loops != 1 {
		t.Fatalf("members on loops %b, want the loop alone", loops)
	}
	arena.mu.Lock()
	defer arena.mu.Unlock()
	translateRegion(members, offs)
	l := &theLowering
	for _, r := range []uint8{18, 10} { // s2, a0
		if l.host[r] == 0 {
			t.Errorf("x%d, which the loop uses on every iteration, is not cached (cached: %v)", r, l.cachedList)
		}
	}
}
