//go:build linux && amd64

package codearena

import (
	"os"
	"testing"
	"unsafe"
)

func TestSealedCodeRuns(t *testing.T) {
	a, err := Reserve(1<<20, os.Getpagesize())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if err := a.Open(0); err != nil {
		t.Fatal(err)
	}
	a.Place([]byte{0xcc}) // something before, so the code is not at offset 0
	// mov eax, 42; ret: under Go's register ABI an int result is in rax.
	off, ok := a.Place([]byte{0xb8, 42, 0, 0, 0, 0xc3})
	if !ok {
		t.Fatal("no room")
	}
	if err := a.Seal(); err != nil {
		t.Fatal(err)
	}
	// A func value points to a word holding the code's address.
	entry := a.Base() + off
	fv := &entry
	fn := *(*func() int)(unsafe.Pointer(&fv))
	if got := fn(); got != 42 {
		t.Fatalf("the sealed code returned %d, want 42", got)
	}
}
