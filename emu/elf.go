package emu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// A minimal ELF64 reader for bare-metal RISC-V programs ("System V ABI",
// generic ELF chapters 4 and 5, and the RISC-V ELF psABI). It reads what a
// loader needs (PT_LOAD segments, the entry point, the symbol table) and
// checks every offset and length against the file, so a malformed file gets
// an error naming what is wrong, never a panic.

// ELF errors, for errors.Is.
var (
	ErrNotELF      = errors.New("not an ELF file")
	ErrELFClass    = errors.New("not a 64-bit little-endian ELF file")
	ErrELFMachine  = errors.New("not a RISC-V ELF file")
	ErrELFTrunc    = errors.New("truncated or malformed ELF file")
	ErrSegmentRAM  = errors.New("ELF segment outside RAM")
	ErrELFNoLoad   = errors.New("ELF file has no loadable segment")
	ErrELFTooLarge = errors.New("ELF file too large")
)

const (
	emRISCV    = 243
	ptLoad     = 1
	shtSymtab  = 2
	elfHdrSize = 64
	phdrSize   = 56
	shdrSize   = 64
	symSize    = 24
	maxELFSize = 1 << 32
)

// Segment is one PT_LOAD segment: Data is loaded at PAddr and the rest of
// MemSize is zero-filled.
type Segment struct {
	PAddr   uint64
	VAddr   uint64
	Data    []byte
	MemSize uint64
}

// ELF is a parsed bare-metal program.
type ELF struct {
	Entry    uint64
	Segments []Segment
	symbols  map[string]uint64
	sizes    map[string]uint64
	names    []string // sorted
}

// SymbolSize returns the size of a symbol (st_size: for a function, its
// length in bytes), or 0.
func (e *ELF) SymbolSize(name string) uint64 { return e.sizes[name] }

// Symbol returns the value of a symbol from the ELF symbol table.
func (e *ELF) Symbol(name string) (uint64, bool) {
	v, ok := e.symbols[name]
	return v, ok
}

// SymbolNames returns the names in the symbol table, sorted.
func (e *ELF) SymbolNames() []string {
	return append([]string(nil), e.names...)
}

// ParseELF parses an ELF64 little-endian RISC-V executable.
func ParseELF(b []byte) (*ELF, error) {
	if uint64(len(b)) > maxELFSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrELFTooLarge, len(b))
	}
	if len(b) < 4 || string(b[:4]) != "\x7fELF" {
		return nil, ErrNotELF
	}
	if len(b) < elfHdrSize {
		return nil, fmt.Errorf("%w: header needs %d bytes, file has %d", ErrELFTrunc, elfHdrSize, len(b))
	}
	if b[4] != 2 || b[5] != 1 {
		return nil, fmt.Errorf("%w (class %d, data %d)", ErrELFClass, b[4], b[5])
	}
	le := binary.LittleEndian
	if m := le.Uint16(b[18:]); m != emRISCV {
		return nil, fmt.Errorf("%w (e_machine %d)", ErrELFMachine, m)
	}
	e := &ELF{Entry: le.Uint64(b[24:]), symbols: map[string]uint64{}, sizes: map[string]uint64{}}
	phoff := le.Uint64(b[32:])
	shoff := le.Uint64(b[40:])
	phentsize := uint64(le.Uint16(b[54:]))
	phnum := uint64(le.Uint16(b[56:]))
	shentsize := uint64(le.Uint16(b[58:]))
	shnum := uint64(le.Uint16(b[60:]))
	size := uint64(len(b))

	if phnum > 0 {
		if phentsize < phdrSize {
			return nil, fmt.Errorf("%w: program header entry size %d", ErrELFTrunc, phentsize)
		}
		if !inFile(phoff, phnum*phentsize, size) {
			return nil, fmt.Errorf("%w: program headers (%d at offset %#x) run past the end of the file", ErrELFTrunc, phnum, phoff)
		}
	}
	for i := uint64(0); i < phnum; i++ {
		ph := b[phoff+i*phentsize:]
		if le.Uint32(ph) != ptLoad {
			continue
		}
		off, vaddr, paddr := le.Uint64(ph[8:]), le.Uint64(ph[16:]), le.Uint64(ph[24:])
		filesz, memsz := le.Uint64(ph[32:]), le.Uint64(ph[40:])
		if filesz > memsz {
			return nil, fmt.Errorf("%w: program header %d: file size %d exceeds memory size %d", ErrELFTrunc, i, filesz, memsz)
		}
		if !inFile(off, filesz, size) {
			return nil, fmt.Errorf("%w: program header %d: %d bytes at offset %#x run past the end of the file", ErrELFTrunc, i, filesz, off)
		}
		if memsz == 0 {
			continue
		}
		e.Segments = append(e.Segments, Segment{PAddr: paddr, VAddr: vaddr, Data: b[off : off+filesz], MemSize: memsz})
	}
	if len(e.Segments) == 0 {
		return nil, ErrELFNoLoad
	}

	// Symbols are optional: a stripped file simply has none.
	if shnum == 0 || shoff == 0 {
		return e, nil
	}
	if shentsize < shdrSize || !inFile(shoff, shnum*shentsize, size) {
		return nil, fmt.Errorf("%w: section headers (%d at offset %#x) run past the end of the file", ErrELFTrunc, shnum, shoff)
	}
	for i := uint64(0); i < shnum; i++ {
		sh := b[shoff+i*shentsize:]
		if le.Uint32(sh[4:]) != shtSymtab {
			continue
		}
		symOff, symLen := le.Uint64(sh[24:]), le.Uint64(sh[32:])
		link := uint64(le.Uint32(sh[40:]))
		if !inFile(symOff, symLen, size) || link >= shnum {
			return nil, fmt.Errorf("%w: symbol table (section %d) runs past the end of the file", ErrELFTrunc, i)
		}
		str := b[shoff+link*shentsize:]
		strOff, strLen := le.Uint64(str[24:]), le.Uint64(str[32:])
		if !inFile(strOff, strLen, size) {
			return nil, fmt.Errorf("%w: string table (section %d) runs past the end of the file", ErrELFTrunc, link)
		}
		strtab := b[strOff : strOff+strLen]
		for s := uint64(0); s+symSize <= symLen; s += symSize {
			sym := b[symOff+s:]
			name := le.Uint32(sym)
			if uint64(name) >= uint64(len(strtab)) || name == 0 {
				continue
			}
			n := strtab[name:]
			end := 0
			for end < len(n) && n[end] != 0 {
				end++
			}
			nm := string(n[:end])
			if _, dup := e.symbols[nm]; !dup {
				e.symbols[nm] = le.Uint64(sym[8:])
				e.sizes[nm] = le.Uint64(sym[16:])
				e.names = append(e.names, nm)
			}
		}
	}
	sort.Strings(e.names)
	return e, nil
}

func inFile(off, n, size uint64) bool {
	return off <= size && n <= size-off
}

// LoadELF copies the program's segments into RAM and points every hart at
// its entry.
func (m *Machine) LoadELF(e *ELF) error {
	for i, s := range e.Segments {
		if !m.RAM.Contains(s.PAddr, s.MemSize) {
			return fmt.Errorf("%w: segment %d at %#x (%d bytes) is not inside RAM [%#x, %#x)",
				ErrSegmentRAM, i, s.PAddr, s.MemSize, m.RAM.Base, m.RAM.Base+m.RAM.Size)
		}
	}
	for _, s := range e.Segments {
		if err := m.LoadImage(s.PAddr, s.Data); err != nil {
			return err
		}
		if zero := s.MemSize - uint64(len(s.Data)); zero > 0 {
			// RAM starts zeroed, but a segment may overlap an earlier one.
			if err := m.WritePhys(s.PAddr+uint64(len(s.Data)), make([]byte, zero)); err != nil {
				return err
			}
		}
	}
	for _, h := range m.harts {
		h.pc = e.Entry
	}
	return nil
}
