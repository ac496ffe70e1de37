// Package gdbstub is a GDB Remote Serial Protocol server for RISC-V RV64
// targets: the protocol half of everett's reverse debugger.
//
// Serve speaks the protocol of the GDB manual's appendix "Remote Protocol"
// with one gdb over a connection and reaches the machine only through the
// Target interface below; the package knows nothing about the emulator. It
// supports all-stop mode only (no non-stop, no multiprocess extensions), and
// describes the registers to gdb with the target description of appendix
// "Target Descriptions", laid out as section "RISC-V Features" requires.
//
// The files follow the protocol's layers: packet.go frames packets and
// acknowledgments, regs.go holds the register table and target.xml,
// server.go runs a session, dispatch.go answers the packets that do not move
// the target, and resume.go those that do, with their stop replies.
package gdbstub

import "io"

// RegKind says which register file a Reg is in.
type RegKind uint8

// The register files.
const (
	RegX    RegKind = iota // integer register N (0..31)
	RegPC                  // the pc
	RegF                   // floating-point register N (0..31), 64 bits (NaN-boxed singles as stored)
	RegCSR                 // CSR number N (fflags=1, frm=2, fcsr=3, mstatus=0x300, ...)
	RegPriv                // the privilege level (0 U, 1 S, 3 M), gdb's "priv" virtual register
)

// Reg names one register of a thread: register N of file Kind.
type Reg struct {
	Kind RegKind
	N    int
}

// BreakKind is a Z packet's type.
type BreakKind uint8

// The Z packet types (Remote Protocol, "Packets", ‘Z type,addr,kind’).
const (
	BreakSW     BreakKind = iota // Z0
	BreakHW                      // Z1
	WatchWrite                   // Z2
	WatchRead                    // Z3
	WatchAccess                  // Z4
)

// Resume is what gdb asked for.
type Resume struct {
	Step    bool // step one instruction of Thread; otherwise continue
	Reverse bool // bs / bc
	Thread  int  // the thread to step, or the thread gdb has selected for continue (always a real thread id ≥ 1)
	// Only says that gdb resumed Thread alone and the other threads stay
	// stopped ("vCont;c:2", "vCont;s:2", or c, s, bs, bc after "Hc2").
	// gdb 13 does this to step one thread over a breakpoint it has taken
	// out, and for every stepi on RISC-V (which it single-steps in
	// software: a breakpoint at the next pc, then "vCont;c:TID"). Without
	// Only, every thread may run.
	Only bool
}

// StopKind says why the target stopped.
type StopKind uint8

// The reasons for a stop, each with the stop reply it makes (Remote
// Protocol, "Stop Reply Packets").
const (
	StopStep         StopKind = iota // a step finished
	StopBreak                        // software breakpoint (report swbreak:)
	StopHWBreak                      // hardware breakpoint (hwbreak:)
	StopWatch                        // write watchpoint (watch:ADDR)
	StopRWatch                       // read watchpoint (rwatch:ADDR)
	StopAWatch                       // access watchpoint (awatch:ADDR)
	StopInterrupt                    // Ctrl-C (signal 2 by default)
	StopHistoryBegin                 // reverse execution reached the start (replaylog:begin)
	StopHistoryEnd                   // forward execution reached the end of what can run (replaylog:end), e.g. a report's failure or a guest power-off
	StopExited                       // the process is gone (W packet with ExitCode); the target only uses this for kill
)

// Stop is why and where the target stopped.
type Stop struct {
	Kind     StopKind
	Thread   int
	Addr     uint64 // the data address of a watchpoint stop
	Signal   int    // 0 means the default: 5 (SIGTRAP), 2 for StopInterrupt
	ExitCode int
	Message  string // if non-empty, sent to gdb's console as O packets before the stop reply (gdb prints it)
}

// Target is the machine being debugged. The server calls it from one
// goroutine, one call at a time, except Interrupt.
//
// Breakpoint may return an error that wraps errors.ErrUnsupported for a kind
// it does not implement: gdb then gets the empty reply the protocol uses for
// "this Z type is not supported" and falls back (software single-stepping
// for watchpoints, for instance) instead of reporting a failure.
type Target interface {
	Threads() []int                                      // thread ids ≥ 1, in order (harts: id = hart+1)
	ThreadInfo(tid int) string                           // qThreadExtraInfo text, e.g. "hart 0, S-mode"
	ReadReg(tid int, r Reg) (uint64, bool)               // false: unavailable (reply with 'x' bytes)
	WriteReg(tid int, r Reg, v uint64) error             //
	ReadMem(tid int, addr uint64, b []byte) (int, error) // through the thread's address translation; n < len(b) with err is a partial read
	WriteMem(tid int, addr uint64, b []byte) error       //
	Breakpoint(kind BreakKind, addr, size uint64, insert bool) error
	Resume(r Resume) (Stop, error) // blocks until the target stops; an error ends the session with an error reply
	// Interrupt is called from another goroutine when gdb sends Ctrl-C
	// during Resume; Resume must return soon with StopInterrupt. The server
	// decides to resume just before it calls Resume, so an Interrupt can
	// arrive in the moment before Resume is entered: the target should keep
	// it pending and have that Resume return at once.
	Interrupt()
	Monitor(cmd string) (string, error) // qRcmd: the output text (sent as O packets / hex reply), or an error (sent as an E reply with the message also on the console)
	Stopped() Stop                      // the current stop, for '?' and the initial connect
}

// Options tune a session.
type Options struct {
	Log io.Writer // if non-nil, every packet in and out, one per line ("<- ...", "-> ...")
}
