package explorer

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"everett/emu"
	"everett/emu/board"
)

// Symbols: naming guest program counters for people. A node's symbol
// tables come from its bare-metal program and from the ELF files its spec
// lists under symbols (a Linux guest's user programs, its vmlinux). Names
// are an observation: they never reach a universe's state.

// symtab is one ELF file's symbols, sorted by address, and the virtual
// address ranges its loadable segments cover: a pc outside them is not
// this file's.
type symtab struct {
	name   string // the file's base name ("" for a bare-metal program)
	syms   []symbol
	ranges [][2]uint64
}

type symbol struct {
	addr, size uint64
	name       string
}

// newSymtab reads the symbols of an ELF file.
func newSymtab(data []byte) (*symtab, error) {
	e, err := emu.ParseELF(data)
	if err != nil {
		return nil, err
	}
	t := &symtab{}
	for _, sg := range e.Segments {
		t.ranges = append(t.ranges, [2]uint64{sg.VAddr, sg.VAddr + sg.MemSize})
	}
	for _, name := range e.SymbolNames() {
		v, _ := e.Symbol(name)
		if v == 0 || strings.HasPrefix(name, ".L") || strings.HasPrefix(name, "$") {
			continue // file names, local labels, mapping symbols
		}
		t.syms = append(t.syms, symbol{v, e.SymbolSize(name), name})
	}
	sort.Slice(t.syms, func(a, b int) bool {
		if t.syms[a].addr != t.syms[b].addr {
			return t.syms[a].addr < t.syms[b].addr
		}
		return t.syms[a].name < t.syms[b].name
	})
	return t, nil
}

// lookup names pc as SYMBOL or SYMBOL+0xOFF: the symbol whose extent
// (st_size) holds pc, else the nearest one below it.
func (t *symtab) lookup(pc uint64) (string, bool) {
	in := false
	for _, r := range t.ranges {
		if pc >= r[0] && pc < r[1] {
			in = true
			break
		}
	}
	if !in {
		return "", false
	}
	k := sort.Search(len(t.syms), func(j int) bool { return t.syms[j].addr > pc }) - 1
	if k < 0 {
		return "", false
	}
	best := k
	for j := k; j >= 0 && k-j < 64; j-- {
		if s := t.syms[j]; s.size > 0 && pc < s.addr+s.size {
			best = j
			break
		}
	}
	s := t.syms[best]
	if off := pc - s.addr; off != 0 {
		return fmt.Sprintf("%s+%#x", s.name, off), true
	}
	return s.name, true
}

// resolvePath expands ${VAR} and makes p absolute relative to dir.
func resolvePath(p, dir string) (string, error) {
	var missing []string
	p = os.Expand(p, func(v string) string {
		val, ok := os.LookupEnv(v)
		if !ok || val == "" {
			missing = append(missing, v)
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// loadSymbols builds every node's symbol tables: its bare-metal program's,
// then those of the files NodeSpec.Symbols names (absolute paths by now).
// strict makes an unreadable file an error (a spec); a report's replay
// goes on without the names it cannot read.
func (s *Spec) loadSymbols(strict bool) error {
	s.symtabs = make([][]*symtab, len(s.nodes))
	i := 0
	for j := range s.Nodes {
		n := &s.Nodes[j]
		var files []*symtab
		for k, p := range n.Symbols {
			b, err := os.ReadFile(p)
			if err == nil {
				var t *symtab
				if t, err = newSymtab(b); err == nil {
					t.name = filepath.Base(p)
					files = append(files, t)
					continue
				}
			}
			if strict {
				return specErr(fmt.Sprintf("nodes[%d].symbols[%d]", j, k), "%v", err)
			}
		}
		count := max(n.Count, 1)
		for c := 0; c < count && i < len(s.nodes); c++ {
			var tabs []*symtab
			if b := s.nodes[i]; b.Board == board.BoardBareMetal && b.ELF != nil && b.ELF.Data != nil {
				if t, err := newSymtab(b.ELF.Data); err == nil {
					tabs = append(tabs, t)
				}
			}
			s.symtabs[i] = append(tabs, files...)
			i++
		}
	}
	return nil
}

// symbolize names pc on node: the first of the node's tables that covers
// it, or "".
func (s *Spec) symbolize(node int, pc uint64) string { return s.symbolizeIn(node, pc, "") }

// symbolizeIn is symbolize that tries the file named file first (the
// program the kernel says a user pc belongs to: user programs overlap).
func (s *Spec) symbolizeIn(node int, pc uint64, file string) string {
	if node < 0 || node >= len(s.symtabs) {
		return ""
	}
	if file != "" {
		for _, t := range s.symtabs[node] {
			if t.name == file {
				if name, ok := t.lookup(pc); ok {
					return name
				}
			}
		}
	}
	for _, t := range s.symtabs[node] {
		if name, ok := t.lookup(pc); ok {
			return name
		}
	}
	return ""
}
