package hostfile

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func TestReadReadsFilesOfEverySizeWhole(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 4096, HugeBytes - 1, HugeBytes, 5<<20 + 123} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.Uint32())
		}
		path := filepath.Join(dir, "image")
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, read := range []func(string) ([]byte, error){Read, ReadOnce} {
			got, err := read(path)
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
	}
	if _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing file read without an error")
	}
}

func TestALargeFileReadsAsItIsWithItsZeroPagesLeftUnwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "disk.img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(SparseBytes + 3*4096 + 100) // a partial last page
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 4095, 1 << 20, SparseBytes - 1, size - 1} {
		if _, err := f.WriteAt([]byte{byte(off) | 1}, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	resident, ok := residentPages(got)
	if !bytes.Equal(got, want) {
		t.Fatal("the image's bytes differ from the file's")
	}
	if ok && resident > 16 {
		t.Errorf("%d pages of the image were written; its file has 5 that are not all zero", resident)
	}
	t.Logf("%d of %d pages written", resident, len(got)/4096)
	got[len(got)-1]++ // the image is the caller's to write
}
