package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The supervisor starts the workload's processes, copies their output,
// reaps them (and any orphan the init adopts), restarts services, carries
// out kill faults, runs the deadlock watch and decides the run's exit
// code. One goroutine (run's) owns all of its state; the goroutines that
// copy output only write the console and their process's tail, and say
// when they are done.

// The run's exit codes besides a failing task's own.
const (
	exitFailure     = 1   // the init could not do what the workload asks
	exitDeadlock    = 125 // the deadlock watch found one
	exitCannotStart = 126 // a program could not be started
)

// Restart policy and output limits of the protocol.
const (
	restartDelay = 100 * time.Millisecond
	restartsMax  = 10
	// outputGrace is how long after a process ends the init waits for the
	// rest of its output (a child it left may hold the pipe open) before it
	// reports the exit.
	outputGrace = 50 * time.Millisecond
	// reapBatchMax bounds the processes reaped in one step.
	reapBatchMax = 1024
)

// procSpec is a process as the supervisor starts it.
type procSpec struct {
	name    string
	path    string   // the file to execute
	argv    []string // as the workload gives it
	env     []string
	dir     string
	restart policy
}

// system is what the supervisor does to processes.
type system interface {
	// start starts p with stdin /dev/null and stdout and stderr on one
	// pipe, whose read end it returns.
	start(p *procSpec) (pid int, output io.ReadCloser, err error)
	// reap returns a child that has ended, without waiting.
	reap() (pid int, status syscall.WaitStatus, ok bool)
	// kill sends sig to process pid.
	kill(pid int, sig syscall.Signal) error
}

// procState is where a workload process is in its life.
type procState int

const (
	notStarted     procState = iota
	running                  // started, not yet reaped
	exiting                  // reaped; its output is being drained
	restartPending           // will start again at restartAt
	ended                    // will not run again
)

// proc is one process of the workload, across its restarts.
type proc struct {
	spec    procSpec
	service bool

	state        procState
	pid          int
	killed       bool // this incarnation was sent SIGKILL by a kill fault
	out          *tail
	outDone      chan struct{} // closed when its output reached its end
	status       syscall.WaitStatus
	endedAt      time.Duration
	exitDeadline time.Duration
	restartAt    time.Duration
	restarts     int // restarts counted against restartsMax
}

// supervisor runs a workload.
type supervisor struct {
	host  host
	con   *console
	sys   system
	clock func() time.Duration // CLOCK_MONOTONIC since some start

	procs    []*proc
	services []*proc // the killable ones, in workload order
	byPid    map[int]*proc

	kills bool // ask the host for kill faults

	// The deadlock watch; nil when off.
	watch   *watch
	sampler interface{ sample() (sample, error) }
	// isGo reports whether process pid runs a Go program (nil: never asks
	// for goroutine dumps).
	isGo func(pid int) bool
	// A deadlock waiting for the goroutine dumps of dumping until
	// dumpDeadline (askDumps).
	pendingDeadlock *deadlockEvent
	dumping         []*proc
	dumpDeadline    time.Duration

	restartDelay time.Duration
	restartsMax  int
	outputGrace  time.Duration

	tasksLeft   int
	killPending bool
	killAt      time.Duration
	killIndex   int
	nextSample  time.Duration
	moreToReap  bool
	orphans     int // orphans reaped

	wake   chan struct{} // an output ended
	panics chan any      // a goroutine of the supervisor panicked

	done bool
	code int
}

// newSupervisor prepares a supervisor for specs.
func newSupervisor(h host, con *console, sys system, clock func() time.Duration, specs []procSpec) *supervisor {
	s := &supervisor{
		host: h, con: con, sys: sys, clock: clock,
		byPid:        map[int]*proc{},
		restartDelay: restartDelay,
		restartsMax:  restartsMax,
		outputGrace:  outputGrace,
		wake:         make(chan struct{}, 1),
		panics:       make(chan any, 1),
	}
	for _, sp := range specs {
		p := &proc{spec: sp, service: sp.restart != restartNo}
		s.procs = append(s.procs, p)
		if p.service {
			s.services = append(s.services, p)
		} else {
			s.tasksLeft++
		}
	}
	return s
}

// run starts every process and supervises them until the run ends, and
// returns its exit code.
func (s *supervisor) run() int {
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, syscall.SIGCHLD)
	defer signal.Stop(sigchld)

	for _, p := range s.procs {
		if !s.start(p) {
			return s.code
		}
	}
	s.con.say("all %s started: %s", plural(len(s.procs), "process"), s.summary())
	s.askKill()
	if s.watch != nil {
		s.nextSample = s.clock() + sampleIntervalMin
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.step()
		if s.done {
			return s.code
		}
		timer.Reset(s.untilNext())
		select {
		case <-sigchld:
		case <-s.wake:
		case <-timer.C:
		case r := <-s.panics:
			s.fail(exitFailure, "", fmt.Sprintf("the init failed: %v", r))
			return s.code
		}
	}
}

// shellQuote is argv as a shell would need it typed, for a person.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// summary is "server (service), client (task)".
func (s *supervisor) summary() string {
	var parts []string
	for _, p := range s.procs {
		kind := "task"
		if p.service {
			kind = "service, restart " + p.spec.restart.String()
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", p.spec.name, kind))
	}
	return strings.Join(parts, ", ")
}

// step does everything that is due.
func (s *supervisor) step() {
	s.reapAll()
	now := s.clock()
	if s.pendingDeadlock != nil {
		s.finishDumps(now) // nothing else happens while the dumps are written
		return
	}
	for _, p := range s.procs {
		if p.state == exiting && (closed(p.outDone) || now >= p.exitDeadline) {
			s.finish(p)
			if s.done {
				return
			}
		}
	}
	for _, p := range s.procs {
		if p.state == restartPending && now >= p.restartAt {
			if !s.start(p) {
				return
			}
		}
	}
	if s.killPending && now >= s.killAt {
		s.reapAll() // a process that just ended is not one to kill
		s.carryOutKill()
	}
	if s.watch != nil && now >= s.nextSample {
		s.sampleNow(now)
	}
}

// untilNext is the time to the next thing due.
func (s *supervisor) untilNext() time.Duration {
	if s.moreToReap {
		return 0
	}
	next := time.Duration(-1)
	at := func(t time.Duration) {
		if next < 0 || t < next {
			next = t
		}
	}
	for _, p := range s.procs {
		switch p.state {
		case exiting:
			at(p.exitDeadline)
		case restartPending:
			at(p.restartAt)
		}
	}
	if s.killPending {
		at(s.killAt)
	}
	if s.pendingDeadlock != nil {
		at(s.dumpDeadline)
	}
	if s.watch != nil {
		at(s.nextSample)
	}
	if next < 0 {
		return time.Hour
	}
	return max(0, next-s.clock())
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// start starts p; when it cannot, it reports why and ends the run.
func (s *supervisor) start(p *proc) bool {
	pid, out, err := s.sys.start(&p.spec)
	if err != nil {
		msg := truncate(err.Error(), errorMessageBytesMax)
		s.fail(exitCannotStart, p.spec.name, msg)
		return false
	}
	again := p.state != notStarted
	p.state, p.pid, p.killed = running, pid, false
	p.out, p.outDone = &tail{}, make(chan struct{})
	s.byPid[pid] = p
	go s.copyOutput(out, p.out, p.outDone)
	s.emit(startEvent{Event: "start", Name: p.spec.name, Pid: pid, Argv: p.spec.argv})
	if again {
		s.con.say("restarted %s (pid %d)", p.spec.name, pid)
	} else {
		s.con.say("started %s (pid %d): %s", p.spec.name, pid, shellQuote(p.spec.argv))
	}
	return true
}

// copyOutput copies a process's output to the console and its tail until
// the output ends.
func (s *supervisor) copyOutput(r io.ReadCloser, t *tail, done chan struct{}) {
	defer s.nudge()
	defer close(done)
	defer r.Close()
	defer s.recoverInto()
	if err := copyLines(r, s.con, t); err != nil {
		s.con.say("reading a process's output: %v", err)
	}
}

// nudge wakes run's loop.
func (s *supervisor) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// recoverInto hands a panic of one of the supervisor's goroutines to run,
// which reports it: the init must never crash.
func (s *supervisor) recoverInto() {
	if r := recover(); r != nil {
		select {
		case s.panics <- r:
		default:
		}
	}
}

// reapAll reaps every child that has ended.
func (s *supervisor) reapAll() {
	s.moreToReap = false
	for range reapBatchMax {
		pid, status, ok := s.sys.reap()
		if !ok {
			return
		}
		p := s.byPid[pid]
		if p == nil {
			s.orphans++ // adopted by the init; nothing to report
			continue
		}
		delete(s.byPid, pid)
		p.state, p.status, p.endedAt = exiting, status, s.clock()
		p.exitDeadline = p.endedAt + s.outputGrace
	}
	s.moreToReap = true
}

// finish reports the end of p, whose output has been drained, and applies
// its restart policy.
func (s *supervisor) finish(p *proc) {
	st, name, pid := p.status, p.spec.name, p.pid
	ev := exitEvent{Event: "exit", Name: name, Pid: pid, Task: !p.service, Output: p.out.String(), Crash: p.out.crashReport()}
	var code int // the run's exit code, should this end it
	var how string
	failed := true
	if st.Signaled() {
		sig, core := st.Signal(), st.CoreDump()
		ev.Signal, ev.SignalName, ev.Core = int(sig), signalName(sig), &core
		ev.KilledByEverett = p.killed && sig == syscall.SIGKILL
		code = 128 + int(sig)
		how = "was killed by " + signalName(sig)
		if core {
			how += " (core dumped)"
		}
		if ev.KilledByEverett {
			how += " (a kill fault)"
		}
	} else {
		c := st.ExitStatus()
		ev.Code, code, failed = &c, c, c != 0
		how = fmt.Sprintf("exited with code %d", c)
	}
	restart := p.spec.restart == restartAlways || (p.spec.restart == restartOnFailure && failed)
	counted := restart && !ev.KilledByEverett
	limit := counted && p.restarts >= s.restartsMax
	ev.Restarting = restart && !limit
	s.host.Event(encodeExit(ev))
	p.pid, p.killed = 0, false

	switch {
	case !p.service:
		p.state = ended
		s.con.say("%s (pid %d) %s", name, pid, how)
		if failed {
			s.end(code, fmt.Sprintf("task %s %s", name, how))
			return
		}
		s.tasksLeft--
		if s.tasksLeft == 0 {
			s.end(0, "every task exited with code 0")
		}
	case limit:
		p.state = ended
		s.con.say("%s (pid %d) %s; its %d restarts are used up", name, pid, how, s.restartsMax)
		s.fail(exitFailure, name, fmt.Sprintf("%s %s after %d restarts, the most restart %q allows",
			name, how, s.restartsMax, p.spec.restart))
	case restart:
		p.state = restartPending
		p.restartAt = p.endedAt + s.restartDelay
		note := "a kill fault's restart, not counted"
		if counted {
			p.restarts++
			note = fmt.Sprintf("restart %d of %d", p.restarts, s.restartsMax)
		}
		s.con.say("%s (pid %d) %s; restarting in %v (%s)", name, pid, how, s.restartDelay, note)
	default:
		p.state = ended
		s.con.say("%s (pid %d) %s; not restarted (restart %q)", name, pid, how, p.spec.restart)
	}
}

// askKill asks the host for the next kill fault.
func (s *supervisor) askKill() {
	if !s.kills || len(s.services) == 0 || s.done {
		return
	}
	delay, i, ok := s.host.KillNext(len(s.services))
	if !ok || i < -1 || i >= len(s.services) {
		s.kills = false
		return
	}
	// i = -1: no kill now, ask again after delay.
	s.killPending, s.killAt, s.killIndex = true, s.clock()+delay, i
}

// carryOutKill sends SIGKILL to the service the host chose, if it runs,
// and asks for the next kill.
func (s *supervisor) carryOutKill() {
	s.killPending = false
	if s.killIndex < 0 {
		s.askKill() // the host had not drawn the kills yet
		return
	}
	p := s.services[s.killIndex]
	if p.state != running {
		s.con.say("kill fault: %s is not running; nothing to kill", p.spec.name)
	} else if err := s.sys.kill(p.pid, syscall.SIGKILL); err != nil {
		s.con.say("kill fault: SIGKILL to %s (pid %d): %v", p.spec.name, p.pid, err)
	} else {
		p.killed = true
		s.emit(killEvent{Event: "kill", Name: p.spec.name, Pid: p.pid})
		s.con.say("kill fault: sent SIGKILL to %s (pid %d)", p.spec.name, p.pid)
	}
	s.askKill()
}

// quiet reports whether the init has nothing pending that would change
// the workload.
func (s *supervisor) quiet() bool {
	if s.killPending && s.killIndex >= 0 {
		return false
	}
	for _, p := range s.procs {
		if p.state == exiting || p.state == restartPending {
			return false
		}
	}
	return true
}

// sampleNow takes a sample for the deadlock watch and ends the run on a
// deadlock.
func (s *supervisor) sampleNow(now time.Duration) {
	smp, err := s.sampler.sample()
	if err != nil {
		s.con.say("deadlock watch off: %v", err)
		s.watch = nil
		return
	}
	v, interval := s.watch.observe(now, smp, s.quiet())
	s.nextSample = s.clock() + interval
	if v == nil {
		return
	}
	s.con.say("deadlock: %s", v.reason)
	for i, t := range v.threads {
		if i == threadsReportedMax {
			s.con.say("  and %d more threads", len(v.threads)-i)
			break
		}
		s.con.say("  %s (pid %d) thread %d %q: %s; wchan %s; pc %#x", t.name, t.pid, t.tid, t.comm, v.waits[i], t.wchan, t.call.pc)
	}
	ev := v.report(s.watch.table)
	s.askDumps(&ev)
	if len(s.dumping) == 0 {
		s.reportDeadlock(ev)
	}
}

// dumpWait is how long the init waits for the goroutine dumps it asked for
// with SIGQUIT (a program may handle or ignore the signal).
const dumpWait = 2 * time.Second

// askDumps sends SIGQUIT to each Go program among the deadlocked
// processes the supervisor started, so that Go's runtime writes every
// goroutine's stack and exits; the deadlock is reported when they have
// (finishDumps).
func (s *supervisor) askDumps(ev *deadlockEvent) {
	if s.isGo == nil {
		return
	}
	for _, t := range ev.Threads {
		p := s.byPid[t.Pid]
		if p == nil || p.state != running || slices.Contains(s.dumping, p) || !s.isGo(p.pid) {
			continue
		}
		if err := s.sys.kill(p.pid, syscall.SIGQUIT); err != nil {
			s.con.say("goroutine dump: SIGQUIT to %s (pid %d): %v", p.spec.name, p.pid, err)
			continue
		}
		s.con.say("goroutine dump: sent SIGQUIT to %s (pid %d), a Go program", p.spec.name, p.pid)
		s.dumping = append(s.dumping, p)
	}
	if len(s.dumping) > 0 {
		s.pendingDeadlock, s.dumpDeadline = ev, s.clock()+dumpWait
	}
}

// finishDumps reports the pending deadlock once every program asked for
// a dump has ended and its output has been drained, or dumpWait is over.
func (s *supervisor) finishDumps(now time.Duration) {
	if now < s.dumpDeadline {
		for _, p := range s.dumping {
			if p.state != exiting || !closed(p.outDone) {
				return
			}
		}
	}
	ev := *s.pendingDeadlock
	for _, p := range s.dumping {
		d := goroutineDump{Name: p.spec.name, Pid: p.pid, Dump: p.out.crashReport()}
		if d.Dump == "" {
			d.Dump = "(no dump: the program did not end on SIGQUIT within " + dumpWait.String() + ")\n"
		}
		ev.Goroutines = append(ev.Goroutines, d)
	}
	s.reportDeadlock(ev)
}

// reportDeadlock sends the deadlock event and ends the run.
func (s *supervisor) reportDeadlock(ev deadlockEvent) {
	s.host.Event(encodeDeadlock(ev))
	s.end(exitDeadlock, "deadlock")
}

// emit sends an event to the host.
func (s *supervisor) emit(ev any) { s.host.Event(encode(ev)) }

// fail reports an error (about process name, when not empty) and ends the
// run with code.
func (s *supervisor) fail(code int, name, msg string) {
	s.con.say("error: %s", msg)
	s.emit(errorEvent{Event: "error", Name: name, Message: truncate(msg, errorMessageBytesMax)})
	s.end(code, "the error above")
}

// end ends the run with code; the first end wins.
func (s *supervisor) end(code int, why string) {
	if s.done {
		return
	}
	s.done, s.code = true, code
	s.con.say("the run ends with code %d: %s", code, why)
}

// signalNames are Linux's signals (the same numbers on riscv64 and amd64).
var signalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1",
	11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM",
	15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT",
	19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU",
	23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM",
	27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS",
}

// signalName is "SIGSEGV", or "SIGRTMIN+3" for a real-time signal.
func signalName(sig syscall.Signal) string {
	switch {
	case sig > 0 && int(sig) < len(signalNames) && signalNames[sig] != "":
		return signalNames[sig]
	case sig >= 34 && sig <= 64:
		return fmt.Sprintf("SIGRTMIN+%d", sig-34)
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// nameOf is the workload's name for a running process the supervisor
// started.
func (s *supervisor) nameOf(pid int) (string, bool) {
	if p := s.byPid[pid]; p != nil {
		return p.spec.name, true
	}
	return "", false
}
