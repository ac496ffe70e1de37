package guestbuild

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"everett/internal/hosttool"
)

func TestBuildCachesTheELFUnderAKeyOfItsSources(t *testing.T) {
	t.Setenv("EVERETT_CACHE", t.TempDir())
	first := Build(t, "hello")
	st, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	second := Build(t, "hello")
	if first != second {
		t.Errorf("second build went to %s, want the cached %s", second, first)
	}
	st2, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("second build rewrote the cached ELF")
	}
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("\x7fELF")) {
		t.Errorf("%s is not an ELF file", first)
	}
}

func TestCompileReportsAMissingCompiler(t *testing.T) {
	t.Setenv("EVERETT_CACHE", t.TempDir())
	s, err := Program("hello")
	if err != nil {
		t.Fatal(err)
	}
	s.CC = "riscv64-no-such-compiler-gcc"
	if _, err := Compile(s); !errors.Is(err, ErrNoCompiler) {
		t.Fatalf("Compile with a missing compiler: %v, want ErrNoCompiler", err)
	}
}

// A guest program is an input of every universe that runs it (its bytes
// reach the initramfs, and so the boot), so the same sources must build
// the same bytes wherever the clone is: a CI runner's paths are not a
// developer's.
func TestTheSameSourcesBuildTheSameBytesFromAnyFolder(t *testing.T) {
	const src = "#include <assert.h>\nint main(int argc, char **argv) { (void)argv; assert(argc == 1); return 0; }\n"
	var elfs [2][]byte
	for i, where := range []string{"a/prog", "somewhere/else/entirely/prog"} {
		dir := filepath.Join(t.TempDir(), where)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("EVERETT_CACHE", t.TempDir()) // no sharing through the cache
		out, err := Compile(Spec{Name: "where", CC: LinuxCC, Flags: []string{"-static", "-O2", "-g"}, Dirs: []string{dir}})
		if errors.Is(err, ErrNoCompiler) {
			hosttool.Missing(t, LinuxCC, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if elfs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(elfs[0], elfs[1]) {
		t.Fatalf("one program built from two folders differs (%d and %d bytes): a path reached the ELF", len(elfs[0]), len(elfs[1]))
	}
}
