package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"everett/guest-images/sdk/go/everett"
)

const ms = time.Millisecond

func TestTheSamplingIntervalDoublesWhileNothingChangesAndFallsBackOnAChange(t *testing.T) {
	var b backoff
	var got []time.Duration
	for range 9 {
		got = append(got, b.next(false))
	}
	want := []time.Duration{10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("intervals %v; want %v", got, want)
	}
	if d := b.next(true); d != 10*ms {
		t.Errorf("after a change: %v; want 10ms", d)
	}
}

// futexThread is a thread of pid in an untimed futex wait (riscv64).
func futexThread(pid, tid int) thread {
	return thread{pid: pid, tid: tid, name: "app", comm: "app", state: 'S', wchan: "futex_wait_queue",
		call: syscallState{kind: callIn, nr: 98, args: [6]uint64{0x1000, futexWait | futexPrivateFlag}, sp: 0x3ff0, pc: 0x104}}
}

func readThread(pid, tid int) thread {
	t := futexThread(pid, tid)
	t.call.nr, t.wchan = 63, "pipe_read"
	return t
}

func sleepThread(pid, tid int) thread {
	t := futexThread(pid, tid)
	t.call.nr, t.wchan = 115, "hrtimer_nanosleep"
	return t
}

func newWatch() *watch {
	return &watch{table: genericSyscalls, check: true}
}

func TestADeadlockNeedsTwoUnchangedSamplesWhereEveryThreadWaitsUntimed(t *testing.T) {
	s := sample{threads: []thread{futexThread(10, 10), futexThread(10, 11)}}
	w := newWatch()
	if v, _ := w.observe(0, s, true); v != nil {
		t.Fatal("a verdict from a single sample")
	}
	v, _ := w.observe(10*ms, s, true)
	if v == nil {
		t.Fatal("no verdict from two agreeing samples")
	}
	if !strings.Contains(v.reason, "every thread of the workload (2 threads in 1 process) waits with no timeout, unchanged across two samples 10ms apart") {
		t.Errorf("reason %q", v.reason)
	}
	if len(v.threads) != 2 || v.waits[0] != "futex FUTEX_WAIT|FUTEX_PRIVATE_FLAG, no timeout" {
		t.Errorf("threads %v, waits %q", v.threads, v.waits)
	}
}

func TestNoDeadlockWhenAThreadChangedBetweenTheSamples(t *testing.T) {
	a := sample{threads: []thread{futexThread(10, 10), futexThread(10, 11)}}
	for _, change := range []func(*thread){
		func(t *thread) { t.vcsw++ },
		func(t *thread) { t.nvcsw++ },
		func(t *thread) { t.utime++ },
		func(t *thread) { t.stime++ },
	} {
		b := sample{threads: slices.Clone(a.threads)}
		change(&b.threads[1])
		w := newWatch()
		w.observe(0, a, true)
		if v, d := w.observe(10*ms, b, true); v != nil || d != 10*ms {
			t.Errorf("a changed thread: verdict %v, next interval %v (want none, 10ms)", v, d)
		}
	}
	w := newWatch()
	w.observe(0, a, true)
	if v, _ := w.observe(10*ms, sample{threads: a.threads[:1]}, true); v != nil {
		t.Error("a verdict although a thread ended between the samples")
	}
}

func TestNoDeadlockWhileTheInitHasSomethingPending(t *testing.T) {
	s := sample{threads: []thread{futexThread(10, 10)}}
	w := newWatch()
	w.observe(0, s, false)
	if v, _ := w.observe(10*ms, s, false); v != nil {
		t.Error("a verdict while not quiet")
	}
	if v, _ := w.observe(30*ms, s, true); v == nil {
		t.Error("no verdict once quiet")
	}
}

func TestNoDeadlockWhenAThreadSleepsWithATimeoutOrRuns(t *testing.T) {
	running := futexThread(10, 12)
	running.state, running.call = 'R', syscallState{kind: callRunning}
	for _, other := range []thread{sleepThread(10, 12), running} {
		s := sample{threads: []thread{futexThread(10, 10), other}}
		w := newWatch()
		w.observe(0, s, true)
		if v, _ := w.observe(10*ms, s, true); v != nil {
			t.Errorf("a verdict with a thread %c in %v", other.state, other.call.nr)
		}
	}
}

func TestZombieThreadsAreLeftOutAndNoThreadsIsNoDeadlock(t *testing.T) {
	zombie := futexThread(10, 10)
	zombie.state, zombie.call = 'Z', syscallState{kind: callNone, nr: -1}
	s := sample{threads: []thread{zombie, futexThread(10, 11)}}
	w := newWatch()
	w.observe(0, s, true)
	if v, _ := w.observe(10*ms, s, true); v == nil {
		t.Error("a zombie leader kept its live thread's deadlock from being seen")
	}
	only := sample{threads: []thread{zombie}}
	w = newWatch()
	w.observe(0, only, true)
	if v, _ := w.observe(10*ms, only, true); v != nil {
		t.Error("a verdict about zombies only")
	}
	w = newWatch()
	w.observe(0, sample{}, true)
	if v, _ := w.observe(10*ms, sample{}, true); v != nil {
		t.Error("a verdict about no threads")
	}
}

func TestBlockingIOIsADeadlockOnlyOnAOneNodeUniverseWithoutATimerfd(t *testing.T) {
	s := sample{threads: []thread{futexThread(10, 10), readThread(10, 11)}}
	for _, c := range []struct {
		oneNode, timerfd, want bool
	}{
		{false, false, false},
		{true, false, true},
		{true, true, false},
	} {
		w := newWatch()
		w.oneNode = c.oneNode
		w.hasTimerfd = func(int) bool { return c.timerfd }
		w.observe(0, s, true)
		v, _ := w.observe(10*ms, s, true)
		if (v != nil) != c.want {
			t.Errorf("one node %v, timerfd %v: verdict %v; want %v", c.oneNode, c.timerfd, v != nil, c.want)
		}
		if v != nil && !strings.Contains(v.reason, "one-node universe") {
			t.Errorf("reason %q does not say why I/O counts", v.reason)
		}
	}
}

func TestAStallIsReportedWhenNoThreadChangedForStallNs(t *testing.T) {
	s := sample{threads: []thread{futexThread(10, 10), sleepThread(10, 11)}}
	w := newWatch()
	w.stall = 500 * ms
	for _, at := range []time.Duration{0, 100 * ms, 300 * ms, 499 * ms} {
		if v, _ := w.observe(at, s, true); v != nil {
			t.Fatalf("a verdict at %v: %s", at, v.reason)
		}
	}
	v, _ := w.observe(500*ms, s, true)
	if v == nil || v.reason != "no thread of the workload (2 threads in 1 process) changed for 500ms (deadlock.stall_ns)" {
		t.Fatalf("verdict at 500ms: %+v", v)
	}
	// A change restarts the count.
	w = newWatch()
	w.stall = 500 * ms
	w.observe(0, s, true)
	changed := sample{threads: slices.Clone(s.threads)}
	changed.threads[1].vcsw++
	w.observe(400*ms, changed, true)
	if v, _ := w.observe(800*ms, changed, true); v != nil {
		t.Error("a stall verdict 400ms after a change")
	}
}

func TestTheRecordedDeadlockIsFoundAndTheOtherWaitsAreNot(t *testing.T) {
	locker := sample{threads: recorded.threads(29, "locker")}
	w := &watch{table: genericSyscalls, check: true}
	w.observe(0, locker, true)
	v, _ := w.observe(20*ms, locker, true)
	if v == nil {
		t.Fatal("the recorded deadlock was not found")
	}
	var all sample
	for _, pid := range []int{29, 30, 31, 36} {
		all.threads = append(all.threads, recorded.threads(pid, "")...)
	}
	w = &watch{table: genericSyscalls, check: true, oneNode: true, hasTimerfd: recorded.hasTimerfd}
	w.observe(0, all, true)
	if v, _ := w.observe(20*ms, all, true); v != nil {
		t.Errorf("a verdict with sleeping threads: %s", v.reason)
	}
}

func TestTheDeadlockEventReportsEachThreadAsTheProtocolSays(t *testing.T) {
	locker := sample{threads: recorded.threads(29, "locker")}
	v := &verdict{reason: "r", threads: locker.threads}
	var ev map[string]any
	if err := json.Unmarshal(encodeDeadlock(v.report(genericSyscalls)), &ev); err != nil {
		t.Fatal(err)
	}
	th := ev["threads"].([]any)[1].(map[string]any)
	want := map[string]any{
		"name": "locker", "pid": 29.0, "tid": 34.0, "comm": "lock-ab", "state": "S", "wchan": "futex_wait_queue",
		"syscall": "futex", "args": []any{"0x90540", "0x80", "0x2", "0x0", "0x1", "0x90540"},
		"pc": "0x2535c", "sp": "0xffffffae1cac40",
	}
	for k, x := range want {
		if got, _ := json.Marshal(th[k]); string(got) != string(must(json.Marshal(x))) {
			t.Errorf("thread %s = %s; want %s", k, got, must(json.Marshal(x)))
		}
	}
	if ev["event"] != "deadlock" || ev["reason"] != "r" {
		t.Errorf("event %v", ev)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestADeadlockEventKeepsWithin64ThreadsAndTheHostsLimit(t *testing.T) {
	var many []thread
	for i := range 100 {
		th := futexThread(1000+i, 1000+i)
		th.name, th.comm, th.wchan = strings.Repeat("n", 64), strings.Repeat("c", 15), strings.Repeat("w", 100)
		many = append(many, th)
	}
	b := encodeDeadlock((&verdict{reason: "many", threads: many}).report(genericSyscalls))
	var ev deadlockEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if len(b) > everett.MaxEvent || len(ev.Threads) > threadsReportedMax || len(ev.Threads)+ev.Omitted != 100 {
		t.Errorf("%d bytes, %d threads, %d omitted", len(b), len(ev.Threads), ev.Omitted)
	}
	few := encodeDeadlock((&verdict{reason: "few", threads: many[:3]}).report(genericSyscalls))
	if strings.Contains(string(few), "omitted") {
		t.Errorf("an event with nothing omitted says threads_omitted: %s", few)
	}
}

func TestLongGoroutineDumpsAreCutAtALineBeforeAnyThreadIsLeftOut(t *testing.T) {
	var threads []thread
	for i := range 8 {
		threads = append(threads, futexThread(1000+i, 1000+i))
	}
	ev := (&verdict{reason: "dumps", threads: threads}).report(genericSyscalls)
	line := "goroutine 7 [sync.Mutex.Lock]:\n\tmain.go:12 +0x84\n"
	ev.Goroutines = []goroutineDump{
		{Name: "a", Pid: 1, Dump: strings.Repeat(line, 600)}, // 27 KiB, tabs escaped
		{Name: "b", Pid: 2, Dump: "SIGQUIT: quit\n"},
	}
	b := encodeDeadlock(ev)
	var got deadlockEvent
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	a := got.Goroutines[0].Dump
	if len(b) > everett.MaxEvent || len(got.Threads) != 8 || got.Omitted != 0 ||
		!strings.HasSuffix(a, "\n…\n") || len(a) < everett.MaxEvent/4 || !strings.HasPrefix(a, line) ||
		got.Goroutines[1].Dump != "SIGQUIT: quit\n" {
		t.Errorf("%d bytes, %d threads (%d omitted), dumps of %d and %d bytes:\n%.200s…%s",
			len(b), len(got.Threads), got.Omitted, len(a), len(got.Goroutines[1].Dump), a, a[max(0, len(a)-100):])
	}
	if ev.Goroutines[0].Dump != strings.Repeat(line, 600) {
		t.Error("encodeDeadlock cut the caller's dump")
	}
}

func TestAnExitEventsCrashReportIsCutToFitTheHostsLimit(t *testing.T) {
	code := 2
	crash := "panic: boom\n" + strings.Repeat("\tmain.deep(...)\n", 2000)
	b := encodeExit(exitEvent{Event: "exit", Name: "p", Code: &code, Output: strings.Repeat("x", 2000), Crash: crash})
	var got exitEvent
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(b) > everett.MaxEvent || !strings.HasPrefix(got.Crash, "panic: boom\n") || !strings.HasSuffix(got.Crash, "\n…\n") {
		t.Errorf("%d bytes; crash report of %d bytes: %.100s", len(b), len(got.Crash), got.Crash)
	}
}
