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
