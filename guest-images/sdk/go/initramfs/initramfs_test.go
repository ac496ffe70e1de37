package initramfs_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/hosttool"
)

func TestArchivesAreByteIdenticalForTheSameEntries(t *testing.T) {
	var a, b bytes.Buffer
	if err := initramfs.WriteGzip(&a, initramfs.Init([]byte("#!/bin/sh\n"))); err != nil {
		t.Fatal(err)
	}
	if err := initramfs.WriteGzip(&b, initramfs.Init([]byte("#!/bin/sh\n"))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two archives of the same entries differ")
	}
}

func TestTheNewcLayoutAlignsNamesAndDataToFourBytes(t *testing.T) {
	var buf bytes.Buffer
	if err := initramfs.Write(&buf, []initramfs.Entry{initramfs.File("/ab", 0o644, []byte("xyz"))}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// 110-byte header + "ab\0" = 113, padded to 116; 3 data bytes padded to 4.
	if !strings.HasPrefix(out, "070701") || out[110:113] != "ab\x00" || out[116:119] != "xyz" {
		t.Fatalf("unexpected layout: %q", out[:128])
	}
	if fields := out[6:110]; fields[6*8:7*8] != "00000003" || fields[11*8:12*8] != "00000003" {
		t.Fatalf("filesize/namesize fields: %q", fields)
	}
	if !strings.Contains(out[120:], "TRAILER!!!\x00") || buf.Len()%4 != 0 {
		t.Fatalf("no trailer or unaligned end (%d bytes)", buf.Len())
	}
}

func TestBadEntriesAreRejected(t *testing.T) {
	for _, e := range []initramfs.Entry{
		{Name: "", Mode: 0o100644},
		{Name: "x", Mode: 0o644},
		{Name: "d", Mode: 0o040755, Data: []byte("x")},
		{Name: "a\x00b", Mode: 0o100644},
	} {
		if err := initramfs.Write(io.Discard, []initramfs.Entry{e}); !errors.Is(err, initramfs.ErrBadEntry) {
			t.Errorf("entry %+v: error %v, want ErrBadEntry", e, err)
		}
	}
}

// TestCpioReadsTheArchive checks the format against GNU cpio when it is
// installed.
func TestCpioReadsTheArchive(t *testing.T) {
	cpio := hosttool.Need(t, "cpio")
	var buf bytes.Buffer
	entries := append(initramfs.Init([]byte("hello")), initramfs.Symlink("bin/sh", "/init"), initramfs.Dir("bin", 0o755))
	if err := initramfs.WriteGzip(&buf, entries); err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cpio, "-t", "-v", "--quiet")
	cmd.Stdin = z
	cmd.Dir = filepath.Clean(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cpio -t: %v", err)
	}
	for _, want := range []string{"crw-------", "dev/console", "-rwxr-xr-x", "init", "lrwxrwxrwx", "bin/sh -> /init", "drwxrwxrwt", "tmp"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("cpio -t output lacks %q:\n%s", want, out)
		}
	}
}
