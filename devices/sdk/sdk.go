// Package sdk handles everett's guest-SDK hypercall: one instruction in the
// custom-0 major opcode (the 32-bit word 0x0000000b), intercepted by the
// emulator in any privilege mode, so that the same SDK works in bare-metal
// code, in a kernel and in a Linux user process.
//
// Calling convention (see guest-images/sdk/README.md):
//
//	a0 = operation, a1..a5 = arguments; the result is returned in a0.
//	Pointers are guest virtual addresses, translated by the calling hart's
//	MMU as a load at its current privilege level would be.
//
//	op  name            arguments                         result
//	1   always          a1 = condition, a2 = msg, a3 = len  0
//	2   sometimes       a1 = condition, a2 = msg, a3 = len  0
//	3   reachable       a2 = msg, a3 = len                  0
//	4   unreachable     a2 = msg, a3 = len                  0
//	5   random          -                                   64 random bits
//	6   setup_complete  -                                   0
//	7   progress        a1 = value (free for the guest)     0
//	8   exit            a1 = exit code (0 = success)        (does not return)
//	9   event           a2 = JSON, a3 = len                 0
//	10  kill_next       a1 = killable services n            0, or delay_us<<8 | index
//	11  own_space       -                                   0
//
// Operations 9 and 10 are the channel of everett's own init
// (guest-images/init): event reports what happened to the workload's
// processes (an exit, a death by a signal, a deadlock) as one JSON object,
// read up to MaxEvent bytes; kill_next asks when to kill which service (a
// fault the explorer draws): 0 means no more kills, otherwise kill
// service index (0 <= index < n) delay_us virtual microseconds from the
// call, then ask again; index 255 means no kill now, ask again after
// delay_us (the boot universe, whose forks draw their own kills).
// own_space, also the init's, says that the calling address space is
// everett's own and not the workload's: the search does not preempt its
// threads (Caller.OwnSpace), so that its budget goes to the workload.
//
// An unknown operation returns -38 (ENOSYS) in a0. A message that cannot be
// read (a bad pointer) is reported as "<unreadable message>"; messages are
// cut at MaxMessage bytes.
package sdk

import (
	"fmt"
	"io"
)

// Operations.
const (
	OpAlways        = 1
	OpSometimes     = 2
	OpReachable     = 3
	OpUnreachable   = 4
	OpRandom        = 5
	OpSetupComplete = 6
	OpProgress      = 7
	OpExit          = 8
	OpEvent         = 9
	OpKillNext      = 10
	OpOwnSpace      = 11

	// MaxMessage bounds the bytes read for one assertion message.
	MaxMessage = 256
	// MaxEvent bounds the bytes read for one event.
	MaxEvent = 16 << 10
	enosys   = -38
)

// Kind is an assertion kind.
type Kind int

// Assertion kinds.
const (
	Always Kind = iota + 1
	Sometimes
	Reachable
	Unreachable
)

func (k Kind) String() string {
	switch k {
	case Always:
		return "always"
	case Sometimes:
		return "sometimes"
	case Reachable:
		return "reachable"
	case Unreachable:
		return "unreachable"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Caller is the hart executing the hypercall.
type Caller interface {
	HartID() int
	Reg(i int) uint64
	SetReg(i int, v uint64)
	// ReadVirt reads guest virtual memory as a load at the hart's current
	// privilege would; it returns an error instead of trapping.
	ReadVirt(va uint64, b []byte) error
	// OwnSpace marks the address space the hart runs in as everett's own
	// (its init), not the workload's: the scheduler does not preempt it.
	OwnSpace()
}

// Sink receives what the guest reports. Implementations must be cheap and
// bounded: a guest may call them in a loop.
type Sink interface {
	Assert(kind Kind, cond bool, msg string, hart int)
	Random() uint64
	SetupComplete(hart int)
	Progress(value uint64, hart int)
	Exit(code int, hart int)
	// Event receives one event of everett's init (a JSON object, at most
	// MaxEvent bytes, not validated).
	Event(data []byte, hart int)
	// KillNext answers kill_next for n killable services: 0 for no more
	// kills, else delay_us<<8 | index with delay_us >= 1 and index < n.
	KillNext(n int, hart int) uint64
}

// Handle executes one hypercall for caller, reporting to sink.
func Handle(c Caller, sink Sink) {
	op := c.Reg(10)
	switch op {
	case OpAlways, OpSometimes, OpReachable, OpUnreachable:
		msg := readMessage(c, c.Reg(12), c.Reg(13))
		cond := c.Reg(11) != 0
		kind := Kind(op)
		if kind == Reachable || kind == Unreachable {
			cond = true
		}
		sink.Assert(kind, cond, msg, c.HartID())
		c.SetReg(10, 0)
	case OpRandom:
		c.SetReg(10, sink.Random())
	case OpSetupComplete:
		sink.SetupComplete(c.HartID())
		c.SetReg(10, 0)
	case OpProgress:
		sink.Progress(c.Reg(11), c.HartID())
		c.SetReg(10, 0)
	case OpExit:
		c.SetReg(10, 0)
		sink.Exit(int(int32(c.Reg(11))), c.HartID())
	case OpEvent:
		b, ok := readBytes(c, c.Reg(12), min(c.Reg(13), MaxEvent))
		if ok {
			sink.Event(b, c.HartID())
		}
		c.SetReg(10, 0)
	case OpKillNext:
		n := c.Reg(11)
		if n == 0 || n > 255 {
			c.SetReg(10, 0)
			return
		}
		c.SetReg(10, sink.KillNext(int(n), c.HartID()))
	case OpOwnSpace:
		c.OwnSpace()
		c.SetReg(10, 0)
	default:
		c.SetReg(10, uint64(enosys&0xffffffffffffffff))
	}
}

// readBytes reads n bytes at va, or reports false when they cannot be
// read (a bad pointer: the event is dropped, as a real device would drop
// a descriptor it cannot read).
func readBytes(c Caller, va, n uint64) ([]byte, bool) {
	b := make([]byte, n)
	if err := c.ReadVirt(va, b); err != nil {
		return nil, false
	}
	return b, true
}

func readMessage(c Caller, va, n uint64) string {
	n = min(n, MaxMessage)
	b := make([]byte, n)
	if err := c.ReadVirt(va, b); err != nil {
		// Read up to the first fault: a NUL-terminated message may end
		// just before unmapped memory.
		var one [1]byte
		b = b[:0]
		for i := uint64(0); i < n && c.ReadVirt(va+i, one[:]) == nil; i++ {
			b = append(b, one[0])
			if one[0] == 0 {
				break
			}
		}
		if len(b) == 0 || b[len(b)-1] != 0 {
			return "<unreadable message>"
		}
	}
	for i, ch := range b {
		if ch == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Power is what the default sink needs to end the run.
type Power interface {
	PowerOff(code int)
}

// Rand is the universe's PRNG.
type Rand interface {
	Uint64() uint64
}

// LogSink is the sink of `everett run`: it prints each failed always, each
// reached unreachable, and the first hit of every sometimes/reachable to a
// writer, draws randomness from the universe PRNG, and ends the run on exit.
// It remembers at most MaxAssertions distinct messages.
type LogSink struct {
	W     io.Writer
	Rand  Rand
	Power Power
	seen  map[string]bool
	// Failed counts failed always and reached unreachable assertions.
	Failed int
}

// MaxAssertions bounds the distinct assertions a sink tracks.
const MaxAssertions = 4096

// Assert implements Sink.
func (s *LogSink) Assert(kind Kind, cond bool, msg string, hart int) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	failed := (kind == Always && !cond) || kind == Unreachable
	if failed {
		s.Failed++
	}
	key := kind.String() + ":" + fmt.Sprint(cond) + ":" + msg
	if s.seen[key] || len(s.seen) >= MaxAssertions {
		return
	}
	s.seen[key] = true
	if s.W == nil {
		return
	}
	switch {
	case failed:
		fmt.Fprintf(s.W, "everett: sdk: %s assertion failed on hart %d: %s\n", kind, hart, msg)
	case (kind == Sometimes && cond) || kind == Reachable:
		fmt.Fprintf(s.W, "everett: sdk: %s assertion hit on hart %d: %s\n", kind, hart, msg)
	}
}

// Random implements Sink.
func (s *LogSink) Random() uint64 { return s.Rand.Uint64() }

// SetupComplete implements Sink.
func (s *LogSink) SetupComplete(int) {}

// Progress implements Sink.
func (s *LogSink) Progress(uint64, int) {}

// Exit implements Sink.
func (s *LogSink) Exit(code int, _ int) { s.Power.PowerOff(code) }

// Event implements Sink: `everett run` prints what everett's init reports
// (an exit, a signal, a deadlock) as one line.
func (s *LogSink) Event(data []byte, hart int) {
	if s.W == nil {
		return
	}
	e, err := ParseEvent(data)
	if err != nil {
		fmt.Fprintf(s.W, "everett: init: %v\n", err)
		return
	}
	fmt.Fprintf(s.W, "everett: init: %s\n", e.Summary())
	for _, t := range e.Threads {
		fmt.Fprintf(s.W, "everett: init:   %s\n", t.String())
	}
	if e.Output != "" && e.Failed() {
		fmt.Fprintf(s.W, "everett: init: last output of %s:\n%s", e.Name, indent(e.Output))
	}
}

// KillNext implements Sink: `everett run` injects no kill faults.
func (s *LogSink) KillNext(int, int) uint64 { return 0 }
