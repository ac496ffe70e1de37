package hostfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	hugePage  = 2 << 20
	smallPage = 4096
)

// Read reads the file at path whole; a regular file of SparseBytes or
// more goes into anonymous memory outside Go's heap with only its non-zero
// pages written. That memory is never unmapped, as the slice may be held
// anywhere; its zero pages cost nothing. The slice is the caller's to
// write.
func Read(path string) ([]byte, error) { return read(path, false) }

// ReadOnce is Read for a file a process reads once (the command line's
// images): from HugeBytes on it also leaves Go's heap, for memory that may
// be backed by 2 MiB pages, and that memory too is never unmapped.
func ReadOnce(path string) ([]byte, error) { return read(path, true) }

func read(path string, huge bool) ([]byte, error) {
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
	sparse := n >= SparseBytes
	if !st.Mode().IsRegular() || n < HugeBytes || !huge && !sparse || n > math.MaxInt-hugePage || n > 1<<40 {
		return io.ReadAll(f)
	}
	extra := int64(hugePage) // room to start at an aligned 2 MiB range
	if sparse {
		extra = 0
	}
	mem, err := unix.Mmap(-1, 0, int(n+extra), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return io.ReadAll(f)
	}
	var b []byte
	if sparse {
		b = mem
		err = readSparse(f, b)
	} else {
		// Only whole aligned 2 MiB ranges can be huge pages: start at one.
		off := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugePage - 1))
		b = mem[off : off+int(n) : off+int(n)]
		_ = unix.Madvise(mem[off:], unix.MADV_HUGEPAGE) // only a hint
		_, err = io.ReadFull(f, b)
	}
	if err != nil {
		_ = unix.Munmap(mem)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading %s: the file shrank while it was read", path)
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var more [1]byte
	if k, _ := f.Read(more[:]); k != 0 {
		// The file grew while it was read: read it again, whole.
		_ = unix.Munmap(mem)
		return os.ReadFile(path)
	}
	return b, nil
}

// readSparse fills b, zero to begin with, from f, writing only the pages
// of f that are not all zero.
func readSparse(f io.Reader, b []byte) error {
	var zero [smallPage]byte
	buf := make([]byte, 1<<20)
	for off := 0; off < len(b); {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(b)-off)])
		if err != nil {
			return err
		}
		for i := 0; i < n; i += smallPage {
			if c := buf[i:min(i+smallPage, n)]; !bytes.Equal(c, zero[:len(c)]) {
				copy(b[off+i:], c)
			}
		}
		off += n
	}
	return nil
}
