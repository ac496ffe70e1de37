package main

import (
	"fmt"
	"runtime"
)

// syscallTable names system calls by number for one architecture.
type syscallTable map[int]string

// genericSyscalls is the generic table, include/uapi/asm-generic/unistd.h
// of Linux 6.1, which riscv64 (and arm64) use: the calls the watch
// classifies and a few common ones, so that a report names them.
var genericSyscalls = syscallTable{
	22:  "epoll_pwait",
	25:  "fcntl",
	29:  "ioctl",
	32:  "flock",
	56:  "openat",
	57:  "close",
	63:  "read",
	64:  "write",
	65:  "readv",
	66:  "writev",
	67:  "pread64",
	72:  "pselect6",
	73:  "ppoll",
	93:  "exit",
	94:  "exit_group",
	95:  "waitid",
	98:  "futex",
	101: "nanosleep",
	115: "clock_nanosleep",
	124: "sched_yield",
	128: "restart_syscall",
	133: "rt_sigsuspend",
	137: "rt_sigtimedwait",
	139: "rt_sigreturn",
	202: "accept",
	203: "connect",
	206: "sendto",
	207: "recvfrom",
	211: "sendmsg",
	212: "recvmsg",
	220: "clone",
	221: "execve",
	222: "mmap",
	242: "accept4",
	260: "wait4",
	278: "getrandom",
	441: "epoll_pwait2",
	449: "futex_waitv",
}

// amd64Syscalls is arch/x86/entry/syscalls/syscall_64.tbl, for the tests
// that watch real processes on an amd64 host.
var amd64Syscalls = syscallTable{
	0:   "read",
	1:   "write",
	3:   "close",
	7:   "poll",
	17:  "pread64",
	19:  "readv",
	23:  "select",
	24:  "sched_yield",
	34:  "pause",
	35:  "nanosleep",
	42:  "connect",
	43:  "accept",
	45:  "recvfrom",
	47:  "recvmsg",
	61:  "wait4",
	72:  "fcntl",
	73:  "flock",
	128: "rt_sigtimedwait",
	130: "rt_sigsuspend",
	202: "futex",
	219: "restart_syscall",
	230: "clock_nanosleep",
	232: "epoll_wait",
	247: "waitid",
	257: "openat",
	270: "pselect6",
	271: "ppoll",
	281: "epoll_pwait",
	288: "accept4",
	318: "getrandom",
	441: "epoll_pwait2",
	449: "futex_waitv",
}

// nativeSyscalls is the table of the architecture the init runs on.
func nativeSyscalls() syscallTable {
	switch runtime.GOARCH {
	case "amd64":
		return amd64Syscalls
	case "riscv64", "arm64", "loong64":
		return genericSyscalls
	}
	return syscallTable{}
}

// name is the name of system call nr, or "syscall_NR" when the table does
// not know it.
func (t syscallTable) name(nr int) string {
	if n, ok := t[nr]; ok {
		return n
	}
	return fmt.Sprintf("syscall_%d", nr)
}

// waitClass is how a sleeping thread's system call could end.
type waitClass int

const (
	// notWaiting: not a wait the watch knows, or not in a system call;
	// something may end it.
	notWaiting waitClass = iota
	// timedWait: a wait with a timeout, which ends it.
	timedWait
	// untimedWait: only another thread of the node can end it (a futex
	// wait, a signal wait, a wait for a child).
	untimedWait
	// ioWait: a blocking read, accept or connect, or a poll without a
	// timeout: another node could end it, so it counts as a deadlock only
	// on a one-node universe.
	ioWait
)

func (c waitClass) String() string {
	switch c {
	case timedWait:
		return "timed wait"
	case untimedWait:
		return "wait without a timeout"
	case ioWait:
		return "I/O wait without a timeout"
	}
	return "not a wait"
}

// Futex operations (include/uapi/linux/futex.h).
const (
	futexWait          = 0
	futexLockPI        = 6
	futexWaitBitset    = 9
	futexWaitRequeuePI = 11
	futexLockPI2       = 13
	futexPrivateFlag   = 128
	futexClockRealtime = 256
)

var futexOps = map[uint64]string{
	0: "FUTEX_WAIT", 1: "FUTEX_WAKE", 2: "FUTEX_FD", 3: "FUTEX_REQUEUE",
	4: "FUTEX_CMP_REQUEUE", 5: "FUTEX_WAKE_OP", 6: "FUTEX_LOCK_PI",
	7: "FUTEX_UNLOCK_PI", 8: "FUTEX_TRYLOCK_PI", 9: "FUTEX_WAIT_BITSET",
	10: "FUTEX_WAKE_BITSET", 11: "FUTEX_WAIT_REQUEUE_PI",
	12: "FUTEX_CMP_REQUEUE_PI", 13: "FUTEX_LOCK_PI2",
}

// classify says how system call name with args could end, with a short
// description for a person ("futex FUTEX_WAIT_BITSET|FUTEX_PRIVATE_FLAG,
// no timeout"). Timeouts are pointers (NULL = none) except for poll and
// the epoll waits, where a negative int means none.
func classify(name string, args [6]uint64) (waitClass, string) {
	untimedIf := func(class waitClass, timeout uint64) (waitClass, string) {
		if timeout == 0 {
			return class, name + ", no timeout"
		}
		return timedWait, name + ", with a timeout"
	}
	negative := func(class waitClass, ms uint64) (waitClass, string) {
		if int32(ms) < 0 {
			return class, name + ", no timeout"
		}
		return timedWait, fmt.Sprintf("%s, timeout %dms", name, int32(ms))
	}
	switch name {
	case "futex":
		op := args[1] &^ (futexPrivateFlag | futexClockRealtime)
		desc := "futex " + futexOpName(args[1])
		switch op {
		case futexWait, futexLockPI, futexWaitBitset, futexWaitRequeuePI, futexLockPI2:
			if args[3] == 0 {
				return untimedWait, desc + ", no timeout"
			}
			return timedWait, desc + ", with a timeout"
		}
		return notWaiting, desc
	case "futex_waitv":
		return untimedIf(untimedWait, args[3])
	case "rt_sigsuspend", "pause", "wait4", "waitid":
		return untimedWait, name
	case "rt_sigtimedwait":
		return untimedIf(untimedWait, args[2])
	case "ppoll":
		return untimedIf(ioWait, args[2])
	case "pselect6", "select":
		return untimedIf(ioWait, args[4])
	case "epoll_pwait2":
		return untimedIf(ioWait, args[3])
	case "poll":
		return negative(ioWait, args[2])
	case "epoll_wait", "epoll_pwait":
		return negative(ioWait, args[3])
	case "read", "readv", "recvfrom", "recvmsg", "accept", "accept4", "connect":
		return ioWait, name
	case "nanosleep", "clock_nanosleep":
		return timedWait, name
	}
	return notWaiting, name
}

// futexOpName is "FUTEX_WAIT_BITSET|FUTEX_PRIVATE_FLAG" and the like.
func futexOpName(op uint64) string {
	s, ok := futexOps[op&^(futexPrivateFlag|futexClockRealtime)]
	if !ok {
		s = fmt.Sprintf("op %d", op&^(futexPrivateFlag|futexClockRealtime))
	}
	if op&futexPrivateFlag != 0 {
		s += "|FUTEX_PRIVATE_FLAG"
	}
	if op&futexClockRealtime != 0 {
		s += "|FUTEX_CLOCK_REALTIME"
	}
	return s
}

// threadWait classifies what thread t waits in: only a sleeping thread
// (state S) in a known system call waits.
func threadWait(t thread, table syscallTable) (waitClass, string) {
	switch t.call.kind {
	case callRunning:
		return notWaiting, "running"
	case callNone:
		return notWaiting, "not in a system call"
	case callUnknown:
		return notWaiting, "system call unknown"
	}
	class, desc := classify(table.name(t.call.nr), t.call.args)
	if t.state != 'S' {
		return notWaiting, fmt.Sprintf("%s (state %c)", desc, t.state)
	}
	return class, desc
}
