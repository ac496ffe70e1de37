package rootfs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// member is one tar member read into memory.
type member struct {
	hdr  *tar.Header
	data []byte
}

// readErr wraps an error of reading an archive: ErrMalformed unless it is
// already one of ours (a limit hit inside a stream).
func readErr(src string, err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnsupported) {
		return fmt.Errorf("read %s: %w", src, err)
	}
	return fmt.Errorf("read %s: %w (%w)", src, ErrMalformed, err)
}

// next reads the next member of tr, counting it against the member limit,
// with the data of a regular file (pending bytes are already held by the
// caller and count against the total limit of the files' bytes). It
// returns io.EOF at the end.
func (f *FS) next(tr *tar.Reader, src string, pending int64) (member, error) {
	h, err := tr.Next()
	if err == io.EOF {
		return member{}, io.EOF
	}
	if err != nil {
		return member{}, readErr(src, err)
	}
	f.members++
	if f.members > f.lim.Members {
		return member{}, fmt.Errorf("read %s: more than %d archive members: %w", src, f.lim.Members, ErrTooLarge)
	}
	// Keep only what apply reads (not PAX records, names of owners, ...).
	h = &tar.Header{Name: h.Name, Linkname: h.Linkname, Typeflag: h.Typeflag, Mode: h.Mode, Size: h.Size, Devmajor: h.Devmajor, Devminor: h.Devminor}
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
	default:
		return member{hdr: h}, nil
	}
	switch {
	case h.Size < 0:
		return member{}, fmt.Errorf("read %s: %s: size %d: %w", src, h.Name, h.Size, ErrMalformed)
	case h.Size > f.lim.FileBytes:
		return member{}, fmt.Errorf("read %s: %s: %d bytes (at most %d a file): %w", src, h.Name, h.Size, f.lim.FileBytes, ErrTooLarge)
	case f.bytes+pending+h.Size > f.lim.TotalBytes:
		return member{}, fmt.Errorf("read %s: %s: %d bytes make the files larger than %d bytes in all: %w", src, h.Name, h.Size, f.lim.TotalBytes, ErrTooLarge)
	}
	data := make([]byte, h.Size)
	if _, err := io.ReadFull(tr, data); err != nil {
		return member{}, readErr(src+": "+h.Name, err)
	}
	return member{hdr: h, data: data}, nil
}

// readTar applies a tar archive, member by member, as a root filesystem.
func (f *FS) readTar(r io.Reader, src string) error {
	tr := tar.NewReader(r)
	for {
		m, err := f.next(tr, src, 0)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f.apply(m); err != nil {
			return fmt.Errorf("read %s: %s: %w", src, m.hdr.Name, err)
		}
	}
}

// apply puts one member into the tree (extraction semantics, placeLayer).
func (f *FS) apply(m member) error {
	h := m.hdr
	comps, err := f.clean(h.Name)
	if err != nil {
		return err
	}
	if len(comps) == 0 {
		if h.Typeflag == tar.TypeDir {
			return nil // the root: its mode is the kernel's
		}
		return fmt.Errorf("a %s at the root: %w", tarTypeName(h.Typeflag), ErrNotDir)
	}
	perm := uint32(h.Mode) & 0o7777
	var n *node
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
		n = &node{typ: TypeFile, perm: perm, data: m.data}
	case tar.TypeDir:
		n = newDir(perm)
	case tar.TypeSymlink:
		if err := f.checkLink(h.Linkname); err != nil {
			return err
		}
		n = &node{typ: TypeSymlink, perm: 0o777, link: h.Linkname}
	case tar.TypeLink:
		if n, err = f.hardLink(h.Linkname); err != nil {
			return err
		}
	case tar.TypeChar, tar.TypeBlock:
		if err := checkDev(h.Devmajor, h.Devminor); err != nil {
			return err
		}
		n = &node{typ: TypeCharDev, perm: perm, major: uint32(h.Devmajor), minor: uint32(h.Devminor)}
		if h.Typeflag == tar.TypeBlock {
			n.typ = TypeBlockDev
		}
	case tar.TypeFifo:
		return fmt.Errorf("a FIFO (an initramfs holds none): %w", ErrUnsupported)
	default:
		return fmt.Errorf("a %s: %w", tarTypeName(h.Typeflag), ErrUnsupported)
	}
	st, err := f.dir(f.rootStack(), comps[:len(comps)-1], true, 0o755)
	if err != nil {
		return err
	}
	return f.place(st, comps[len(comps)-1], n, placeLayer)
}

// tarTypeName names a tar member type for error messages.
func tarTypeName(flag byte) string {
	switch flag {
	case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
		return "regular file"
	case tar.TypeDir:
		return "directory"
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeFifo:
		return "FIFO"
	}
	return fmt.Sprintf("tar member of type %q", flag)
}

// hardLink is a copy of the entry a hard link names (its target is a path
// from the root, whether or not it starts with '/').
func (f *FS) hardLink(target string) (*node, error) {
	comps, err := f.clean(target)
	if err != nil {
		return nil, fmt.Errorf("hard link target: %w", err)
	}
	if len(comps) == 0 {
		return nil, fmt.Errorf("hard link to the root: %w", ErrMalformed)
	}
	_, _, n, err := f.walk(f.rootStack(), comps, false, false)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotDir) || (err == nil && n == nil) {
		return nil, fmt.Errorf("hard link to %s, which the archive did not hold before it: %w", target, ErrMalformed)
	}
	if err != nil {
		return nil, fmt.Errorf("hard link to %s: %w", target, err)
	}
	if n.typ == TypeDir {
		return nil, fmt.Errorf("hard link to %s, a directory: %w", target, ErrMalformed)
	}
	if int64(len(n.data)) > f.lim.TotalBytes-f.bytes {
		return nil, fmt.Errorf("hard link to %s: its copy of %d bytes makes the files larger than %d bytes in all: %w", target, len(n.data), f.lim.TotalBytes, ErrTooLarge)
	}
	return n.copyOf(), nil
}

// Magic numbers of compressed streams.
var (
	magicGzip  = []byte{0x1f, 0x8b}
	magicZstd  = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicXz    = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
	magicBzip2 = []byte("BZh")
)

// openArchive opens the file at p, decompressing it when it is
// gzip-compressed (the decompressed stream is capped). It says whether it
// was compressed.
func (f *FS) openArchive(p string) (io.ReadCloser, bool, error) {
	file, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	var head [6]byte
	n, _ := io.ReadFull(file, head[:])
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		file.Close()
		return nil, false, err
	}
	b := head[:n]
	switch {
	case n == 0:
		file.Close()
		return nil, false, fmt.Errorf("%s is empty, not a tar archive: %w", p, ErrMalformed)
	case bytes.HasPrefix(b, magicGzip):
		z, err := gzip.NewReader(file)
		if err != nil {
			file.Close()
			return nil, false, readErr(p, err)
		}
		return &capReader{r: z, left: f.streamBytesMax(), what: p, closers: []io.Closer{z, file}}, true, nil
	case bytes.HasPrefix(b, magicZstd):
		file.Close()
		return nil, false, fmt.Errorf("%s is zstd-compressed (decompress it, or gzip it): %w", p, ErrUnsupported)
	case bytes.HasPrefix(b, magicXz):
		file.Close()
		return nil, false, fmt.Errorf("%s is xz-compressed (decompress it, or gzip it): %w", p, ErrUnsupported)
	case bytes.HasPrefix(b, magicBzip2):
		file.Close()
		return nil, false, fmt.Errorf("%s is bzip2-compressed (decompress it, or gzip it): %w", p, ErrUnsupported)
	}
	return file, false, nil
}

// streamBytesMax bounds a decompressed stream: the files' bytes plus a
// header and padding (1.5 KiB) per member.
func (f *FS) streamBytesMax() int64 {
	return f.lim.TotalBytes + 1536*int64(f.lim.Members)
}

// capReader reads at most left bytes from r; past them it fails with
// ErrTooLarge rather than ending quietly.
type capReader struct {
	r       io.Reader
	left    int64
	what    string
	closers []io.Closer
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, err
		}
		return 0, fmt.Errorf("%s: decompressed stream longer than its limit: %w", c.what, ErrTooLarge)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Close closes what the reader reads from.
func (c *capReader) Close() error {
	var first error
	for _, cl := range c.closers {
		if err := cl.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
