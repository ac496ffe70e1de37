package rootfs

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The platform everett runs.
const (
	wantOS   = "linux"
	wantArch = "riscv64"
)

// Bounds of an image index walk.
const (
	indexDepthMax     = 4    // indexes inside indexes
	indexManifestsMax = 4096 // descriptors looked at in all
)

// whiteoutPrefix and opaqueWhiteout are the image-spec's "Whiteouts"
// names; whiteoutMeta starts the other (aufs) special names.
const (
	whiteoutPrefix = ".wh."
	whiteoutMeta   = ".wh..wh."
	opaqueWhiteout = ".wh..wh..opq"
)

// guard turns a panic of the image library on hostile input into an
// error naming the input, so that no input crashes everett.
func guard(src string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read %s: the image library failed on it (panic: %v): %w", src, r, ErrMalformed)
	}
}

// loadDockerArchive reads a `docker save` archive, an uncompressed tar,
// at p (src names it in errors: p may be its decompressed copy), whose
// manifest.json's size was checked.
func (f *FS) loadDockerArchive(p, src string) (err error) {
	defer guard(src, &err)
	opener := func() (io.ReadCloser, error) { return os.Open(p) }
	m, err := tarball.LoadManifest(opener)
	if err != nil {
		return readErr(src+": manifest.json", err)
	}
	if len(m) != 1 {
		return fmt.Errorf("read %s: manifest.json lists %d images (everett reads an archive of one): %w", src, len(m), ErrUnsupported)
	}
	if len(m[0].Layers) > f.lim.Layers {
		return fmt.Errorf("read %s: %d layers (at most %d): %w", src, len(m[0].Layers), f.lim.Layers, ErrTooLarge)
	}
	if size, err := memberSize(p, m[0].Config); err != nil {
		return readErr(src, err)
	} else if size > f.lim.MetadataBytes {
		return fmt.Errorf("read %s: configuration %s of %d bytes (at most %d): %w", src, m[0].Config, size, f.lim.MetadataBytes, ErrTooLarge)
	}
	img, err := tarball.Image(opener, nil)
	if err != nil {
		return readErr(src, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return readErr(src+": configuration", err)
	}
	if cf.OS != wantOS || cf.Architecture != wantArch {
		return fmt.Errorf("read %s: the image is for %s, everett runs %s/%s: %w", src, platformName(cf.OS, cf.Architecture, cf.Variant), wantOS, wantArch, ErrPlatform)
	}
	return f.applyImage(img, cf, src)
}

// memberSize is the size of the regular member name of the uncompressed
// tar archive at p (0 if it is not there or not regular: the library
// then says what is wrong).
func memberSize(p, name string) (int64, error) {
	file, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	tr := tar.NewReader(file) // seeks over the data
	want := path.Clean(name)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		if path.Clean(h.Name) == want && h.Typeflag == tar.TypeReg {
			return h.Size, nil
		}
	}
}

// loadLayout reads an OCI image layout folder; src names it in errors
// (the layout may have been unpacked from a tar).
func (f *FS) loadLayout(dir, src string) (err error) {
	defer guard(src, &err)
	info, err := os.Stat(filepath.Join(dir, "index.json"))
	if err != nil {
		return readErr(src, err)
	}
	if info.Size() > f.lim.MetadataBytes {
		return fmt.Errorf("read %s: index.json of %d bytes (at most %d): %w", src, info.Size(), f.lim.MetadataBytes, ErrTooLarge)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return readErr(src, err)
	}
	w := &indexWalk{f: f, dir: dir, src: src, platforms: map[string]bool{}}
	if err := w.visit(idx, 0); err != nil {
		return err
	}
	switch len(w.found) {
	case 0:
		names := make([]string, 0, len(w.platforms))
		for p := range w.platforms {
			names = append(names, p)
		}
		slices.Sort(names)
		present := "none"
		if len(names) > 0 {
			present = strings.Join(names, ", ")
		}
		if len(w.missing) > 0 {
			return fmt.Errorf("read %s: no %s/%s image (platforms present: %s; images listed but not held: %s): %w", src, wantOS, wantArch, present, strings.Join(w.missing, ", "), ErrMalformed)
		}
		return fmt.Errorf("read %s: no %s/%s image (platforms present: %s): %w", src, wantOS, wantArch, present, ErrPlatform)
	case 1:
	default:
		digests := make([]string, len(w.found))
		for i, c := range w.found {
			digests[i] = c.digest.String()
		}
		return fmt.Errorf("read %s: %d different %s/%s images (%s); everett reads a layout with one: %w", src, len(w.found), wantOS, wantArch, strings.Join(digests, ", "), ErrUnsupported)
	}
	img := w.found[0].img
	cf, err := img.ConfigFile()
	if err != nil {
		return readErr(src+": configuration", err)
	}
	if cf.OS != wantOS || cf.Architecture != wantArch {
		return fmt.Errorf("read %s: the index lists %s as %s/%s, but its configuration says %s: %w", src, w.found[0].digest, wantOS, wantArch, platformName(cf.OS, cf.Architecture, cf.Variant), ErrMalformed)
	}
	return f.applyImage(img, cf, src)
}

// indexWalk looks for the linux/riscv64 images of an index and the
// indexes inside it.
type indexWalk struct {
	f         *FS
	dir, src  string
	seen      int
	found     []candidate
	platforms map[string]bool
	missing   []string // images without a platform in the index whose blobs the layout lacks
}

type candidate struct {
	digest v1.Hash
	img    v1.Image
}

func (w *indexWalk) visit(idx v1.ImageIndex, depth int) error {
	im, err := idx.IndexManifest()
	if err != nil {
		return readErr(w.src+": index", err)
	}
	for _, d := range im.Manifests {
		w.seen++
		if w.seen > indexManifestsMax {
			return fmt.Errorf("read %s: more than %d manifests in its indexes: %w", w.src, indexManifestsMax, ErrTooLarge)
		}
		switch {
		case d.MediaType.IsIndex():
			if depth+1 > indexDepthMax {
				return fmt.Errorf("read %s: indexes nested more than %d deep: %w", w.src, indexDepthMax, ErrTooLarge)
			}
			if err := w.checkBlob(d.Digest, "index"); err != nil {
				return err
			}
			child, err := idx.ImageIndex(d.Digest)
			if err != nil {
				return readErr(w.src+": index "+d.Digest.String(), err)
			}
			if err := w.visit(child, depth+1); err != nil {
				return err
			}
		case d.MediaType.IsImage():
			p := d.Platform
			var img v1.Image
			if p == nil {
				// No platform in the index: the image's configuration says.
				if !w.holds(d.Digest) {
					w.missing = append(w.missing, d.Digest.String())
					continue
				}
				if img, err = w.image(idx, d.Digest); err != nil {
					return err
				}
				cf, err := img.ConfigFile()
				if err != nil {
					return readErr(w.src+": configuration of "+d.Digest.String(), err)
				}
				p = &v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}
			}
			w.platforms[platformName(p.OS, p.Architecture, p.Variant)] = true
			if p.OS != wantOS || p.Architecture != wantArch {
				continue
			}
			if slices.ContainsFunc(w.found, func(c candidate) bool { return c.digest == d.Digest }) {
				continue
			}
			if img == nil {
				if img, err = w.image(idx, d.Digest); err != nil {
					return err
				}
			}
			w.found = append(w.found, candidate{d.Digest, img})
		}
		// Other media types (attestations, artifacts) are not images to run.
	}
	return nil
}

// holds says whether the layout holds the blob h. A layout may list
// manifests whose blobs it lacks: a `docker save` of one platform of a
// multi-platform image keeps the image's index whole.
func (w *indexWalk) holds(h v1.Hash) bool {
	if h.Algorithm == "" || strings.ContainsAny(h.Algorithm+h.Hex, "/\\.") {
		return false
	}
	_, err := os.Stat(filepath.Join(w.dir, "blobs", h.Algorithm, h.Hex))
	return err == nil
}

// image opens an image of the index, the sizes of its manifest and
// configuration checked.
func (w *indexWalk) image(idx v1.ImageIndex, h v1.Hash) (v1.Image, error) {
	if err := w.checkBlob(h, "manifest"); err != nil {
		return nil, err
	}
	img, err := idx.Image(h)
	if err != nil {
		return nil, readErr(w.src+": image "+h.String(), err)
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, readErr(w.src+": manifest "+h.String(), err)
	}
	if err := w.checkBlob(m.Config.Digest, "configuration"); err != nil {
		return nil, err
	}
	if len(m.Layers) > w.f.lim.Layers {
		return nil, fmt.Errorf("read %s: image %s has %d layers (at most %d): %w", w.src, h, len(m.Layers), w.f.lim.Layers, ErrTooLarge)
	}
	return img, nil
}

// checkBlob checks the size of a metadata blob of the layout before the
// library reads it whole.
func (w *indexWalk) checkBlob(h v1.Hash, what string) error {
	if h.Algorithm == "" || strings.ContainsAny(h.Algorithm+h.Hex, "/\\.") {
		return fmt.Errorf("read %s: %s digest %q: %w", w.src, what, h.String(), ErrMalformed)
	}
	info, err := os.Stat(filepath.Join(w.dir, "blobs", h.Algorithm, h.Hex))
	if err != nil {
		return readErr(w.src+": "+what+" "+h.String(), err)
	}
	if info.Size() > w.f.lim.MetadataBytes {
		return fmt.Errorf("read %s: %s %s of %d bytes (at most %d): %w", w.src, what, h, info.Size(), w.f.lim.MetadataBytes, ErrTooLarge)
	}
	return nil
}

func platformName(os, arch, variant string) string {
	if os == "" {
		os = "unknown"
	}
	if arch == "" {
		arch = "unknown"
	}
	if variant != "" {
		return os + "/" + arch + "/" + variant
	}
	return os + "/" + arch
}

// applyImage flattens the image's layers into the FS, in order, and keeps
// its configuration.
func (f *FS) applyImage(img v1.Image, cf *v1.ConfigFile, src string) error {
	layers, err := img.Layers()
	if err != nil {
		return readErr(src+": layers", err)
	}
	if len(layers) > f.lim.Layers {
		return fmt.Errorf("read %s: %d layers (at most %d): %w", src, len(layers), f.lim.Layers, ErrTooLarge)
	}
	for i, l := range layers {
		lsrc := fmt.Sprintf("%s: layer %d of %d", src, i+1, len(layers))
		members, err := f.readLayer(l, lsrc)
		if err != nil {
			return err
		}
		if err := f.applyLayer(members, lsrc); err != nil {
			return err
		}
	}
	c := cf.Config
	f.Config = &ImageConfig{
		Entrypoint: cloneStrings(c.Entrypoint),
		Cmd:        cloneStrings(c.Cmd),
		Env:        cloneStrings(c.Env),
		WorkingDir: c.WorkingDir,
		User:       c.User,
	}
	return nil
}

// cloneStrings copies s; empty is nil.
func cloneStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// readLayer reads a layer's members into memory: whiteouts must be
// applied before the layer's own entries, wherever they sit in it.
func (f *FS) readLayer(l v1.Layer, src string) ([]member, error) {
	rc, err := l.Uncompressed()
	if err != nil {
		return nil, readErr(src, err)
	}
	closed := false
	defer func() {
		if !closed {
			rc.Close()
		}
	}()
	capped := &capReader{r: rc, left: f.streamBytesMax(), what: src}
	tr := tar.NewReader(capped)
	var members []member
	var pending int64
	for {
		m, err := f.next(tr, src, pending)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		// Names held until the layer is applied count with the data.
		pending += int64(len(m.data) + len(m.hdr.Name) + len(m.hdr.Linkname))
		members = append(members, m)
	}
	// Read to the end, so that a digest-checking reader checks.
	if _, err := io.Copy(io.Discard, capped); err != nil {
		return nil, readErr(src, err)
	}
	closed = true
	if err := rc.Close(); err != nil {
		return nil, readErr(src, err)
	}
	return members, nil
}

// applyLayer applies a layer's members: first its whiteouts, which hide
// what the layers below hold and nothing of this one (image-spec
// "Whiteouts"), then its entries, in archive order.
func (f *FS) applyLayer(members []member, src string) error {
	entries := members[:0:0]
	for _, m := range members {
		w, err := f.whiteout(m)
		if err != nil {
			return fmt.Errorf("read %s: %s: %w", src, m.hdr.Name, err)
		}
		if !w {
			entries = append(entries, m)
		}
	}
	for _, m := range entries {
		if err := f.apply(m); err != nil {
			return fmt.Errorf("read %s: %s: %w", src, m.hdr.Name, err)
		}
	}
	return nil
}

// whiteout applies m when it is a whiteout (image-spec "Whiteouts"), and
// says whether it was one.
func (f *FS) whiteout(m member) (bool, error) {
	comps, err := f.clean(m.hdr.Name)
	if err != nil {
		return false, err
	}
	if len(comps) == 0 {
		return false, nil
	}
	base := comps[len(comps)-1]
	if !strings.HasPrefix(base, whiteoutPrefix) {
		return false, nil
	}
	opaque := base == opaqueWhiteout
	if !opaque && strings.HasPrefix(base, whiteoutMeta) {
		return true, nil // aufs metadata (.wh..wh.plnk, ...): nothing to apply
	}
	target := strings.TrimPrefix(base, whiteoutPrefix)
	if !opaque && (target == "" || target == "." || target == "..") {
		return true, fmt.Errorf("whiteout of %q: %w", target, ErrMalformed)
	}
	// A whiteout names a path of the layers below as it is, not through
	// their symbolic links: a layer that makes /lib a directory and
	// opaque over a lower /lib -> usr/lib hides nothing of /usr/lib.
	dir := f.literal(comps[:len(comps)-1])
	if dir == nil {
		return true, nil // nothing below to hide
	}
	if opaque {
		f.clear(dir)
		return true, nil
	}
	if old := dir.kids[target]; old != nil {
		f.drop(old)
		delete(dir.kids, target)
	}
	return true, nil
}
