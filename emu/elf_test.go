package emu

import (
	"encoding/binary"
	"errors"
	"testing"

	"everett/internal/testelf"
)

// makeELF builds a minimal ELF64 RISC-V executable with one PT_LOAD segment
// at paddr holding code, and a symbol table defining tohost.
func makeELF(paddr uint64, code []byte) []byte {
	return testelf.Build(paddr, code, uint64(len(code))+64, testelf.Symbol{Name: "tohost", Value: paddr + 0x1000})
}

func TestParseELFReadsSegmentsEntryAndSymbols(t *testing.T) {
	code := []byte{0x13, 0, 0, 0, 0x6f, 0, 0, 0} // nop; j .
	e, err := ParseELF(makeELF(0x8000_0000, code))
	if err != nil {
		t.Fatal(err)
	}
	if e.Entry != 0x8000_0000 || len(e.Segments) != 1 || e.Segments[0].MemSize != uint64(len(code))+64 {
		t.Fatalf("got entry %#x, segments %+v", e.Entry, e.Segments)
	}
	if v, ok := e.Symbol("tohost"); !ok || v != 0x8000_1000 {
		t.Fatalf("tohost = %#x, %v", v, ok)
	}
}

func TestParseELFNamesWhatIsWrong(t *testing.T) {
	good := makeELF(0x8000_0000, []byte{0x13, 0, 0, 0})
	mod := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"a text file is not ELF", []byte("hello world, not an elf"), ErrNotELF},
		{"an empty file is not ELF", nil, ErrNotELF},
		{"a 32-bit ELF has the wrong class", mod(func(b []byte) { b[4] = 1 }), ErrELFClass},
		{"a big-endian ELF has the wrong class", mod(func(b []byte) { b[5] = 2 }), ErrELFClass},
		{"an x86-64 ELF has the wrong machine", mod(func(b []byte) { b[18] = 62 }), ErrELFMachine},
		{"a header cut short is truncated", good[:40], ErrELFTrunc},
		{"a file cut inside its segment is truncated", good[:64+56+2], ErrELFTrunc},
		{"program headers past the end are truncated", mod(func(b []byte) { binary.LittleEndian.PutUint64(b[32:], 1<<40) }), ErrELFTrunc},
		{"file size larger than memory size is malformed", mod(func(b []byte) { binary.LittleEndian.PutUint64(b[64+40:], 1) }), ErrELFTrunc},
		{"no PT_LOAD segment", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[64:], 4) }), ErrELFNoLoad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseELF(tc.in)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestLoadELFRejectsASegmentOutsideRAM(t *testing.T) {
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, paddr := range []uint64{0x1000, 0x8000_0000 + 1<<20 - 8, 0xffff_ffff_ffff_f000} {
		e, err := ParseELF(makeELF(paddr, []byte{0x13, 0, 0, 0}))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.LoadELF(e); !errors.Is(err, ErrSegmentRAM) {
			t.Errorf("segment at %#x: got %v, want ErrSegmentRAM", paddr, err)
		}
	}
}

// FuzzParseELF: any input gives a program or an error, never a panic, and a
// parsed program's segments lie inside the file.
func FuzzParseELF(f *testing.F) {
	f.Add(makeELF(0x8000_0000, []byte{0x13, 0, 0, 0}))
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseELF(b)
		if err != nil {
			return
		}
		for _, s := range e.Segments {
			if uint64(len(s.Data)) > s.MemSize {
				t.Fatalf("segment data %d > memsize %d", len(s.Data), s.MemSize)
			}
		}
		m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
		if err != nil {
			t.Fatal(err)
		}
		_ = m.LoadELF(e)
	})
}
