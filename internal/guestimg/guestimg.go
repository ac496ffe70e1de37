// Package guestimg finds (building when needed) the Linux guest images of
// guest-images/linux for tests and benchmarks: the kernel Image, the
// initramfs with everett's smoke-test init, and an ext4 disk image. The
// recipes cache their outputs outside the repository, keyed by their inputs,
// so only the first use on a machine is slow (the kernel build).
package guestimg

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Images are the paths of the Linux guest's files.
type Images struct {
	Kernel, Initrd, Disk string
}

var (
	once   sync.Once
	images Images
	err    error
)

// Dir returns guest-images/linux, found by walking up to go.mod.
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "guest-images", "linux"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// script runs one build script and returns the path it prints last.
func script(dir, name string) (string, error) {
	cmd := exec.Command("sh", filepath.Join(dir, name))
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", name, err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	p := strings.TrimSpace(lines[len(lines)-1])
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s printed %q, which does not exist", name, p)
	}
	return p, nil
}

// Build returns the images, building what is missing.
func Build() (Images, error) {
	once.Do(func() {
		var dir string
		if dir, err = Dir(); err != nil {
			return
		}
		for _, s := range []struct {
			name string
			out  *string
		}{
			{"build-kernel.sh", &images.Kernel},
			{"build-initramfs.sh", &images.Initrd},
			{"build-disk.sh", &images.Disk},
		} {
			if *s.out, err = script(dir, s.name); err != nil {
				return
			}
		}
	})
	return images, err
}

// Linux returns the images or fails t. `make test` builds them before the
// tests run, so that the kernel build does not count against a test timeout.
func Linux(t testing.TB) Images {
	t.Helper()
	im, err := Build()
	if err != nil {
		t.Fatalf("Linux guest images (make -C guest-images/linux all builds them): %v", err)
	}
	return im
}

// Read returns the contents of the images: kernel, initrd, disk.
func Read(t testing.TB, im Images) (kernel, initrd, disk []byte) {
	t.Helper()
	var err error
	if kernel, err = os.ReadFile(im.Kernel); err != nil {
		t.Fatal(err)
	}
	if initrd, err = os.ReadFile(im.Initrd); err != nil {
		t.Fatal(err)
	}
	if disk, err = os.ReadFile(im.Disk); err != nil {
		t.Fatal(err)
	}
	return kernel, initrd, disk
}

// BIOS returns Debian's OpenSBI fw_dynamic.bin, or fails t.
func BIOS(t testing.TB) []byte {
	t.Helper()
	const path = "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("OpenSBI firmware (apt-get install opensbi; make test installs it): %v", err)
	}
	return b
}
