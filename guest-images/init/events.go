package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"everett/guest-images/sdk/go/everett"
)

// host is what the init needs of everett: the SDK's event and kill_next
// operations. The init uses sdkHost; tests record.
type host interface {
	// Event reports one event, a JSON object of at most everett.MaxEvent
	// bytes.
	Event(json []byte)
	// KillNext asks for the next kill fault among n services.
	KillNext(n int) (delay time.Duration, index int, ok bool)
}

// sdkHost is the host through everett's SDK: on everett, hypercalls;
// elsewhere (QEMU) events go nowhere and there are no kill faults.
type sdkHost struct{}

func (sdkHost) Event(json []byte) { everett.Event(json) }

func (sdkHost) KillNext(n int) (time.Duration, int, bool) { return everett.KillNext(n) }

// The events of the protocol (README.md).

type startEvent struct {
	Event string   `json:"event"` // "start"
	Name  string   `json:"name"`
	Pid   int      `json:"pid"`
	Argv  []string `json:"argv"`
}

type exitEvent struct {
	Event           string `json:"event"` // "exit"
	Name            string `json:"name"`
	Pid             int    `json:"pid"`
	Task            bool   `json:"task"`
	Code            *int   `json:"code,omitempty"`
	Signal          int    `json:"signal,omitempty"`
	SignalName      string `json:"signal_name,omitempty"`
	Core            *bool  `json:"core,omitempty"`
	KilledByEverett bool   `json:"killed_by_everett,omitempty"`
	Restarting      bool   `json:"restarting,omitempty"`
	Output          string `json:"output"`
	// Crash is the Go crash report the process wrote (see tail), from its
	// first line on.
	Crash string `json:"crash,omitempty"`
}

type killEvent struct {
	Event string `json:"event"` // "kill"
	Name  string `json:"name"`
	Pid   int    `json:"pid"`
}

type errorEvent struct {
	Event   string `json:"event"` // "error"
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

type deadlockEvent struct {
	Event   string         `json:"event"` // "deadlock"
	Reason  string         `json:"reason"`
	Threads []threadReport `json:"threads"`
	// Omitted counts the threads left out to keep the event within
	// threadsReportedMax threads and everett.MaxEvent bytes.
	Omitted int `json:"threads_omitted,omitempty"`
	// Goroutines are the goroutine dumps of the workload's Go programs,
	// which the init asked for with SIGQUIT once it saw the deadlock.
	Goroutines []goroutineDump `json:"goroutines,omitempty"`
}

// goroutineDump is what a Go program wrote when the init sent it SIGQUIT.
type goroutineDump struct {
	Name string `json:"name"`
	Pid  int    `json:"pid"`
	Dump string `json:"dump"`
}

// threadReport is one thread of a deadlock event.
type threadReport struct {
	Name    string   `json:"name"`
	Pid     int      `json:"pid"`
	Tid     int      `json:"tid"`
	Comm    string   `json:"comm"`
	State   string   `json:"state"`
	Wchan   string   `json:"wchan"`
	Syscall string   `json:"syscall"`
	Args    []string `json:"args,omitempty"`
	PC      string   `json:"pc,omitempty"`
	SP      string   `json:"sp,omitempty"`
}

// errorMessageBytesMax bounds an error event's message.
const errorMessageBytesMax = 1024

// encode is v as JSON without HTML escaping (the events are read by
// programs and people, never by a browser) and without a final newline.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a type the events do not use fails to encode.
		panic("everett-init: encode event: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// encodeDeadlock encodes ev within at most threadsReportedMax threads and
// everett.MaxEvent bytes: it halves the longest goroutine dump (at a line)
// while one is longer than dumpBytesMin, then leaves out threads from the
// end.
func encodeDeadlock(ev deadlockEvent) []byte {
	if n := len(ev.Threads) - threadsReportedMax; n > 0 {
		ev.Threads, ev.Omitted = ev.Threads[:threadsReportedMax], ev.Omitted+n
	}
	ev.Goroutines = slices.Clone(ev.Goroutines)
	for {
		b := encode(ev)
		if len(b) <= everett.MaxEvent {
			return b
		}
		longest := -1
		for i, g := range ev.Goroutines {
			if len(g.Dump) > dumpBytesMin && (longest < 0 || len(g.Dump) > len(ev.Goroutines[longest].Dump)) {
				longest = i
			}
		}
		switch {
		case longest >= 0:
			ev.Goroutines[longest].Dump = cutLines(ev.Goroutines[longest].Dump, len(ev.Goroutines[longest].Dump)/2)
		case len(ev.Threads) > 0:
			ev.Threads, ev.Omitted = ev.Threads[:len(ev.Threads)-1], ev.Omitted+1
		default:
			return b // cannot happen: a few short dumps fit
		}
	}
}

// encodeExit encodes ev within everett.MaxEvent bytes, cutting its crash
// report (at a line) as needed.
func encodeExit(ev exitEvent) []byte {
	for {
		b := encode(ev)
		if len(b) <= everett.MaxEvent || ev.Crash == "" {
			return b
		}
		if cut := cutLines(ev.Crash, len(ev.Crash)/2); cut != ev.Crash {
			ev.Crash = cut
		} else {
			ev.Crash = ""
		}
	}
}

// dumpBytesMin is the length under which encodeDeadlock no longer cuts a
// goroutine dump.
const dumpBytesMin = 1024

// cutLines is s cut to its lines that end within n bytes, marked "…\n" as
// cut; "" and "…\n" when no whole line fits.
func cutLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := strings.LastIndexByte(s[:n], '\n')
	return s[:i+1] + "…\n"
}

// truncate cuts s to at most n bytes (n >= 3), on a rune boundary, the
// cut marked with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
