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

// Read reads the file at path whole. A regular file of HugeBytes or more
// is read into anonymous memory outside Go's heap (see HugeBytes and
// SparseBytes). That memory is never unmapped, as the slice may be held
// anywhere: a process reads its inputs a few times, and they belong to it
// for the rest of its life. The slice is the caller's to write.
func Read(path string) ([]byte, error) {
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
	if !st.Mode().IsRegular() || n < HugeBytes || n > math.MaxInt-hugePage || n > 1<<40 {
		return io.ReadAll(f)
	}
	sparse := n >= SparseBytes
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
