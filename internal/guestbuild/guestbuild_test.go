package guestbuild

import (
	"bytes"
	"errors"
	"os"
	"testing"
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
