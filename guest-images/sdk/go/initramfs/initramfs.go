// Package initramfs writes Linux initramfs archives: cpio in the "newc"
// format (the kernel's Documentation/driver-api/early-userspace/
// buffer-format.rst, and cpio(5)), optionally gzip-compressed. It is the
// host-side half of running a Go program as a Linux guest's init on
// everett: build the program with GOOS=linux GOARCH=riscv64, pack it as
// /init, boot with --initrd.
//
// The output depends only on the entries: every owner is 0:0, every mtime
// 0, inode numbers follow the entry order, and the gzip header carries no
// name or time, so two builds of the same inputs are byte-identical (the
// explorer hashes its images).
package initramfs

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// File types of a cpio mode (the high bits of st_mode).
const (
	typeDir     = 0o040000
	typeFile    = 0o100000
	typeSymlink = 0o120000
	typeChar    = 0o020000
	typeBlock   = 0o060000
	typeMask    = 0o170000
)

// Limits: an initramfs is loaded into guest RAM, so anything larger than
// these is a mistake.
const (
	MaxEntries    = 1 << 16
	MaxEntryBytes = 1 << 30
	maxNameBytes  = 4096
)

// ErrBadEntry is wrapped by the errors of entries that cannot be written.
var ErrBadEntry = errors.New("bad initramfs entry")

// Entry is one file of the archive. Build entries with Dir, File, CharDev,
// BlockDev and Symlink.
type Entry struct {
	Name         string // path in the archive, with or without a leading '/'
	Mode         uint32 // file type and permission bits, as in st_mode
	Data         []byte // a file's contents, or a symlink's target
	Major, Minor uint32 // a device node's number
}

// Dir is a directory with permission bits perm.
func Dir(name string, perm uint32) Entry {
	return Entry{Name: name, Mode: typeDir | perm&0o7777}
}

// File is a regular file.
func File(name string, perm uint32, data []byte) Entry {
	return Entry{Name: name, Mode: typeFile | perm&0o7777, Data: data}
}

// CharDev is a character device node (the initramfs of a program run as
// init needs /dev/console, 5:1, for its standard streams).
func CharDev(name string, perm, major, minor uint32) Entry {
	return Entry{Name: name, Mode: typeChar | perm&0o7777, Major: major, Minor: minor}
}

// BlockDev is a block device node.
func BlockDev(name string, perm, major, minor uint32) Entry {
	return Entry{Name: name, Mode: typeBlock | perm&0o7777, Major: major, Minor: minor}
}

// Symlink is a symbolic link to target.
func Symlink(name, target string) Entry {
	return Entry{Name: name, Mode: typeSymlink | 0o777, Data: []byte(target)}
}

// Init returns the entries of a minimal initramfs whose /init is prog:
// /dev with /dev/console, and empty /proc, /sys and /tmp to mount on.
func Init(prog []byte) []Entry {
	return []Entry{
		Dir("dev", 0o755),
		CharDev("dev/console", 0o600, 5, 1),
		Dir("proc", 0o555),
		Dir("sys", 0o555),
		Dir("tmp", 0o1777),
		File("init", 0o755, prog),
	}
}

// Write writes entries as an uncompressed newc archive, with its trailer.
func Write(w io.Writer, entries []Entry) error {
	if len(entries) > MaxEntries {
		return fmt.Errorf("%w: %d entries (at most %d)", ErrBadEntry, len(entries), MaxEntries)
	}
	cw := &countWriter{w: w}
	for i, e := range entries {
		if err := writeEntry(cw, uint32(i+1), e); err != nil {
			return fmt.Errorf("initramfs entry %d (%q): %w", i, e.Name, err)
		}
	}
	if err := writeEntry(cw, 0, Entry{Name: "TRAILER!!!"}); err != nil {
		return fmt.Errorf("initramfs trailer: %w", err)
	}
	return nil
}

// WriteGzip writes entries as a gzip-compressed newc archive.
func WriteGzip(w io.Writer, entries []Entry) error {
	z, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := Write(z, entries); err != nil {
		return err
	}
	return z.Close()
}

func writeEntry(w *countWriter, ino uint32, e Entry) error {
	name := strings.TrimPrefix(e.Name, "/")
	if name == "" || len(name) >= maxNameBytes || strings.IndexByte(name, 0) >= 0 {
		return fmt.Errorf("%w: name %q", ErrBadEntry, e.Name)
	}
	if len(e.Data) > MaxEntryBytes {
		return fmt.Errorf("%w: %d bytes (at most %d)", ErrBadEntry, len(e.Data), MaxEntryBytes)
	}
	nlink := uint32(1)
	switch e.Mode & typeMask {
	case typeDir:
		nlink = 2
		if len(e.Data) > 0 {
			return fmt.Errorf("%w: a directory with data", ErrBadEntry)
		}
	case typeFile, typeSymlink, typeChar, typeBlock:
	case 0:
		if ino != 0 {
			return fmt.Errorf("%w: mode %#o has no file type", ErrBadEntry, e.Mode)
		}
	default:
		return fmt.Errorf("%w: unsupported file type in mode %#o", ErrBadEntry, e.Mode)
	}
	// The header: magic and 13 fields of 8 hex digits: ino, mode, uid,
	// gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor,
	// rdevminor, namesize (with the NUL), check (0 for newc).
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, e.Mode, 0, 0, nlink, 0, len(e.Data), 0, 0, e.Major, e.Minor, len(name)+1, 0)
	if err := w.write([]byte(hdr)); err != nil {
		return err
	}
	if err := w.write(append([]byte(name), 0)); err != nil {
		return err
	}
	if err := w.pad4(); err != nil {
		return err
	}
	if err := w.write(e.Data); err != nil {
		return err
	}
	return w.pad4()
}

// countWriter counts bytes for the 4-byte alignment of names and data.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) write(b []byte) error {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return err
}

func (c *countWriter) pad4() error {
	var zeros [4]byte
	return c.write(zeros[:(4-c.n%4)%4])
}
