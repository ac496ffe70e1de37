package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mountTry runs mountWorkload on one mount whose mount(2) fails with
// errs, one error per attempt (then succeeds), and returns
// the pauses it slept, the attempts, what it said and its error.
func mountTry(t *testing.T, errs ...error) (pauses []time.Duration, attempts int, said string, err error) {
	t.Helper()
	var out bytes.Buffer
	con := newConsole(&out)
	dir := filepath.Join(t.TempDir(), "data")
	mount := func(dev, d, fs string) error {
		if dev != "/dev/vda" || d != dir || fs != "ext4" {
			t.Fatalf("mount(%q, %q, %q)", dev, d, fs)
		}
		attempts++
		if attempts <= len(errs) {
			return errs[attempts-1]
		}
		return nil
	}
	err = mountWorkload(con, []mountSpec{{Dev: "/dev/vda", Dir: dir, FS: "ext4"}}, mount, func(d time.Duration) { pauses = append(pauses, d) })
	con.flush()
	return pauses, attempts, out.String(), err
}

func TestAMountThatFailsWithAnIOErrorIsTriedAgainAfterAPauseThatDoubles(t *testing.T) {
	pauses, attempts, said, err := mountTry(t, syscall.EIO, syscall.EIO)
	want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}
	if err != nil || attempts != 3 || !slices.Equal(pauses, want) {
		t.Fatalf("error %v after %d attempts, pauses %v; want a mount at the third attempt after %v", err, attempts, pauses, want)
	}
	if !strings.Contains(said, "input/output error; trying again in 50ms (attempt 2 of 5)") || !strings.Contains(said, "mounted /dev/vda") {
		t.Fatalf("the console says:\n%s", said)
	}
}

func TestAMountThatKeepsFailingEndsTheSetUpAfterFiveAttempts(t *testing.T) {
	pauses, attempts, _, err := mountTry(t, syscall.EIO, syscall.ENXIO, syscall.EINVAL, syscall.ENOENT, syscall.EIO, syscall.EIO)
	if err == nil || attempts != 5 || len(pauses) != 4 || pauses[3] != 400*time.Millisecond {
		t.Fatalf("error %v after %d attempts, pauses %v; want a failure after 5 attempts, the last pause 400ms", err, attempts, pauses)
	}
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "mounts[0]: mount /dev/vda on ") || !strings.HasSuffix(err.Error(), "input/output error (5 attempts)") {
		t.Fatalf("error %q", err)
	}
}

func TestAMountNoPauseCanHelpIsNotTriedAgain(t *testing.T) {
	for _, e := range []error{syscall.ENODEV, syscall.EBUSY, syscall.ENOTBLK, syscall.EROFS} {
		pauses, attempts, _, err := mountTry(t, e)
		if !errors.Is(err, e) || attempts != 1 || len(pauses) != 0 || strings.Contains(err.Error(), "attempts") {
			t.Fatalf("%v: error %v after %d attempts, pauses %v; want it at once", e, err, attempts, pauses)
		}
	}
}
