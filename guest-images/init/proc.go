package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Reading the state of the workload's threads from /proc (proc(5)): for
// each thread, /proc/PID/task/TID/stat (state, CPU times), status (context
// switches), syscall (the system call it is in and its arguments), wchan
// (where in the kernel it sleeps) and comm (its name).

// pfKthread is PF_KTHREAD in the flags of /proc/PID/stat (include/linux/sched.h).
const pfKthread = 0x00200000

// procBytesMax bounds what is read of one /proc file.
const procBytesMax = 16384

// processesSampledMax and threadsSampledMax bound a sample.
const (
	processesSampledMax = 4096
	threadsSampledMax   = 16384
)

// procStat is what the watch uses of /proc/PID/stat or /proc/PID/task/TID/stat.
type procStat struct {
	comm         string
	state        byte
	ppid         int
	flags        uint64
	utime, stime uint64 // clock ticks
}

// parseStat parses a stat line: "PID (COMM) STATE PPID ...", where COMM may
// itself hold spaces and parentheses, so the fields start after the last ')'.
func parseStat(b []byte) (procStat, error) {
	var s procStat
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return s, errors.New("no (comm)")
	}
	s.comm = string(b[open+1 : end])
	f := strings.Fields(string(b[end+1:]))
	// After the comm: state(3) ppid(4) pgrp session tty_nr tpgid flags(9)
	// minflt cminflt majflt cmajflt utime(14) stime(15).
	if len(f) < 13 || len(f[0]) != 1 {
		return s, fmt.Errorf("%d fields after the comm, want at least 13", len(f))
	}
	s.state = f[0][0]
	var err error
	if s.ppid, err = strconv.Atoi(f[1]); err != nil {
		return s, fmt.Errorf("ppid: %w", err)
	}
	for _, x := range []struct {
		dst *uint64
		i   int
	}{{&s.flags, 6}, {&s.utime, 11}, {&s.stime, 12}} {
		if *x.dst, err = strconv.ParseUint(f[x.i], 10, 64); err != nil {
			return s, fmt.Errorf("field %d: %w", x.i+3, err)
		}
	}
	return s, nil
}

// parseSwitches reads the context-switch counts of a status file; a
// kernel without them gives zeros.
func parseSwitches(b []byte) (voluntary, involuntary uint64) {
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "voluntary_ctxt_switches":
			voluntary = n
		case "nonvoluntary_ctxt_switches":
			involuntary = n
		}
	}
	return voluntary, involuntary
}

// callKind says what /proc/PID/task/TID/syscall found.
type callKind int

const (
	callUnknown callKind = iota // the file could not be read
	callRunning                 // "running": the thread was on a CPU
	callNone                    // "-1 SP PC": blocked, not in a system call
	callIn                      // "NR ARG0..ARG5 SP PC": in system call NR
)

// syscallState is a thread's /proc/PID/task/TID/syscall.
type syscallState struct {
	kind   callKind
	nr     int
	args   [6]uint64
	sp, pc uint64
}

// parseSyscall parses the three forms fs/proc/base.c (proc_pid_syscall)
// writes: "running", "NR SP PC" with NR < 0 (blocked outside a system
// call), and "NR ARG0 ARG1 ARG2 ARG3 ARG4 ARG5 SP PC". NR is decimal, the
// others hexadecimal with 0x.
func parseSyscall(b []byte) (syscallState, error) {
	f := strings.Fields(string(b))
	if len(f) == 1 && f[0] == "running" {
		return syscallState{kind: callRunning}, nil
	}
	if len(f) == 0 {
		return syscallState{}, errors.New("empty")
	}
	nr, err := strconv.ParseInt(f[0], 0, 32)
	if err != nil {
		return syscallState{}, fmt.Errorf("number %q: %w", f[0], err)
	}
	hex := func(i int) (uint64, error) {
		v, err := strconv.ParseUint(strings.TrimPrefix(f[i], "0x"), 16, 64)
		if err != nil {
			return 0, fmt.Errorf("field %d %q: %w", i+1, f[i], err)
		}
		return v, nil
	}
	s := syscallState{kind: callIn, nr: int(nr)}
	switch {
	case nr < 0 && len(f) == 3:
		s.kind = callNone
	case nr >= 0 && len(f) == 9:
		for i := range s.args {
			if s.args[i], err = hex(1 + i); err != nil {
				return syscallState{}, err
			}
		}
	default:
		return syscallState{}, fmt.Errorf("%d fields for system call %d", len(f), nr)
	}
	if s.sp, err = hex(len(f) - 2); err != nil {
		return syscallState{}, err
	}
	if s.pc, err = hex(len(f) - 1); err != nil {
		return syscallState{}, err
	}
	return s, nil
}

// thread is one sampled thread of the workload.
type thread struct {
	pid, tid     int
	name         string // the workload process it belongs to
	comm         string
	state        byte
	utime, stime uint64
	vcsw, nvcsw  uint64 // voluntary and involuntary context switches
	wchan        string
	call         syscallState
}

// sample is the workload's threads at one moment, ordered by pid and tid.
type sample struct {
	threads []thread
}

// procfs reads a /proc tree (the real /proc, or a recorded one in tests).
type procfs struct {
	root string
	// kthreads, when set, remembers the pids found to be kernel threads,
	// so that a sample reads the stat of user processes only: on an idle
	// guest the kernel's threads are most of /proc, and reading each one's
	// stat made a sample cost about 1.8 million guest instructions
	// (2026-12-04). Linux hands out pids in increasing order until they
	// wrap, so a remembered pid cannot name a user process before a wrap,
	// which the cache detects (a new pid below one seen) and forgets.
	kthreads *kthreadCache
}

// kthreadCache is what procfs remembers of kernel threads.
type kthreadCache struct {
	pids   map[int]bool // kernel threads
	seen   map[int]bool // every pid of the last listing
	maxPid int
}

// known reports whether pid is a remembered kernel thread.
func (c *kthreadCache) known(pid int) bool {
	if c == nil {
		return false
	}
	return c.pids[pid]
}

// update takes a new listing: a pid not seen before that is lower than the
// highest seen means pids wrapped, and every remembered pid is forgotten.
func (c *kthreadCache) update(all []int) {
	if c == nil {
		return
	}
	if c.pids == nil {
		c.pids, c.seen = map[int]bool{}, map[int]bool{}
	}
	for _, pid := range all {
		if !c.seen[pid] && pid < c.maxPid {
			clear(c.pids)
			break
		}
	}
	clear(c.seen)
	for _, pid := range all {
		c.seen[pid] = true
		c.maxPid = max(c.maxPid, pid)
	}
}

func (p procfs) read(parts ...string) ([]byte, error) {
	f, err := os.Open(filepath.Join(append([]string{p.root}, parts...)...))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, procBytesMax)
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	return b[:n], nil
}

// numbers lists the numeric entries of a directory of the tree, in order.
func (p procfs) numbers(parts ...string) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(append([]string{p.root}, parts...)...))
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 0 {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

// descendants lists the user processes descended from process root, in
// order of pid, with each one's parent (kernel threads are never
// descendants of a user process; a process that is gone by the time its
// stat is read is left out).
func (p procfs) descendants(root int) (pids []int, parent map[int]int, err error) {
	all, err := p.numbers()
	if err != nil {
		return nil, nil, err
	}
	parent = map[int]int{}
	p.kthreads.update(all)
	for _, pid := range all {
		if p.kthreads.known(pid) {
			continue
		}
		b, err := p.read(strconv.Itoa(pid), "stat")
		if err != nil {
			continue
		}
		st, err := parseStat(b)
		if err == nil && st.flags&pfKthread != 0 && p.kthreads != nil {
			p.kthreads.pids[pid] = true
		}
		if err != nil || st.flags&pfKthread != 0 {
			continue
		}
		parent[pid] = st.ppid
	}
	for _, pid := range all {
		// Walk up at most as many steps as there are processes.
		for q, steps := parent[pid], 0; q != 0 && steps <= len(parent); q, steps = parent[q], steps+1 {
			if q == root {
				pids = append(pids, pid)
				break
			}
		}
		if len(pids) == processesSampledMax {
			break
		}
	}
	return pids, parent, nil
}

// threads samples the threads of process pid; a thread that ends while it
// is read is left out, and so is a process that has ended.
func (p procfs) threads(pid int, name string) []thread {
	ps := strconv.Itoa(pid)
	tids, err := p.numbers(ps, "task")
	if err != nil {
		return nil
	}
	var ts []thread
	for _, tid := range tids {
		dir := []string{ps, "task", strconv.Itoa(tid)}
		file := func(f string) []byte {
			b, _ := p.read(append(dir, f)...)
			return b
		}
		st, err := parseStat(file("stat"))
		if err != nil {
			continue
		}
		t := thread{pid: pid, tid: tid, name: name, comm: st.comm, state: st.state, utime: st.utime, stime: st.stime}
		if c := bytes.TrimSuffix(file("comm"), []byte("\n")); len(c) > 0 {
			t.comm = string(c)
		}
		t.vcsw, t.nvcsw = parseSwitches(file("status"))
		t.wchan = strings.TrimSpace(string(file("wchan")))
		if t.call, err = parseSyscall(file("syscall")); err != nil {
			t.call = syscallState{kind: callUnknown}
		}
		ts = append(ts, t)
	}
	return ts
}

// hasTimerfd reports whether process pid holds a timerfd, which could wake
// a thread polling or reading it.
func (p procfs) hasTimerfd(pid int) bool {
	dir := filepath.Join(p.root, strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && l == "anon_inode:[timerfd]" {
			return true
		}
	}
	return false
}

// isGo reports whether process pid runs a Go program: its executable has
// the .go.buildinfo section the Go linker writes (also into stripped
// binaries).
func (p procfs) isGo(pid int) bool {
	f, err := elf.Open(filepath.Join(p.root, strconv.Itoa(pid), "exe"))
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section(".go.buildinfo") != nil
}

// procSampler samples the workload: every user process descended from
// process root (the init), named after the workload process it descends
// from.
type procSampler struct {
	fs   procfs
	root int
	// names are the workload's processes by pid, as the supervisor started
	// them; a descendant takes its nearest named ancestor's name.
	names func(pid int) (string, bool)
}

func (s procSampler) sample() (sample, error) {
	pids, parent, err := s.fs.descendants(s.root)
	if err != nil {
		return sample{}, fmt.Errorf("list processes: %w", err)
	}
	var out sample
	for _, pid := range pids {
		out.threads = append(out.threads, s.fs.threads(pid, s.nameOf(pid, parent))...)
		if len(out.threads) >= threadsSampledMax {
			out.threads = out.threads[:threadsSampledMax]
			break
		}
	}
	return out, nil
}

// nameOf names pid after its nearest ancestor (or itself) that the
// supervisor started; an orphan the init adopted is "(orphan)".
func (s procSampler) nameOf(pid int, parent map[int]int) string {
	for q, steps := pid, 0; q > 1 && steps <= len(parent); q, steps = parent[q], steps+1 {
		if n, ok := s.names(q); ok {
			return n
		}
	}
	return "(orphan)"
}
