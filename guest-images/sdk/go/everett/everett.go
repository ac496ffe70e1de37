// Package everett is the guest side of everett's SDK for Go programs: Linux
// user programs built with GOOS=linux GOARCH=riscv64 that run on everett.
// It reports assertions to the emulator (and through it to the explorer),
// draws decisions from the universe's PRNG, marks a snapshot point and
// progress, and ends the run.
//
// On riscv64 the calls are everett's hypercall: the custom-0 instruction
// 0x0000000b, intercepted by the emulator even in user mode, so a call
// costs one instruction and no system call (guest-images/sdk/README.md
// describes the ABI). On a riscv64 machine that is not everett the
// instruction would be illegal, so the package first checks that it runs
// on everett (see [Enabled]) and otherwise, like on every other
// architecture, falls back to a portable implementation: assertions do
// nothing except that a failed Always or a reached Unreachable prints a
// line to stderr, Random uses math/rand/v2, and Exit calls os.Exit.
//
// Messages name a property ("acknowledged writes survive failover"); the
// explorer groups assertions by kind and message, so a message should be a
// constant, not a formatted value. The host reads at most 256 bytes of it.
package everett

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"time"
	"unsafe"
)

// Operations of the hypercall (devices/sdk/sdk.go).
const (
	opAlways        = 1
	opSometimes     = 2
	opReachable     = 3
	opUnreachable   = 4
	opRandom        = 5
	opSetupComplete = 6
	opProgress      = 7
	opExit          = 8
	opEvent         = 9
	opKillNext      = 10
	opOwnSpace      = 11
)

// MaxMessage is the number of message bytes the host reads.
const MaxMessage = 256

// MaxEvent is the number of bytes of an event the host reads; Event cuts a
// longer one there.
const MaxEvent = 16384

// MaxKillable is the largest number of services KillNext chooses among:
// the host returns the chosen index in the low 8 bits of its result.
const MaxKillable = 256

// Always asserts that cond holds every time it is evaluated. A false cond is
// a failure: the explorer reports it with everything needed to replay it.
func Always(cond bool, msg string) {
	if Enabled() {
		message(opAlways, cond, msg)
		return
	}
	if !cond {
		fmt.Fprintf(os.Stderr, "everett: always assertion failed: %s\n", msg)
	}
}

// Sometimes asserts that cond holds at least once across a run; the
// explorer lists sometimes-assertions that never held, and may snapshot a
// universe when one first does.
func Sometimes(cond bool, msg string) {
	if Enabled() {
		message(opSometimes, cond, msg)
	}
}

// Reachable asserts that the call is reached in some run.
func Reachable(msg string) {
	if Enabled() {
		message(opReachable, true, msg)
	}
}

// Unreachable asserts that the call is never reached; reaching it is a
// failure.
func Unreachable(msg string) {
	if Enabled() {
		message(opUnreachable, true, msg)
		return
	}
	fmt.Fprintf(os.Stderr, "everett: unreachable assertion reached: %s\n", msg)
}

// Random returns 64 bits from the universe's PRNG: a decision the explorer
// records, replays and varies with the seed.
func Random() uint64 {
	if Enabled() {
		return hypercall(opRandom, 0, nil, 0)
	}
	return rand.Uint64()
}

// SetupComplete tells the emulator that set-up is over (for instance the
// cluster has formed and the workload is about to start): a natural point
// to snapshot a universe and fork it.
func SetupComplete() {
	if Enabled() {
		hypercall(opSetupComplete, 0, nil, 0)
	}
}

// Progress tells the emulator that the guest is making progress, for the
// explorer's hang oracle; v is free for the program (a count of completed
// operations, say).
func Progress(v uint64) {
	if Enabled() {
		hypercall(opProgress, v, nil, 0)
	}
}

// Exit ends the run with code (0 = success). On everett it first waits
// until output written to standard output and standard error has left the
// machine when they are terminals (the console), then the machine stops at
// the hypercall. Elsewhere, and should the emulator ever let the call
// return, the process exits with os.Exit (from PID 1 that panics the
// kernel: a program running as init should power the machine off instead
// when Enabled is false).
func Exit(code int) {
	if Enabled() {
		drainOutput()
		hypercall(opExit, uint64(int64(code)), nil, 0)
	}
	os.Exit(code)
}

// Finish is Exit for a program that must not exit, such as an init: it
// ends the run with code on everett and returns if the emulator lets the
// guest go on (a node whose other nodes still work: the host ends the
// universe when every node has finished). Not on everett it does nothing.
func Finish(code int) {
	if Enabled() {
		drainOutput()
		hypercall(opExit, uint64(int64(code)), nil, 0)
	}
}

// Event reports an event of everett's own init (guest-images/init) to the
// host: json is one UTF-8 JSON object whose field "event" says what
// happened ("start", "exit", "deadlock", "error", "kill"; the init's
// README describes them). The host reads at most MaxEvent bytes, so a
// longer event is cut there: keep events shorter. Not on everett, Event
// does nothing.
func Event(json []byte) {
	if !Enabled() || len(json) == 0 {
		return
	}
	if len(json) > MaxEvent {
		json = json[:MaxEvent]
	}
	p := unsafe.Pointer(unsafe.SliceData(json))
	hypercall(opEvent, 0, p, uint64(len(json)))
	runtime.KeepAlive(json)
}

// OwnSpace tells the host that the calling process is everett's own init,
// not the workload under test: the search spends no preemption on its
// threads. Not on everett, it does nothing.
func OwnSpace() {
	if Enabled() {
		hypercall(opOwnSpace, 0, nil, 0)
	}
}

// KillNext asks the host whether to carry out a kill fault among n
// killable services (n >= 1; at most MaxKillable are offered). When ok,
// the caller sends SIGKILL to service index (0 <= index < n) after delay
// (at least a microsecond of virtual time) counted from this call, then
// calls KillNext again; ok = false means no more kills. Not on everett,
// and on a host without the operation, ok is false.
func KillNext(n int) (delay time.Duration, index int, ok bool) {
	if !Enabled() || n < 1 {
		return 0, 0, false
	}
	n = min(n, MaxKillable)
	return decodeKillNext(hypercall(opKillNext, uint64(n), nil, 0), n)
}

// decodeKillNext reads kill_next's result r for n services:
// (delay_us << 8) | index, 0 for no more kills. A negative result (an
// error such as ENOSYS from a host that lacks the operation) and one that
// breaks the protocol (an index out of range, a zero delay) also mean no
// more kills. A delay too long for a time.Duration is cut to the longest
// one.
// askAgain is kill_next's index for "no kill now, ask again after the
// delay" (the host has not drawn this universe's faults yet: its setup
// point is still ahead).
const askAgain = 0xff

func decodeKillNext(r uint64, n int) (delay time.Duration, index int, ok bool) {
	if r == 0 || int64(r) < 0 {
		return 0, 0, false
	}
	index = int(r & 0xff)
	us := r >> 8
	if index == askAgain && us != 0 {
		index = -1 // no kill now: ask again after the delay
	} else if index >= n || us == 0 {
		return 0, 0, false
	}
	if us > math.MaxInt64/uint64(time.Microsecond) {
		return math.MaxInt64, index, true
	}
	return time.Duration(us) * time.Microsecond, index, true
}
