package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func TestReadInputReadsFilesWhole(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 4096, hugeInput - 1, hugeInput, 5<<20 + 123} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.Uint32())
		}
		path := filepath.Join(dir, "image")
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readInput(path)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read %d bytes that differ from the file", n, len(got))
		}
		if len(got) > 0 {
			got[len(got)-1]++ // the image is the caller's to write
		}
	}
	if _, err := readInput(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing file read without an error")
	}
}
