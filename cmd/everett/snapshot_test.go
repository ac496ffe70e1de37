package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"everett/internal/guestbuild"
)

// smpProgram is the bare-metal SMP test program (4 harts), copied to a
// private folder so that a test may change it.
func smpProgram(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(guestbuild.Build(t, "smp"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "smp.elf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var stateHashRE = regexp.MustCompile(`state-hash: ([0-9a-f]{16})`)

func stateHashOf(t *testing.T, stderr string) string {
	t.Helper()
	m := stateHashRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no state hash in %q", stderr)
	}
	return m[1]
}

func TestRunSnapshotAtThenRestoreEndsInTheStraightRunsState(t *testing.T) {
	prog := smpProgram(t)
	code, wantOut, stderr := runCLI(t, "run", "--smp", "4", "--state-hash", prog)
	if code != 0 {
		t.Fatalf("straight run: exit %d, %q", code, stderr)
	}
	want := stateHashOf(t, stderr)
	snap := filepath.Join(t.TempDir(), "a.snap")

	// The run that saves a snapshot goes on to the same end.
	code, out, stderr := runCLI(t, "run", "--smp", "4", "--state-hash", "--snapshot-at", "40000", "--snapshot-out", snap, prog)
	if code != 0 || stateHashOf(t, stderr) != want || out != wantOut {
		t.Fatalf("run with --snapshot-at: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "snapshot at 40000 instructions written to "+snap) {
		t.Errorf("no note of the snapshot in %q", stderr)
	}
	// The restored machine ends there too, with the rest of the console.
	code, out, stderr = runCLI(t, "restore", "--state-hash", snap)
	if code != 0 || stateHashOf(t, stderr) != want {
		t.Fatalf("restore: exit %d, stderr %q; want state %s", code, stderr, want)
	}
	if out == "" || !strings.HasSuffix(wantOut, out) {
		t.Errorf("restore printed %q, not the end of the straight run's %q", out, wantOut)
	}

	// --snapshot-exit stops at the snapshot, and restore --max-insns stops
	// where run --max-insns does.
	snap2 := filepath.Join(t.TempDir(), "b.snap")
	code, _, stderr = runCLI(t, "run", "--smp", "4", "--snapshot-at", "40000", "--snapshot-out", snap2, "--snapshot-exit", "--state-hash", prog)
	if code != 0 {
		t.Fatalf("--snapshot-exit: exit %d, %q", code, stderr)
	}
	_, _, runErr := runCLI(t, "run", "--smp", "4", "--max-insns", "90000", "--state-hash", prog)
	for _, limit := range []string{"90000", "+50000"} {
		code, _, stderr = runCLI(t, "restore", "--max-insns", limit, "--state-hash", snap2)
		if code != exitLimit || stateHashOf(t, stderr) != stateHashOf(t, runErr) {
			t.Errorf("restore --max-insns %s: exit %d, %q; run --max-insns 90000: %q", limit, code, stderr, runErr)
		}
	}
}

func TestRestoreCanSaveAnIncrementalSnapshotOnTheWay(t *testing.T) {
	prog := smpProgram(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.snap"), filepath.Join(dir, "b.snap")
	if code, _, stderr := runCLI(t, "run", "--smp", "4", "--snapshot-at", "30000", "--snapshot-out", a, "--snapshot-exit", prog); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runCLI(t, "restore", "--snapshot-at", "60000", "--snapshot-out", b, "--state-hash", a)
	if code != 0 || !strings.Contains(stderr, "incremental on "+a) {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	want := stateHashOf(t, stderr)
	code, _, stderr = runCLI(t, "restore", "--state-hash", b)
	if code != 0 || stateHashOf(t, stderr) != want {
		t.Fatalf("restore of the incremental file: exit %d, %q", code, stderr)
	}
	code, out, _ := runCLI(t, "snapshot", "info", b)
	if code != 0 || !strings.Contains(out, "parent:        "+a) || !strings.Contains(out, "instructions:  60000") {
		t.Fatalf("info: exit %d:\n%s", code, out)
	}
}

func TestSnapshotInfoDescribesTheFile(t *testing.T) {
	prog := smpProgram(t)
	snap := filepath.Join(t.TempDir(), "a.snap")
	if code, _, stderr := runCLI(t, "run", "--smp", "4", "--mem", "64MiB", "--seed", "9", "--snapshot-at", "40000", "--snapshot-out", snap, "--snapshot-exit", prog); code != 0 {
		t.Fatal(stderr)
	}
	code, out, _ := runCLI(t, "snapshot", "info", snap)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"format:        everett snapshot version 6, rv64gc",
		"board:         baremetal, 4 harts, 64 MiB of RAM at 0x80000000",
		"memory model:  sc",
		"seed:          9",
		"instructions:  40000",
		"image:         elf           sha256:",
		prog + " (ok)",
		"parent chain:  none (a full snapshot)",
		"pages:         ",
		"compressed:    state ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	// A changed image is reported, not refused.
	os.WriteFile(prog, []byte("changed"), 0o644)
	if code, out, _ := runCLI(t, "snapshot", "info", snap); code != 0 || !strings.Contains(out, "changed: restore will refuse it") {
		t.Errorf("info after the image changed: exit %d\n%s", code, out)
	}
}

func TestSnapshotDiffNamesWhatDiffers(t *testing.T) {
	prog := smpProgram(t)
	dir := t.TempDir()
	snap := func(name, at string) string {
		p := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, "run", "--smp", "4", "--snapshot-at", at, "--snapshot-out", p, "--snapshot-exit", prog); code != 0 {
			t.Fatal(stderr)
		}
		return p
	}
	a, a2, b := snap("a.snap", "40000"), snap("a2.snap", "40000"), snap("b.snap", "80000")
	code, out, _ := runCLI(t, "snapshot", "diff", a, a2)
	if code != 0 || !strings.Contains(out, "same") {
		t.Fatalf("diff of two equal snapshots: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "snapshot", "diff", a, b)
	if code != 1 {
		t.Fatalf("diff of different snapshots: exit %d\n%s", code, out)
	}
	for _, want := range []string{"instructions: 40000 → 80000", "state:        machine, hart0", "ram:          "} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
}

var forkLineRE = regexp.MustCompile(`^seed=(\d+) outcome=(\S+) exit=(\d+) insns=(\d+) state-hash=([0-9a-f]{16})$`)

// forkLines runs everett fork and returns its outcome lines by seed.
func forkLines(t *testing.T, args ...string) (string, map[string][]string, string) {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"fork"}, args...)...)
	if code != 0 {
		t.Fatalf("fork %v: exit %d, %q", args, code, stderr)
	}
	bySeed := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		m := forkLineRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("fork printed %q", l)
		}
		bySeed[m[1]] = m
	}
	return out, bySeed, stderr
}

func TestForkOnBareMetalIsTheSameForAnyWorkerCount(t *testing.T) {
	prog := smpProgram(t)
	snap := filepath.Join(t.TempDir(), "a.snap")
	if code, _, stderr := runCLI(t, "run", "--smp", "4", "--snapshot-at", "40000", "--snapshot-out", snap, "--snapshot-exit", prog); code != 0 {
		t.Fatal(stderr)
	}
	one, lines, stderr := forkLines(t, snap, "--seeds", "1..6,10", "--workers", "1")
	if len(lines) != 7 || !strings.Contains(stderr, "fork: 7 universes") || !strings.Contains(stderr, "universes/s") {
		t.Fatalf("lines %d; summary %q", len(lines), stderr)
	}
	two, _, _ := forkLines(t, snap, "--seeds", "1..6,10", "--workers", "2")
	three, _, _ := forkLines(t, snap, "--seeds", "1..6,10", "--workers", "3")
	if one != two || one != three {
		t.Fatalf("outcomes differ with the worker count:\n%s\n%s\n%s", one, two, three)
	}
	if !strings.HasPrefix(one, "seed=1 ") || !strings.Contains(one, "\nseed=10 ") {
		t.Fatalf("not in seed order:\n%s", one)
	}
}

func TestForkOfALinuxBootIsReproducedByRestoreWithTheSeed(t *testing.T) {
	args, _, _ := bootArgs(t, "--smp", "2", "--stats", "--state-hash")
	code, _, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("boot: exit %d, %q", code, stderr)
	}
	m := regexp.MustCompile(`\((\d+) slots\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no instruction count in %q", stderr)
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	want := stateHashOf(t, stderr)

	// Fork the last 12M instructions of the boot.
	at := strconv.FormatUint(n-12_000_000, 10)
	snap := filepath.Join(t.TempDir(), "boot.snap")
	args, _, _ = bootArgs(t, "--smp", "2", "--snapshot-at", at, "--snapshot-out", snap, "--snapshot-exit")
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("snapshot: exit %d, %q", code, stderr)
	}
	// Without a seed, the restored boot ends where the straight one did.
	code, out, stderr := runCLI(t, "restore", "--state-hash", snap)
	if code != 0 || stateHashOf(t, stderr) != want || !strings.Contains(out, "EVERETT-SMOKE-OK") {
		t.Fatalf("restore: exit %d, %q; want state %s", code, stderr, want)
	}

	one, lines, stderr := forkLines(t, snap, "--seeds", "1..4", "--workers", "1")
	two, _, _ := forkLines(t, snap, "--seeds", "1..4", "--workers", "2")
	if one != two {
		t.Fatalf("outcomes differ between 1 and 2 workers:\n%s\n%s", one, two)
	}
	if !strings.Contains(stderr, "distinct outcomes") {
		t.Errorf("summary %q", stderr)
	}
	hashes := map[string]bool{}
	for _, l := range lines {
		hashes[l[5]] = true
		if l[2] != "power-off" || l[3] != "0" {
			t.Errorf("seed %s: %s exit %s", l[1], l[2], l[3])
		}
	}
	if len(hashes) < 2 {
		t.Errorf("every seed ended in the same state: the seed does not reach the guest")
	}

	// Any seed's line is reproduced by restore --seed.
	dir := t.TempDir()
	for _, seed := range []string{"3"} {
		l := lines[seed]
		code, _, stderr := runCLI(t, "restore", "--seed", seed, "--stats", "--state-hash", "--console", filepath.Join(dir, "console"), snap)
		if code != 0 || stateHashOf(t, stderr) != l[5] || !strings.Contains(stderr, "("+l[4]+" slots)") {
			t.Fatalf("restore --seed %s: exit %d, %q; fork said %s", seed, code, stderr, l[0])
		}
	}
	// --console-dir keeps each universe's console.
	cdir := filepath.Join(dir, "consoles")
	forkLines(t, snap, "--seeds", "2", "--console-dir", cdir)
	if b, err := os.ReadFile(filepath.Join(cdir, "seed-2.console")); err != nil || !strings.Contains(string(b), "EVERETT-SMOKE-OK") {
		t.Errorf("seed 2's console: %v %q", err, tail(string(b)))
	}
}

func TestBadSnapshotFilesGetAOneLineErrorSayingWhy(t *testing.T) {
	prog := smpProgram(t)
	dir := t.TempDir()
	snap := filepath.Join(dir, "a.snap")
	if code, _, stderr := runCLI(t, "run", "--smp", "4", "--snapshot-at", "40000", "--snapshot-out", snap, "--snapshot-exit", prog); code != 0 {
		t.Fatal(stderr)
	}
	good, _ := os.ReadFile(snap)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	corrupt := write("corrupt.snap", flipped)
	truncated := write("trunc.snap", good[:len(good)-7])
	notSnap := write("text.snap", []byte("hello\n"))

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a corrupted file", []string{"restore", corrupt}, "corrupted: checksum mismatch"},
		{"a truncated file", []string{"restore", truncated}, "truncated"},
		{"not a snapshot", []string{"fork", notSnap, "--seeds", "1"}, "not an everett snapshot"},
		{"a missing file", []string{"snapshot", "info", filepath.Join(dir, "nope.snap")}, "no such file"},
		{"--snapshot-at without --snapshot-out", []string{"run", "--snapshot-at", "10", prog}, "--snapshot-out"},
		{"--snapshot-at past --max-insns", []string{"run", "--snapshot-at", "10", "--snapshot-out", snap, "--max-insns", "5", prog}, "not below"},
		{"--snapshot-at after the guest's end", []string{"run", "--smp", "4", "--snapshot-at", "999999999", "--snapshot-out", filepath.Join(dir, "late.snap"), prog}, "before --snapshot-at"},
		{"restore --max-insns before the snapshot", []string{"restore", "--max-insns", "10", snap}, "already at 40000"},
		{"bad seeds", []string{"fork", snap, "--seeds", "9..1"}, "--seeds"},
		{"a changed image", []string{"restore", snap}, "image differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a changed image" {
				os.WriteFile(prog, []byte("not the program"), 0o644)
			}
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("want a one-line error, got %q", stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "late.snap")); err == nil {
		t.Error("a snapshot was written although the guest ended first")
	}
}
