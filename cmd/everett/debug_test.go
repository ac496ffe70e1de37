package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"everett/internal/guestimg"
	"everett/internal/hosttool"
)

// syncBuffer is a bytes buffer two goroutines can share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var serverAddr = regexp.MustCompile(`gdb server on (\S+);`)

// gdbSession serves target with everett debug and drives Debian's
// gdb-multiarch through cmds in batch mode; it returns gdb's output.
func gdbSession(t *testing.T, symbols string, target []string, cmds ...string) string {
	t.Helper()
	gdb := hosttool.Need(t, "gdb-multiarch")
	stderr := &syncBuffer{}
	cmd := newDebugCmd()
	cmd.SetArgs(append(target, "--gdb", "127.0.0.1:0"))
	cmd.SetOut(io.Discard)
	cmd.SetErr(stderr)
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	var addr string
	for deadline := time.Now().Add(2 * time.Minute); addr == ""; {
		if m := serverAddr.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("everett debug ended before serving: %v\n%s", err, stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("everett debug did not serve: %s", stderr)
		}
	}
	args := []string{"-nx", "-batch", "-ex", "set pagination off", "-ex", "set confirm off", "-ex", "target remote " + addr}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	if symbols != "" {
		args = append(args, symbols)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, gdb, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("gdb timed out; its output:\n%s\neverett's:\n%s", out, stderr)
	}
	if err != nil {
		t.Logf("gdb: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("everett debug: %v\n%s", err, stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("everett debug did not end when gdb detached:\n%s", stderr)
	}
	return string(out)
}

// icounts returns the values of the monitor icount lines, in order.
func icounts(t *testing.T, out string) []uint64 {
	t.Helper()
	var v []uint64
	for _, m := range regexp.MustCompile(`(?m)^icount=(\d+)$`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseUint(m[1], 10, 64)
		v = append(v, n)
	}
	return v
}

func raceELF(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples/race")).CombinedOutput(); err != nil {
		t.Fatalf("make race: %v\n%s", err, out)
	}
	return filepath.Join(root, "build/examples/race.elf")
}

func TestGDBGoesBackFromARaceReportsFailureToTheLastWriteOfTheWatchedAccount(t *testing.T) {
	elf := raceELF(t)
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "explore", "--elf", elf, "--smp", "2", "--universes", "20", "--out", dir); code != 1 {
		t.Fatalf("explore: exit code %d, want 1 (a failure): %s", code, stderr)
	}
	reports, _ := filepath.Glob(filepath.Join(dir, "failure-*.json"))
	if len(reports) != 1 {
		t.Fatalf("reports %v, want one", reports)
	}
	out := gdbSession(t, elf, []string{reports[0]},
		"continue", "monitor icount",
		"watch accounts[3].balance",
		"reverse-continue", "monitor icount", "p accounts[3].balance",
		"continue", "monitor icount")
	if !strings.Contains(out, "everett: the end of the run") || !strings.Contains(out, "transfers conserve money") || !strings.Contains(out, "No more reverse-execution history") {
		t.Fatalf("continue did not stop at the report's failure:\n%s", out)
	}
	ic := icounts(t, out)
	if len(ic) != 3 || ic[1] >= ic[0] || ic[2] <= ic[1] || ic[2] > ic[0] {
		t.Fatalf("icounts %v: want the failure's, then an earlier one after reverse-continue, then a later one again:\n%s", ic, out)
	}
	vals := regexp.MustCompile(`Old value = (-?\d+)\s+New value = (-?\d+)`).FindAllStringSubmatch(out, -1)
	if len(vals) != 2 {
		t.Fatalf("want two watchpoint stops (backward, then forward again):\n%s", out)
	}
	if vals[0][1] != vals[1][2] || vals[0][2] != vals[1][1] {
		t.Fatalf("backward the write went %s -> %s, forward again %s -> %s: want the same write undone and redone", vals[0][1], vals[0][2], vals[1][1], vals[1][2])
	}
	if !strings.Contains(out, "$1 = "+vals[0][2]) {
		t.Fatalf("after reverse-continue memory reads %q, want the value before the write (%s):\n%s", out, vals[0][2], out)
	}
}

func TestGDBStopsAtABreakpointOnEveryHartAndGoesBackToThePreviousHit(t *testing.T) {
	elf := raceELF(t)
	cmds := []string{"break race.c:163"} // the debit of a transfer: hundreds of times, on both harts
	for i := 0; i < 40; i++ {
		cmds = append(cmds, "continue")
	}
	cmds = append(cmds, "monitor icount", "reverse-continue", "monitor icount", "info threads")
	out := gdbSession(t, elf, []string{elf, "--smp", "2"}, cmds...)
	for _, th := range []string{"Thread 1 hit Breakpoint 1", "Thread 2 hit Breakpoint 1"} {
		if !strings.Contains(out, th) {
			t.Fatalf("no %q in:\n%s", th, out)
		}
	}
	if n := strings.Count(out, "hit Breakpoint 1, "); n != 41 {
		t.Fatalf("%d breakpoint stops, want 40 forward and 1 backward:\n%s", n, out)
	}
	if ic := icounts(t, out); len(ic) != 2 || ic[1] >= ic[0] {
		t.Fatalf("icounts %v: reverse-continue did not go back:\n%s", ic, out)
	}
}

func TestGDBReverseStepiThenStepiComesBackToTheSameStateHash(t *testing.T) {
	elf := raceELF(t)
	out := gdbSession(t, elf, []string{elf, "--smp", "2", "--checkpoint-every", "50000"},
		"break race.c:163", "continue", "continue", "continue", "delete",
		"stepi", "monitor hash", "reverse-stepi 40", "monitor icount", "stepi 40", "monitor hash")
	hashes := regexp.MustCompile(`state-hash=(\w+) icount=(\d+)`).FindAllStringSubmatch(out, -1)
	if len(hashes) != 2 {
		t.Fatalf("want two monitor hash lines:\n%s", out)
	}
	if hashes[0][0] != hashes[1][0] {
		t.Fatalf("40 instructions back and forward: %s, then %s", hashes[0][0], hashes[1][0])
	}
	back := icounts(t, out)
	if from, _ := strconv.ParseUint(hashes[0][2], 10, 64); len(back) != 1 || back[0] >= from {
		t.Fatalf("reverse-stepi 40 did not go back (%v from %s):\n%s", back, hashes[0][2], out)
	}
}

func TestGDBBreaksInALinuxKernelFunction(t *testing.T) {
	im := guestimg.Linux(t)
	kernel, err := filepath.EvalSymlinks(im.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	vmlinux := filepath.Join(filepath.Dir(kernel), "vmlinux")
	if _, err := os.Stat(vmlinux); err != nil {
		t.Fatalf("no vmlinux beside the kernel: %v", err)
	}
	out := gdbSession(t, vmlinux, []string{"--kernel", im.Kernel, "--initrd", im.Initrd, "--smp", "2", "--symbols", vmlinux},
		"break start_kernel", "continue", "monitor icount", "p $priv", "x/i $pc", "stepi", "reverse-stepi", "monitor icount")
	if !regexp.MustCompile(`hit Breakpoint 1, .*start_kernel`).MatchString(out) {
		t.Fatalf("the boot did not stop in start_kernel:\n%s", out)
	}
	if !strings.Contains(out, "$1 = 1") {
		t.Fatalf("the hart is not in S-mode at start_kernel:\n%s", out)
	}
	if ic := icounts(t, out); len(ic) != 2 || ic[0] != ic[1] {
		t.Fatalf("icounts %v: stepi then reverse-stepi must come back to the breakpoint's:\n%s", ic, out)
	}
}

func TestGDBReverseStepAndReverseFinishGoBackThroughSourceLines(t *testing.T) {
	elf := raceELF(t)
	out := gdbSession(t, elf, []string{elf, "--smp", "2"},
		"break putdec", "continue", "delete", "next", "next", "reverse-step", "reverse-finish", "bt 1")
	if !strings.Contains(out, "hit Breakpoint 1, putdec") {
		t.Fatalf("no stop in putdec:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^#0 .* in main \(\) at race\.c:\d+`).MatchString(out) {
		t.Fatalf("reverse-finish did not go back to putdec's caller:\n%s", out)
	}
}
