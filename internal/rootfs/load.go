package rootfs

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Load reads the root filesystem at p with DefaultLimits. What p is
// decides how it is read (the package comment lists the formats):
//
//   - a folder holding a file oci-layout is an OCI image layout;
//   - any other folder is a root filesystem;
//   - a file is a tar archive, gzip-compressed or not: one with a
//     top-level manifest.json is a `docker save` archive, one with
//     top-level oci-layout and index.json an OCI image layout, any other
//     a root filesystem.
//
// FS.Config is set for images only.
func Load(p string) (*FS, error) {
	return LoadLimits(p, Limits{})
}

// LoadLimits is Load with limits lim (its zero fields are DefaultLimits').
func LoadLimits(p string, lim Limits) (*FS, error) {
	f := New(lim)
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("load %w", err)
	}
	switch {
	case info.IsDir():
		if _, serr := os.Stat(filepath.Join(p, "oci-layout")); serr == nil {
			err = f.loadLayout(p, p)
		} else if err = f.loadFolder(p); err != nil {
			err = fmt.Errorf("read %s: %w", p, err)
		}
	case info.Mode().IsRegular():
		err = f.loadArchive(p)
	default:
		err = fmt.Errorf("load %s: a %v, neither a folder nor a file: %w", p, info.Mode().Type(), ErrUnsupported)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// archiveKind is what a tar archive holds.
type archiveKind uint8

const (
	kindRootfs archiveKind = iota
	kindDocker             // docker save
	kindLayout             // OCI image layout
)

// loadArchive reads a tar archive of any kind.
func (f *FS) loadArchive(p string) error {
	kind, compressed, manifestBytes, err := f.scan(p)
	if err != nil {
		return err
	}
	switch kind {
	case kindDocker:
		if manifestBytes > f.lim.MetadataBytes {
			return fmt.Errorf("read %s: manifest.json of %d bytes (at most %d): %w", p, manifestBytes, f.lim.MetadataBytes, ErrTooLarge)
		}
		tarPath := p
		if compressed {
			dir, err := os.MkdirTemp("", "everett-rootfs-")
			if err != nil {
				return fmt.Errorf("read %s: %w", p, err)
			}
			defer os.RemoveAll(dir)
			tarPath = filepath.Join(dir, "image.tar")
			if err := f.decompress(p, tarPath); err != nil {
				return err
			}
		}
		return f.loadDockerArchive(tarPath, p)
	case kindLayout:
		dir, err := os.MkdirTemp("", "everett-rootfs-")
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		defer os.RemoveAll(dir)
		if err := f.unpack(p, dir); err != nil {
			return err
		}
		return f.loadLayout(dir, p)
	}
	rc, _, err := f.openArchive(p)
	if err != nil {
		return err
	}
	defer rc.Close()
	return f.readTar(rc, p)
}

// scan reads the members' headers of the archive at p to tell its kind.
func (f *FS) scan(p string) (kind archiveKind, compressed bool, manifestBytes int64, err error) {
	rc, compressed, err := f.openArchive(p)
	if err != nil {
		return 0, false, 0, err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var manifest, ociLayout, index bool
	where := p
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false, 0, readErr(where, err)
		}
		where = fmt.Sprintf("%s (after member %s)", p, h.Name)
		if n >= f.lim.Members {
			return 0, false, 0, fmt.Errorf("read %s: more than %d archive members: %w", p, f.lim.Members, ErrTooLarge)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		switch path.Clean(strings.TrimLeft(h.Name, "/")) {
		case "manifest.json":
			manifest, manifestBytes = true, h.Size
		case "oci-layout":
			ociLayout = true
		case "index.json":
			index = true
		}
	}
	switch {
	case manifest:
		return kindDocker, compressed, manifestBytes, nil
	case ociLayout && index:
		return kindLayout, compressed, 0, nil
	}
	return kindRootfs, compressed, 0, nil
}

// decompress writes the decompressed archive p to out (a temporary file).
func (f *FS) decompress(p, out string) error {
	rc, _, err := f.openArchive(p)
	if err != nil {
		return err
	}
	defer rc.Close()
	w, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if _, err := io.Copy(w, rc); err != nil {
		w.Close()
		return readErr(p, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	return nil
}

// unpack extracts the regular files, hard links and directories of the
// tar archive p (an OCI layout) into dir, a fresh temporary folder, and
// nothing outside it (os.Root).
func (f *FS) unpack(p, dir string) error {
	rc, _, err := f.openArchive(p)
	if err != nil {
		return err
	}
	defer rc.Close()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	defer root.Close()
	tr := tar.NewReader(rc)
	var written int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readErr(p, err)
		}
		if n >= f.lim.Members {
			return fmt.Errorf("read %s: more than %d archive members: %w", p, f.lim.Members, ErrTooLarge)
		}
		comps, err := f.clean(h.Name)
		if err != nil {
			return fmt.Errorf("read %s: %s: %w", p, h.Name, err)
		}
		if len(comps) == 0 {
			continue
		}
		name := strings.Join(comps, "/")
		if parent := path.Dir(name); parent != "." {
			if err := root.MkdirAll(parent, 0o755); err != nil {
				return fmt.Errorf("read %s: %s: %w (%w)", p, h.Name, ErrMalformed, err)
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeReg:
			if h.Size < 0 || h.Size > f.lim.TotalBytes-written {
				return fmt.Errorf("read %s: %s: %d bytes make the layout larger than %d bytes: %w", p, h.Name, h.Size, f.lim.TotalBytes, ErrTooLarge)
			}
			written += h.Size
			err = writeRootFile(root, name, tr)
		case tar.TypeLink:
			var old []string
			if old, err = f.clean(h.Linkname); err == nil {
				_ = root.Remove(name)
				err = root.Link(strings.Join(old, "/"), name)
			}
		}
		// Other members (symbolic links, devices) play no part in a layout.
		if err != nil {
			return readErr(p+": "+h.Name, err)
		}
	}
}

func writeRootFile(root *os.Root, name string, r io.Reader) error {
	w, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
