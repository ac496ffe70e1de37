package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Event kinds of everett's init (guest-images/init/README.md).
const (
	EventStart    = "start"    // a process (re)started
	EventExit     = "exit"     // a process ended: an exit code or a signal
	EventDeadlock = "deadlock" // every thread of the workload waits for good
	EventError    = "error"    // the init could not do what its config asks
	EventKill     = "kill"     // a kill fault was carried out
)

// MaxEventThreads bounds the threads an event lists.
const MaxEventThreads = 64

// ErrBadEvent is wrapped by the errors of events that cannot be parsed.
var ErrBadEvent = errors.New("bad init event")

// Event is one report of everett's init. Which fields are set depends on
// Event: an exit has Code or Signal, a deadlock Reason and Threads, an
// error Message.
type Event struct {
	Event string   `json:"event"`
	Name  string   `json:"name,omitempty"` // the process's name in the workload
	PID   int      `json:"pid,omitempty"`
	Argv  []string `json:"argv,omitempty"`
	// Task: the run waits for the process (restart: no); else a service.
	Task bool `json:"task,omitempty"`
	// Code is the exit code of a process that exited (nil: a signal).
	Code       *int   `json:"code,omitempty"`
	Signal     int    `json:"signal,omitempty"`
	SignalName string `json:"signal_name,omitempty"`
	Core       bool   `json:"core,omitempty"`
	// KilledByEverett: the signal was a kill fault of the explorer's.
	KilledByEverett bool `json:"killed_by_everett,omitempty"`
	// Restarting: the process's restart policy starts it again.
	Restarting bool `json:"restarting,omitempty"`
	// Output is the last lines the process wrote to stdout and stderr.
	Output string `json:"output,omitempty"`
	// Crash is the Go crash report of a process that exited (its panic or
	// fatal error and the goroutines' stacks), from its first line on: the
	// init keeps it apart from Output, whose last lines would lose it.
	Crash   string   `json:"crash,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Message string   `json:"message,omitempty"`
	Threads []Thread `json:"threads,omitempty"`
	// Goroutines are a deadlock's goroutine dumps: what each Go program of
	// the workload wrote when the init sent it SIGQUIT.
	Goroutines []GoroutineDump `json:"goroutines,omitempty"`
}

// GoroutineDump is the stack of every goroutine of one Go program, as
// Go's runtime writes it on SIGQUIT.
type GoroutineDump struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	Dump string `json:"dump"`
}

// goDeadlock is the fatal error of Go's runtime when no goroutine can
// run again (runtime.checkdead).
const goDeadlock = "fatal error: all goroutines are asleep - deadlock!"

// GoDeadlock reports whether the event is the exit of a Go program whose
// runtime found every goroutine asleep.
func (e *Event) GoDeadlock() bool {
	return e.Event == EventExit && strings.HasPrefix(e.Crash, goDeadlock)
}

// CrashLine is the first line of the Go crash report ("panic: ...",
// "fatal error: ..."), "" when there is none, with hexadecimal numbers of
// eight digits or more (addresses, which differ between universes) written
// "0x…" so that one bug found twice reads the same.
func (e *Event) CrashLine() string {
	line, _, _ := strings.Cut(e.Crash, "\n")
	return longHex.ReplaceAllString(line, "0x…")
}

var longHex = regexp.MustCompile(`0x[0-9a-fA-F]{8,}`)

// Thread is where one thread of the workload waits, as the init read it
// from /proc/PID/task/TID.
type Thread struct {
	Name    string   `json:"name,omitempty"` // the process's name in the workload
	PID     int      `json:"pid"`
	TID     int      `json:"tid"`
	Comm    string   `json:"comm,omitempty"`
	State   string   `json:"state,omitempty"`
	WChan   string   `json:"wchan,omitempty"`   // the kernel function it sleeps in
	Syscall string   `json:"syscall,omitempty"` // the system call it waits in
	Args    []string `json:"args,omitempty"`
	PC      string   `json:"pc,omitempty"` // user pc (hex), where the call was made
	SP      string   `json:"sp,omitempty"`
	// Symbol names PC (function+offset); the host fills it in from the
	// program's symbols.
	Symbol string `json:"symbol,omitempty"`
}

// String is one line: "worker (tid 43 of bank, pid 42): futex in futex_wait_queue at pc 0x1234".
func (t Thread) String() string {
	var b strings.Builder
	comm := t.Comm
	if comm == "" {
		comm = t.Name
	}
	fmt.Fprintf(&b, "%s (tid %d of %s, pid %d): state %s", comm, t.TID, t.Name, t.PID, t.State)
	if t.Syscall != "" {
		fmt.Fprintf(&b, ", in %s", t.Syscall)
	}
	if t.WChan != "" && t.WChan != "0" {
		fmt.Fprintf(&b, ", kernel wait %s", t.WChan)
	}
	if t.PC != "" {
		fmt.Fprintf(&b, ", user pc %s", t.PC)
		if t.Symbol != "" {
			fmt.Fprintf(&b, " <%s>", t.Symbol)
		}
	}
	return b.String()
}

// ParseEvent parses an event. Unknown fields are ignored (a newer init);
// an unknown kind, or an exit with neither a code nor a signal, is an
// error.
func ParseEvent(data []byte) (*Event, error) {
	var e Event
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadEvent, err)
	}
	switch e.Event {
	case EventStart, EventDeadlock, EventError, EventKill:
	case EventExit:
		if e.Code == nil && e.Signal == 0 {
			return nil, fmt.Errorf("%w: exit of %q with neither a code nor a signal", ErrBadEvent, e.Name)
		}
	default:
		return nil, fmt.Errorf("%w: unknown event %q", ErrBadEvent, e.Event)
	}
	if len(e.Threads) > MaxEventThreads {
		e.Threads = e.Threads[:MaxEventThreads]
	}
	return &e, nil
}

// Failed reports whether the event is a failure of the workload: a
// process that exited non-zero or died of a signal (unless the explorer
// killed it, or its restart policy starts it again after a non-zero
// exit), a deadlock, or an error of the init. A death by a signal the
// explorer did not send is a failure even when the process restarts: a
// crash is a bug whatever the policy does next.
func (e *Event) Failed() bool {
	switch e.Event {
	case EventDeadlock, EventError:
		return true
	case EventExit:
		if e.Signal != 0 {
			return !e.KilledByEverett
		}
		return *e.Code != 0 && !e.Restarting
	}
	return false
}

// SignalLabel names the signal ("SIGSEGV", or "signal 11").
func (e *Event) SignalLabel() string {
	if e.SignalName != "" {
		return e.SignalName
	}
	return fmt.Sprintf("signal %d", e.Signal)
}

// Summary is one line saying what happened.
func (e *Event) Summary() string {
	who := e.Name
	if e.PID != 0 {
		who = fmt.Sprintf("%s (pid %d)", e.Name, e.PID)
	}
	switch e.Event {
	case EventStart:
		return fmt.Sprintf("%s started", who)
	case EventExit:
		var s string
		if e.Signal != 0 {
			s = fmt.Sprintf("%s was killed by %s", who, e.SignalLabel())
			if e.Core {
				s += " (core dumped)"
			}
			if e.KilledByEverett {
				s += ", a kill fault"
			}
		} else {
			s = fmt.Sprintf("%s exited with code %d", who, *e.Code)
		}
		if e.Restarting {
			s += "; restarting"
		}
		return s
	case EventDeadlock:
		s := fmt.Sprintf("deadlock: %d threads blocked", len(e.Threads))
		if e.Reason != "" {
			s += " (" + e.Reason + ")"
		}
		return s
	case EventError:
		if e.Name != "" {
			return fmt.Sprintf("error: %s: %s", e.Name, e.Message)
		}
		return "error: " + e.Message
	case EventKill:
		return fmt.Sprintf("killed %s (a kill fault)", who)
	}
	return e.Event
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  | ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
