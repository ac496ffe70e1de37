package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"everett/emu"
	"everett/emu/board"
)

// File is a snapshot file, loaded or just written: the machine's spec, the
// in-memory snapshot (with the pages of the whole parent chain), and what
// the file itself records.
type File struct {
	Path       string
	ID         [32]byte // the file's checksum: its identity
	ConfigHash [32]byte
	Spec       *board.Spec
	Snap       *emu.Snapshot

	// Parent is the file this one extends (nil for a full file); ParentPath
	// is the hint recorded for finding it.
	Parent     *File
	ParentPath string

	DataPages  int   // pages with data recorded in this file
	ZeroPages  int   // pages recorded as all zero (incremental files only)
	Bytes      int64 // size of the file
	StateBytes int   // compressed size of the component state
	PageBytes  int   // compressed size of the page index and data
}

// Incremental reports whether the file extends a parent.
func (f *File) Incremental() bool { return f.Parent != nil }

// Restore builds a machine from the file (its images must be loaded, as
// Load does) and restores the snapshot into it; reseed starts the universe's
// PRNG afresh from seed (a fork).
func (f *File) Restore(o board.BuildOptions, reseed bool, seed uint64) (*board.Built, error) {
	return board.Restore(f.Spec, f.Snap, o, reseed, seed)
}

// LoadOptions change what Load checks.
type LoadOptions struct {
	// SkipImages leaves the spec's images unread and unchecked: enough to
	// describe a file (everett snapshot info), not to restore it.
	SkipImages bool
}

// Load reads a snapshot file and, for an incremental one, its parents, and
// checks everything: see the package documentation. The images are read
// and checked against their recorded hashes.
func Load(path string) (*File, error) { return LoadWith(path, LoadOptions{}) }

// LoadWith is Load with options.
func LoadWith(path string, o LoadOptions) (*File, error) {
	f, err := load(path, 0)
	if err != nil {
		return nil, err
	}
	if !o.SkipImages {
		if err := f.Spec.Load(); err != nil {
			return nil, fmt.Errorf("%s: image %w", path, err)
		}
	}
	return f, nil
}

func load(path string, depth int) (*File, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	d, err := decodeFile(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{
		Path: path, ID: d.id, ConfigHash: d.configHash, Spec: d.spec, ParentPath: d.parentPath,
		DataPages: d.dataPages, ZeroPages: d.zeroPages, Bytes: int64(len(b)),
		StateBytes: d.stateStored, PageBytes: d.pagesStored,
	}
	var base *emu.Snapshot
	if d.flags&flagIncremental != 0 {
		if depth+1 >= MaxChainDepth {
			return nil, fmt.Errorf("%s: %w: the chain of parents is longer than %d files", path, ErrParent, MaxChainDepth)
		}
		pp := findParent(path, d.parentPath)
		parent, err := load(pp, depth+1)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: %w: its parent %s is missing (%v)", path, ErrParent, d.parentPath, err)
			}
			return nil, fmt.Errorf("%s: %w: its parent does not load: %w", path, ErrParent, err)
		}
		switch {
		case parent.ID != d.parentID:
			return nil, fmt.Errorf("%s: %w: it was made from a parent with checksum %x…, but %s has %x…",
				path, ErrParent, d.parentID[:8], pp, parent.ID[:8])
		case parent.ConfigHash != d.configHash:
			return nil, fmt.Errorf("%s: %w: the parent %s is of another machine", path, ErrParent, pp)
		case parent.Snap.ICount > d.icount:
			return nil, fmt.Errorf("%s: %w: the parent %s was taken after it", path, ErrParent, pp)
		}
		f.Parent = parent
		base = parent.Snap
	}
	f.Snap, err = emu.NewSnapshot(d.cfg, d.components, d.icount, d.state, base, d.pages)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrCorrupt, err)
	}
	return f, nil
}

// readFile reads a whole file after checking its size against MaxFileBytes.
func readFile(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrNotSnapshot)
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than the limit %d", path, ErrCorrupt, st.Size(), int64(MaxFileBytes))
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(fh, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// findParent resolves a recorded parent path: relative paths are relative
// to the child's folder; if nothing is there, a file of the same name next
// to the child is tried (the two were moved together).
func findParent(child, recorded string) string {
	dir := filepath.Dir(child)
	p := recorded
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if _, err := os.Stat(p); err != nil {
		if alt := filepath.Join(dir, filepath.Base(recorded)); alt != p {
			if _, err := os.Stat(alt); err == nil {
				return alt
			}
		}
	}
	return p
}

// testHookWriter, when set (by tests), wraps the writer of the temporary
// file, so that a write can be made to fail midway.
var testHookWriter func(io.Writer) io.Writer

// Write saves snap, a snapshot of the machine spec describes, to path. With
// parent not nil the file is incremental: it records only the pages that
// differ from parent's snapshot, which snap must descend from (a machine
// restored from parent.Snap, or the machine that took it). The write is
// atomic: the file appears whole under path or not at all, and a failure
// leaves an existing file at path as it was. The returned File describes
// the new file and can be the parent of the next one.
func Write(path string, spec *board.Spec, snap *emu.Snapshot, parent *File) (*File, error) {
	dir := filepath.Dir(path)
	hint := ""
	if parent != nil {
		hint = parent.Path
		if ap, err := filepath.Abs(parent.Path); err == nil {
			hint = ap
			if ad, err := filepath.Abs(dir); err == nil {
				if rel, err := filepath.Rel(ad, ap); err == nil {
					hint = rel
				}
			}
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	var w io.Writer = bw
	if testHookWriter != nil {
		w = testHookWriter(w)
	}
	enc, err := encodeFile(w, spec, snap, parent, hint)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	var size int64
	if err == nil {
		var st os.FileInfo
		if st, err = tmp.Stat(); err == nil {
			size = st.Size()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	done = true
	syncDir(dir)
	f := &File{
		Path: path, ID: enc.id, ConfigHash: ConfigHash(spec, snap.Config), Spec: spec, Snap: snap,
		Parent: parent, ParentPath: hint, Bytes: size,
		DataPages: enc.dataPages, ZeroPages: enc.zeroPages, StateBytes: enc.stateBytes, PageBytes: enc.pageBytes,
	}
	return f, nil
}

// syncDir makes a rename durable. Some file systems cannot sync a folder;
// the rename itself is still atomic there.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
