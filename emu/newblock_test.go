package emu

import "testing"

func TestNewBlockHasRoomForExactlyItsOps(t *testing.T) {
	for n := 1; n <= maxBlockOps; n++ {
		b := newBlock(n)
		if len(b.ops) != n || cap(b.ops) != n {
			t.Fatalf("newBlock(%d): %d ops, room for %d", n, len(b.ops), cap(b.ops))
		}
		for i := range b.ops {
			b.ops[i] = op{imm: int64(i), raw: ^uint32(0)}
		}
		if b.pa != 0 || b.size != 0 || b.jit.Load() != 0 || b.jitGo.Load() != 0 || b.hits.Load() != 0 || b.jitOps.Load() != 0 || b.noJIT.Load() || b.tr.Load() != nil {
			t.Fatalf("newBlock(%d): writing its ops changed its fields", n)
		}
	}
}
