package rootfs

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// node is one entry of the tree; a directory's children are in kids.
type node struct {
	typ          Type
	perm         uint32
	data         []byte
	link         string
	major, minor uint32
	kids         map[string]*node
}

func newDir(perm uint32) *node {
	return &node{typ: TypeDir, perm: perm & 0o7777, kids: map[string]*node{}}
}

// file describes n as the File at path p.
func (n *node) file(p string) File {
	return File{Path: p, Type: n.typ, Perm: n.perm, Data: n.data, Link: n.link, Major: n.major, Minor: n.minor}
}

// copyOf is a new node with n's contents (a hard link's copy); n must not
// be a directory.
func (n *node) copyOf() *node {
	return &node{typ: n.typ, perm: n.perm, data: n.data, link: n.link, major: n.major, minor: n.minor}
}

// step is one directory of a path being resolved: its name in its parent
// and its node. A stack of steps starts at the root (name "").
type step struct {
	name string
	n    *node
}

func (f *FS) rootStack() []step { return []step{{"", f.root}} }

// stackPath is the absolute path of the directory on top of st.
func stackPath(st []step) string {
	if len(st) <= 1 {
		return "/"
	}
	var b strings.Builder
	for _, s := range st[1:] {
		b.WriteByte('/')
		b.WriteString(s.name)
	}
	return b.String()
}

// walk resolves comps from the directory on top of st. It follows the
// symbolic links of every component but the last, and of the last too
// when followLast, inside the root: an absolute target restarts at the
// root and ".." at the root stays there. With create, missing directories
// on the way are made (0755). It returns the stack of the directory that
// holds the last component, that component's name and its node (nil when
// missing). When the path ends in a directory named by ".", ".." or a
// trailing '/', the result is that directory with its parent's stack; the
// root is (nil, "", root).
func (f *FS) walk(st []step, comps []string, create, followLast bool) ([]step, string, *node, error) {
	st = slices.Clone(st)
	queue := slices.Clone(comps)
	hops := 0
	for len(queue) > 0 {
		f.steps++
		if f.steps > f.lim.ResolveSteps {
			return nil, "", nil, fmt.Errorf("%s: resolving paths took more than %d steps (symbolic links too long or too many): %w", stackPath(st), f.lim.ResolveSteps, ErrTooLarge)
		}
		c := queue[0]
		queue = queue[1:]
		last := len(queue) == 0
		switch c {
		case "", ".":
			if last {
				return f.top(st)
			}
			continue
		case "..":
			if len(st) > 1 {
				st = st[:len(st)-1]
			}
			if last {
				return f.top(st)
			}
			continue
		}
		dir := st[len(st)-1].n
		child := dir.kids[c]
		if last && (child == nil || child.typ != TypeSymlink || !followLast) {
			return st, c, child, nil
		}
		if child == nil {
			if !create {
				return nil, "", nil, fmt.Errorf("%s: %w", path.Join(stackPath(st), c), fs.ErrNotExist)
			}
			child = newDir(0o755)
			if err := f.insert(dir, c, child, path.Join(stackPath(st), c)); err != nil {
				return nil, "", nil, err
			}
		}
		switch child.typ {
		case TypeDir:
			st = append(st, step{c, child})
		case TypeSymlink:
			hops++
			if hops > f.lim.SymlinkHops {
				return nil, "", nil, fmt.Errorf("%s: more than %d levels of symbolic links: %w", path.Join(stackPath(st), c), f.lim.SymlinkHops, ErrTooLarge)
			}
			if strings.HasPrefix(child.link, "/") {
				st = st[:1]
			}
			queue = append(strings.Split(child.link, "/"), queue...)
		default:
			return nil, "", nil, fmt.Errorf("%s is a %v: %w", path.Join(stackPath(st), c), child.typ, ErrNotDir)
		}
	}
	return f.top(st)
}

// top is walk's result for the directory on top of st.
func (f *FS) top(st []step) ([]step, string, *node, error) {
	if len(st) <= 1 {
		return nil, "", f.root, nil
	}
	s := st[len(st)-1]
	return st[:len(st)-1], s.name, s.n, nil
}

// literal is the directory at comps, following no symbolic link; nil
// when there is none.
func (f *FS) literal(comps []string) *node {
	n := f.root
	for _, c := range comps {
		n = n.kids[c]
		if n == nil || n.typ != TypeDir {
			return nil
		}
	}
	return n
}

// dir resolves comps to a directory, following every symbolic link, and
// returns the stack that ends with it. With create, what is missing is
// made: the directory itself with perm, the ones on the way with 0755.
func (f *FS) dir(st []step, comps []string, create bool, perm uint32) ([]step, error) {
	pst, name, n, err := f.walk(st, comps, create, true)
	if err != nil {
		return nil, err
	}
	if n == f.root && name == "" {
		return f.rootStack(), nil
	}
	p := path.Join(stackPath(pst), name)
	if n == nil {
		if !create {
			return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
		}
		n = newDir(perm)
		if err := f.insert(pst[len(pst)-1].n, name, n, p); err != nil {
			return nil, err
		}
	}
	if n.typ != TypeDir {
		return nil, fmt.Errorf("%s is a %v: %w", p, n.typ, ErrNotDir)
	}
	return append(slices.Clip(pst), step{name, n}), nil
}

// placeMode says how place treats what is already at the path.
type placeMode uint8

const (
	// placeLayer is extraction (archives, images, Add): the new entry
	// replaces the old one with everything under it, except that a
	// directory over a directory only takes the new mode.
	placeLayer placeMode = iota
	// placeCopy is copying host files in (AddHostPath): as placeLayer,
	// but a directory over a directory keeps its mode, and over a
	// symbolic link it goes where the link leads.
	placeCopy
)

// place puts n (a new node, no children) at name in the directory on top
// of st.
func (f *FS) place(st []step, name string, n *node, mode placeMode) error {
	dir := st[len(st)-1].n
	old := dir.kids[name]
	if n.typ == TypeDir && old != nil {
		switch {
		case old.typ == TypeDir:
			if mode == placeLayer {
				old.perm = n.perm
			}
			return nil
		case old.typ == TypeSymlink && mode == placeCopy:
			_, err := f.dir(st, []string{name}, true, n.perm)
			return err
		}
	}
	if old != nil {
		f.drop(old)
		delete(dir.kids, name)
	}
	return f.insert(dir, name, n, path.Join(stackPath(st), name))
}

// insert adds n as the new child name of dir, at path p, within the
// limits.
func (f *FS) insert(dir *node, name string, n *node, p string) error {
	switch {
	case len(p)-1 > f.lim.PathBytes:
		return fmt.Errorf("%.64s...: path of %d bytes (at most %d): %w", p, len(p)-1, f.lim.PathBytes, ErrTooLarge)
	case len(name) > nameBytesMax:
		return fmt.Errorf("%s: name of %d bytes (at most %d): %w", p, len(name), nameBytesMax, ErrTooLarge)
	case f.entries >= f.lim.Entries:
		return fmt.Errorf("%s: more than %d entries: %w", p, f.lim.Entries, ErrTooLarge)
	case f.bytes+int64(len(n.data)) > f.lim.TotalBytes:
		return fmt.Errorf("%s: %d bytes make the files larger than %d bytes in all: %w", p, len(n.data), f.lim.TotalBytes, ErrTooLarge)
	}
	dir.kids[name] = n
	f.entries++
	f.bytes += int64(len(n.data))
	return nil
}

// drop takes n and everything under it out of the counts; the caller
// unlinks n.
func (f *FS) drop(n *node) {
	f.entries--
	f.bytes -= int64(len(n.data))
	for _, k := range n.kids {
		f.drop(k)
	}
}

// clear drops every child of dir (an opaque whiteout).
func (f *FS) clear(dir *node) {
	for _, k := range dir.kids {
		f.drop(k)
	}
	clear(dir.kids)
}
