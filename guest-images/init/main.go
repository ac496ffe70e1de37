// Command init is everett's own init: PID 1 of a node whose workload is
// the user's own software. It mounts the basic file systems, names the
// node and configures its network, starts the processes that
// /everett/workload.json lists, copies their output to the console,
// reaps them, restarts services, carries out the kill faults the host
// asks for, watches for deadlocks, reports all of it to the host through
// the SDK's event hypercall, and ends the run with an exit code. README.md
// describes the configuration, the events and the exit codes.
//
// Build it for the guest with
//
//	CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 go build ./guest-images/init/
//
// It refuses to run as anything but PID 1.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"everett/guest-images/sdk/go/everett"
	"everett/guest-images/sdk/go/netconf"
)

func main() {
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "everett-init: not PID 1; this program is the init of an everett guest (guest-images/init/README.md)")
		os.Exit(2)
	}
	con := newConsole(os.Stdout)
	halt(con, runInit(con))
}

// runInit sets the node up and runs the workload; it returns the run's
// exit code and never panics.
func runInit(con *console) (code int) {
	var h host = sdkHost{}
	sdkReady := false // the SDK decides whether it runs on everett from /proc and /sys
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("the init failed: %v", r)
			con.say("error: %s", msg)
			if sdkReady {
				h.Event(encode(errorEvent{Event: "error", Message: truncate(msg, errorMessageBytesMax)}))
			}
			code = exitFailure
		}
	}()
	keepSignals(con)
	mountBasics(con)
	setupConsole()
	sdkReady = true
	// The search's preemptions are for the workload's threads, not ours.
	everett.OwnSpace()

	fail := func(code int, name string, err error) int {
		msg := truncate(err.Error(), errorMessageBytesMax)
		con.say("error: %s", msg)
		h.Event(encode(errorEvent{Event: "error", Name: name, Message: msg}))
		return code
	}
	cmdline, err := os.ReadFile(cmdlinePath)
	if err != nil {
		return fail(exitFailure, "", fmt.Errorf("read the kernel command line: %w", err))
	}
	index, err := nodeIndex(string(cmdline))
	if err != nil {
		return fail(exitFailure, "", fmt.Errorf("kernel command line: %w", err))
	}
	b, err := os.ReadFile(workloadPath)
	if err != nil {
		return fail(exitFailure, "", fmt.Errorf("read the workload: %w", err))
	}
	w, unknown, err := parseWorkload(b)
	if err != nil {
		return fail(exitFailure, "", fmt.Errorf("%s: %w", workloadPath, err))
	}
	if unknown != "" {
		con.say("%s: ignoring the unknown field %s", workloadPath, unknown)
	}
	u, err := newUniverse(&w, index)
	if err != nil {
		return fail(exitFailure, "", err)
	}
	if err := configureNode(con, u); err != nil {
		return fail(exitFailure, "", err)
	}
	if err := mountWorkload(con, w.Mounts, sysMount, time.Sleep); err != nil {
		return fail(exitFailure, "", err)
	}
	var extra []string
	if v, ok := os.LookupEnv("EVERETT_SDK"); ok {
		extra = append(extra, "EVERETT_SDK="+v)
	}
	specs, name, err := buildSpecs(&w, u, extra)
	if err != nil {
		return fail(exitCannotStart, name, err)
	}
	sys, err := newLinuxSystem()
	if err != nil {
		return fail(exitFailure, "", err)
	}
	// The setup point: every universe forks from here (the explorer
	// snapshots at its first window boundary after this call, within a
	// millisecond of virtual time on one node), so that each runs the
	// whole workload under its own schedule. The pause keeps the workload
	// from starting before that snapshot.
	if w.SetupComplete == nil || *w.SetupComplete {
		everett.SetupComplete()
		time.Sleep(setupPause)
	}
	if everett.Enabled() {
		reseedRandom(con)
	}
	start := time.Now()
	s := newSupervisor(h, con, sys, func() time.Duration { return time.Since(start) }, specs)
	s.kills = w.Kills
	if w.Deadlock.Check || w.Deadlock.StallNs > 0 {
		fs := procfs{root: "/proc", kthreads: &kthreadCache{}}
		s.watch = &watch{
			table:      nativeSyscalls(),
			check:      w.Deadlock.Check,
			oneNode:    u.oneNode(),
			stall:      time.Duration(w.Deadlock.StallNs),
			hasTimerfd: fs.hasTimerfd,
		}
		s.sampler = procSampler{fs: fs, root: os.Getpid(), names: s.nameOf}
		s.isGo = fs.isGo
	}
	return s.run()
}

// keepSignals keeps the signals whose default action would end a Go
// program from ending the init: the kernel sends them to PID 1 only when
// it handles them, and the runtime's handler would exit. Notify, unlike
// ignoring them, leaves the workload (which inherits ignored signals
// across exec) their default actions.
func keepSignals(con *console) {
	c := make(chan os.Signal, 8)
	signal.Notify(c, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPWR, syscall.SIGPIPE)
	go func() {
		defer func() { recover() }() // nothing here may take the init down
		for sig := range c {
			con.say("ignoring %s", signalName(sig.(syscall.Signal)))
		}
	}()
}

// setupPause is the virtual time between the setup point and the
// workload's start: longer than the explorer's window on one node (1 ms).
const setupPause = 10 * time.Millisecond

// halt ends the run with code: the SDK's exit on everett; elsewhere (QEMU)
// a power-off. It never returns: PID 1 must not exit. When the host lets
// the node go on (other nodes of the universe still run their tasks), the
// init stays, reaping what ends.
func halt(con *console, code int) {
	con.flush()
	netconf.DrainConsole()
	syscall.Sync()
	if everett.Enabled() {
		everett.Finish(code)
		for {
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(-1, &ws, 0, nil); err == syscall.ECHILD {
				time.Sleep(time.Hour)
			}
		}
	}
	con.say("exit code %d; powering off", code)
	con.flush()
	netconf.DrainConsole()
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	for {
		time.Sleep(time.Hour)
	}
}
