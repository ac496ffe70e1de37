// Package rootfstest builds OCI images for tests with
// github.com/google/go-containerregistry: tar archives and layers from
// members held in memory, images for a platform with a configuration,
// OCI image layouts and `docker save` archives. WriteTestImage does it all
// for the common case: a linux/riscv64 image of a few files, such as a
// static program, that rootfs.Load reads back.
//
// Everything it writes is a function of its arguments: tar times are
// zero, the configuration has no creation time, and layers are gzipped by
// Go's deterministic compressor.
package rootfstest

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"everett/internal/rootfs"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Member is one tar member.
type Member struct {
	Name         string
	Type         byte  // a tar.Type* flag; tar.TypeReg when 0
	Mode         int64 // permission bits; 0o644, or 0o755 for a directory, when 0
	Data         []byte
	Link         string // a symbolic or hard link's target
	Major, Minor int64  // a device's number
}

// File is a regular file member.
func File(name string, mode int64, data string) Member {
	return Member{Name: name, Type: tar.TypeReg, Mode: mode, Data: []byte(data)}
}

// Dir is a directory member.
func Dir(name string) Member { return Member{Name: name, Type: tar.TypeDir} }

// Symlink is a symbolic link member.
func Symlink(name, target string) Member {
	return Member{Name: name, Type: tar.TypeSymlink, Link: target}
}

// Tar is an uncompressed tar archive (PAX where needed) of members, in
// their order.
func Tar(members ...Member) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		h := &tar.Header{Name: m.Name, Typeflag: m.Type, Mode: m.Mode, Linkname: m.Link, Devmajor: m.Major, Devminor: m.Minor}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
			if h.Typeflag == tar.TypeDir {
				h.Mode = 0o755
			}
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(m.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar member %s: %w", m.Name, err)
		}
		if h.Size > 0 {
			if _, err := tw.Write(m.Data); err != nil {
				return nil, fmt.Errorf("tar member %s: %w", m.Name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Layer is an OCI layer (gzip-compressed) of members.
func Layer(members ...Member) (v1.Layer, error) {
	b, err := Tar(members...)
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// Image is an OCI image for platform ("os/arch" or "os/arch/variant") with
// configuration cfg and layers, the first one lowest.
func Image(platform string, cfg rootfs.ImageConfig, layers ...v1.Layer) (v1.Image, error) {
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, layers...); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Config.Entrypoint = cfg.Entrypoint
	cf.Config.Cmd = cfg.Cmd
	cf.Config.Env = cfg.Env
	cf.Config.WorkingDir = cfg.WorkingDir
	cf.Config.User = cfg.User
	return mutate.ConfigFile(img, cf)
}

// Index is an OCI image index of images, each listed with the platform of
// its configuration.
func Index(images ...v1.Image) (v1.ImageIndex, error) {
	var adds []mutate.IndexAddendum
	for i, img := range images {
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", i, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: cf.Platform()}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}

// WriteLayout writes an OCI image layout folder at dir whose index.json
// lists idx's manifests (images, or indexes inside it).
func WriteLayout(dir string, idx v1.ImageIndex) error {
	_, err := layout.Write(dir, idx)
	return err
}

// WriteImageLayout writes an OCI image layout folder at dir whose
// index.json lists img alone, without a platform (so that a reader must
// take the platform from img's configuration).
func WriteImageLayout(dir string, img v1.Image) error {
	lp, err := layout.Write(dir, mutate.IndexMediaType(empty.Index, types.OCIImageIndex))
	if err != nil {
		return err
	}
	return lp.AppendImage(img)
}

// WriteDockerArchive writes img as a `docker save` archive (manifest.json,
// the configuration, the layers) at p, tagged everett.test/image:latest.
func WriteDockerArchive(p string, img v1.Image) error {
	tag, err := name.NewTag("everett.test/image:latest")
	if err != nil {
		return err
	}
	return tarball.WriteToFile(p, tag, img)
}

// WriteTestImage writes a linux/riscv64 OCI image of files (path in the
// image → contents, every file mode 0755, its parent directories 0755) with
// configuration cfg, as an OCI image layout folder in dir, and returns the
// layout's path (for rootfs.Load, or a spec's image field). To run a
// static program prog: WriteTestImage(dir, map[string][]byte{"/app": prog},
// rootfs.ImageConfig{Entrypoint: []string{"/app"}}).
func WriteTestImage(dir string, files map[string][]byte, cfg rootfs.ImageConfig) (string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var members []Member
	dirs := map[string]bool{}
	for _, n := range names {
		clean := strings.TrimPrefix(path.Clean("/"+n), "/")
		if clean == "" {
			return "", fmt.Errorf("write test image: file name %q names the root", n)
		}
		var parents []string
		for d := path.Dir(clean); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			parents = append(parents, d)
		}
		for i := len(parents) - 1; i >= 0; i-- {
			members = append(members, Member{Name: parents[i] + "/", Type: tar.TypeDir, Mode: 0o755})
		}
		members = append(members, Member{Name: clean, Type: tar.TypeReg, Mode: 0o755, Data: files[n]})
	}
	layer, err := Layer(members...)
	if err != nil {
		return "", fmt.Errorf("write test image: %w", err)
	}
	img, err := Image("linux/riscv64", cfg, layer)
	if err != nil {
		return "", fmt.Errorf("write test image: %w", err)
	}
	out := filepath.Join(dir, "image")
	if err := WriteImageLayout(out, img); err != nil {
		return "", fmt.Errorf("write test image: %w", err)
	}
	return out, nil
}
