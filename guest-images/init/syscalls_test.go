package main

import (
	"testing"
)

func TestWaitsAreClassifiedByCallAndTimeout(t *testing.T) {
	const null = 0
	for _, c := range []struct {
		name  string
		args  [6]uint64
		class waitClass
		desc  string
	}{
		{"futex", [6]uint64{0x1000, futexWait | futexPrivateFlag, 2, null}, untimedWait, "futex FUTEX_WAIT|FUTEX_PRIVATE_FLAG, no timeout"},
		{"futex", [6]uint64{0x1000, futexWaitBitset | futexPrivateFlag | futexClockRealtime, 0, 0x7ff0}, timedWait, "futex FUTEX_WAIT_BITSET|FUTEX_PRIVATE_FLAG|FUTEX_CLOCK_REALTIME, with a timeout"},
		{"futex", [6]uint64{0x1000, futexLockPI, 0, null}, untimedWait, "futex FUTEX_LOCK_PI, no timeout"},
		{"futex", [6]uint64{0x1000, futexLockPI2 | futexPrivateFlag, 0, null}, untimedWait, "futex FUTEX_LOCK_PI2|FUTEX_PRIVATE_FLAG, no timeout"},
		{"futex", [6]uint64{0x1000, futexWaitRequeuePI, 0, null}, untimedWait, "futex FUTEX_WAIT_REQUEUE_PI, no timeout"},
		{"futex", [6]uint64{0x1000, 1 | futexPrivateFlag, 1, null}, notWaiting, "futex FUTEX_WAKE|FUTEX_PRIVATE_FLAG"},
		{"futex", [6]uint64{0x1000, 99, 1, null}, notWaiting, "futex op 99"},
		{"futex_waitv", [6]uint64{0x1000, 2, 0, null}, untimedWait, "futex_waitv, no timeout"},
		{"rt_sigsuspend", [6]uint64{}, untimedWait, "rt_sigsuspend"},
		{"rt_sigtimedwait", [6]uint64{0x1, 0x2, null, 8}, untimedWait, "rt_sigtimedwait, no timeout"},
		{"rt_sigtimedwait", [6]uint64{0x1, 0x2, 0x3, 8}, timedWait, "rt_sigtimedwait, with a timeout"},
		{"wait4", [6]uint64{^uint64(0)}, untimedWait, "wait4"},
		{"waitid", [6]uint64{}, untimedWait, "waitid"},
		{"ppoll", [6]uint64{0x1, 1, null}, ioWait, "ppoll, no timeout"},
		{"ppoll", [6]uint64{0x1, 1, 0x7ff0}, timedWait, "ppoll, with a timeout"},
		{"pselect6", [6]uint64{4, 0x1, 0, 0, null}, ioWait, "pselect6, no timeout"},
		{"pselect6", [6]uint64{4, 0x1, 0, 0, 0x7ff0}, timedWait, "pselect6, with a timeout"},
		{"epoll_pwait", [6]uint64{6, 0x1, 1, 0xffffffffffffffff}, ioWait, "epoll_pwait, no timeout"},
		{"epoll_pwait", [6]uint64{6, 0x1, 1, 0xffffffff}, ioWait, "epoll_pwait, no timeout"},
		{"epoll_pwait", [6]uint64{6, 0x1, 1, 250}, timedWait, "epoll_pwait, timeout 250ms"},
		{"epoll_pwait2", [6]uint64{6, 0x1, 1, null}, ioWait, "epoll_pwait2, no timeout"},
		{"poll", [6]uint64{0x1, 1, 0xffffffffffffffff}, ioWait, "poll, no timeout"},
		{"read", [6]uint64{3}, ioWait, "read"},
		{"accept4", [6]uint64{3}, ioWait, "accept4"},
		{"connect", [6]uint64{3}, ioWait, "connect"},
		{"recvmsg", [6]uint64{3}, ioWait, "recvmsg"},
		{"nanosleep", [6]uint64{}, timedWait, "nanosleep"},
		{"clock_nanosleep", [6]uint64{}, timedWait, "clock_nanosleep"},
		{"write", [6]uint64{1}, notWaiting, "write"},
	} {
		class, desc := classify(c.name, c.args)
		if class != c.class || desc != c.desc {
			t.Errorf("classify(%s, %#x) = %v, %q; want %v, %q", c.name, c.args, class, desc, c.class, c.desc)
		}
	}
}

func TestTheRecordedRiscv64ThreadsAreClassifiedAsTheyWaited(t *testing.T) {
	want := map[int]struct {
		class waitClass
		desc  string
	}{
		29: {untimedWait, "futex FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, no timeout"}, // pthread_join
		34: {untimedWait, "futex FUTEX_WAIT|FUTEX_PRIVATE_FLAG, no timeout"},          // pthread_mutex_lock
		35: {untimedWait, "futex FUTEX_WAIT|FUTEX_PRIVATE_FLAG, no timeout"},
		30: {ioWait, "read"},
		32: {ioWait, "ppoll, no timeout"},
		33: {ioWait, "epoll_pwait, no timeout"},
		38: {timedWait, "futex FUTEX_WAIT_BITSET|FUTEX_PRIVATE_FLAG|FUTEX_CLOCK_REALTIME, with a timeout"}, // pthread_cond_timedwait
		39: {timedWait, "clock_nanosleep"},
		31: {untimedWait, "wait4"},
		36: {untimedWait, "futex FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, no timeout"},
		37: {timedWait, "clock_nanosleep"},
	}
	seen := 0
	for _, pid := range []int{29, 30, 31, 36} {
		for _, th := range recorded.threads(pid, "") {
			w, ok := want[th.tid]
			if !ok {
				t.Errorf("unexpected thread %d", th.tid)
				continue
			}
			seen++
			if class, desc := threadWait(th, genericSyscalls); class != w.class || desc != w.desc {
				t.Errorf("thread %d (%s): %v, %q; want %v, %q", th.tid, th.comm, class, desc, w.class, w.desc)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("classified %d threads; want %d", seen, len(want))
	}
}

func TestOnlyASleepingThreadInASystemCallWaits(t *testing.T) {
	futexWaitCall := syscallState{kind: callIn, nr: 98, args: [6]uint64{0x1000, futexWait}}
	for _, c := range []struct {
		th   thread
		want waitClass
	}{
		{thread{state: 'S', call: futexWaitCall}, untimedWait},
		{thread{state: 'D', call: futexWaitCall}, notWaiting},
		{thread{state: 'R', call: syscallState{kind: callRunning}}, notWaiting},
		{thread{state: 'S', call: syscallState{kind: callNone, nr: -1}}, notWaiting},
		{thread{state: 'S', call: syscallState{kind: callUnknown}}, notWaiting},
	} {
		if got, desc := threadWait(c.th, genericSyscalls); got != c.want {
			t.Errorf("threadWait(%+v) = %v (%s); want %v", c.th, got, desc, c.want)
		}
	}
}

func TestTheTablesNameTheCallsTheWatchClassifies(t *testing.T) {
	for _, n := range []string{"futex", "rt_sigsuspend", "rt_sigtimedwait", "wait4", "waitid", "ppoll",
		"pselect6", "epoll_pwait", "read", "readv", "recvfrom", "recvmsg", "accept", "accept4", "connect",
		"nanosleep", "clock_nanosleep"} {
		for arch, table := range map[string]syscallTable{"generic": genericSyscalls, "amd64": amd64Syscalls} {
			found := 0
			for _, name := range table {
				if name == n {
					found++
				}
			}
			if found != 1 {
				t.Errorf("%s table names %s %d times", arch, n, found)
			}
		}
	}
	if got := genericSyscalls.name(9999); got != "syscall_9999" {
		t.Errorf("name(9999) = %q", got)
	}
}
