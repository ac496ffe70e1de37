package board

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"everett/internal/hostfile"
)

// A large image loaded twice in a process is read and hashed once (the
// loads share its bytes); a file changed since (another size or another
// modification time) is read again, and a load that expects the old
// content says the image changed.
func TestImageLoadsShareAnUnchangedFileAndSeeAChangedOne(t *testing.T) {
	p := filepath.Join(t.TempDir(), "disk.img")
	old := bytes.Repeat([]byte{1}, hostfile.LoadMinBytes)
	if err := os.WriteFile(p, old, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := NewImage(p)
	if err != nil {
		t.Fatal(err)
	}
	b := &Image{Path: p, SHA256: a.SHA256}
	c := &Image{Path: p, SHA256: a.SHA256}
	if err := b.Load(); err != nil {
		t.Fatal(err)
	}
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Data, old) || &b.Data[0] != &c.Data[0] {
		t.Fatalf("two loads of an unchanged file: equal to the file %v, the same bytes %v", bytes.Equal(b.Data, old), &b.Data[0] == &c.Data[0])
	}

	// The same size, other content, another modification time.
	changed := bytes.Repeat([]byte{2}, hostfile.LoadMinBytes)
	if err := os.WriteFile(p, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	d := &Image{Path: p, SHA256: a.SHA256}
	if err := d.Load(); !errors.Is(err, ErrImageChanged) {
		t.Fatalf("load of a changed file that expects the old content: %v, want ErrImageChanged", err)
	}
	e := &Image{Path: p}
	if err := e.Load(); err != nil || !bytes.Equal(e.Data, changed) {
		t.Fatalf("load of the changed file: %v, its content read again %v", err, bytes.Equal(e.Data, changed))
	}

	// Another size.
	if err := os.WriteFile(p, old[:len(old)-512], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	f := &Image{Path: p}
	if err := f.Load(); err != nil || len(f.Data) != len(old)-512 {
		t.Fatalf("load of the shorter file: %v, %d bytes", err, len(f.Data))
	}
}
