package main

import (
	"fmt"
	"strings"
	"time"
)

// The deadlock watch. It samples the workload's threads at an interval
// that starts at sampleIntervalMin and doubles while nothing changes, up
// to sampleIntervalMax, and falls back to the minimum on any change (a
// thread's context switches, CPU times or state, or the set of threads).
// It reports a deadlock when two consecutive samples, unchanged between
// them, agree that every thread sleeps in a wait nothing but another
// thread of the node could end (see classify), and when deadlock.stall_ns
// is set and no thread has changed for that long. It decides only while
// the init itself has nothing pending that would change the workload (a
// kill fault, a restart, an exit it has not finished reporting).

// The sampling intervals (CLOCK_MONOTONIC).
const (
	sampleIntervalMin = 10 * time.Millisecond
	sampleIntervalMax = time.Second
)

// threadsReportedMax bounds the threads of a deadlock event.
const threadsReportedMax = 64

// backoff is the sampling interval.
type backoff struct {
	cur time.Duration
}

// next is the interval to the next sample after one that changed or not.
func (b *backoff) next(changed bool) time.Duration {
	if changed || b.cur == 0 {
		b.cur = sampleIntervalMin
	} else {
		b.cur = min(2*b.cur, sampleIntervalMax)
	}
	return b.cur
}

// changedBetween reports whether anything the watch tracks differs
// between two samples.
func changedBetween(a, b sample) bool {
	if len(a.threads) != len(b.threads) {
		return true
	}
	for i := range a.threads {
		x, y := &a.threads[i], &b.threads[i]
		if x.pid != y.pid || x.tid != y.tid || x.state != y.state ||
			x.utime != y.utime || x.stime != y.stime ||
			x.vcsw != y.vcsw || x.nvcsw != y.nvcsw {
			return true
		}
	}
	return false
}

// verdict is a deadlock the watch found.
type verdict struct {
	reason  string
	threads []thread
	waits   []string // what each thread waits in, for a person
}

// watch decides from samples whether the workload is deadlocked.
type watch struct {
	table   syscallTable
	check   bool          // look for threads that all wait (deadlock.check)
	oneNode bool          // blocking I/O counts only on a one-node universe
	stall   time.Duration // 0: off (deadlock.stall_ns)
	// hasTimerfd reports whether a process holds a timerfd, which could end
	// its threads' I/O waits.
	hasTimerfd func(pid int) bool

	backoff    backoff
	prev       *sample
	prevAt     time.Duration
	lastChange time.Duration
}

// observe takes the sample s taken at now; quiet says that the init has
// nothing pending that would change the workload. It returns a verdict or
// nil, and the interval to the next sample.
func (w *watch) observe(now time.Duration, s sample, quiet bool) (*verdict, time.Duration) {
	changed := w.prev == nil || changedBetween(*w.prev, s)
	if changed {
		w.lastChange = now
	}
	prev, prevAt := w.prev, w.prevAt
	w.prev, w.prevAt = &s, now
	interval := w.backoff.next(changed)
	if !quiet || live(s) == 0 {
		return nil, interval
	}
	if w.check && !changed {
		if v := w.deadlocked(*prev, s, now-prevAt); v != nil {
			return v, interval
		}
	}
	if w.stall > 0 && now-w.lastChange >= w.stall {
		_, waits := w.allWait(s)
		return &verdict{
			reason: fmt.Sprintf("no thread of the workload (%s) changed for %v (deadlock.stall_ns)",
				countThreads(s), roundMs(now-w.lastChange)),
			threads: s.threads,
			waits:   waits,
		}, interval
	}
	return nil, interval
}

// deadlocked is the verdict when both samples, unchanged between them,
// have every live thread waiting with nothing on the node to end it.
func (w *watch) deadlocked(a, b sample, apart time.Duration) *verdict {
	okA, _ := w.allWait(a)
	okB, waits := w.allWait(b)
	if !okA || !okB {
		return nil
	}
	io := false
	for _, t := range b.threads {
		if class, _ := threadWait(t, w.table); class == ioWait && live1(t) {
			io = true
			if w.hasTimerfd != nil && w.hasTimerfd(t.pid) {
				return nil
			}
		}
	}
	reason := fmt.Sprintf("every thread of the workload (%s) waits with no timeout, unchanged across two samples %v apart",
		countThreads(b), roundMs(apart))
	if io {
		reason += "; on a one-node universe no other node could end its blocking I/O"
	}
	return &verdict{reason: reason, threads: b.threads, waits: waits}
}

// allWait reports whether every live thread of s waits with nothing on the
// node to end it, and describes each thread's wait.
func (w *watch) allWait(s sample) (bool, []string) {
	all := live(s) > 0
	waits := make([]string, len(s.threads))
	for i, t := range s.threads {
		class, desc := threadWait(t, w.table)
		waits[i] = desc
		if !live1(t) {
			continue
		}
		if class != untimedWait && !(class == ioWait && w.oneNode) {
			all = false
		}
	}
	return all, waits
}

// live1 reports whether t is a thread that runs or may run again: not a
// zombie (whose process the init or its parent will reap) nor dead.
func live1(t thread) bool { return t.state != 'Z' && t.state != 'X' && t.state != 'x' }

func live(s sample) int {
	n := 0
	for _, t := range s.threads {
		if live1(t) {
			n++
		}
	}
	return n
}

// roundMs rounds d to a millisecond for a person, unless it is shorter.
func roundMs(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d
	}
	return d.Round(time.Millisecond)
}

// countThreads is "3 threads in 2 processes".
func countThreads(s sample) string {
	procs := 0
	for i, t := range s.threads {
		if i == 0 || t.pid != s.threads[i-1].pid {
			procs++
		}
	}
	return plural(len(s.threads), "thread") + " in " + plural(procs, "process")
}

// plural is "1 thread", "2 threads", "1 process", "2 processes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// report is the deadlock event of v.
func (v *verdict) report(table syscallTable) deadlockEvent {
	ev := deadlockEvent{Event: "deadlock", Reason: v.reason, Threads: []threadReport{}}
	for _, t := range v.threads {
		r := threadReport{
			Name: t.name, Pid: t.pid, Tid: t.tid, Comm: t.comm,
			State: string(rune(t.state)), Wchan: t.wchan,
		}
		switch t.call.kind {
		case callRunning:
			r.Syscall = "running"
		case callNone:
			r.Syscall = "none"
		case callUnknown:
			r.Syscall = "unknown"
		default:
			r.Syscall = table.name(t.call.nr)
			for _, a := range t.call.args {
				r.Args = append(r.Args, fmt.Sprintf("%#x", a))
			}
		}
		if t.call.kind == callIn || t.call.kind == callNone {
			r.PC, r.SP = fmt.Sprintf("%#x", t.call.pc), fmt.Sprintf("%#x", t.call.sp)
		}
		ev.Threads = append(ev.Threads, r)
	}
	return ev
}
