// Package rootfs builds a Linux node's root filesystem from what a user
// has, and turns it into the entries of an initramfs (package
// everett/guest-images/sdk/go/initramfs). It runs on the host, before a
// universe starts.
//
// Load reads, by what its path is:
//
//   - a folder: its regular files, directories, symbolic links and device
//     nodes, with their permission bits (setuid, setgid and sticky
//     included);
//   - a tar archive, plain or gzip-compressed (the ustar, pax and GNU
//     formats, as archive/tar reads them): regular files (sparse ones
//     expanded), directories, symbolic links, hard links, character and
//     block devices;
//   - an OCI image, as a `docker save` archive (manifest.json beside the
//     configuration and layer files; Docker 25 and later also write an
//     OCI layout into it, which is not needed then), as an OCI image
//     layout folder (the image-spec's "OCI Image Layout Specification":
//     oci-layout, index.json, blobs/), or as such a layout packed in a
//     tar (plain or gzip). Images are read with
//     github.com/google/go-containerregistry: Docker and OCI manifests,
//     layers compressed with gzip or zstd or not at all. Of an index
//     ("OCI Image Index Specification") the one linux/riscv64 image is
//     taken, looking through nested indexes; an image the index gives no
//     platform has its configuration's. Its layers are applied in order as
//     "Image Layer Filesystem Changeset" says: "Changeset over existing
//     files" (a directory over a directory takes the new attributes,
//     anything else replaces what was there), and "Whiteouts" with "Opaque
//     Whiteout": .wh.NAME deletes NAME, and what is under it, from the
//     layers below; .wh..wh..opq deletes everything the layers below put
//     in its directory; neither touches its own layer, wherever it sits in
//     it, and both name a path of the layers below as it is, through no
//     symbolic link. Other .wh..wh. names (aufs metadata) are ignored. The
//     configuration's Entrypoint, Cmd, Env, WorkingDir and User ("OCI
//     Image Configuration", its config properties) are kept in FS.Config.
//
// Nothing else is kept: owners are dropped (everything is 0:0 in the
// initramfs, and everett runs the workload as root), so are times and
// extended attributes. FIFOs and sockets are refused (the initramfs writer
// has no such entries). A hard link becomes a copy of its target.
//
// Paths are interpreted the way extracting the archive inside a chroot of
// the root would: names are cleaned, a leading '/' is dropped, a name or a
// hard link's target that climbs above the root ("../x") is an error
// (ErrUnsafePath), a symbolic link met in a directory part of a later path
// is followed inside the root ("/.." is "/"), and missing parent
// directories are made (mode 0755). An entry replaces what was at its
// path, except that a directory over a directory takes its mode and keeps
// its contents. Nothing is ever written outside the root: the FS lives in
// memory, and the only host files the package writes (an OCI layout
// unpacked from a tar, a decompressed `docker save` archive) are in a
// fresh temporary folder, removed before Load returns.
//
// Everything is bounded (Limits): entries, one file's bytes, all files'
// bytes, path length, symbolic links followed per path, archive members,
// layers, metadata files and decompressed stream sizes. Every error names
// the input and, where there is one, the path inside it; an error about
// what the input holds wraps one of the sentinel errors below (the host's
// I/O errors are passed on, wrapped). Malformed input never panics.
package rootfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"everett/guest-images/sdk/go/initramfs"
)

// Sentinel errors, for errors.Is.
var (
	// ErrTooLarge: the input is over one of the Limits.
	ErrTooLarge = errors.New("over a limit")
	// ErrUnsupported: a kind of file, archive, compression or layer this
	// package does not read.
	ErrUnsupported = errors.New("unsupported")
	// ErrUnsafePath: a name, or a hard link's target, climbs above the root.
	ErrUnsafePath = errors.New("path escapes the root")
	// ErrNotDir: a path needs a directory where there is something else.
	ErrNotDir = errors.New("not a directory")
	// ErrMalformed: the archive or image is corrupt, truncated or
	// inconsistent.
	ErrMalformed = errors.New("malformed")
	// ErrPlatform: the image, or every image of the index, is for
	// another platform than linux/riscv64.
	ErrPlatform = errors.New("not a linux/riscv64 image")
)

// Limits bound what Load and the Add methods accept. The zero value of a
// field means its DefaultLimits value.
type Limits struct {
	Entries       int   // files, directories, links and devices of the FS
	FileBytes     int64 // one file's contents
	TotalBytes    int64 // all files' contents (a hard link's copy counts again)
	PathBytes     int   // a path, without its leading '/'
	SymlinkHops   int   // symbolic links followed to resolve one path
	Members       int   // tar members read by one Load, all layers together
	Layers        int   // an image's layers
	MetadataBytes int64 // manifest.json, index.json, an image configuration
	// ResolveSteps bounds the path components stepped through to resolve
	// paths, in the life of the FS: with links up to PATH_MAX long, one
	// path may take 40 times 2048 steps, and without this bound a small
	// hostile archive could keep Load busy for hours.
	ResolveSteps int
}

// DefaultLimits are the limits of Load, and of New given zero Limits. An
// initramfs sits in guest RAM twice (the archive and the files unpacked
// from it), so 1 GiB of files already needs a node of over 2 GiB; the
// entries and one file's bytes are the initramfs writer's limits, the
// path and symbolic-link limits Linux's own.
var DefaultLimits = Limits{
	Entries:       initramfs.MaxEntries,
	FileBytes:     initramfs.MaxEntryBytes,
	TotalBytes:    1 << 30,
	PathBytes:     4095, // PATH_MAX less its NUL
	SymlinkHops:   40,   // Linux's MAXSYMLINKS
	Members:       1 << 20,
	Layers:        256,
	MetadataBytes: 4 << 20,
	ResolveSteps:  1 << 27, // a root filesystem of 65536 entries 20 deep takes 1.3 million
}

// nameBytesMax is NAME_MAX: the longest component of a path.
const nameBytesMax = 255

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Entries > 0 {
		d.Entries = l.Entries
	}
	if l.FileBytes > 0 {
		d.FileBytes = l.FileBytes
	}
	if l.TotalBytes > 0 {
		d.TotalBytes = l.TotalBytes
	}
	if l.PathBytes > 0 {
		d.PathBytes = l.PathBytes
	}
	if l.SymlinkHops > 0 {
		d.SymlinkHops = l.SymlinkHops
	}
	if l.Members > 0 {
		d.Members = l.Members
	}
	if l.Layers > 0 {
		d.Layers = l.Layers
	}
	if l.MetadataBytes > 0 {
		d.MetadataBytes = l.MetadataBytes
	}
	if l.ResolveSteps > 0 {
		d.ResolveSteps = l.ResolveSteps
	}
	return d
}

// Type is the kind of a File.
type Type uint8

// The kinds of File.
const (
	TypeDir Type = iota + 1
	TypeFile
	TypeSymlink
	TypeCharDev
	TypeBlockDev
)

// String names the type the way error messages do.
func (t Type) String() string {
	switch t {
	case TypeDir:
		return "directory"
	case TypeFile:
		return "regular file"
	case TypeSymlink:
		return "symbolic link"
	case TypeCharDev:
		return "character device"
	case TypeBlockDev:
		return "block device"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// File is one entry of an FS.
type File struct {
	Path         string // absolute and clean: "/usr/bin/server"
	Type         Type
	Perm         uint32 // permission bits with setuid, setgid and sticky (0o7777)
	Data         []byte // a regular file's contents; shared, do not modify
	Link         string // a symbolic link's target, as written
	Major, Minor uint32 // a device's number
}

// ImageConfig is what an OCI image's configuration says about running it
// (image-spec "Image Configuration", its config properties).
type ImageConfig struct {
	Entrypoint []string
	Cmd        []string
	Env        []string // KEY=VALUE
	WorkingDir string
	// User is the image's user, reported only: everett runs every process
	// as root (0:0), and the files are owned by root.
	User string
}

// Argv is the command the image runs when nothing overrides it: the
// Entrypoint followed by the Cmd as its arguments, or the Cmd alone when
// there is no Entrypoint (the Docker and OCI convention).
func (c *ImageConfig) Argv() []string {
	return append(slices.Clone(c.Entrypoint), c.Cmd...)
}

// FS is a root filesystem in memory: a tree of files under "/", owned by
// root. Its methods are not safe for concurrent use.
type FS struct {
	// Config is the image's configuration; nil when the FS was loaded from
	// a folder or a tar archive, or made by New.
	Config *ImageConfig

	lim     Limits
	root    *node
	entries int   // nodes under the root
	bytes   int64 // regular files' bytes
	members int   // tar members read so far
	steps   int   // path components walk has stepped through
}

// New returns an empty FS (just "/") with limits lim; the zero Limits are
// DefaultLimits.
func New(lim Limits) *FS {
	return &FS{lim: lim.withDefaults(), root: &node{typ: TypeDir, perm: 0o755, kids: map[string]*node{}}}
}

// Len is the number of entries (the root not counted).
func (f *FS) Len() int { return f.entries }

// Bytes is the total size of the regular files' contents.
func (f *FS) Bytes() int64 { return f.bytes }

// Files lists every entry but the root, parents before their children and
// siblings sorted by name (byte order), so that the list is sorted by path
// component by component and depends on nothing but the contents.
func (f *FS) Files() []File {
	out := make([]File, 0, f.entries)
	var visit func(dir *node, dirPath string)
	visit = func(dir *node, dirPath string) {
		names := make([]string, 0, len(dir.kids))
		for name := range dir.kids {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			n := dir.kids[name]
			p := dirPath + "/" + name
			out = append(out, n.file(p))
			if n.typ == TypeDir {
				visit(n, p)
			}
		}
	}
	visit(f.root, "")
	return out
}

// Entries returns the FS as initramfs entries, in the order of Files
// (every entry's parent directory comes before it; the root itself is not
// an entry). Names carry no leading '/'.
func (f *FS) Entries() []initramfs.Entry {
	files := f.Files()
	out := make([]initramfs.Entry, 0, len(files))
	for _, file := range files {
		name := strings.TrimPrefix(file.Path, "/")
		switch file.Type {
		case TypeDir:
			out = append(out, initramfs.Dir(name, file.Perm))
		case TypeFile:
			out = append(out, initramfs.File(name, file.Perm, file.Data))
		case TypeSymlink:
			out = append(out, initramfs.Symlink(name, file.Link))
		case TypeCharDev:
			out = append(out, initramfs.CharDev(name, file.Perm, file.Major, file.Minor))
		case TypeBlockDev:
			out = append(out, initramfs.BlockDev(name, file.Perm, file.Major, file.Minor))
		default:
			panic(fmt.Sprintf("rootfs: %s has type %v", file.Path, file.Type))
		}
	}
	return out
}

// Add puts file at file.Path, making missing parent directories (0755)
// and following symbolic links in the parent part of the path. It replaces
// what was there, except that a directory over a directory only changes
// its mode. Use it for everett's own files (the init, its configuration).
func (f *FS) Add(file File) error {
	n, err := f.nodeOf(file)
	if err != nil {
		return fmt.Errorf("add %s: %w", file.Path, err)
	}
	comps, err := f.clean(file.Path)
	if err != nil {
		return fmt.Errorf("add %s: %w", file.Path, err)
	}
	if len(comps) == 0 {
		if file.Type != TypeDir {
			return fmt.Errorf("add %s: the root is a directory: %w", file.Path, ErrNotDir)
		}
		return nil
	}
	st, err := f.dir(f.rootStack(), comps[:len(comps)-1], true, 0o755)
	if err != nil {
		return fmt.Errorf("add %s: %w", file.Path, err)
	}
	if err := f.place(st, comps[len(comps)-1], n, placeLayer); err != nil {
		return fmt.Errorf("add %s: %w", file.Path, err)
	}
	return nil
}

// Lookup returns the entry at guestPath, following symbolic links (the
// last component's too, as stat(2) does); its Path is where the links led.
// A missing path is an error wrapping fs.ErrNotExist.
func (f *FS) Lookup(guestPath string) (File, error) {
	comps, err := f.clean(guestPath)
	if err != nil {
		return File{}, fmt.Errorf("lookup %s: %w", guestPath, err)
	}
	st, name, n, err := f.walk(f.rootStack(), comps, false, true)
	if err != nil {
		return File{}, fmt.Errorf("lookup %s: %w", guestPath, err)
	}
	if n == nil {
		return File{}, fmt.Errorf("lookup %s: %w", guestPath, fs.ErrNotExist)
	}
	return n.file(path.Join(stackPath(st), name)), nil
}

// nodeOf checks a File given to Add and makes its node.
func (f *FS) nodeOf(file File) (*node, error) {
	n := &node{typ: file.Type, perm: file.Perm & 0o7777}
	switch file.Type {
	case TypeDir:
		n.kids = map[string]*node{}
	case TypeFile:
		if int64(len(file.Data)) > f.lim.FileBytes {
			return nil, fmt.Errorf("%d bytes (at most %d): %w", len(file.Data), f.lim.FileBytes, ErrTooLarge)
		}
		n.data = file.Data
	case TypeSymlink:
		if err := f.checkLink(file.Link); err != nil {
			return nil, err
		}
		n.link = file.Link
		n.perm = 0o777
	case TypeCharDev, TypeBlockDev:
		if err := checkDev(int64(file.Major), int64(file.Minor)); err != nil {
			return nil, err
		}
		n.major, n.minor = file.Major, file.Minor
	default:
		return nil, fmt.Errorf("file type %v: %w", file.Type, ErrUnsupported)
	}
	return n, nil
}

// checkLink checks a symbolic link's target.
func (f *FS) checkLink(target string) error {
	switch {
	case target == "":
		return fmt.Errorf("symbolic link with an empty target: %w", ErrMalformed)
	case strings.IndexByte(target, 0) >= 0:
		return fmt.Errorf("symbolic link target %q holds a NUL byte: %w", target, ErrMalformed)
	case len(target) > f.lim.PathBytes:
		return fmt.Errorf("symbolic link target of %d bytes (at most %d): %w", len(target), f.lim.PathBytes, ErrTooLarge)
	}
	return nil
}

// checkDev checks a device number against Linux's 12-bit major and 20-bit
// minor numbers.
func checkDev(major, minor int64) error {
	if major < 0 || major >= 1<<12 || minor < 0 || minor >= 1<<20 {
		return fmt.Errorf("device number %d:%d out of range (major < 4096, minor < 1048576): %w", major, minor, ErrMalformed)
	}
	return nil
}

// clean turns a path (absolute or not) into its components: the root is
// no component. A name that climbs above the root is ErrUnsafePath.
func (f *FS) clean(name string) ([]string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("path %q holds a NUL byte: %w", name, ErrMalformed)
	}
	p := path.Clean(strings.TrimLeft(name, "/"))
	if p == "." || p == "" {
		return nil, nil
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return nil, fmt.Errorf("path %q: %w", name, ErrUnsafePath)
	}
	if len(p) > f.lim.PathBytes {
		return nil, fmt.Errorf("path of %d bytes (at most %d): %w", len(p), f.lim.PathBytes, ErrTooLarge)
	}
	comps := strings.Split(p, "/")
	for _, c := range comps {
		if len(c) > nameBytesMax {
			return nil, fmt.Errorf("path component of %d bytes (at most %d): %w", len(c), nameBytesMax, ErrTooLarge)
		}
	}
	return comps, nil
}
