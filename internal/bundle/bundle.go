// Package bundle builds the guest images everett brings with it — the
// Linux kernel and everett's own init — on first use, from the recipes
// embedded in the binary (package guestimages), and caches them outside
// any clone: $EVERETT_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/everett),
// keyed by their inputs, exactly where the repository's recipes put them
// (guest-images/linux/README.md, "The cache"). A second caller, in this
// process or another, waits for the first build and reuses it.
//
// This is host I/O before a universe starts: nothing here runs inside one.
package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	guestimages "everett/guest-images"
)

// ErrBuild is wrapped by the errors of a bundled image that could not be
// built.
var ErrBuild = errors.New("cannot build the bundled guest")

// CacheRoot returns the cache folder: $EVERETT_CACHE, else
// $XDG_CACHE_HOME/everett, else ~/.cache/everett.
func CacheRoot() string {
	if d := os.Getenv("EVERETT_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "everett")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "everett-cache")
	}
	return filepath.Join(home, ".cache", "everett")
}

// Progress receives a line for a person when a build starts and ends (nil:
// silent).
type Progress func(format string, args ...any)

// Kernel returns the path of the bundled kernel's Image, building it first
// when the cache lacks it (10 to 20 minutes on two cores; the recipe
// installs the Debian packages it needs). It runs the embedded copy of
// guest-images/linux/build-kernel.sh, which keys the cache by the
// linux-source version and the recipe's bytes: the Image is the one
// `make guest-images` builds.
func Kernel(progress Progress) (string, error) {
	dir, err := os.MkdirTemp("", "everett-kernel-recipe-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	defer os.RemoveAll(dir)
	if err := writeTree(guestimages.Kernel, "linux", dir); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	script := filepath.Join(dir, "build-kernel.sh")
	// A cached Image answers at once; say so only when it builds.
	start := time.Now()
	cmd := exec.Command("sh", script)
	cmd.Env = append(os.Environ(), "EVERETT_CACHE="+CacheRoot())
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	w := io.Writer(&errb)
	if progress != nil {
		w = &firstLine{progress: progress, rest: &errb}
	}
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: kernel: %v\n%s", ErrBuild, err, tail(errb.String(), 20))
	}
	img := strings.TrimSpace(lastLine(out.String()))
	if _, err := os.Stat(img); err != nil {
		return "", fmt.Errorf("%w: kernel: the recipe printed %q, which is not a file", ErrBuild, img)
	}
	if fl, ok := w.(*firstLine); ok && fl.said {
		progress("everett: built the bundled Linux kernel in %s: %s", time.Since(start).Round(time.Second), img)
	}
	return img, nil
}

// firstLine passes the recipe's progress lines to a person (they say what
// is being built and how long it takes) and keeps everything for errors.
type firstLine struct {
	progress Progress
	rest     io.Writer
	said     bool
	line     []byte
}

func (f *firstLine) Write(p []byte) (int, error) {
	_, _ = f.rest.Write(p)
	for _, c := range p {
		if c != '\n' {
			f.line = append(f.line, c)
			continue
		}
		l := string(f.line)
		f.line = f.line[:0]
		if strings.HasPrefix(l, "build-kernel.sh: ") {
			f.said = true
			f.progress("everett: the bundled Linux kernel is not cached yet: %s", strings.TrimPrefix(l, "build-kernel.sh: "))
		}
	}
	return len(p), nil
}

// writeTree copies the files of fsys under root into dir (flat for
// root's own files, keeping sub-paths).
func writeTree(fsys fs.FS, root, dir string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o755)
	})
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}
