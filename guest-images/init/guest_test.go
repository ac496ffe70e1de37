package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/guestbuild"
	"everett/internal/guestimg"
)

// The init as PID 1 of a riscv64 Linux guest booted with `everett run`,
// as the host will boot it: the run's exit code is the one the init gives
// the SDK's exit, and the console shows what it did. (The events reach the
// host through hypercalls these tests do not see; the host's tests check
// them.)

var guestOnce struct {
	sync.Once
	dir, cli, init, waiter string
	err                    error
}

// guestTools builds, once, the everett CLI, the init for riscv64 and the
// C helper as a static riscv64 program.
func guestTools(t *testing.T) (cli, init, waiter string) {
	t.Helper()
	g := &guestOnce
	g.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			g.err = err
			return
		}
		if g.dir, g.err = os.MkdirTemp("", "everett-init-guest"); g.err != nil {
			return
		}
		g.cli, g.init = filepath.Join(g.dir, "everett"), filepath.Join(g.dir, "init")
		for _, b := range []struct {
			env  []string
			args []string
		}{
			{nil, []string{"build", "-o", g.cli, "./cmd/everett"}},
			{[]string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=riscv64"},
				[]string{"build", "-trimpath", "-ldflags=-s -w", "-o", g.init, "./guest-images/init"}},
		} {
			cmd := exec.Command("go", b.args...)
			cmd.Dir, cmd.Env = root, append(os.Environ(), b.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				g.err = errors.New("go " + strings.Join(b.args, " ") + ": " + err.Error() + "\n" + string(out))
				return
			}
		}
		g.waiter, g.err = guestbuild.Compile(guestbuild.Spec{
			Name:  "init-waiter",
			CC:    guestbuild.LinuxCC,
			Flags: []string{"-static", "-O2", "-pthread", "-Wall"},
			Dirs:  []string{filepath.Join(root, "guest-images", "init", "testdata", "helper")},
		})
	})
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.cli, g.init, g.waiter
}

// bootWorkload boots a guest whose initramfs holds the init, the C helper
// as /bin/waiter and workload as /everett/workload.json, and returns the
// run's exit code and console.
func bootWorkload(t *testing.T, workload, appendArgs string) (int, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds everett and boots a Linux guest")
	}
	cli, initPath, waiterPath := guestTools(t)
	kernel := guestimg.Linux(t).Kernel
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	entries := append(initramfs.Init(read(initPath)),
		initramfs.Dir("/bin", 0o755),
		initramfs.File("/bin/waiter", 0o755, read(waiterPath)),
		initramfs.Dir("/everett", 0o755),
		initramfs.File("/everett/workload.json", 0o644, []byte(workload)))
	var cpio bytes.Buffer
	if err := initramfs.Write(&cpio, entries); err != nil {
		t.Fatal(err)
	}
	initrd := filepath.Join(t.TempDir(), "initrd.cpio")
	if err := os.WriteFile(initrd, cpio.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cli, "run", "--smp", "2", "--seed", "1", "--max-insns", "20000000000",
		"--kernel", kernel, "--initrd", initrd, "--append", "console=ttyS0 quiet "+appendArgs)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	console := strings.ReplaceAll(out.String(), "\r\n", "\n") // the terminal's line ends
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, console
	case errors.As(err, &exit):
		return exit.ExitCode(), console
	}
	t.Fatalf("everett run: %v", err)
	return 0, ""
}

func TestOnAGuestTheRunEndsWithTheFailingTasksCodeWhileAServiceRestarts(t *testing.T) {
	code, console := bootWorkload(t, `{
		"nodes": [{"name": "n0", "addr": "10.0.0.1"}, {"name": "n1", "addr": "10.0.0.2"}],
		"env": ["PATH=/bin"],
		"processes": [
			{"name": "flaky", "argv": ["waiter", "report", "0", "1"], "restart": "on-failure"},
			{"name": "main", "argv": ["waiter", "report", "350", "3"], "dir": "/tmp"}
		],
		"deadlock": {"check": true}
	}`, "everett.node=1")
	if code != 3 {
		t.Errorf("exit code %d; want 3; console:\n%s", code, console)
	}
	for _, want := range []string{
		"everett-init: node 1 of 2: n1, eth0 10.0.0.2/24\n",
		"waiter: host n1, directory /tmp\n",
		"waiter: EVERETT_PEERS=10.0.0.1,10.0.0.2\n",
		"; restarting in 100ms (restart 1 of 10)\n",
		"; restarting in 100ms (restart 3 of 10)\n",
		"everett-init: the run ends with code 3: task main exited with code 3\n",
	} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
	if strings.Contains(console, "deadlock") {
		t.Errorf("a deadlock reported:\n%s", console)
	}
}

func TestOnAGuestTheWatchEndsADeadlockedRunWith125(t *testing.T) {
	code, console := bootWorkload(t, `{
		"env": ["PATH=/bin"],
		"processes": [{"name": "locker", "argv": ["waiter", "deadlock"]}],
		"deadlock": {"check": true}
	}`, "")
	if code != exitDeadlock {
		t.Errorf("exit code %d; want 125; console:\n%s", code, console)
	}
	for _, want := range []string{
		"everett-init: deadlock: every thread of the workload (3 threads in 1 process) waits with no timeout",
		`"lock-ab": futex FUTEX_WAIT|FUTEX_PRIVATE_FLAG, no timeout; wchan futex_wait_queue`,
		`"lock-ba": futex FUTEX_WAIT|FUTEX_PRIVATE_FLAG, no timeout; wchan futex_wait_queue`,
	} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
}

func TestOnAGuestAMissingProgramEndsTheRunWith126AndWithoutTheSDKTheInitPowersOff(t *testing.T) {
	workload := `{"env": ["PATH=/bin"], "processes": [{"name": "ghost", "argv": ["ghost"]}]}`
	code, console := bootWorkload(t, workload, "")
	if code != exitCannotStart || !strings.Contains(console, "everett-init: error: exec ghost: not found in PATH (/bin)") {
		t.Errorf("exit code %d; want 126; console:\n%s", code, console)
	}
	// As on QEMU: no hypercalls, a power-off (which everett reports as 0).
	code, console = bootWorkload(t, workload, "EVERETT_SDK=off")
	if code != 0 || !strings.Contains(console, "everett-init: exit code 126; powering off") {
		t.Errorf("exit code %d; want 0 after a power-off; console:\n%s", code, console)
	}
}
