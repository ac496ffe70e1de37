package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// linuxSystem starts, reaps and signals real processes.
type linuxSystem struct {
	devnull *os.File // every process's stdin
}

func newLinuxSystem() (*linuxSystem, error) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	return &linuxSystem{devnull: f}, nil
}

// start forks and executes p in a session of its own, with stdin
// /dev/null and stdout and stderr on one pipe, so that the output it
// writes keeps its order. The pipe's read end is non-blocking, which lets
// the Go runtime poll it instead of holding a thread per process.
func (l *linuxSystem) start(p *procSpec) (int, io.ReadCloser, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return 0, nil, fmt.Errorf("pipe for %s: %w", p.name, err)
	}
	attr := &syscall.ProcAttr{
		Dir:   p.dir,
		Env:   p.env,
		Files: []uintptr{l.devnull.Fd(), uintptr(fds[1]), uintptr(fds[1])},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	}
	pid, err := syscall.ForkExec(p.path, p.argv, attr)
	syscall.Close(fds[1])
	if err != nil {
		syscall.Close(fds[0])
		var errno syscall.Errno
		if errors.As(err, &errno) && errno == syscall.ENOENT && p.dir != "" {
			if _, serr := os.Stat(p.dir); serr != nil {
				return 0, nil, fmt.Errorf("exec %s: directory %s: %w", p.path, p.dir, serr)
			}
		}
		return 0, nil, fmt.Errorf("exec %s: %w", p.path, err)
	}
	syscall.SetNonblock(fds[0], true) // should it fail, a thread blocks in read instead
	return pid, os.NewFile(uintptr(fds[0]), p.name+" output"), nil
}

// reap collects any ended child: wait4(-1, WNOHANG), which as PID 1 also
// collects the orphans the init adopts.
func (l *linuxSystem) reap() (int, syscall.WaitStatus, bool) {
	for {
		var st syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &st, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return 0, 0, false
		}
		return pid, st, true
	}
}

func (l *linuxSystem) kill(pid int, sig syscall.Signal) error {
	return syscall.Kill(pid, sig)
}
