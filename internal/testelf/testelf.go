// Package testelf builds small RISC-V ELF executables for tests: a list of
// assembly lines (in the syntax isa.Parse reads) becomes one PT_LOAD segment
// at a physical address, with tohost/fromhost symbols for HTIF.
package testelf

import (
	"encoding/binary"
	"fmt"
	"strings"

	"everett/isa"
)

// Assemble encodes lines of assembly placed consecutively from pc. Labels
// are not supported: branch and jump targets are absolute hex addresses, as
// objdump prints them ("beq a0,a1,80000008").
func Assemble(pc uint64, lines ...string) ([]byte, error) {
	var out []byte
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		in, err := isa.Parse(l, pc)
		if err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, l, err)
		}
		w, err := isa.Encode(in)
		if err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, l, err)
		}
		if in.Len == 2 {
			out = binary.LittleEndian.AppendUint16(out, uint16(w))
			pc += 2
		} else {
			out = binary.LittleEndian.AppendUint32(out, w)
			pc += 4
		}
	}
	return out, nil
}

// Symbol is a name, value and size (0: unknown) for the ELF symbol
// table. QEMU's HTIF wants tohost and fromhost sized 8.
type Symbol struct {
	Name  string
	Value uint64
	Size  uint64
}

// Build returns an ELF64 RISC-V executable with code loaded at paddr (also
// the entry point), memSize bytes of memory in its one segment (at least
// len(code)), and the given symbols.
func Build(paddr uint64, code []byte, memSize uint64, syms ...Symbol) []byte {
	le := binary.LittleEndian
	const (
		phoff   = 64
		dataOff = phoff + 56
	)
	if memSize < uint64(len(code)) {
		memSize = uint64(len(code))
	}
	strtab := []byte{0}
	sym := make([]byte, 24) // the null symbol
	for _, s := range syms {
		e := make([]byte, 24)
		le.PutUint32(e, uint32(len(strtab)))
		e[4] = 0x10 // STB_GLOBAL, STT_NOTYPE
		le.PutUint16(e[6:], 1)
		le.PutUint64(e[8:], s.Value)
		le.PutUint64(e[16:], s.Size)
		sym = append(sym, e...)
		strtab = append(append(strtab, s.Name...), 0)
	}
	symOff := dataOff + len(code)
	strOff := symOff + len(sym)
	shoff := strOff + len(strtab)
	b := make([]byte, shoff+3*64)
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1
	le.PutUint16(b[16:], 2)   // ET_EXEC
	le.PutUint16(b[18:], 243) // EM_RISCV
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[24:], paddr)
	le.PutUint64(b[32:], phoff)
	le.PutUint64(b[40:], uint64(shoff))
	le.PutUint16(b[52:], 64)
	le.PutUint16(b[54:], 56)
	le.PutUint16(b[56:], 1)
	le.PutUint16(b[58:], 64)
	le.PutUint16(b[60:], 3)
	ph := b[phoff:]
	le.PutUint32(ph, 1) // PT_LOAD
	le.PutUint32(ph[4:], 7)
	le.PutUint64(ph[8:], dataOff)
	le.PutUint64(ph[16:], paddr)
	le.PutUint64(ph[24:], paddr)
	le.PutUint64(ph[32:], uint64(len(code)))
	le.PutUint64(ph[40:], memSize)
	copy(b[dataOff:], code)
	copy(b[symOff:], sym)
	copy(b[strOff:], strtab)
	sh := b[shoff+64:] // section 1: the symbol table, linked to section 2
	le.PutUint32(sh[4:], 2)
	le.PutUint64(sh[24:], uint64(symOff))
	le.PutUint64(sh[32:], uint64(len(sym)))
	le.PutUint32(sh[40:], 2)
	le.PutUint64(sh[56:], 24)
	sh = b[shoff+128:] // section 2: the string table
	le.PutUint32(sh[4:], 3)
	le.PutUint64(sh[24:], uint64(strOff))
	le.PutUint64(sh[32:], uint64(len(strtab)))
	return b
}
