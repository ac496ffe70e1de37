package rootfs_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"everett/internal/rootfs"
	"everett/internal/rootfs/rootfstest"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func layer(t testing.TB, members ...rootfstest.Member) v1.Layer {
	t.Helper()
	l, err := rootfstest.Layer(members...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func image(t testing.TB, platform string, cfg rootfs.ImageConfig, layers ...v1.Layer) v1.Image {
	t.Helper()
	img, err := rootfstest.Image(platform, cfg, layers...)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func index(t testing.TB, images ...v1.Image) v1.ImageIndex {
	t.Helper()
	idx, err := rootfstest.Index(images...)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// packDir packs the folder dir as a tar archive, names relative to it.
func packDir(t testing.TB, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			_, err = tw.Write(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var appConfig = rootfs.ImageConfig{
	Entrypoint: []string{"/usr/bin/app"},
	Cmd:        []string{"--port", "2379"},
	Env:        []string{"PATH=/usr/local/bin:/usr/bin", "MODE=test"},
	WorkingDir: "/srv",
	User:       "1000:1000",
}

func appImage(t testing.TB) v1.Image {
	return image(t, "linux/riscv64", appConfig, layer(t,
		rootfstest.Dir("usr/"), rootfstest.Dir("usr/bin/"),
		rootfstest.File("usr/bin/app", 0o755, "\x7fELF static riscv64 program"),
		rootfstest.Symlink("bin", "usr/bin"),
		rootfstest.Member{Name: "srv/", Type: tar.TypeDir, Mode: 0o750},
	))
}

var appListing = []string{
	"l /bin -> usr/bin",
	"d 0750 /srv",
	"d 0755 /usr",
	"d 0755 /usr/bin",
	"f 0755 /usr/bin/app =\x7fELF static riscv64 program",
}

func TestAnOCIImageLoadsFromEveryFormItComesIn(t *testing.T) {
	img := appImage(t)
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, dir string) string
	}{
		{"an OCI image layout folder whose index gives no platform", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "layout")
			if err := rootfstest.WriteImageLayout(p, img); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"an OCI image layout folder whose index gives the platform", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "layout")
			if err := rootfstest.WriteLayout(p, index(t, img)); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"an OCI image layout folder with an index inside its index", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "layout")
			outer := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{Add: index(t, img)})
			if err := rootfstest.WriteLayout(p, outer); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"a docker save archive", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "image.tar")
			if err := rootfstest.WriteDockerArchive(p, img); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"a gzip-compressed docker save archive", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "image.tar")
			if err := rootfstest.WriteDockerArchive(p, img); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return writeFile(t, filepath.Join(dir, "image.tar.gz"), gz(t, b))
		}},
		{"a docker save archive of uncompressed layers", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "image.tar")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := tarball.Write(name.MustParseReference("everett.test/app"), img, f); err != nil {
				t.Fatal(err)
			}
			return uncompressLayers(t, p)
		}},
		{"an OCI image layout packed in a tar", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "layout")
			if err := rootfstest.WriteLayout(p, index(t, img)); err != nil {
				t.Fatal(err)
			}
			return writeFile(t, filepath.Join(dir, "layout.tar"), packDir(t, p))
		}},
		{"an OCI image layout packed in a tar.gz", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "layout")
			if err := rootfstest.WriteImageLayout(p, img); err != nil {
				t.Fatal(err)
			}
			return writeFile(t, filepath.Join(dir, "layout.tgz"), gz(t, packDir(t, p)))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			p := tc.write(t, t.TempDir())
			f, err := rootfs.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			sameListing(t, f, appListing)
			if f.Config == nil {
				t.Fatal("no image configuration")
			}
			got := *f.Config
			if !slices.Equal(got.Entrypoint, appConfig.Entrypoint) || !slices.Equal(got.Cmd, appConfig.Cmd) ||
				!slices.Equal(got.Env, appConfig.Env) || got.WorkingDir != appConfig.WorkingDir || got.User != appConfig.User {
				t.Errorf("configuration %+v, want %+v", got, appConfig)
			}
			checkEntries(t, f)
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("Load left %d temporary files behind", len(left))
			}
		})
	}
}

// uncompressLayers rewrites a docker save archive with its layers
// decompressed (as older docker versions wrote them).
func uncompressLayers(t *testing.T, p string) string {
	t.Helper()
	in, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tr := tar.NewReader(bytes.NewReader(in))
	tw := tar.NewWriter(&out)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(h.Name, ".tar.gz") {
			if b, err = gunzip(b); err != nil {
				t.Fatal(err)
			}
			h.Size = int64(len(b))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, p+".uncompressed", out.Bytes())
}

// layered is an image of three layers with whiteouts, and the files the
// image-spec's "Whiteouts" section says it holds.
func layered(t testing.TB) (v1.Image, []string) {
	lower := layer(t,
		rootfstest.File("etc/a", 0o644, "a"), rootfstest.File("etc/b", 0o644, "b"),
		rootfstest.File("etc/sub/c", 0o644, "c"),
		rootfstest.File("opt/d/x", 0o644, "x"), rootfstest.File("opt/d/sub/y", 0o644, "y"),
		rootfstest.File("usr/bin/tool", 0o755, "tool"),
		rootfstest.File("var/keep", 0o644, "keep"),
		rootfstest.Symlink("lib", "usr/lib"), rootfstest.File("usr/lib/libc.so", 0o644, "libc"),
		rootfstest.Symlink("sbin", "usr/bin"),
	)
	upper := layer(t,
		rootfstest.File("etc/.wh.a", 0, ""),   // deletes a file
		rootfstest.File("etc/.wh.sub", 0, ""), // deletes a directory and what is in it
		rootfstest.File("etc/n", 0o644, "n"),  // a whiteout of the same layer does not touch it
		rootfstest.File("etc/.wh.n", 0, ""),
		rootfstest.Member{Name: "opt/d/", Type: tar.TypeDir, Mode: 0o700},
		rootfstest.File("opt/d/new", 0o644, "new"), // before the opaque marker, yet kept
		rootfstest.File("opt/d/.wh..wh..opq", 0, ""),
		rootfstest.File("var/.wh.missing", 0, ""),                                          // deletes nothing
		rootfstest.File("var/.wh..wh.plnk", 0, ""),                                         // aufs metadata: ignored
		rootfstest.Member{Name: "usr/bin/tool2", Type: tar.TypeLink, Link: "usr/bin/tool"}, // to a lower layer's file
		// A directory over a lower symbolic link, opaque: hides nothing
		// of where the link led.
		rootfstest.Dir("lib/"), rootfstest.File("lib/.wh..wh..opq", 0, ""), rootfstest.File("lib/libmine.so", 0o644, "mine"),
		// A whiteout through a lower symbolic link names no lower path.
		rootfstest.File("sbin/.wh.tool", 0, ""),
	)
	top := layer(t,
		rootfstest.File("etc/a", 0o600, "a again"),
	)
	return image(t, "linux/riscv64", rootfs.ImageConfig{Cmd: []string{"/usr/bin/tool"}}, lower, upper, top), []string{
		"d 0755 /etc",
		"f 0600 /etc/a =a again",
		"f 0644 /etc/b =b",
		"f 0644 /etc/n =n",
		"d 0755 /lib",
		"f 0644 /lib/libmine.so =mine",
		"d 0755 /opt",
		"d 0700 /opt/d",
		"f 0644 /opt/d/new =new",
		"l /sbin -> usr/bin",
		"d 0755 /usr",
		"d 0755 /usr/bin",
		"f 0755 /usr/bin/tool =tool",
		"f 0755 /usr/bin/tool2 =tool",
		"d 0755 /usr/lib",
		"f 0644 /usr/lib/libc.so =libc",
		"d 0755 /var",
		"f 0644 /var/keep =keep",
	}
}

func TestLayersApplyInOrderWithWhiteoutsAndOpaqueDirectories(t *testing.T) {
	img, want := layered(t)
	dir := filepath.Join(t.TempDir(), "layout")
	if err := rootfstest.WriteImageLayout(dir, img); err != nil {
		t.Fatal(err)
	}
	f, err := rootfs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, f, want)
	checkEntries(t, f)
}

// TestFlatteningAgreesWithMutateExtract checks the regular files of the
// flattened layered image against go-containerregistry's own flattening,
// an independent route.
func TestFlatteningAgreesWithMutateExtract(t *testing.T) {
	img, _ := layered(t)
	rc := mutate.Extract(img)
	defer rc.Close()
	theirs := map[string]string{}
	links := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			theirs["/"+path.Clean(h.Name)] = string(b)
		case tar.TypeLink:
			links["/"+path.Clean(h.Name)] = "/" + path.Clean(h.Linkname)
		}
	}
	for name, target := range links {
		theirs[name] = theirs[target]
	}
	dir := filepath.Join(t.TempDir(), "layout")
	if err := rootfstest.WriteImageLayout(dir, img); err != nil {
		t.Fatal(err)
	}
	f, err := rootfs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{}
	for _, x := range f.Files() {
		if x.Type == rootfs.TypeFile {
			ours[x.Path] = string(x.Data)
		}
	}
	if len(ours) != len(theirs) {
		t.Errorf("we hold %d files, mutate.Extract %d:\n ours   %v\n theirs %v", len(ours), len(theirs), ours, theirs)
	}
	for p, data := range theirs {
		if ours[p] != data {
			t.Errorf("%s: we hold %q, mutate.Extract %q", p, ours[p], data)
		}
	}
}

func TestAnIndexOfSeveralPlatformsYieldsItsRiscv64Image(t *testing.T) {
	amd := image(t, "linux/amd64", rootfs.ImageConfig{Cmd: []string{"amd64"}}, layer(t, rootfstest.File("arch", 0o644, "amd64")))
	arm := image(t, "linux/arm64/v8", rootfs.ImageConfig{Cmd: []string{"arm64"}}, layer(t, rootfstest.File("arch", 0o644, "arm64")))
	rv := image(t, "linux/riscv64", rootfs.ImageConfig{Cmd: []string{"riscv64"}}, layer(t, rootfstest.File("arch", 0o644, "riscv64")))
	for _, tc := range []struct {
		name   string
		images []v1.Image
	}{
		{"riscv64 after amd64", []v1.Image{amd, rv}},
		{"riscv64 first", []v1.Image{rv, arm, amd}},
		{"riscv64 listed twice", []v1.Image{amd, rv, rv}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "layout")
			if err := rootfstest.WriteLayout(dir, index(t, tc.images...)); err != nil {
				t.Fatal(err)
			}
			f, err := rootfs.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			sameListing(t, f, []string{"f 0644 /arch =riscv64"})
			if f.Config == nil || !slices.Equal(f.Config.Cmd, []string{"riscv64"}) {
				t.Errorf("configuration %+v, want the riscv64 image's", f.Config)
			}
		})
	}
}

func TestAnIndexWhoseOtherPlatformsAreNotInTheLayoutStillYieldsItsRiscv64Image(t *testing.T) {
	amd := image(t, "linux/amd64", rootfs.ImageConfig{}, layer(t, rootfstest.File("arch", 0o644, "amd64")))
	rv := image(t, "linux/riscv64", rootfs.ImageConfig{}, layer(t, rootfstest.File("arch", 0o644, "riscv64")))
	dir := filepath.Join(t.TempDir(), "layout")
	if err := rootfstest.WriteLayout(dir, index(t, amd, rv)); err != nil {
		t.Fatal(err)
	}
	// As `docker save --platform` leaves it: the index whole, one
	// platform's blobs.
	h, err := amd.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "blobs", h.Algorithm, h.Hex)); err != nil {
		t.Fatal(err)
	}
	f, err := rootfs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, f, []string{"f 0644 /arch =riscv64"})
}

func TestImagesForOtherPlatformsAreRefusedNamingThem(t *testing.T) {
	amd := image(t, "linux/amd64", rootfs.ImageConfig{}, layer(t, rootfstest.File("arch", 0o644, "amd64")))
	arm := image(t, "linux/arm64/v8", rootfs.ImageConfig{}, layer(t, rootfstest.File("arch", 0o644, "arm64")))
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, dir string) string
		names string
	}{
		{"an amd64 image in a layout", func(t *testing.T, dir string) string {
			if err := rootfstest.WriteImageLayout(dir, amd); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "platforms present: linux/amd64"},
		{"an amd64 image in a docker save archive", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "image.tar")
			if err := rootfstest.WriteDockerArchive(p, amd); err != nil {
				t.Fatal(err)
			}
			return p
		}, "the image is for linux/amd64, everett runs linux/riscv64"},
		{"an index of amd64 and arm64 images", func(t *testing.T, dir string) string {
			if err := rootfstest.WriteLayout(dir, index(t, arm, amd)); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "platforms present: linux/amd64, linux/arm64/v8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.write(t, t.TempDir())
			_, err := rootfs.Load(p)
			t.Log(err)
			if !errors.Is(err, rootfs.ErrPlatform) {
				t.Fatalf("error %v, want ErrPlatform", err)
			}
			if !strings.Contains(err.Error(), tc.names) {
				t.Errorf("error %q does not say %q", err, tc.names)
			}
		})
	}
}

func TestALayoutWithTwoDifferentRiscv64ImagesIsAmbiguous(t *testing.T) {
	a := image(t, "linux/riscv64", rootfs.ImageConfig{}, layer(t, rootfstest.File("x", 0o644, "a")))
	b := image(t, "linux/riscv64", rootfs.ImageConfig{}, layer(t, rootfstest.File("x", 0o644, "b")))
	dir := filepath.Join(t.TempDir(), "layout")
	if err := rootfstest.WriteLayout(dir, index(t, a, b)); err != nil {
		t.Fatal(err)
	}
	_, err := rootfs.Load(dir)
	t.Log(err)
	if !errors.Is(err, rootfs.ErrUnsupported) || !strings.Contains(err.Error(), "2 different linux/riscv64 images") {
		t.Fatalf("error %v, want ErrUnsupported naming both images", err)
	}
}

func TestAnIndexThatMisstatesItsImagesPlatformIsMalformed(t *testing.T) {
	amd := image(t, "linux/amd64", rootfs.ImageConfig{}, layer(t, rootfstest.File("x", 0o644, "a")))
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{
		Add: amd, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "riscv64"}},
	})
	dir := filepath.Join(t.TempDir(), "layout")
	if err := rootfstest.WriteLayout(dir, idx); err != nil {
		t.Fatal(err)
	}
	_, err := rootfs.Load(dir)
	t.Log(err)
	if !errors.Is(err, rootfs.ErrMalformed) || !strings.Contains(err.Error(), "linux/amd64") {
		t.Fatalf("error %v, want ErrMalformed naming linux/amd64", err)
	}
}

// blobs lists the blob files of a layout.
func blobs(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "blobs", "sha256", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no blobs in %s: %v", dir, err)
	}
	return paths
}

func TestCorruptImagesAreErrors(t *testing.T) {
	img := appImage(t)
	docker := func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "image.tar")
		if err := rootfstest.WriteDockerArchive(p, img); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oci := func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "layout")
		if err := rootfstest.WriteImageLayout(p, img); err != nil {
			t.Fatal(err)
		}
		return p
	}
	layerBlob := func(t *testing.T, layout string) string {
		layers, err := img.Layers()
		if err != nil {
			t.Fatal(err)
		}
		h, err := layers[0].Digest()
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(layout, "blobs", h.Algorithm, h.Hex)
	}
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, dir string) string
		want  error
	}{
		{"a docker save archive cut inside its last member", func(t *testing.T, dir string) string {
			p := docker(t, dir)
			b, _ := os.ReadFile(p)
			// The last member is manifest.json (over 100 bytes, padded
			// to 512), then the trailer (1024 bytes): cut 100 bytes into it.
			return writeFile(t, p, b[:len(b)-1024-512+100])
		}, rootfs.ErrMalformed},
		{"a docker save archive cut inside a layer", func(t *testing.T, dir string) string {
			p := docker(t, dir)
			b, _ := os.ReadFile(p)
			var out bytes.Buffer
			tr := tar.NewReader(bytes.NewReader(b))
			tw := tar.NewWriter(&out)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				data, _ := io.ReadAll(tr)
				if strings.HasSuffix(h.Name, ".tar.gz") {
					data = data[:len(data)/2]
					h.Size = int64(len(data))
				}
				tw.WriteHeader(h)
				tw.Write(data)
			}
			tw.Close()
			return writeFile(t, p, out.Bytes())
		}, rootfs.ErrMalformed},
		{"a docker save archive whose manifest.json is not JSON", func(t *testing.T, dir string) string {
			return writeFile(t, filepath.Join(dir, "x.tar"), mustTar(t, rootfstest.File("manifest.json", 0o644, "{not json")))
		}, rootfs.ErrMalformed},
		{"a docker save archive whose layer is missing", func(t *testing.T, dir string) string {
			return writeFile(t, filepath.Join(dir, "x.tar"), mustTar(t,
				rootfstest.File("manifest.json", 0o644, `[{"Config":"c.json","Layers":["l.tar"]}]`),
				rootfstest.File("c.json", 0o644, `{"os":"linux","architecture":"riscv64","rootfs":{"type":"layers","diff_ids":["sha256:0000000000000000000000000000000000000000000000000000000000000000"]}}`)))
		}, rootfs.ErrMalformed},
		{"a docker save archive of two images", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "two.tar")
			other := image(t, "linux/riscv64", rootfs.ImageConfig{}, layer(t, rootfstest.File("x", 0o644, "x")))
			err := tarball.MultiWriteToFile(p, map[name.Tag]v1.Image{
				name.MustParseReference("everett.test/a:1").(name.Tag): img,
				name.MustParseReference("everett.test/b:1").(name.Tag): other,
			})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, rootfs.ErrUnsupported},
		{"a layout whose index.json is not JSON", func(t *testing.T, dir string) string {
			p := oci(t, dir)
			writeFile(t, filepath.Join(p, "index.json"), []byte("[[["))
			return p
		}, rootfs.ErrMalformed},
		{"a layout whose layer blob is missing", func(t *testing.T, dir string) string {
			p := oci(t, dir)
			if err := os.Remove(layerBlob(t, p)); err != nil {
				t.Fatal(err)
			}
			return p
		}, rootfs.ErrMalformed},
		{"a layout whose layer blob is garbage", func(t *testing.T, dir string) string {
			p := oci(t, dir)
			writeFile(t, layerBlob(t, p), bytes.Repeat([]byte("garbage!"), 100))
			return p
		}, rootfs.ErrMalformed},
		{"a layout whose layer blob is a truncated gzip", func(t *testing.T, dir string) string {
			p := oci(t, dir)
			blob := layerBlob(t, p)
			b, _ := os.ReadFile(blob)
			writeFile(t, blob, b[:len(b)-12])
			return p
		}, rootfs.ErrMalformed},
		{"a layout whose manifest blob is missing", func(t *testing.T, dir string) string {
			p := oci(t, dir)
			for _, b := range blobs(t, p) {
				if data, _ := os.ReadFile(b); bytes.Contains(data, []byte(`"layers"`)) {
					os.Remove(b)
				}
			}
			return p
		}, rootfs.ErrMalformed},
		{"a layout packed in a tar with a member that climbs out", func(t *testing.T, dir string) string {
			return writeFile(t, filepath.Join(dir, "x.tar"), mustTar(t,
				rootfstest.File("oci-layout", 0o644, `{"imageLayoutVersion":"1.0.0"}`),
				rootfstest.File("index.json", 0o644, `{"schemaVersion":2,"manifests":[]}`),
				rootfstest.File("../evil", 0o644, "evil")))
		}, rootfs.ErrUnsafePath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			dir := t.TempDir()
			p := tc.write(t, dir)
			_, err := rootfs.Load(p)
			t.Log(err)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name %s", err, p)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("Load left %d temporary files behind", len(left))
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(tmp), "evil")); err == nil {
				t.Error("a member was written outside the temporary folder")
			}
		})
	}
}

func TestWriteTestImageMakesAnImageThatLoadsBack(t *testing.T) {
	prog := []byte("\x7fELF\x02\x01\x01 a static riscv64 program")
	p, err := rootfstest.WriteTestImage(t.TempDir(), map[string][]byte{"/usr/local/bin/prog": prog, "etc/prog.conf": []byte("conf")},
		rootfs.ImageConfig{Entrypoint: []string{"/usr/local/bin/prog"}, Env: []string{"A=1"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := rootfs.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, f, []string{
		"d 0755 /etc", "f 0755 /etc/prog.conf =conf",
		"d 0755 /usr", "d 0755 /usr/local", "d 0755 /usr/local/bin", "f 0755 /usr/local/bin/prog =" + string(prog),
	})
	if f.Config == nil || !slices.Equal(f.Config.Argv(), []string{"/usr/local/bin/prog"}) || !slices.Equal(f.Config.Env, []string{"A=1"}) {
		t.Errorf("configuration %+v", f.Config)
	}
}
