package explorer

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"everett/internal/hosttool"
)

// symbolAddr returns the address of ELF symbol name in file p.
func symbolAddr(t *testing.T, p, name string) uint64 {
	t.Helper()
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("%s has no symbol %s", p, name)
	return 0
}

func covers(rs [][2]uint64, pc uint64) bool {
	return slices.ContainsFunc(rs, func(r [2]uint64) bool { return r[0] <= pc && pc < r[1] })
}

func TestACProgramsSynchronizationRangesAreItsOwnCodeNotLibcs(t *testing.T) {
	hosttool.Need(t, "riscv64-linux-gnu-gcc")
	root := repoRoot(t)
	if out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/tickets")).CombinedOutput(); err != nil {
		t.Fatalf("building tickets: %v\n%s", err, out)
	}
	p := filepath.Join(root, "build/examples/tickets/tickets")
	rs, ok, err := syncRangesOf(p)
	if err != nil || !ok {
		t.Fatalf("syncRangesOf: ok %v, %v", ok, err)
	}
	for _, own := range []string{"agent", "main"} {
		if !covers(rs, symbolAddr(t, p, own)) {
			t.Errorf("the ranges %#x miss the program's %s", rs, own)
		}
	}
	for _, libc := range []string{"__pthread_mutex_lock", "malloc", "__libc_start_main"} {
		if covers(rs, symbolAddr(t, p, libc)) {
			t.Errorf("the ranges %#x cover libc's %s", rs, libc)
		}
	}

	// Without debugging information nothing is known: every point counts.
	stripped := filepath.Join(t.TempDir(), "tickets")
	if out, err := exec.Command(hosttool.Need(t, "riscv64-linux-gnu-strip"), "-o", stripped, p).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	if rs, ok, err := syncRangesOf(stripped); err != nil || ok || rs != nil {
		t.Errorf("a stripped program gave ranges %#x (ok %v, %v)", rs, ok, err)
	}
	if rs, err := nodeSyncRanges([]string{p, stripped}); err != nil || rs != nil {
		t.Errorf("a node with a stripped program has ranges %#x (%v), want none (every point)", rs, err)
	}
}

func TestAGoProgramsSynchronizationRangesLeaveOutItsRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go test binary for riscv64")
	}
	root := repoRoot(t)
	if out, err := exec.Command("sh", filepath.Join(root, "guest-images/examples/gotest/build.sh")).CombinedOutput(); err != nil {
		t.Fatalf("building gotest: %v\n%s", err, out)
	}
	p := filepath.Join(root, "build/examples/gotest/gotest.test")
	rs, ok, err := syncRangesOf(p)
	if err != nil || !ok {
		t.Fatalf("syncRangesOf: ok %v, %v", ok, err)
	}
	for _, own := range []string{"everett/guest-images/examples/gotest.(*Pool).Get", "sync.(*Mutex).Lock", "internal/sync.(*Mutex).lockSlow"} {
		if !covers(rs, symbolAddr(t, p, own)) {
			t.Errorf("the ranges miss %s", own)
		}
	}
	for _, rt := range []string{"runtime.mallocgc", "runtime.schedule", "runtime.lock2"} {
		if covers(rs, symbolAddr(t, p, rt)) {
			t.Errorf("the ranges cover the runtime's %s", rt)
		}
	}
}

func TestAFileThatIsNotAProgramGivesNoRangesAndAMissingOneAnError(t *testing.T) {
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"empty":     nil,
		"text":      []byte("#!/bin/sh\necho hi\n"),
		"truncated": append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 20)...),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if rs, ok, err := syncRangesOf(p); err != nil || ok || rs != nil {
			t.Errorf("%s: ranges %v, ok %v, %v", name, rs, ok, err)
		}
	}
	if _, _, err := syncRangesOf(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestRangesAreMergedSortedAndCheckedAsAReportGivesThem(t *testing.T) {
	got := mergeRanges([][2]uint64{{30, 40}, {10, 20}, {20, 25}, {35, 50}, {60, 61}})
	want := [][2]uint64{{10, 25}, {30, 50}, {60, 61}}
	if !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	if err := checkSyncRanges(want); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][][2]uint64{{{5, 5}}, {{10, 20}, {15, 30}}, {{20, 30}, {0, 10}}} {
		if checkSyncRanges(bad) == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
