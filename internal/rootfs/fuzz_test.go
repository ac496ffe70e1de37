package rootfs_test

import (
	"archive/tar"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"everett/internal/rootfs"
	"everett/internal/rootfs/rootfstest"
)

// sentinels are the errors every Load error of malformed input wraps.
var sentinels = []error{rootfs.ErrTooLarge, rootfs.ErrUnsupported, rootfs.ErrUnsafePath, rootfs.ErrNotDir, rootfs.ErrMalformed, rootfs.ErrPlatform}

// FuzzLoadTar feeds Load arbitrary files: it must not panic, every error
// must wrap one of the sentinel errors, and every FS it returns must make
// initramfs entries whose parents exist. The seeds reach every kind of
// archive: a root filesystem tar (plain and gzip), a `docker save` archive
// of a layered image with whiteouts, and an OCI layout packed in a tar.
func FuzzLoadTar(f *testing.F) {
	plain := mustTar(f, tarMembers...)
	f.Add(plain)
	f.Add(gz(f, plain))
	f.Add(mustTar(f,
		rootfstest.Symlink("a", "../b"), rootfstest.File("a/x", 0o644, "x"),
		rootfstest.Member{Name: "h", Type: tar.TypeLink, Link: "b/x"},
		rootfstest.File(".wh.h", 0o644, ""),
	))
	img, _ := layered(f)
	dir := f.TempDir()
	docker := filepath.Join(dir, "image.tar")
	if err := rootfstest.WriteDockerArchive(docker, img); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(docker)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	layout := filepath.Join(dir, "layout")
	if err := rootfstest.WriteImageLayout(layout, img); err != nil {
		f.Fatal(err)
	}
	f.Add(packDir(f, layout))

	lim := rootfs.Limits{Entries: 512, FileBytes: 1 << 16, TotalBytes: 1 << 20, PathBytes: 256, Members: 2048, Layers: 8, MetadataBytes: 1 << 16}
	p := filepath.Join(f.TempDir(), "in") // a worker runs one input at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fs, err := rootfs.LoadLimits(p, lim)
		if err != nil {
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		checkEntries(t, fs)
	})
}
