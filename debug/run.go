// Package debug is everett's reverse debugger: it walks a deterministic run
// (a machine, or one node of a report's universe) forward and backward,
// and serves it to gdb through package gdbstub.
//
// Going backward is going forward again: the session freezes the run at
// points as it goes (copy-on-write snapshots: cheap), and a position
// behind the current one is reached by restoring the nearest earlier point
// and replaying to it exactly. Positions are instruction counts. See
// session.go for the points, motion.go for how each command moves.
package debug

import (
	"fmt"
	"io"
	"slices"

	"everett/emu"
	"everett/explorer"
)

// Run is a deterministic run the debugger can move along.
type Run interface {
	// ICount is the position: instructions executed so far.
	ICount() uint64
	// Machine is the machine the user debugs (nil while it is down).
	Machine() *emu.Machine
	// Incarnation changes whenever Machine is replaced by a new machine
	// (a restarted node).
	Incarnation() uint64
	// SetDebug attaches stop conditions to Machine, now and after any
	// restore or restart.
	SetDebug(d *emu.Debug)
	// Run goes forward until the position reaches limit (0: none), a
	// condition of the attached Debug stops the machine (its reason), or
	// the run is over (end says how, and Run does nothing any more).
	Run(limit uint64) (r emu.StopReason, end string)
	// Point freezes the current position; Restore returns to one exactly.
	Point() Point
	Restore(p Point) error
	// StateHash hashes the whole run's state.
	StateHash() uint64
	// ConsoleTail is the last lines of the machine's console.
	ConsoleTail() string
}

// Point is a frozen position of a Run.
type Point interface {
	ICount() uint64
	// Machine is the debugged machine's snapshot (nil: down).
	Machine() *emu.Snapshot
	Incarnation() uint64
}

// MachineRun is a Run of one machine on its own: a bare-metal program, a
// kernel boot, a restored snapshot.
type MachineRun struct {
	m       *emu.Machine
	console *Console
	end     string
}

// NewMachineRun makes a Run of m, whose console writes to console (nil: it
// is not watched).
func NewMachineRun(m *emu.Machine, console *Console) *MachineRun {
	return &MachineRun{m: m, console: console}
}

type machinePoint struct {
	s       *emu.Snapshot
	end     string
	written uint64
	tail    []byte
}

func (p *machinePoint) ICount() uint64         { return p.s.ICount }
func (p *machinePoint) Machine() *emu.Snapshot { return p.s }
func (p *machinePoint) Incarnation() uint64    { return 0 }

// ICount implements Run.
func (r *MachineRun) ICount() uint64 { return r.m.ICount() }

// Machine implements Run.
func (r *MachineRun) Machine() *emu.Machine { return r.m }

// Incarnation implements Run: a machine on its own is never replaced.
func (r *MachineRun) Incarnation() uint64 { return 0 }

// SetDebug implements Run.
func (r *MachineRun) SetDebug(d *emu.Debug) { r.m.SetDebug(d) }

// Run implements Run.
func (r *MachineRun) Run(limit uint64) (emu.StopReason, string) {
	if r.end != "" {
		return emu.StopNone, r.end
	}
	reason := r.m.Run(limit)
	switch reason {
	case emu.StopLimit, emu.StopBreak, emu.StopWatch, emu.StopStep, emu.StopRequest:
		return reason, ""
	case emu.StopPowerOff:
		r.end = fmt.Sprintf("the guest powered off (exit code %d)", r.m.ExitCode())
	case emu.StopReset:
		r.end = "the guest asked for a reboot"
	default:
		r.end = "the machine stopped: " + reason.String()
	}
	return emu.StopNone, r.end
}

// Point implements Run.
func (r *MachineRun) Point() Point {
	p := &machinePoint{s: r.m.Snapshot(), end: r.end}
	if r.console != nil {
		p.written, p.tail = r.console.written, slices.Clone(r.console.tail)
	}
	return p
}

// Restore implements Run.
func (r *MachineRun) Restore(p Point) error {
	mp, ok := p.(*machinePoint)
	if !ok {
		return fmt.Errorf("restore: a point of another run")
	}
	if err := r.m.RestoreSnapshot(mp.s); err != nil {
		return err
	}
	r.end = mp.end
	if r.console != nil {
		r.console.written, r.console.tail = mp.written, slices.Clone(mp.tail)
	}
	return nil
}

// StateHash implements Run.
func (r *MachineRun) StateHash() uint64 { return r.m.StateHash() }

// ConsoleTail implements Run.
func (r *MachineRun) ConsoleTail() string {
	if r.console == nil {
		return ""
	}
	return string(r.console.tail)
}

// Console is a machine's console as the debugger shows it: the run goes
// over the same output again and again as the user moves back and forth,
// and each byte reaches the user once, the first time the run gets to it.
type Console struct {
	w       io.Writer
	written uint64 // bytes of output up to the current position
	shown   uint64 // bytes the user has seen
	tail    []byte
}

// consoleTail bounds Console.tail.
const consoleTail = 4096

// NewConsole returns a Console that shows new output on w.
func NewConsole(w io.Writer) *Console { return &Console{w: w} }

// Write implements io.Writer for the machine's UART or HTIF console.
func (c *Console) Write(b []byte) (int, error) {
	end := c.written + uint64(len(b))
	if end > c.shown {
		skip := uint64(0)
		if c.shown > c.written {
			skip = c.shown - c.written
		}
		if c.w != nil {
			_, _ = c.w.Write(b[skip:])
		}
		c.shown = end
	}
	c.written = end
	c.tail = append(c.tail, b...)
	if len(c.tail) > consoleTail {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-consoleTail:]...)
	}
	return len(b), nil
}

// TimelineRun is the Run of one node of a report's universe.
type TimelineRun struct{ *explorer.Timeline }

// Point implements Run.
func (t TimelineRun) Point() Point { return t.Timeline.Point() }

// Restore implements Run.
func (t TimelineRun) Restore(p Point) error {
	tp, ok := p.(*explorer.TimelinePoint)
	if !ok {
		return fmt.Errorf("restore: a point of another run")
	}
	return t.Timeline.Restore(tp)
}
