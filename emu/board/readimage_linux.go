package board

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// sparseImageBytes is the size from which readImage reads a file into
// memory mapped outside Go's heap, leaving its zero pages unwritten.
const sparseImageBytes = 64 << 20

// readImage reads the file at path. A file of sparseImageBytes or more (a
// disk image) is read into anonymous memory mapped outside Go's heap, and
// only its 4 KiB pages that are not all zero are written: the others cost
// no memory, however large the image (the etcd example's empty 256 MiB
// ext4 disk has 47 such pages, 2026-12-04: 0.2 MiB resident, not 256).
// That memory is never unmapped, as the slice may be held anywhere: a
// process reads its disk images a few times (each read keeps the image's
// non-zero pages).
func readImage(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if !st.Mode().IsRegular() || size < sparseImageBytes || size > 1<<40 {
		return io.ReadAll(f)
	}
	m, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return io.ReadAll(f)
	}
	const page = 4096
	var zero [page]byte
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		n, err := io.ReadFull(f, buf[:min(int64(len(buf)), size-off)])
		if err != nil {
			_ = unix.Munmap(m)
			return nil, fmt.Errorf("reading %s at %d: %w", path, off, err)
		}
		for i := 0; i < n; i += page {
			if c := buf[i:min(i+page, n)]; !bytes.Equal(c, zero[:len(c)]) {
				copy(m[off+int64(i):], c)
			}
		}
		off += int64(n)
	}
	return m, nil
}
