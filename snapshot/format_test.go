package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/guestbuild"
)

// Tests of the file format on a small bare-metal machine: the SMP test
// program on 4 harts (a file of a few KiB).

const (
	bareRAM   = 16 << 20
	bareHarts = 4
	bareMax   = 100_000_000
)

// bareSpec returns the spec of the SMP program's machine, its ELF copied to
// a private folder (so that tests may change it).
func bareSpec(t testing.TB) *board.Spec {
	t.Helper()
	src := guestbuild.Build(t, "smp")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "smp.elf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := board.NewImage(p)
	if err != nil {
		t.Fatal(err)
	}
	return &board.Spec{Board: board.BoardBareMetal, Harts: bareHarts, RAMBytes: bareRAM, Seed: 1, ELF: im}
}

func build(t testing.TB, s *board.Spec) *board.Built {
	t.Helper()
	m, err := board.Build(s, board.BuildOptions{Console: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type end struct {
	reason emu.StopReason
	icount uint64
	hash   uint64
}

func runToEnd(m *board.Built) end {
	r := m.Run(bareMax)
	return end{r, m.ICount(), m.StateHash()}
}

// saved runs the program to k instructions and saves a full snapshot; it
// returns the file's path and bytes.
func saved(t testing.TB, s *board.Spec, k uint64) (string, []byte) {
	t.Helper()
	m := build(t, s)
	if r := m.Run(k); r != emu.StopLimit {
		t.Fatalf("stopped with %v before %d", r, k)
	}
	p := filepath.Join(t.TempDir(), "a.snap")
	if _, err := Write(p, s, m.Snapshot(), nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

func TestAFileRestoresToTheStraightRun(t *testing.T) {
	s := bareSpec(t)
	want := runToEnd(build(t, s))
	if want.reason != emu.StopPowerOff {
		t.Fatalf("the program stopped with %v", want.reason)
	}
	for _, k := range []uint64{1, 1000, 33_333, want.icount / 2, want.icount - 1} {
		m := build(t, s)
		m.Run(k)
		snap := m.Snapshot()
		p := filepath.Join(t.TempDir(), "k.snap")
		if _, err := Write(p, s, snap, nil); err != nil {
			t.Fatal(err)
		}
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Snap.Equal(snap) {
			t.Fatalf("k=%d: the loaded snapshot differs from the saved one", k)
		}
		c, err := f.Restore(board.BuildOptions{}, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := runToEnd(c); got != want {
			t.Fatalf("k=%d: restored run ends %+v, straight run %+v", k, got, want)
		}
	}
}

func TestAnIncrementalFileHoldsOnlyChangedPagesAndRestoresExactly(t *testing.T) {
	s := bareSpec(t)
	want := runToEnd(build(t, s))
	dir := t.TempDir()
	m := build(t, s)
	m.Run(want.icount / 3)
	full, err := Write(filepath.Join(dir, "full.snap"), s, m.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Run(want.icount / 2)
	mid, err := Write(filepath.Join(dir, "mid.snap"), s, m.Snapshot(), full)
	if err != nil {
		t.Fatal(err)
	}
	m.Run(2 * want.icount / 3)
	last, err := Write(filepath.Join(dir, "last.snap"), s, m.Snapshot(), mid)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(last.Path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Parent == nil || f.Parent.Parent == nil || f.Parent.Parent.Parent != nil {
		t.Fatal("want a chain of three files")
	}
	if f.DataPages+f.ZeroPages >= f.Parent.Parent.DataPages {
		t.Errorf("the incremental file records %d pages, the full one %d", f.DataPages+f.ZeroPages, f.Parent.Parent.DataPages)
	}
	if !f.Snap.Equal(last.Snap) {
		t.Fatal("the loaded chain differs from the saved snapshot")
	}
	c, err := f.Restore(board.BuildOptions{}, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := runToEnd(c); got != want {
		t.Fatalf("restored from the chain: %+v, straight run %+v", got, want)
	}
}

func TestAPageZeroedSinceTheParentIsRecorded(t *testing.T) {
	s := bareSpec(t)
	m := build(t, s)
	m.Run(1000)
	dir := t.TempDir()
	parent, err := Write(filepath.Join(dir, "p.snap"), s, m.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Zero a page the program wrote.
	var pn uint64
	parent.Snap.Pages(func(p emu.Page) { pn = p.N })
	if err := m.WritePhys(m.RAM.Base+pn*emu.PageBytes, make([]byte, emu.PageBytes)); err != nil {
		t.Fatal(err)
	}
	child, err := Write(filepath.Join(dir, "c.snap"), s, m.Snapshot(), parent)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(child.Path)
	if err != nil {
		t.Fatal(err)
	}
	if f.ZeroPages != 1 || !f.Snap.Equal(child.Snap) {
		t.Fatalf("%d zero pages recorded; equal: %v", f.ZeroPages, f.Snap.Equal(child.Snap))
	}
}

func TestFlippingAnyBitIsDetected(t *testing.T) {
	_, b := saved(t, bareSpec(t), 20_000)
	t.Logf("file of %d bytes", len(b))
	for i := range b {
		for bit := 0; bit < 8; bit++ {
			b[i] ^= 1 << bit
			if err := Check(b); err == nil {
				t.Fatalf("flipping bit %d of byte %d went undetected", bit, i)
			}
			b[i] ^= 1 << bit
		}
	}
	if err := Check(b); err != nil {
		t.Fatal(err)
	}
}

func TestEveryTruncationSaysTruncated(t *testing.T) {
	_, b := saved(t, bareSpec(t), 20_000)
	for n := 0; n < len(b); n++ {
		if err := Check(b[:n]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("%d of %d bytes: %v, want ErrTruncated", n, len(b), err)
		}
	}
}

// resum rewrites the checksum after a deliberate change, so that the change
// is what a decoder sees.
func resum(b []byte) {
	body := b[:len(b)-trailerBytes]
	sum := sha256.Sum256(body)
	copy(b[len(body):], sum[:])
}

func TestLoadErrorsSayWhatIsWrong(t *testing.T) {
	s := bareSpec(t)
	p, good := saved(t, s, 20_000)
	dir := filepath.Dir(p)
	write := func(name string, b []byte) string {
		q := filepath.Join(dir, name)
		if err := os.WriteFile(q, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return q
	}
	edit := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
		msg  string
	}{
		{"a flipped page byte is corruption", edit(func(b []byte) { b[len(b)/2] ^= 0x40 }), ErrCorrupt, "checksum"},
		{"a truncated file", good[:len(good)-100], ErrTruncated, "truncated"},
		{"an empty file", nil, ErrTruncated, "truncated"},
		{"trailing bytes", append(bytes.Clone(good), 0), ErrCorrupt, "follow"},
		{"another format version", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 9); resum(b) }), ErrVersion, "version 9"},
		{"a snapshot from before ASIDs says why", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 4); resum(b) }), ErrVersion, "TLB entries per ASID"},
		{"another architecture", edit(func(b []byte) { copy(b[16:24], "rv32gc\x00\x00"); resum(b) }), ErrArch, `"rv32gc"`},
		{"not a snapshot", []byte("#!/bin/sh\necho hello\n"), ErrNotSnapshot, "not an everett snapshot"},
		{"a wrong configuration hash", edit(func(b []byte) { b[40] ^= 1; resum(b) }), ErrCorrupt, "configuration hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := write(strings.ReplaceAll(tc.name, " ", "-"), tc.b)
			_, err := Load(q)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Load: %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), q) {
				t.Fatalf("message %q does not name the file and %q", err, tc.msg)
			}
		})
	}

	t.Run("a changed image", func(t *testing.T) {
		if err := os.WriteFile(s.ELF.Path, append(bytes.Clone(s.ELF.Data), 0), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(s.ELF.Path, s.ELF.Data, 0o644)
		_, err := Load(p)
		if !errors.Is(err, ErrWrongImage) || !errors.Is(err, board.ErrImageChanged) || !strings.Contains(err.Error(), "elf") {
			t.Fatalf("Load: %v, want ErrWrongImage naming the elf image", err)
		}
		if _, err := LoadWith(p, LoadOptions{SkipImages: true}); err != nil {
			t.Fatalf("without images: %v", err)
		}
	})
}

func TestAnIncrementalFileRefusesAParentItWasNotMadeFrom(t *testing.T) {
	s := bareSpec(t)
	dir := t.TempDir()
	m := build(t, s)
	m.Run(10_000)
	parent, err := Write(filepath.Join(dir, "parent.snap"), s, m.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Run(20_000)
	other, err := Write(filepath.Join(dir, "other.snap"), s, m.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Run(30_000)
	child, err := Write(filepath.Join(dir, "child.snap"), s, m.Snapshot(), parent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(child.Path); err != nil {
		t.Fatal(err)
	}

	// Another file in the parent's place.
	keep, _ := os.ReadFile(parent.Path)
	ob, _ := os.ReadFile(other.Path)
	os.WriteFile(parent.Path, ob, 0o644)
	_, err = Load(child.Path)
	if !errors.Is(err, ErrParent) || !strings.Contains(err.Error(), "made from a parent with checksum") {
		t.Fatalf("Load with a swapped parent: %v", err)
	}

	// No parent at all.
	os.Remove(parent.Path)
	_, err = Load(child.Path)
	if !errors.Is(err, ErrParent) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Load without the parent: %v", err)
	}

	// A corrupted parent.
	keep[len(keep)/2] ^= 1
	os.WriteFile(parent.Path, keep, 0o644)
	_, err = Load(child.Path)
	if !errors.Is(err, ErrParent) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load with a corrupted parent: %v", err)
	}
}

func TestTheParentIsFoundWhenBothFilesMoveTogether(t *testing.T) {
	s := bareSpec(t)
	dir := t.TempDir()
	m := build(t, s)
	m.Run(10_000)
	parent, err := Write(filepath.Join(dir, "parent.snap"), s, m.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Run(20_000)
	child, err := Write(filepath.Join(dir, "child.snap"), s, m.Snapshot(), parent)
	if err != nil {
		t.Fatal(err)
	}
	moved := t.TempDir()
	for _, p := range []string{parent.Path, child.Path} {
		if err := os.Rename(p, filepath.Join(moved, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(filepath.Join(moved, "child.snap")); err != nil {
		t.Fatal(err)
	}
}

// failingWriter fails once n bytes have gone through.
type failingWriter struct {
	w io.Writer
	n int
}

var errDiskFull = errors.New("no space left on device (simulated)")

func (f *failingWriter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		k, _ := f.w.Write(b[:f.n])
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(b)
	return f.w.Write(b)
}

func TestAFailedWriteLeavesTheOldFileIntact(t *testing.T) {
	s := bareSpec(t)
	p, good := saved(t, s, 20_000)
	m := build(t, s)
	m.Run(50_000)
	snap := m.Snapshot()
	for _, n := range []int{0, 10, headerBytes + 5, len(good) / 2, len(good) - 1} {
		testHookWriter = func(w io.Writer) io.Writer { return &failingWriter{w: w, n: n} }
		_, err := Write(p, s, snap, nil)
		testHookWriter = nil
		if !errors.Is(err, errDiskFull) {
			t.Fatalf("failing after %d bytes: Write returned %v", n, err)
		}
		now, _ := os.ReadFile(p)
		if !bytes.Equal(now, good) {
			t.Fatalf("failing after %d bytes: the old file changed", n)
		}
		if _, err := Load(p); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(filepath.Dir(p))
		if len(ents) != 1 {
			t.Fatalf("failing after %d bytes left %d files behind", n, len(ents)-1)
		}
	}
	// And a write that succeeds replaces it.
	if _, err := Write(p, s, snap, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil || f.Snap.ICount != 50_000 {
		t.Fatalf("after a good write: %v", err)
	}
}

func TestAWriteIntoAMissingFolderFailsCleanly(t *testing.T) {
	s := bareSpec(t)
	m := build(t, s)
	m.Run(100)
	if _, err := Write(filepath.Join(t.TempDir(), "nope", "a.snap"), s, m.Snapshot(), nil); err == nil {
		t.Fatal("Write into a missing folder succeeded")
	}
}

func TestAnIncrementalFileOnAnUnrelatedParentStillLoadsExactly(t *testing.T) {
	s := bareSpec(t)
	dir := t.TempDir()
	a := build(t, s)
	a.Run(80_000)
	// A page the program never writes: the child lacks it, and must read
	// it as zero, not as the parent's.
	if err := a.WritePhys(a.RAM.Base+8<<20, []byte{1}); err != nil {
		t.Fatal(err)
	}
	parent, err := Write(filepath.Join(dir, "p.snap"), s, a.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := build(t, s) // another machine: its pages are not the parent's
	b.Run(100)
	snap := b.Snapshot()
	if _, err := Write(filepath.Join(dir, "c.snap"), s, snap, parent); !errors.Is(err, ErrParent) {
		t.Fatalf("an incremental file on a parent taken later: %v", err)
	}
	b.Run(90_000)
	snap = b.Snapshot()
	child, err := Write(filepath.Join(dir, "c.snap"), s, snap, parent)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(child.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Snap.Equal(snap) || f.ZeroPages == 0 {
		t.Fatalf("the loaded snapshot differs from the saved one (%d zero pages recorded)", f.ZeroPages)
	}
}

func TestWriteReportsWhatLoadFinds(t *testing.T) {
	s := bareSpec(t)
	m := build(t, s)
	m.Run(20_000)
	w, err := Write(filepath.Join(t.TempDir(), "a.snap"), s, m.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(w.Path)
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != f.ID || w.ConfigHash != f.ConfigHash || w.Bytes != f.Bytes || w.DataPages != f.DataPages ||
		w.ZeroPages != f.ZeroPages || w.StateBytes != f.StateBytes || w.PageBytes != f.PageBytes {
		t.Fatalf("Write: %+v\nLoad: %+v", w, f)
	}
}
