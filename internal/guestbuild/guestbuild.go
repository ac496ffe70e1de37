// Package guestbuild compiles the guest programs under testdata/progs with
// a RISC-V cross compiler for tests, caching each ELF under a key that
// hashes the compiler, its flags and every source file, so that a rerun of
// the tests compiles nothing.
//
// The cache lives in $EVERETT_CACHE/progs when that is set, else in
// os.UserCacheDir()/everett/progs.
package guestbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Compilers and flags of the bare-metal programs.
const (
	// BareMetalCC builds the bare-metal programs (Debian package
	// gcc-riscv64-unknown-elf).
	BareMetalCC = "riscv64-unknown-elf-gcc"
	// LinuxCC builds static Linux riscv64 programs for qemu-riscv64-static
	// (Debian package gcc-riscv64-linux-gnu).
	LinuxCC = "riscv64-linux-gnu-gcc"
)

// BareMetalFlags are the flags of every bare-metal build: RV64GC, no libc,
// no start files, position-independent addressing within ±2 GiB of pc.
var BareMetalFlags = []string{
	"-march=rv64gc", "-mabi=lp64d", "-mcmodel=medany",
	"-nostdlib", "-nostartfiles", "-static", "-O2",
	"-ffreestanding", "-fno-builtin", "-fno-tree-loop-distribute-patterns",
	"-Wall", "-Werror", "-Wl,--no-warn-rwx-segments",
}

// Spec is one build: every .c and .S file of Dirs compiled and linked
// together into one ELF. Every directory is also an include directory.
type Spec struct {
	Name         string   // names the output file (for people reading the cache)
	CC           string   // compiler command; BareMetalCC when empty
	Flags        []string // compiler flags; BareMetalFlags when nil
	Dirs         []string // source directories
	LinkerScript string   // passed as -T when not empty
	Libs         []string // appended after the sources (e.g. -lgcc)
}

// ErrNoCompiler says the cross compiler is not installed.
var ErrNoCompiler = errors.New("cross compiler not installed (`make test` installs it through scripts/deps.sh)")

// ProgsDir returns the absolute path of testdata/progs, found from the
// working directory by walking up to the module root (the folder of
// go.mod).
func ProgsDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "progs"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("guestbuild: no go.mod above the working directory")
		}
		dir = parent
	}
}

// CacheDir returns the directory of cached ELF files, creating it.
func CacheDir() (string, error) {
	base := os.Getenv("EVERETT_CACHE")
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("guestbuild: no cache directory (set EVERETT_CACHE): %w", err)
		}
		base = filepath.Join(c, "everett")
	}
	dir := filepath.Join(base, "progs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("guestbuild: %w", err)
	}
	return dir, nil
}

// Program returns the spec of the bare-metal program testdata/progs/name:
// its sources plus the runtime in testdata/progs/rt, linked at 0x8000_0000.
func Program(name string) (Spec, error) {
	progs, err := ProgsDir()
	if err != nil {
		return Spec{}, err
	}
	rt := filepath.Join(progs, "rt")
	return Spec{
		Name:         name,
		Dirs:         []string{filepath.Join(progs, name), rt},
		LinkerScript: filepath.Join(rt, "link.ld"),
		Libs:         []string{"-lgcc"},
	}, nil
}

// Build compiles the bare-metal program testdata/progs/name with the
// runtime and returns the path of its ELF; it fails t when it cannot.
func Build(t testing.TB, name string) string {
	t.Helper()
	s, err := Program(name)
	if err != nil {
		t.Fatal(err)
	}
	return BuildSpec(t, s)
}

// BuildSpec builds s and returns the path of its ELF; it fails t when it
// cannot.
func BuildSpec(t testing.TB, s Spec) string {
	t.Helper()
	p, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	versionMu sync.Mutex
	versions  = map[string]string{}
)

// compilerID returns the resolved path and the version line of cc.
func compilerID(cc string) (string, error) {
	versionMu.Lock()
	defer versionMu.Unlock()
	if v, ok := versions[cc]; ok {
		return v, nil
	}
	path, err := exec.LookPath(cc)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cc, ErrNoCompiler)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", cc, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	v := path + "\n" + first
	versions[cc] = v
	return v, nil
}

// Compile builds s (or finds it in the cache) and returns the ELF's path.
func Compile(s Spec) (string, error) {
	cc := s.CC
	if cc == "" {
		cc = BareMetalCC
	}
	flags := s.Flags
	if flags == nil {
		flags = BareMetalFlags
	}
	id, err := compilerID(cc)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "guestbuild v2\n%s\n%q\n%q\n", id, flags, s.Libs)
	var sources []string
	for _, dir := range s.Dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", fmt.Errorf("guestbuild %s: %w", s.Name, err)
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() {
				continue
			}
			switch filepath.Ext(n) {
			case ".c", ".S", ".h", ".ld":
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(dir, n)
			data, err := os.ReadFile(p)
			if err != nil {
				return "", fmt.Errorf("guestbuild %s: %w", s.Name, err)
			}
			fmt.Fprintf(h, "file %s %d\n", filepath.Base(dir)+"/"+n, len(data))
			h.Write(data)
			if ext := filepath.Ext(n); ext == ".c" || ext == ".S" {
				sources = append(sources, p)
			}
		}
	}
	if len(sources) == 0 {
		return "", fmt.Errorf("guestbuild %s: no .c or .S sources in %q", s.Name, s.Dirs)
	}
	if s.LinkerScript != "" {
		data, err := os.ReadFile(s.LinkerScript)
		if err != nil {
			return "", fmt.Errorf("guestbuild %s: %w", s.Name, err)
		}
		fmt.Fprintf(h, "ld %d\n", len(data))
		h.Write(data)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, fmt.Sprintf("%s-%s.elf", s.Name, hex.EncodeToString(h.Sum(nil))[:24]))
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	tmp, err := os.CreateTemp(cache, s.Name+"-*.tmp")
	if err != nil {
		return "", fmt.Errorf("guestbuild %s: %w", s.Name, err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	args := append([]string{}, flags...)
	for _, dir := range s.Dirs {
		// The program must not depend on where the clone is: its
		// folders' paths reach __FILE__ (assert's messages) and the
		// debug information, and so the initramfs and every universe.
		args = append(args, "-I", dir, "-ffile-prefix-map="+dir+"="+filepath.Base(dir))
	}
	if s.LinkerScript != "" {
		args = append(args, "-T", s.LinkerScript)
	}
	args = append(args, sources...)
	args = append(args, s.Libs...)
	args = append(args, "-o", tmp.Name())
	cmd := exec.Command(cc, args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("guestbuild %s: %s %s: %w\n%s", s.Name, cc, strings.Join(args, " "), err, msg)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", fmt.Errorf("guestbuild %s: %w", s.Name, err)
	}
	return out, nil
}
