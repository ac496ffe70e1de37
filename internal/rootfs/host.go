package rootfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// AddHostPath copies a host file or folder into the FS at guestPath (a
// spec's `files: {./data: /var/lib/app}`), the way `cp -r` or a
// Dockerfile's COPY would:
//
//   - a folder's contents are merged into the directory at guestPath,
//     which is made when missing (with the folder's mode) and keeps its
//     mode when it exists; symbolic links on the way, the last one
//     included, are followed inside the root (so /lib on a merged-/usr
//     image means /usr/lib); inside the folder, files replace what is at
//     their path and symbolic links are copied as links;
//   - a file goes to guestPath, replacing what is there, unless guestPath
//     ends in '/' or is a directory: then it goes into it under its own
//     name.
//
// hostPath itself may be a symbolic link (it is followed). Owners are not
// kept. On an error the FS may hold part of the copy.
func (f *FS) AddHostPath(hostPath, guestPath string) error {
	info, err := os.Stat(hostPath)
	if err != nil {
		return fmt.Errorf("add %s: %w", hostPath, err)
	}
	comps, err := f.clean(guestPath)
	if err != nil {
		return fmt.Errorf("add %s at %s: %w", hostPath, guestPath, err)
	}
	if info.IsDir() {
		if _, err := f.dir(f.rootStack(), comps, true, hostPerm(info.Mode())); err != nil {
			return fmt.Errorf("add %s at %s: %w", hostPath, guestPath, err)
		}
		if err := f.addTree(hostPath, guestPath, placeCopy); err != nil {
			return fmt.Errorf("add %s at %s: %w", hostPath, guestPath, err)
		}
		return nil
	}
	into := strings.HasSuffix(guestPath, "/") || len(comps) == 0
	if !into {
		if _, _, n, err := f.walk(f.rootStack(), comps, false, true); err == nil && n != nil && n.typ == TypeDir {
			into = true
		}
	}
	if into {
		comps = append(comps, filepath.Base(hostPath))
	}
	n, err := f.hostNode(hostPath, info)
	if err != nil {
		return fmt.Errorf("add %s at %s: %w", hostPath, guestPath, err)
	}
	st, err := f.dir(f.rootStack(), comps[:len(comps)-1], true, 0o755)
	if err == nil {
		err = f.place(st, comps[len(comps)-1], n, placeCopy)
	}
	if err != nil {
		return fmt.Errorf("add %s at %s: %w", hostPath, guestPath, err)
	}
	return nil
}

// loadFolder reads a host folder as a root filesystem.
func (f *FS) loadFolder(dir string) error {
	return f.addTree(dir, "/", placeLayer)
}

// addTree copies what is under the host folder dir (not dir itself) to
// the guest directory base, in WalkDir's (lexical) order.
func (f *FS) addTree(dir, base string, mode placeMode) error {
	return filepath.WalkDir(dir, func(hp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, hp)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n, err := f.hostNode(hp, info)
		if err != nil {
			return fmt.Errorf("%s: %w", hp, err)
		}
		comps, err := f.clean(path.Join(base, filepath.ToSlash(rel)))
		if err != nil {
			return fmt.Errorf("%s: %w", hp, err)
		}
		st, err := f.dir(f.rootStack(), comps[:len(comps)-1], true, 0o755)
		if err == nil {
			err = f.place(st, comps[len(comps)-1], n, mode)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", hp, err)
		}
		return nil
	})
}

// hostNode makes the node of a host file (not following a symbolic link)
// described by info.
func (f *FS) hostNode(hp string, info fs.FileInfo) (*node, error) {
	perm := hostPerm(info.Mode())
	switch t := info.Mode().Type(); {
	case t == 0:
		return f.readHostFile(hp, info.Size(), perm)
	case t == fs.ModeDir:
		return newDir(perm), nil
	case t == fs.ModeSymlink:
		target, err := os.Readlink(hp)
		if err != nil {
			return nil, err
		}
		if err := f.checkLink(target); err != nil {
			return nil, err
		}
		return &node{typ: TypeSymlink, perm: 0o777, link: target}, nil
	case t&fs.ModeDevice != 0:
		major, minor, ok := devNumber(info)
		if !ok {
			return nil, fmt.Errorf("a device whose number this host does not tell: %w", ErrUnsupported)
		}
		if err := checkDev(int64(major), int64(minor)); err != nil {
			return nil, err
		}
		n := &node{typ: TypeBlockDev, perm: perm, major: major, minor: minor}
		if t&fs.ModeCharDevice != 0 {
			n.typ = TypeCharDev
		}
		return n, nil
	default:
		return nil, fmt.Errorf("file mode %v (an initramfs holds files, directories, symbolic links and devices): %w", info.Mode(), ErrUnsupported)
	}
}

// readHostFile reads a regular host file of the size stat said, within
// the limits.
func (f *FS) readHostFile(hp string, size int64, perm uint32) (*node, error) {
	if size > f.lim.FileBytes {
		return nil, fmt.Errorf("%d bytes (at most %d a file): %w", size, f.lim.FileBytes, ErrTooLarge)
	}
	if f.bytes+size > f.lim.TotalBytes {
		return nil, fmt.Errorf("%d bytes make the files larger than %d bytes in all: %w", size, f.lim.TotalBytes, ErrTooLarge)
	}
	file, err := os.Open(hp)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("changed size while being read (%d bytes, then %d)", size, len(data))
	}
	return &node{typ: TypeFile, perm: perm, data: data}, nil
}

// hostPerm is the permission bits of a host mode, as in st_mode.
func hostPerm(m fs.FileMode) uint32 {
	p := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		p |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		p |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		p |= 0o1000
	}
	return p
}
