package snapshot

import (
	"bytes"
	"fmt"

	"everett/emu"
	"everett/emu/board"
)

// Diff says how two snapshots differ.
type Diff struct {
	// Config lists differences of the machines themselves (board, harts,
	// RAM, quantum, command line, images, seed), one "field: a → b" each.
	Config []string
	// ICountA and ICountB are the instruction counts.
	ICountA, ICountB uint64
	// Components names the parts of the state that differ, as
	// emu.Machine.StateHashes names them (machine, hartN, prng, devices),
	// RAM excluded; a part only one side has is listed too.
	Components []string
	// Pages is the number of RAM pages whose contents differ, and Ranges
	// the runs of consecutive such pages.
	Pages  int
	Ranges []PageRange
}

// PageRange is a run of consecutive RAM pages [First, First+Count).
type PageRange struct {
	First, Count uint64
}

// Same reports whether the two snapshots are the same state of the same
// machine.
func (d *Diff) Same() bool {
	return len(d.Config) == 0 && d.ICountA == d.ICountB && len(d.Components) == 0 && d.Pages == 0
}

// Compare diffs two loaded snapshots (their images loaded, as Load does):
// each is restored into a machine of its own to hash its components one by
// one, and their RAM is compared page by page.
func Compare(a, b *File) (*Diff, error) {
	d := &Diff{ICountA: a.Snap.ICount, ICountB: b.Snap.ICount}
	d.Config = specDiff(a.Spec, b.Spec, a.Snap.Config, b.Snap.Config)

	ha, err := componentHashes(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, err)
	}
	hb, err := componentHashes(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Path, err)
	}
	seen := map[string]bool{}
	for _, c := range ha {
		seen[c.Name] = true
		if h, ok := find(hb, c.Name); !ok || h != c.Hash {
			d.Components = append(d.Components, c.Name)
		}
	}
	for _, c := range hb {
		if !seen[c.Name] {
			d.Components = append(d.Components, c.Name)
		}
	}

	pa, pb := pageList(a.Snap), pageList(b.Snap)
	diffAt := func(n uint64) {
		d.Pages++
		if k := len(d.Ranges); k > 0 && d.Ranges[k-1].First+d.Ranges[k-1].Count == n {
			d.Ranges[k-1].Count++
			return
		}
		d.Ranges = append(d.Ranges, PageRange{First: n, Count: 1})
	}
	i, j := 0, 0
	for i < len(pa) || j < len(pb) {
		switch {
		case j == len(pb) || (i < len(pa) && pa[i].N < pb[j].N):
			if *pa[i].Data != zeroPage {
				diffAt(pa[i].N)
			}
			i++
		case i == len(pa) || pb[j].N < pa[i].N:
			if *pb[j].Data != zeroPage {
				diffAt(pb[j].N)
			}
			j++
		default:
			if pa[i].Data != pb[j].Data && !bytes.Equal(pa[i].Data[:], pb[j].Data[:]) {
				diffAt(pa[i].N)
			}
			i++
			j++
		}
	}
	return d, nil
}

func find(hs []emu.ComponentHash, name string) (uint64, bool) {
	for _, h := range hs {
		if h.Name == name {
			return h.Hash, true
		}
	}
	return 0, false
}

// componentHashes restores f into a machine and hashes each component,
// leaving RAM out (Compare compares it page by page).
func componentHashes(f *File) ([]emu.ComponentHash, error) {
	m, err := f.Restore(board.BuildOptions{}, false, 0)
	if err != nil {
		return nil, err
	}
	var out []emu.ComponentHash
	for _, h := range m.StateHashes() {
		if h.Name != "ram" {
			out = append(out, h)
		}
	}
	return out, nil
}

func pageList(s *emu.Snapshot) []emu.Page {
	var ps []emu.Page
	s.Pages(func(p emu.Page) { ps = append(ps, p) })
	return ps
}

// specDiff lists the differences between two machine descriptions.
func specDiff(a, b *board.Spec, ca, cb emu.Config) []string {
	var out []string
	add := func(field string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s: %v → %v", field, x, y))
		}
	}
	add("board", a.Board, b.Board)
	add("harts", ca.Harts, cb.Harts)
	add("ram bytes", ca.RAMBytes, cb.RAMBytes)
	add("ram base", fmt.Sprintf("%#x", ca.RAMBase), fmt.Sprintf("%#x", cb.RAMBase))
	add("quantum", ca.Quantum, cb.Quantum)
	add("insns per tick", ca.InsnsPerTick, cb.InsnsPerTick)
	add("seed", a.Seed, b.Seed)
	add("append", fmt.Sprintf("%q", a.Append), fmt.Sprintf("%q", b.Append))
	add("mac", a.MAC, b.MAC)
	imgs := func(s *board.Spec) map[string]*board.Image {
		m := map[string]*board.Image{}
		for _, im := range s.Images() {
			m[im.Name] = im.Im
		}
		return m
	}
	ia, ib := imgs(a), imgs(b)
	for _, name := range []string{"elf", "bios", "kernel", "initrd", "disk", "console_input"} {
		x, y := ia[name], ib[name]
		switch {
		case x == nil && y == nil:
		case x == nil:
			out = append(out, fmt.Sprintf("%s image: none → %s", name, short(y.SHA256)))
		case y == nil:
			out = append(out, fmt.Sprintf("%s image: %s → none", name, short(x.SHA256)))
		case x.SHA256 != y.SHA256:
			out = append(out, fmt.Sprintf("%s image: %s → %s", name, short(x.SHA256), short(y.SHA256)))
		}
	}
	return out
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
