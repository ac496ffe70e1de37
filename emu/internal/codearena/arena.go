//go:build linux

// Package codearena is memory for generated machine code, never writable
// and executable at once (W^X): one reserved address range, filled a chunk
// at a time. A chunk is mapped read-write while code is written into it,
// then sealed: its used pages become read-execute and the rest of it goes
// back to no access. Code becomes runnable when its chunk is sealed. When
// the range is full, nothing more can be placed: the arena is bounded.
//
// An Arena is not safe for concurrent use; its user locks it.
package codearena

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrFull says the arena's range has no room for another chunk.
var ErrFull = errors.New("code arena full")

// Arena is a reserved address range for machine code (see the package
// comment).
type Arena struct {
	mem   []byte  // the reserved range
	base  uintptr // its address
	chunk uintptr // the size of a chunk
	page  uintptr // the host page size
	lo    uintptr // start of the writable chunk (offset)
	pos   uintptr // next free byte (offset)
	end   uintptr // end of the writable chunk (offset); pos..end is writable
	open  bool    // a chunk is writable
}

// Reserve reserves size bytes of address space (no memory is committed
// and nothing is accessible until a chunk is opened) for code written in
// chunks of chunk bytes. Both are rounded up to whole host pages.
func Reserve(size, chunk int) (*Arena, error) {
	page := uintptr(unix.Getpagesize())
	if size <= 0 || chunk <= 0 || chunk > size {
		return nil, fmt.Errorf("code arena: size %d and chunk %d: want 0 < chunk <= size", size, chunk)
	}
	sz := roundUp(uintptr(size), page)
	mem, err := unix.Mmap(-1, 0, int(sz), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("code arena: reserve %d bytes: %w", sz, err)
	}
	return &Arena{mem: mem, base: uintptr(unsafe.Pointer(&mem[0])), chunk: roundUp(uintptr(chunk), page), page: page}, nil
}

func roundUp(n, to uintptr) uintptr { return (n + to - 1) &^ (to - 1) }

// Base is the address of the range's first byte: code placed at offset
// off runs at Base()+off once sealed.
func (a *Arena) Base() uintptr { return a.base }

// Size is the size of the range in bytes.
func (a *Arena) Size() uintptr { return uintptr(len(a.mem)) }

// Used is how many bytes of the range chunks have taken so far.
func (a *Arena) Used() uintptr { return a.pos }

// Fits reports whether a chunk is open and n more bytes fit in it.
func (a *Arena) Fits(n int) bool { return a.open && a.pos+uintptr(n) <= a.end }

// Open makes the next chunk writable: chunk bytes, or more if n (the code
// about to be placed) needs more. It seals the open chunk first, if any.
// ErrFull: the range has no room for it.
func (a *Arena) Open(n int) error {
	if err := a.Seal(); err != nil {
		return err
	}
	size := max(a.chunk, roundUp(uintptr(n), a.page))
	if a.pos+size > uintptr(len(a.mem)) {
		return ErrFull
	}
	if err := unix.Mprotect(a.slice(a.pos, size), unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return fmt.Errorf("code arena: open a chunk: %w", err)
	}
	a.lo, a.end, a.open = a.pos, a.pos+size, true
	return nil
}

// Place copies code into the open chunk and returns its offset in the
// range; false if no chunk is open or the code does not fit (see Fits).
func (a *Arena) Place(code []byte) (uintptr, bool) {
	if !a.Fits(len(code)) {
		return 0, false
	}
	off := a.pos
	copy(a.slice(off, uintptr(len(code))), code)
	a.pos += uintptr(len(code))
	return off, true
}

// Seal makes the open chunk's used pages read-execute and the rest of it
// inaccessible again; the next chunk starts at the next page. Nothing
// happens if no chunk is open. An error leaves the chunk open: its code
// must not run.
func (a *Arena) Seal() error {
	if !a.open {
		return nil
	}
	used := roundUp(a.pos, a.page)
	if used > a.lo {
		if err := unix.Mprotect(a.slice(a.lo, used-a.lo), unix.PROT_READ|unix.PROT_EXEC); err != nil {
			return fmt.Errorf("code arena: seal code: %w", err)
		}
	}
	if a.end > used {
		if err := unix.Mprotect(a.slice(used, a.end-used), unix.PROT_NONE); err != nil {
			return fmt.Errorf("code arena: close unused pages: %w", err)
		}
	}
	a.open = false
	a.pos, a.lo, a.end = used, used, used
	return nil
}

// Release unmaps the range; the arena and any code in it must not be used
// again.
func (a *Arena) Release() error {
	a.open = false
	return unix.Munmap(a.mem)
}

// slice is the range [off, off+n) as a byte slice, for mprotect and copy.
func (a *Arena) slice(off, n uintptr) []byte {
	return a.mem[off : off+n : off+n]
}
