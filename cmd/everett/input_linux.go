package main

import (
	"errors"
	"io"
	"math"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readInput reads the file at path whole. Guest images are megabytes read
// once at start-up, and os.ReadFile reads them into fresh heap memory one
// 4 KiB page fault at a time (a 16 MiB disk: about 4,000 faults, a few
// percent of a Linux boot). A large file goes instead into anonymous
// memory the kernel may back with 2 MiB pages (MADV_HUGEPAGE); that memory
// belongs to the process for the rest of its life, as the inputs do.
func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := st.Size()
	if !st.Mode().IsRegular() || n < hugeInput || n > math.MaxInt-hugePage {
		return io.ReadAll(f)
	}
	mem, err := unix.Mmap(-1, 0, int(n+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return io.ReadAll(f)
	}
	// Only whole aligned 2 MiB ranges can be huge pages: start at one.
	off := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugePage - 1))
	b := mem[off : off+int(n) : off+int(n)]
	_ = unix.Madvise(mem[off:], unix.MADV_HUGEPAGE) // only a hint
	if _, err := io.ReadFull(f, b); err != nil {
		_ = unix.Munmap(mem)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("the file shrank while it was read")
		}
		return nil, err
	}
	var more [1]byte
	if k, _ := f.Read(more[:]); k != 0 {
		// The file grew while it was read: read it again, whole.
		_ = unix.Munmap(mem)
		return os.ReadFile(path)
	}
	return b, nil
}

const (
	hugePage  = 2 << 20
	hugeInput = 2 << 20 // smaller files are read as usual
)
