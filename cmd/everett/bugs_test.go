package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"everett/internal/guestimg"
)

// bugSuite builds the riscv64 programs of guest-images/bugs (make riscv)
// and returns the folder that holds them, build/bugs, and their names.
func bugSuite(t *testing.T) (string, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("boots Linux")
	}
	guestimg.Linux(t) // the bundled kernel, built once and cached
	root, _ := filepath.Abs("../..")
	dir := filepath.Join(root, "guest-images/bugs")
	if out, err := exec.Command("make", "-s", "-C", dir, "riscv").CombinedOutput(); err != nil {
		t.Fatalf("building the bug suite: %v\n%s", err, out)
	}
	out, err := exec.Command("make", "-s", "-C", dir, "list").Output()
	if err != nil {
		t.Fatalf("listing the bug suite: %v", err)
	}
	names := strings.Fields(string(out))
	if len(names) < 24 {
		t.Fatalf("the bug suite lists %d programs: %q", len(names), names)
	}
	return filepath.Join(root, "build/bugs"), names
}

func TestExploreLinuxPassesTheFixedTwinOfEveryBugProgramIn20Universes(t *testing.T) {
	bin, names := bugSuite(t)
	for _, name := range names {
		t.Run(name+"-fixed passes", func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "explore", "--linux", "--smp", "2", "--seed", "1", "--universes", "20",
				"--out", t.TempDir(), filepath.Join(bin, name+"-fixed"))
			if code != 0 || !strings.Contains(stdout, "explored 20 universes") || !strings.Contains(stdout, "0 distinct failure(s)") {
				t.Fatalf("explore exited %d (a false alarm, or a twin that is not fixed):\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}

func TestExploreLinuxFindsTheBugsItFindsQuicklyTodayFromSeed1(t *testing.T) {
	bin, _ := bugSuite(t)
	// 2026-12-04 (evening), with threads held back PCT-style, from seed 1
	// (the programs built as make builds them, wherever the clone is):
	// deadlock2 in universe 17, counter in 1, uaf in 1 (never before the
	// holds), go-counter in 73, go-locksend in 1, initorder in 5,
	// wrongsignal in 39 (only since futex calls in libc are points),
	// go-leak in 73 (only since the runtime's channel code is the
	// program's); go test -v logs them. Every change to the guest (the
	// init's bytes, say) moves these numbers: the morning's were 5, 3, 1,
	// 82, 1, 88, 66 and 138, and rwflag, then found in universe 160, was
	// not found in 1,000 universes after the init began to keep Go crash
	// reports, so it is not here (a depth-2 bug; make bench-bugs measures
	// it over five seeds). The bound leaves room for a scheduler that moves them;
	// one that loses them fails here.
	for _, tc := range []struct {
		name, sig, shows string
		within           int
	}{
		{"deadlock2", "deadlock: the threads of deadlock2 wait with nothing to wake them", "futex", 100},
		{"counter", "signal: counter killed by SIGABRT", "Assertion `served == 2 * REQUESTS' failed", 100},
		{"uaf", "signal: uaf killed by SIGABRT", "Assertion `s->magic == LIVE' failed", 100},
		{"go-counter", "exit: go-counter exited with code 1", "counter: served", 200},
		{"go-locksend", "deadlock: the goroutines of go-locksend wait with nothing to wake them (Go's runtime: all goroutines are asleep)", "chan send", 100},
		{"initorder", "signal: initorder killed by SIGSEGV", "", 200},
		{"wrongsignal", "deadlock: the threads of wrongsignal wait with nothing to wake them", "futex", 200},
		{"go-leak", "deadlock: the goroutines of go-leak wait with nothing to wake them (Go's runtime: all goroutines are asleep)", "chan send", 300},
	} {
		t.Run(tc.name+" is found", func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "explore", "--linux", "--smp", "2", "--seed", "1", "--universes", fmt.Sprint(tc.within),
				"--stop-on-failure", "--out", t.TempDir(), filepath.Join(bin, tc.name))
			if code != 1 || !strings.Contains(stdout, "FAILURE universe ") || !strings.Contains(stdout, tc.sig) || !strings.Contains(stdout, tc.shows) {
				t.Fatalf("explore exited %d, want 1 with %q showing %q:\n%s\n%s", code, tc.sig, tc.shows, stdout, stderr)
			}
			// For the next re-measurement of the bounds (go test -v).
			t.Log(regexp.MustCompile(`first failure in universe \d+`).FindString(stdout))
		})
	}
}
