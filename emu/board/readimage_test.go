package board

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestALargeImageReadsAsItsFileWithItsZeroPagesLeftUnwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "disk.img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(sparseImageBytes + 3*4096 + 100) // a partial last page
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 4095, 1 << 20, sparseImageBytes - 1, size - 1} {
		if _, err := f.WriteAt([]byte{byte(off) | 1}, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	im, err := NewImage(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(im.Data, want) {
		t.Fatal("the image's bytes differ from the file's")
	}
	if im.SHA256 != sha256Hex(want) {
		t.Fatalf("hash %s, want %s", im.SHA256, sha256Hex(want))
	}
}
