package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run real processes (/bin/sh and a small C program) under the
// supervisor on the host, as a child of the test process rather than as
// PID 1. The supervisor reaps with wait4(-1), so nothing else in this test
// binary may start children while it runs: TestMain builds the C helper
// before any test, and no test here runs in parallel.

// waiterPath is the C helper testdata/helper/waiter.c, built by TestMain
// ("" when it could not be: waiterErr says why).
var (
	waiterPath string
	waiterErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "everett-init-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := filepath.Join(dir, "waiter")
	cmd := exec.Command("cc", "-O2", "-pthread", "-o", out, "testdata/helper/waiter.c")
	if b, err := cmd.CombinedOutput(); err == nil {
		waiterPath = out
	} else {
		waiterErr = fmt.Errorf("building the C helper: %w\n%s", err, b)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if guestOnce.dir != "" {
		os.RemoveAll(guestOnce.dir)
	}
	os.Exit(code)
}

// recordingHost records events and answers kill_next from a list.
type recordingHost struct {
	mu     sync.Mutex
	events [][]byte
	// kills are kill_next's answers in turn; then there are no more.
	kills []killAnswer
	// beforeKill, when set, runs before each kill_next answer.
	beforeKill func()
	asked      []int // n of each kill_next call
}

type killAnswer struct {
	delay time.Duration
	index int
}

func (h *recordingHost) Event(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, bytes.Clone(b))
}

func (h *recordingHost) KillNext(n int) (time.Duration, int, bool) {
	if h.beforeKill != nil {
		h.beforeKill()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, n)
	if len(h.kills) == 0 {
		return 0, 0, false
	}
	k := h.kills[0]
	h.kills = h.kills[1:]
	return k.delay, k.index, true
}

// event is a decoded event.
type event map[string]any

func (e event) str(k string) string { s, _ := e[k].(string); return s }
func (e event) num(k string) int    { f, _ := e[k].(float64); return int(f) }
func (e event) flag(k string) bool  { b, _ := e[k].(bool); return b }
func (e event) has(k string) bool   { _, ok := e[k]; return ok }

// result is what a run left.
type result struct {
	code    int
	events  []event
	console string
	s       *supervisor
}

// of lists the events of kind ev about process name ("" for any).
func (r result) of(ev, name string) []event {
	var out []event
	for _, e := range r.events {
		if e.str("event") == ev && (name == "" || e.str("name") == name) {
			out = append(out, e)
		}
	}
	return out
}

// shell is a process running script with /bin/sh in dir.
func shell(name, dir string, restart policy, script string) procSpec {
	return procSpec{name: name, path: "/bin/sh", argv: []string{"sh", "-c", script},
		env: []string{"PATH=/usr/bin:/bin"}, dir: dir, restart: restart}
}

// runSpecs runs specs under a supervisor (configured by setup) and
// returns the run's result; a run still going after a minute fails the
// test (a guard against a hang, not a measure of time).
func runSpecs(t *testing.T, h *recordingHost, specs []procSpec, setup func(*supervisor)) result {
	t.Helper()
	if h == nil {
		h = &recordingHost{}
	}
	sys, err := newLinuxSystem()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	start := time.Now()
	con := newConsole(&out)
	s := newSupervisor(h, con, sys, func() time.Duration { return time.Since(start) }, specs)
	if setup != nil {
		setup(s)
	}
	done := make(chan int, 1)
	go func() { done <- s.run() }()
	var code int
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the run did not end; console:\n%s", out.String())
	}
	// Leave no process of this run behind for the next one to reap.
	for _, p := range s.procs {
		if p.pid != 0 {
			syscall.Kill(p.pid, syscall.SIGKILL)
			var st syscall.WaitStatus
			syscall.Wait4(p.pid, &st, 0, nil)
		}
	}
	con.flush()
	r := result{code: code, console: out.String(), s: s}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.events {
		var e event
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("event %s: %v", b, err)
		}
		r.events = append(r.events, e)
	}
	return r
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

func TestATaskThatExitsWith3EndsTheRunWith3AndItsOutputIsReported(t *testing.T) {
	dir := t.TempDir()
	r := runSpecs(t, nil, []procSpec{shell("worker", dir, restartNo, "echo out1; echo err1 >&2; echo out2; exit 3")}, nil)
	if r.code != 3 {
		t.Errorf("code %d; want 3", r.code)
	}
	starts, exits := r.of("start", "worker"), r.of("exit", "worker")
	if len(starts) != 1 || len(exits) != 1 {
		t.Fatalf("events %v", r.events)
	}
	e := exits[0]
	if e.num("pid") != starts[0].num("pid") || !e.flag("task") || e.num("code") != 3 || e.has("signal") ||
		e.has("restarting") || e.has("killed_by_everett") {
		t.Errorf("exit event %v", e)
	}
	if e.str("output") != "out1\nerr1\nout2\n" {
		t.Errorf("output %q; want stdout and stderr in the order written", e.str("output"))
	}
	if argv := encode(starts[0]["argv"]); string(argv) != `["sh","-c","echo out1; echo err1 >&2; echo out2; exit 3"]` {
		t.Errorf("start argv %s", argv)
	}
	// The program's lines reach the console in the order written; the
	// init's own lines may fall between them (the child runs while the
	// init reports its start).
	var prog []string
	for _, l := range strings.Split(r.console, "\n") {
		if !strings.HasPrefix(l, "everett-init: ") && l != "" {
			prog = append(prog, l)
		}
	}
	if strings.Join(prog, "\n") != "out1\nerr1\nout2" {
		t.Errorf("the program's lines on the console: %q, want out1, err1, out2:\n%s", prog, r.console)
	}
	for _, want := range []string{fmt.Sprintf("everett-init: worker (pid %d) exited with code 3\n", e.num("pid")),
		"everett-init: the run ends with code 3: task worker exited with code 3\n"} {
		if !strings.Contains(r.console, want) {
			t.Errorf("console lacks %q:\n%s", want, r.console)
		}
	}
}

func TestATaskKilledBySIGSEGVEndsTheRunWith139(t *testing.T) {
	r := runSpecs(t, nil, []procSpec{shell("crasher", t.TempDir(), restartNo, "echo about to crash; kill -SEGV $$")}, nil)
	if r.code != 128+11 {
		t.Errorf("code %d; want 139", r.code)
	}
	e := r.of("exit", "crasher")
	if len(e) != 1 || e[0].num("signal") != 11 || e[0].str("signal_name") != "SIGSEGV" || !e[0].has("core") ||
		e[0].has("code") || e[0].str("output") != "about to crash\n" {
		t.Errorf("exit events %v", e)
	}
	if !strings.Contains(r.console, "was killed by SIGSEGV") {
		t.Errorf("console:\n%s", r.console)
	}
}

func TestTheRunEndsWith0WhenEveryTaskExitsWith0(t *testing.T) {
	dir := t.TempDir()
	r := runSpecs(t, nil, []procSpec{
		shell("a", dir, restartNo, "exit 0"),
		shell("b", dir, restartNo, "sleep 0.2"),
	}, nil)
	if r.code != 0 || len(r.of("exit", "")) != 2 {
		t.Errorf("code %d, events %v", r.code, r.events)
	}
	if !strings.Contains(r.console, "the run ends with code 0: every task exited with code 0") {
		t.Errorf("console:\n%s", r.console)
	}
}

func TestTheOutputTailIsTheLast20Lines(t *testing.T) {
	r := runSpecs(t, nil, []procSpec{shell("chatty", t.TempDir(), restartNo, "i=1; while [ $i -le 30 ]; do echo line $i; i=$((i+1)); done")}, nil)
	var want strings.Builder
	for i := 11; i <= 30; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if e := r.of("exit", "chatty"); len(e) != 1 || e[0].str("output") != want.String() {
		t.Errorf("exit events %v", e)
	}
	// The program's first line may come before init's own "started"
	// line: they are two host processes writing to one console.
	if !strings.Contains("\n"+r.console, "\nline 1\nline 2\n") {
		t.Errorf("the console does not have every line:\n%s", r.console)
	}
}

func TestAProgramThatCannotStartEndsTheRunWith126(t *testing.T) {
	r := runSpecs(t, nil, []procSpec{{name: "ghost", path: "/nonexistent/ghost", argv: []string{"ghost"}, dir: "/"}}, nil)
	if r.code != exitCannotStart {
		t.Errorf("code %d; want 126", r.code)
	}
	e := r.of("error", "ghost")
	if len(e) != 1 || e[0].str("message") != "exec /nonexistent/ghost: no such file or directory" {
		t.Errorf("events %v", r.events)
	}
	r = runSpecs(t, nil, []procSpec{{name: "lost", path: "/bin/sh", argv: []string{"sh"}, dir: "/nonexistent"}}, nil)
	if e := r.of("error", "lost"); r.code != exitCannotStart || len(e) != 1 ||
		!strings.Contains(e[0].str("message"), "directory /nonexistent") {
		t.Errorf("code %d, events %v", r.code, r.events)
	}
}

func TestAFailingServiceIsRestartedTenTimesThenTheRunEndsWith1(t *testing.T) {
	dir := t.TempDir()
	r := runSpecs(t, nil, []procSpec{
		shell("flaky", dir, restartOnFailure, "echo trying; exit 4"),
		shell("waiter", dir, restartNo, "exec sleep 60"),
	}, nil)
	if r.code != exitFailure {
		t.Errorf("code %d; want 1", r.code)
	}
	starts, exits := r.of("start", "flaky"), r.of("exit", "flaky")
	if len(starts) != 11 || len(exits) != 11 {
		t.Fatalf("%d starts and %d exits of flaky; want 11 each", len(starts), len(exits))
	}
	for i, e := range exits {
		if e.num("code") != 4 || e.flag("task") || e.flag("restarting") != (i < 10) || e.num("pid") != starts[i].num("pid") {
			t.Errorf("exit %d: %v", i, e)
		}
	}
	if e := r.of("error", "flaky"); len(e) != 1 || !strings.Contains(e[0].str("message"), "after 10 restarts") {
		t.Errorf("error events %v", e)
	}
	for i := 1; i <= 10; i++ {
		if !strings.Contains(r.console, fmt.Sprintf("exited with code 4; restarting in 100ms (restart %d of 10)", i)) {
			t.Errorf("console lacks restart %d:\n%s", i, r.console)
		}
	}
}

func TestAnAlwaysServiceRestartsAfterExit0AndAnOnFailureOneDoesNot(t *testing.T) {
	dir := t.TempDir()
	r := runSpecs(t, nil, []procSpec{
		shell("ticker", dir, restartAlways, "echo tick >> ticks"),
		shell("once", dir, restartOnFailure, "exit 0"),
		// The task ends once the ticker has run three times.
		shell("watcher", dir, restartNo, `while [ "$(cat ticks 2>/dev/null | wc -l)" -lt 3 ]; do sleep 0.02; done`),
	}, nil)
	if r.code != 0 {
		t.Errorf("code %d; console:\n%s", r.code, r.console)
	}
	ticks := r.of("exit", "ticker")
	if len(ticks) < 2 {
		t.Fatalf("ticker exits %v", ticks)
	}
	for _, e := range ticks {
		if e.num("code") != 0 || !e.flag("restarting") {
			t.Errorf("ticker exit %v", e)
		}
	}
	once := r.of("exit", "once")
	if len(once) != 1 || once[0].has("restarting") || len(r.of("start", "once")) != 1 {
		t.Errorf("once: %v", r.events)
	}
	if !strings.Contains(r.console, `exited with code 0; not restarted (restart "on-failure")`) {
		t.Errorf("console:\n%s", r.console)
	}
}

func TestAKillFaultKillsTheChosenServiceWhichRestartsUncounted(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	h := &recordingHost{kills: []killAnswer{{time.Microsecond, 1}}}
	// The host chooses the kill once the victim is up (a file it writes),
	// so that the kill finds it running.
	h.beforeKill = func() {
		for range 1000 {
			if _, err := os.Stat(ready); err == nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	r := runSpecs(t, h, []procSpec{
		shell("bystander", dir, restartAlways, "exec sleep 60"),
		shell("victim", dir, restartOnFailure, "echo up >> ready; exec sleep 60"),
		shell("watcher", dir, restartNo, `while [ "$(cat ready 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.02; done`),
	}, func(s *supervisor) { s.kills = true })
	if r.code != 0 {
		t.Fatalf("code %d; console:\n%s", r.code, r.console)
	}
	starts, kills, exits := r.of("start", "victim"), r.of("kill", ""), r.of("exit", "victim")
	if len(starts) != 2 || len(kills) != 1 || len(exits) != 1 {
		t.Fatalf("events %v", r.events)
	}
	if kills[0].str("name") != "victim" || kills[0].num("pid") != starts[0].num("pid") {
		t.Errorf("kill event %v; victim started as %v", kills[0], starts[0])
	}
	e := exits[0]
	if !e.flag("killed_by_everett") || e.num("signal") != 9 || e.str("signal_name") != "SIGKILL" || !e.flag("restarting") {
		t.Errorf("exit event %v", e)
	}
	if len(h.asked) != 2 || h.asked[0] != 2 || h.asked[1] != 2 {
		t.Errorf("kill_next asked with %v; want [2 2] (two services)", h.asked)
	}
	if !strings.Contains(r.console, "(a kill fault's restart, not counted)") || r.s.services[1].restarts != 0 {
		t.Errorf("restarts %d; console:\n%s", r.s.services[1].restarts, r.console)
	}
}

func TestOrphansAreReapedWithoutAnEvent(t *testing.T) {
	// As PID 1 the init adopts orphans; here the test process becomes a
	// subreaper, which adopts them the same way (prctl(2)
	// PR_SET_CHILD_SUBREAPER). It stays one for the rest of the tests.
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("PR_SET_CHILD_SUBREAPER: %v", e)
	}
	dir := t.TempDir()
	r := runSpecs(t, nil, []procSpec{
		// The parent leaves a child behind and exits at once.
		shell("parent", dir, restartNo, "sleep 0.2 & echo $! > orphan"),
		// The task ends when the orphan is gone: reaped, not a zombie.
		shell("checker", dir, restartNo, `while [ ! -s orphan ] || [ -e /proc/$(cat orphan) ]; do sleep 0.02; done`),
	}, nil)
	if r.code != 0 || r.s.orphans < 1 {
		t.Errorf("code %d, %d orphans reaped; console:\n%s", r.code, r.s.orphans, r.console)
	}
	for _, e := range r.events {
		if name := e.str("name"); name != "parent" && name != "checker" {
			t.Errorf("an event about something else: %v", e)
		}
	}
}
