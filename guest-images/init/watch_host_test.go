package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// End-to-end checks of the deadlock watch on the host: real processes, the
// real /proc, the host's system call table.

// watching turns the watch on for a run, sampling the test process's
// descendants.
func watching(oneNode bool, stall time.Duration) func(*supervisor) {
	return func(s *supervisor) {
		fs := procfs{root: "/proc"}
		s.watch = &watch{table: nativeSyscalls(), check: true, oneNode: oneNode, stall: stall, hasTimerfd: fs.hasTimerfd}
		s.sampler = procSampler{fs: fs, root: os.Getpid(), names: s.nameOf}
	}
}

func needWaiter(t *testing.T) {
	t.Helper()
	if waiterPath == "" {
		if _, err := exec.LookPath("cc"); err != nil {
			// scripts/deps.sh installs no host compiler: a host
			// without one cannot build the helper.
			t.Skip("no C helper: the host has no C compiler (cc)")
		}
		t.Fatal(waiterErr) // a compiler that fails on the helper is a bug
	}
	if len(nativeSyscalls()) == 0 {
		t.Skip("no system call table for this architecture")
	}
}

func waiter(name, mode string) procSpec {
	return procSpec{name: name, path: waiterPath, argv: []string{"waiter", mode}, dir: "/"}
}

func TestTheWatchFindsTwoThreadsLockingTwoMutexesInOppositeOrder(t *testing.T) {
	needWaiter(t)
	r := runSpecs(t, nil, []procSpec{waiter("locker", "deadlock")}, watching(false, 0))
	if r.code != exitDeadlock {
		t.Fatalf("code %d; want 125; console:\n%s", r.code, r.console)
	}
	ev := r.of("deadlock", "")
	if len(ev) != 1 {
		t.Fatalf("events %v", r.events)
	}
	threads, _ := ev[0]["threads"].([]any)
	comms := map[string]bool{}
	for _, x := range threads {
		th := event(x.(map[string]any))
		comms[th.str("comm")] = true
		if th.str("name") != "locker" || th.str("syscall") != "futex" || th.str("state") != "S" || len(th["args"].([]any)) != 6 {
			t.Errorf("thread %v", th)
		}
	}
	if len(threads) != 3 || !comms["lock-ab"] || !comms["lock-ba"] {
		t.Errorf("threads %v; want the main thread, lock-ab and lock-ba", threads)
	}
	if !strings.Contains(ev[0].str("reason"), "waits with no timeout") {
		t.Errorf("reason %q", ev[0].str("reason"))
	}
	if !strings.Contains(r.console, `thread`) || !strings.Contains(r.console, `"lock-ab": futex FUTEX_WAIT`) {
		t.Errorf("console:\n%s", r.console)
	}
}

func TestAShellWaitingForASleepIsNoDeadlock(t *testing.T) {
	needWaiter(t)
	// sh waits in wait4 (untimed), sleep in clock_nanosleep (timed).
	r := runSpecs(t, nil, []procSpec{shell("napper", t.TempDir(), restartNo, "sleep 0.3; echo awake")}, watching(true, 0))
	if r.code != 0 || len(r.of("deadlock", "")) != 0 {
		t.Errorf("code %d, events %v", r.code, r.events)
	}
}

func TestAReadNobodyCanAnswerIsADeadlockOnlyOnOneNode(t *testing.T) {
	needWaiter(t)
	r := runSpecs(t, nil, []procSpec{waiter("reader", "pipe")}, watching(true, 0))
	ev := r.of("deadlock", "")
	if r.code != exitDeadlock || len(ev) != 1 || !strings.Contains(ev[0].str("reason"), "one-node universe") {
		t.Fatalf("one node: code %d, events %v", r.code, r.events)
	}
	// On a cluster another node could answer it: only the stall ends it.
	r = runSpecs(t, nil, []procSpec{waiter("reader", "pipe")}, watching(false, 300*time.Millisecond))
	ev = r.of("deadlock", "")
	if r.code != exitDeadlock || len(ev) != 1 || !strings.Contains(ev[0].str("reason"), "(deadlock.stall_ns)") {
		t.Errorf("cluster: code %d, events %v", r.code, r.events)
	}
}

func TestAReadInAProcessHoldingATimerfdIsNoDeadlock(t *testing.T) {
	needWaiter(t)
	r := runSpecs(t, nil, []procSpec{waiter("timed-reader", "timerfd-pipe")}, watching(true, 300*time.Millisecond))
	ev := r.of("deadlock", "")
	if r.code != exitDeadlock || len(ev) != 1 || !strings.Contains(ev[0].str("reason"), "(deadlock.stall_ns)") {
		t.Errorf("code %d, events %v; want only the stall to end it", r.code, r.events)
	}
}

var goHelper struct {
	sync.Once
	path string
	err  error
}

// goHelperPath builds testdata/gohelper for the host, once.
func goHelperPath(t *testing.T) string {
	t.Helper()
	g := &goHelper
	g.Do(func() {
		dir, err := os.MkdirTemp("", "everett-init-gohelper")
		if err != nil {
			g.err = err
			return
		}
		g.path = filepath.Join(dir, "gohelper")
		if out, err := exec.Command("go", "build", "-o", g.path, "./testdata/gohelper").CombinedOutput(); err != nil {
			g.err = fmt.Errorf("go build ./testdata/gohelper: %v\n%s", err, out)
		}
	})
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.path
}

func TestADeadlockedGoProgramIsAskedForItsGoroutineDumpWhichTheEventCarries(t *testing.T) {
	needWaiter(t)
	prog := goHelperPath(t)
	spec := procSpec{name: "gomutex", path: prog, argv: []string{"gohelper", "deadlock"}, dir: "/"}
	r := runSpecs(t, nil, []procSpec{spec}, func(s *supervisor) {
		watching(true, 300*time.Millisecond)(s)
		s.isGo = procfs{root: "/proc"}.isGo
	})
	ev := r.of("deadlock", "")
	if r.code != exitDeadlock || len(ev) != 1 {
		t.Fatalf("code %d, events %v; console:\n%s", r.code, r.events, r.console)
	}
	dumps, _ := ev[0]["goroutines"].([]any)
	if len(dumps) != 1 {
		t.Fatalf("goroutines %v; want one dump", ev[0]["goroutines"])
	}
	d := event(dumps[0].(map[string]any))
	dump := d.str("dump")
	if d.str("name") != "gomutex" || !strings.HasPrefix(dump, "SIGQUIT: quit\n") ||
		strings.Count(dump, "sync.(*Mutex).Lock") < 2 || !strings.Contains(dump, "main.main") {
		t.Errorf("dump of %q (pid %d):\n%s", d.str("name"), d.num("pid"), dump)
	}
	if len(r.of("exit", "")) != 0 {
		t.Errorf("the dumped program's exit was reported: %v", r.events)
	}
	if !strings.Contains(r.console, "goroutine dump: sent SIGQUIT to gomutex") {
		t.Errorf("console:\n%s", r.console)
	}
}

func TestAGoPanicsReportIsKeptFromItsFirstLinePastTheOutputTail(t *testing.T) {
	prog := goHelperPath(t)
	r := runSpecs(t, nil, []procSpec{{name: "panicker", path: prog, argv: []string{"gohelper", "panic"}, dir: "/"}}, nil)
	ex := r.of("exit", "panicker")
	if r.code != 2 || len(ex) != 1 {
		t.Fatalf("code %d, events %v", r.code, r.events)
	}
	crash, out := ex[0].str("crash"), ex[0].str("output")
	if !strings.HasPrefix(crash, "panic: gohelper: boom\n") || strings.Count(crash, "main.deep(") < 40 {
		t.Errorf("crash report:\n%s", crash)
	}
	if strings.Contains(out, "panic: gohelper: boom") {
		t.Errorf("the output tail still holds the panic line; the test no longer shows what crash adds:\n%s", out)
	}
	if strings.Contains(crash, "working") {
		t.Errorf("the crash report holds output from before the panic:\n%s", crash)
	}
}
