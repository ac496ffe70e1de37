package enginecheck

import (
	"fmt"

	"everett/emu"
)

// DiffHashes returns the names of the components whose hashes differ
// (emu.Machine.StateHashes of two machines).
func DiffHashes(ha, hb []emu.ComponentHash) []string {
	var diff []string
	for i := range ha {
		if i >= len(hb) || ha[i] != hb[i] {
			diff = append(diff, ha[i].Name)
		}
	}
	for i := len(ha); i < len(hb); i++ {
		diff = append(diff, hb[i].Name)
	}
	return diff
}

// DiffHart returns at most n differences between two harts: pc, the fields
// of emu.Hart.EachField, x1..x31 and f0..f31, each named with prefix in
// front ("hart1." on SMP machines, "" otherwise).
func DiffHart(a, b *emu.Hart, prefix string, n int) []StateDiff {
	var out []StateDiff
	add := func(name string, va, vb uint64) {
		if va != vb && len(out) < n {
			out = append(out, StateDiff{Name: prefix + name, A: va, B: vb})
		}
	}
	add("pc", a.PC(), b.PC())
	var fa []uint64
	a.EachField(func(_ string, v uint64) { fa = append(fa, v) })
	i := 0
	b.EachField(func(name string, v uint64) {
		add(name, fa[i], v)
		i++
	})
	for r := 1; r < 32; r++ {
		add(fmt.Sprintf("x%d", r), a.X(r), b.X(r))
	}
	for r := 0; r < 32; r++ {
		add(fmt.Sprintf("f%d", r), a.F(r), b.F(r))
	}
	return out
}

// DiffHarts compares every hart of two machines (DiffHart), returning at
// most n differences; names carry "hartN." when the machines have more
// than one hart.
func DiffHarts(a, b *emu.Machine, n int) []StateDiff {
	var out []StateDiff
	ha, hb := a.Harts(), b.Harts()
	for i := range ha {
		if i >= len(hb) || len(out) >= n {
			break
		}
		prefix := ""
		if len(ha) > 1 {
			prefix = fmt.Sprintf("hart%d.", i)
		}
		out = append(out, DiffHart(ha[i], hb[i], prefix, n-len(out))...)
	}
	return out
}

// DiffRAM returns at most n differing aligned 8-byte words of two machines'
// RAMs, named by physical address ("ram[0x80001000]").
func DiffRAM(a, b *emu.Machine, n int) []StateDiff {
	var out []StateDiff
	pages := min(a.RAM.Pages(), b.RAM.Pages())
	for pn := uint64(0); pn < pages; pn++ {
		pa, pb := a.RAM.Page(pn), b.RAM.Page(pn)
		if pa == pb || *pa == *pb {
			continue
		}
		for off := 0; off < emu.PageBytes; off += 8 {
			wa, wb := word(pa, off), word(pb, off)
			if wa == wb {
				continue
			}
			addr := a.RAM.Base + pn*emu.PageBytes + uint64(off)
			out = append(out, StateDiff{Name: fmt.Sprintf("ram[%#x]", addr), A: wa, B: wb})
			if len(out) >= n {
				return out
			}
		}
	}
	return out
}

// word reads the little-endian 8-byte word at off of p.
func word(p *[emu.PageBytes]byte, off int) uint64 {
	var v uint64
	for k := 7; k >= 0; k-- {
		v = v<<8 | uint64(p[off+k])
	}
	return v
}
