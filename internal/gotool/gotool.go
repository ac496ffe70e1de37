// Package gotool builds a Go command of a pinned module version from the Go
// module proxy into everett's cache, once: the tests that need a real S3
// server or a Kubernetes manifest validator use it. Nothing of those
// modules is vendored or committed, and they are not in everett's go.mod.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"everett/internal/bundle"
)

// Build returns the path of the command pkg (a package path inside module
// mod) built at version, building it into the cache
// (CacheRoot()/tools/MOD@VERSION/NAME) when it is not there. The build runs
// in a throwaway module so that everett's own go.mod is untouched.
func Build(mod, version, pkg string) (string, error) {
	name := filepath.Base(pkg)
	dir := filepath.Join(bundle.CacheRoot(), "tools", strings.ReplaceAll(mod, "/", "_")+"@"+version)
	bin := filepath.Join(dir, name)
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp("", "everett-gotool-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	run := func(args ...string) error {
		cmd := exec.Command("go", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, lastLine(out))
		}
		return nil
	}
	tmp := bin + ".tmp"
	if err := run("mod", "init", "everett-gotool"); err != nil {
		return "", err
	}
	if err := run("get", pkg+"@"+version); err != nil {
		return "", err
	}
	if err := run("build", "-o", tmp, pkg); err != nil {
		return "", err
	}
	return bin, os.Rename(tmp, bin)
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
