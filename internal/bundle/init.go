package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	guestimages "everett/guest-images"
)

// Init returns the path of everett's own init (guest-images/init) built
// for linux/riscv64, building it first when the cache lacks it: with the
// host's Go toolchain (the one everett itself is built with), from the
// sources embedded in the binary, in a module of their own. The cache key
// hashes those sources and `go version`; the build is reproducible
// (-trimpath, no build id, no VCS stamp), so the same key is the same
// bytes on every machine.
func Init(progress Progress) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w: init: everett builds its init for the guest with the Go toolchain on first use, and `go` is not on PATH", ErrBuild)
	}
	ver, err := exec.Command(goBin, "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("%w: init: go env GOVERSION: %v", ErrBuild, err)
	}
	files, err := initSources()
	if err != nil {
		return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "go %s\n", strings.TrimSpace(string(ver)))
	for _, f := range files {
		fmt.Fprintf(h, "file %s %d\n", f.path, len(f.data))
		h.Write(f.data)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(CacheRoot(), "init", key)
	out := filepath.Join(dir, "init")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil {
		return out, nil // another process built it while we waited
	}
	start := time.Now()
	if progress != nil {
		progress("everett: building everett's init for the guest (first use; about 10 s)")
	}
	src, err := os.MkdirTemp(dir, "src-")
	if err != nil {
		return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
	}
	defer os.RemoveAll(src)
	files = append(files, srcFile{"go.mod", []byte("module everett\n\ngo 1.26\n")})
	for _, f := range files {
		p := filepath.Join(src, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
		}
	}
	tmp := filepath.Join(dir, "init.tmp")
	cmd := exec.Command(goBin, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", tmp, "./guest-images/init")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=riscv64", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: init: go build: %v\n%s", ErrBuild, err, tail(stderr.String(), 20))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("%w: init: %v", ErrBuild, err)
	}
	if progress != nil {
		progress("everett: built everett's init in %s: %s", time.Since(start).Round(100*time.Millisecond), out)
	}
	return out, nil
}

// srcFile is one embedded source file, by its path in the repository.
type srcFile struct {
	path string
	data []byte
}

// initSources lists the init's embedded sources in path order (tests
// excluded: they are not embedded).
func initSources() ([]srcFile, error) {
	var out []srcFile
	err := fs.WalkDir(guestimages.Init, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := fs.ReadFile(guestimages.Init, p)
		if err != nil {
			return err
		}
		out = append(out, srcFile{"guest-images/" + p, b})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, err
}
