package main

import (
	"slices"
	"testing"
)

// recorded is the /proc tree record.c recorded on a riscv64 guest (Linux
// 6.1 on QEMU virt): PID 1 is the recorder; 29 deadlocks (threads 29, 34,
// 35); 30 waits in read, ppoll, epoll_pwait, a timed futex and
// clock_nanosleep (threads 30, 32, 33, 38, 39) and holds a timerfd; 31
// waits for its child 36, which sleeps in a thread (37) and joins it (36).
var recorded = procfs{root: "testdata/proc-riscv64"}

func TestStatIsParsedAfterTheLastParenthesisOfTheComm(t *testing.T) {
	st, err := parseStat([]byte("42 (a) b (c)) S 7 42 42 0 -1 4194560 0 0 0 0 15 3 0 0 20 0 1 0 5 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{comm: "a) b (c)", state: 'S', ppid: 7, flags: 4194560, utime: 15, stime: 3}
	if st != want {
		t.Errorf("parseStat = %+v; want %+v", st, want)
	}
	for _, bad := range []string{"", "42 no comm S 1", "42 (x) S 1 2 3", "42 (x) S p 1 1 0 -1 0 0 0 0 0 1 1"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) did not fail", bad)
		}
	}
}

func TestTheThreeFormsOfTheSyscallFileAreParsed(t *testing.T) {
	for _, c := range []struct {
		text string
		want syscallState
	}{
		{"running\n", syscallState{kind: callRunning}},
		{"-1 0x3fffa8e0 0x10abc\n", syscallState{kind: callNone, nr: -1, sp: 0x3fffa8e0, pc: 0x10abc}},
		{"98 0x90540 0x80 0x2 0x0 0x1 0x90540 0xffffffae1cac40 0x2535c\n", syscallState{
			kind: callIn, nr: 98, args: [6]uint64{0x90540, 0x80, 2, 0, 1, 0x90540}, sp: 0xffffffae1cac40, pc: 0x2535c}},
		{"22 0x6 0xffffffad9c9c40 0x1 0xffffffffffffffff 0x0 0x8 0xffffffad9c9c10 0x3300a", syscallState{
			kind: callIn, nr: 22, args: [6]uint64{6, 0xffffffad9c9c40, 1, 0xffffffffffffffff, 0, 8}, sp: 0xffffffad9c9c10, pc: 0x3300a}},
	} {
		got, err := parseSyscall([]byte(c.text))
		if err != nil || got != c.want {
			t.Errorf("parseSyscall(%q) = %+v, %v; want %+v", c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "98 0x1 0x2", "-1 0x1", "x 0x1 0x2", "98 0x1 0x2 0x3 0x4 0x5 zz 0x7 0x8"} {
		if got, err := parseSyscall([]byte(bad)); err == nil {
			t.Errorf("parseSyscall(%q) = %+v; want an error", bad, got)
		}
	}
}

func TestDescendantsOfTheInitAreEveryUserProcessBelowIt(t *testing.T) {
	pids, parent, err := recorded.descendants(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{29, 30, 31, 36}; !slices.Equal(pids, want) {
		t.Errorf("descendants(1) = %v; want %v", pids, want)
	}
	if _, ok := parent[2]; ok {
		t.Error("kthreadd (a kernel thread) is among the user processes")
	}
	if parent[36] != 31 {
		t.Errorf("parent of 36 = %d; want 31", parent[36])
	}
	if pids, _, _ := recorded.descendants(31); !slices.Equal(pids, []int{36}) {
		t.Errorf("descendants(31) = %v; want [36]", pids)
	}
}

func TestRecordedThreadsReadAsTheyWere(t *testing.T) {
	ts := recorded.threads(29, "locker")
	if len(ts) != 3 {
		t.Fatalf("%d threads of 29; want 3", len(ts))
	}
	lockAB := ts[1]
	if lockAB.tid != 34 || lockAB.comm != "lock-ab" || lockAB.state != 'S' || lockAB.wchan != "futex_wait_queue" ||
		lockAB.vcsw != 1 || lockAB.nvcsw != 0 || lockAB.name != "locker" ||
		lockAB.call.kind != callIn || lockAB.call.nr != 98 || lockAB.call.args[1] != 0x80 || lockAB.call.pc != 0x2535c {
		t.Errorf("thread 34 = %+v", lockAB)
	}
	if ts := recorded.threads(999, "gone"); ts != nil {
		t.Errorf("threads of a process that is gone: %v", ts)
	}
}

func TestAProcessHoldingATimerfdIsSeen(t *testing.T) {
	if !recorded.hasTimerfd(30) || recorded.hasTimerfd(29) || recorded.hasTimerfd(999) {
		t.Errorf("hasTimerfd: 30 %v, 29 %v, 999 %v; want true, false, false",
			recorded.hasTimerfd(30), recorded.hasTimerfd(29), recorded.hasTimerfd(999))
	}
}

func TestTheSamplerNamesDescendantsAfterTheProcessTheInitStarted(t *testing.T) {
	started := map[int]string{29: "locker", 30: "waits", 31: "parent"}
	s := procSampler{fs: recorded, root: 1, names: func(pid int) (string, bool) {
		n, ok := started[pid]
		return n, ok
	}}
	smp, err := s.sample()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, t := range smp.threads {
		got = append(got, t.name)
	}
	want := []string{"locker", "locker", "locker", "waits", "waits", "waits", "waits", "waits", "parent", "parent", "parent"}
	if !slices.Equal(got, want) {
		t.Errorf("names %v; want %v", got, want)
	}
	if _, err := (procSampler{fs: procfs{root: "testdata/nowhere"}}).sample(); err == nil {
		t.Error("sampling a missing /proc did not fail")
	}
}

func TestTheKernelThreadCacheForgetsEverythingWhenPidsWrap(t *testing.T) {
	c := &kthreadCache{}
	c.update([]int{1, 2, 3, 40})
	c.pids[2], c.pids[3] = true, true
	c.update([]int{1, 2, 3, 40, 41}) // a new pid above the highest: no wrap
	if !c.known(2) || !c.known(3) {
		t.Fatal("a growing listing forgot the kernel threads")
	}
	c.update([]int{1, 2, 40, 41}) // 3 ended: still no wrap
	if !c.known(2) {
		t.Fatal("an ended process made the cache forget")
	}
	c.update([]int{1, 2, 3, 40, 41}) // 3 again, below 41: pids wrapped
	if c.known(2) || c.known(3) {
		t.Fatal("after a wrap a remembered pid may name a user process")
	}
	var none *kthreadCache
	none.update([]int{1})
	if none.known(1) {
		t.Fatal("no cache knows nothing")
	}
}

func TestASampleWithTheCacheFindsWhatOneWithoutFinds(t *testing.T) {
	cached := procfs{root: recorded.root, kthreads: &kthreadCache{}}
	for round := 0; round < 2; round++ {
		a, _, err := cached.descendants(1)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := recorded.descendants(1)
		if !slices.Equal(a, b) {
			t.Fatalf("round %d: with the cache %v, without %v", round, a, b)
		}
	}
	if len(cached.kthreads.pids) == 0 {
		t.Fatal("the recorded /proc has kernel threads, and none was remembered")
	}
}
