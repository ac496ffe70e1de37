package gdbstub

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"everett/internal/hosttool"
)

// gdbPath is Debian's gdb-multiarch, the debugger the server is for.
const gdbPath = "/usr/bin/gdb-multiarch"

// gdbTimeout bounds one gdb session; gdb is killed when it runs out.
const gdbTimeout = 60 * time.Second

// runGDB serves tgt on a TCP port of 127.0.0.1, runs gdb-multiarch in
// batch mode with the commands after connecting, and returns what gdb
// printed and the server's packet log.
func runGDB(t *testing.T, tgt Target, commands ...string) (out, log string) {
	t.Helper()
	if _, err := os.Stat(gdbPath); err != nil {
		hosttool.Missing(t, "gdb-multiarch", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	packets := &syncBuffer{}
	served := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer conn.Close()
		served <- Serve(conn, tgt, Options{Log: packets})
	}()

	args := []string{"-nx", "-batch",
		"-ex", "set architecture riscv:rv64",
		"-ex", "set confirm off",
		"-ex", "set pagination off",
		"-ex", "target remote " + ln.Addr().String()}
	for _, c := range commands {
		args = append(args, "-ex", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gdbTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gdbPath, args...)
	cmd.WaitDelay = 5 * time.Second
	b, err := cmd.CombinedOutput()
	out = string(b)
	if ctx.Err() != nil {
		t.Fatalf("gdb did not finish in %v; it printed:\n%s\npackets:\n%s", gdbTimeout, out, packets)
	}
	if err != nil {
		t.Fatalf("gdb: %v; it printed:\n%s\npackets:\n%s", err, out, packets)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("Serve did not end after gdb quit")
	}
	return out, packets.String()
}

// expectOutput checks that gdb's output holds each wanted text, in order.
func expectOutput(t *testing.T, out, log string, wants ...string) {
	t.Helper()
	rest := out
	for _, w := range wants {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("gdb's output lacks %q (in order)", w)
			continue
		}
		rest = rest[i+len(w):]
	}
	if t.Failed() {
		t.Logf("gdb printed:\n%s\npackets:\n%s", out, log)
	}
}

// The session of TestGDBDebugsTheFakeMachineForwardAndBackward, on the fake's
// two threads: thread 1 starts at fakeBase, thread 2 at fakeBase+0x10, and
// a continue runs both in lockstep.
//
//	continue           thread 2 reaches the breakpoint at +0x20 first
//	stepi              thread 2 alone to +0x24 (gdb steps in software)
//	continue           thread 2 stops at the store at +0x2c; gdb steps it
//	                   and sees the new value
//	reverse-stepi      thread 2 back over the store to +0x2c
//	reverse-continue   back to the breakpoint at +0x20
//	continue           thread 2 reaches the end: replaylog:end
//	reverse-continue   thread 1 reaches the start: replaylog:begin
func TestGDBDebugsTheFakeMachineForwardAndBackward(t *testing.T) {
	f := newFake(2)
	out, log := runGDB(t, f,
		"info threads",
		"thread 2",
		"info registers pc",
		"p/x $mstatus",
		"p $priv",
		fmt.Sprintf("x/4gx %#x", fakeData),
		"monitor icount",
		fmt.Sprintf("break *%#x", fakeBase+0x20),
		"continue",
		"stepi",
		"info registers pc",
		fmt.Sprintf("watch *(long*)%#x", fakeData),
		"continue",
		"delete 2",
		"reverse-stepi",
		"info registers pc",
		fmt.Sprintf("x/1gx %#x", fakeData),
		"reverse-continue",
		"delete",
		"continue",
		"reverse-continue",
	)
	expectOutput(t, out, log,
		"Thread 1 (hart 0, M-mode) 0x0000000080000000 in ?? ()",
		"Thread 2 (hart 1, S-mode) 0x0000000080000010 in ?? ()",
		"[Switching to thread 2 (Thread 2)]",
		"pc             0x80000010",
		"$1 = 0xa00000080",
		"$2 = 1",
		"0x80001000:\t0x0000000000000001\t0x0000000000000000",
		"icount=42",
		"Breakpoint 1 at 0x80000020",
		"Thread 2 hit Breakpoint 1, 0x0000000080000020 in ?? ()",
		"0x0000000080000024 in ?? ()",
		"pc             0x80000024",
		"Hardware watchpoint 2: *(long*)0x80001000",
		"Thread 2 hit Hardware watchpoint 2: *(long*)0x80001000",
		"Old value = 1",
		"New value = 2",
		"0x0000000080000030 in ?? ()",
		"pc             0x8000002c",
		"0x80001000:\t0x0000000000000001",
		"Thread 2 hit Breakpoint 1, 0x0000000080000020 in ?? ()",
		"the program ended",
		"No more reverse-execution history.",
		"0x0000000080000100 in ?? ()",
		"No more reverse-execution history.",
		"[Switching to Thread 1]",
		"0x0000000080000000 in ?? ()",
		"[Inferior 1 (Remote target) detached]",
	)
	var reverse []Resume
	for _, r := range f.received() {
		if r.Reverse {
			reverse = append(reverse, r)
		}
	}
	want := []Resume{{Step: true, Reverse: true, Thread: 2}, {Reverse: true, Thread: 2}, {Reverse: true, Thread: 2}}
	if fmt.Sprint(reverse) != fmt.Sprint(want) {
		t.Errorf("the target ran in reverse %+v, want %+v", reverse, want)
	}
}
