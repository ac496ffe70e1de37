// Command mkinitramfs packs files into a Linux initramfs (newc cpio,
// gzip-compressed unless -z=false), byte-identical for identical inputs.
//
//	mkinitramfs -o OUT -init PROG                 minimal layout, PROG as /init
//	mkinitramfs -o OUT -list LIST                 entries from a list file
//
// -init writes /dev, /dev/console (5:1), /proc, /sys, /tmp and /init. A list
// has one entry a line (blank lines and '#' comments are skipped):
//
//	dir  NAME MODE
//	nod  NAME MODE c|b MAJOR MINOR
//	file NAME MODE HOSTPATH
//	slink NAME TARGET
//
// with octal MODEs. Both may be given; the list's entries come after the
// -init ones.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"everett/guest-images/sdk/go/initramfs"
)

func main() {
	out := flag.String("o", "", "output file (required)")
	initProg := flag.String("init", "", "program to install as /init, with /dev/console, /proc, /sys and /tmp")
	list := flag.String("list", "", "file listing the entries")
	gz := flag.Bool("z", true, "gzip the archive")
	flag.Parse()
	if *out == "" || (*initProg == "" && *list == "") || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: mkinitramfs -o OUT [-z=false] [-init PROG] [-list LIST]")
		os.Exit(2)
	}
	if err := run(*out, *initProg, *list, *gz); err != nil {
		fmt.Fprintln(os.Stderr, "mkinitramfs:", err)
		os.Exit(1)
	}
}

func run(out, initProg, list string, gz bool) error {
	var entries []initramfs.Entry
	if initProg != "" {
		prog, err := os.ReadFile(initProg)
		if err != nil {
			return err
		}
		entries = initramfs.Init(prog)
	}
	if list != "" {
		more, err := readList(list)
		if err != nil {
			return err
		}
		entries = append(entries, more...)
	}
	var buf bytes.Buffer
	write := initramfs.Write
	if gz {
		write = initramfs.WriteGzip
	}
	if err := write(&buf, entries); err != nil {
		return err
	}
	// Write to a temporary file and rename, so that a reader never sees a
	// partial archive.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".mkinitramfs-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

func readList(path string) ([]initramfs.Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []initramfs.Entry
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		e, err := parseLine(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		entries = append(entries, e)
	}
	return entries, sc.Err()
}

func parseLine(f []string) (initramfs.Entry, error) {
	want := map[string]int{"dir": 3, "nod": 6, "file": 4, "slink": 3}
	n, ok := want[f[0]]
	if !ok {
		return initramfs.Entry{}, fmt.Errorf("unknown entry kind %q (want dir, nod, file or slink)", f[0])
	}
	if len(f) != n {
		return initramfs.Entry{}, fmt.Errorf("%s takes %d fields, got %d", f[0], n-1, len(f)-1)
	}
	if f[0] == "slink" {
		return initramfs.Symlink(f[1], f[2]), nil
	}
	mode, err := strconv.ParseUint(f[2], 8, 32)
	if err != nil {
		return initramfs.Entry{}, fmt.Errorf("mode %q: %w", f[2], err)
	}
	switch f[0] {
	case "dir":
		return initramfs.Dir(f[1], uint32(mode)), nil
	case "file":
		data, err := os.ReadFile(f[3])
		if err != nil {
			return initramfs.Entry{}, err
		}
		return initramfs.File(f[1], uint32(mode), data), nil
	}
	major, err1 := strconv.ParseUint(f[4], 10, 32)
	minor, err2 := strconv.ParseUint(f[5], 10, 32)
	if err1 != nil || err2 != nil {
		return initramfs.Entry{}, fmt.Errorf("device number %s:%s is not two decimal numbers", f[4], f[5])
	}
	switch f[3] {
	case "c":
		return initramfs.CharDev(f[1], uint32(mode), uint32(major), uint32(minor)), nil
	case "b":
		return initramfs.BlockDev(f[1], uint32(mode), uint32(major), uint32(minor)), nil
	}
	return initramfs.Entry{}, fmt.Errorf("device type %q (want c or b)", f[3])
}
