package bundle

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheCacheRootFollowsEVERETT_CACHEThenXDG_CACHE_HOME(t *testing.T) {
	t.Setenv("EVERETT_CACHE", "/a/b")
	t.Setenv("XDG_CACHE_HOME", "/x")
	if got := CacheRoot(); got != "/a/b" {
		t.Fatalf("CacheRoot() = %q with EVERETT_CACHE set", got)
	}
	t.Setenv("EVERETT_CACHE", "")
	if got := CacheRoot(); got != "/x/everett" {
		t.Fatalf("CacheRoot() = %q with XDG_CACHE_HOME set", got)
	}
}

func TestTheInitIsBuiltOnceForRISCVLinuxAndThenTakenFromTheCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the init with the Go toolchain")
	}
	t.Setenv("EVERETT_CACHE", t.TempDir())
	var said []string
	progress := func(format string, a ...any) { said = append(said, format) }
	p, err := Init(progress)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_RISCV || f.Class != elf.ELFCLASS64 || f.Progs[0].Type == elf.PT_INTERP {
		t.Fatalf("%s: %v %v, want a static 64-bit RISC-V program", p, f.Class, f.Machine)
	}
	if len(said) != 2 {
		t.Fatalf("the first build said %q, want a line before and after", said)
	}
	said = nil
	again, err := Init(progress)
	if err != nil || again != p || len(said) != 0 {
		t.Fatalf("the second call: %q, %v, said %q; want %q from the cache, silently", again, err, said, p)
	}
	if !strings.HasPrefix(p, filepath.Join(os.Getenv("EVERETT_CACHE"), "init")+"/") {
		t.Fatalf("%s is not in the cache", p)
	}
}

func TestTheInitNeedsTheGoToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := Init(nil); !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), "`go` is not on PATH") {
		t.Fatalf("error %v, want ErrBuild naming the missing go", err)
	}
}
