package explorer

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"everett/devices/sdk"
)

// Failure is what an oracle found.
type Failure struct {
	// Kind is one of: assertion, unreachable, exit, signal, deadlock,
	// timeout, init, console, hang, liveness, idle.
	Kind string `json:"kind"`
	// Message says what failed (the assertion's message, the console
	// pattern, the exit code).
	Message string `json:"message"`
	Node    int    `json:"node"`
	Hart    int    `json:"hart"`
	// Line is the console line that matched, for console failures.
	Line string `json:"line,omitempty"`
	// Process is what everett's init reported, for the failures of a
	// workload (exit, signal, deadlock, init): the process, its last
	// output, and for a deadlock where each thread waits.
	Process *sdk.Event `json:"process,omitempty"`
	// Stack is where everett panicked, for KindEverettBug failures.
	Stack string `json:"stack,omitempty"`
}

// Signature identifies a failure for deduplication: the same bug found by
// two seeds has the same signature.
func (f *Failure) Signature() string {
	return f.Kind + ": " + f.Message
}

// AssertionState is what the search knows of one SDK assertion.
type AssertionState struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Hits    uint64 `json:"hits"`    // times evaluated
	True    uint64 `json:"true"`    // times the condition held
	Failed  bool   `json:"failed"`  // an always that was false, or an unreachable reached
	Reached bool   `json:"reached"` // a sometimes that held, or a reachable reached
}

// MaxAssertions bounds the distinct assertions a universe tracks; a guest
// that invents messages in a loop cannot exhaust host memory.
const MaxAssertions = 4096

// assertions is a catalog of assertion states keyed by kind and message.
type assertions struct {
	m map[string]*AssertionState
}

func (a *assertions) get(kind sdk.Kind, msg string) *AssertionState {
	if a.m == nil {
		a.m = map[string]*AssertionState{}
	}
	k := kind.String() + "\x00" + msg
	st := a.m[k]
	if st == nil {
		if len(a.m) >= MaxAssertions {
			return nil
		}
		st = &AssertionState{Kind: kind.String(), Message: msg}
		a.m[k] = st
	}
	return st
}

// list returns the states sorted by kind and message.
func (a *assertions) list() []AssertionState {
	out := make([]AssertionState, 0, len(a.m))
	for _, st := range a.m {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// merge adds b's counts to a.
func (a *assertions) merge(b []AssertionState) {
	for _, st := range b {
		var k sdk.Kind
		switch st.Kind {
		case "always":
			k = sdk.Always
		case "sometimes":
			k = sdk.Sometimes
		case "reachable":
			k = sdk.Reachable
		case "unreachable":
			k = sdk.Unreachable
		}
		d := a.get(k, st.Message)
		if d == nil {
			continue
		}
		d.Hits += st.Hits
		d.True += st.True
		d.Failed = d.Failed || st.Failed
		d.Reached = d.Reached || st.Reached
	}
}

// consolePattern is a console oracle.
type consolePattern struct {
	name string
	re   *regexp.Regexp
}

// consoleSignal is the default console pattern of a process's death by a
// signal (which needs the kernel's messages: not under quiet).
const consoleSignal = "process killed by a signal"

// defaultConsole are the patterns that mean failure for any Linux guest.
var defaultConsole = []consolePattern{
	{"kernel panic", regexp.MustCompile(`Kernel panic`)},
	{"kernel oops", regexp.MustCompile(`Oops[:\s]|Unable to handle kernel`)},
	{"kernel BUG", regexp.MustCompile(`\bBUG: |kernel BUG at`)},
	{consoleSignal, regexp.MustCompile(`unhandled signal \d+|segfault at|killed by signal|Killed process`)},
}

// Console bounds.
const (
	consoleTailBytes = 16 << 10
	consoleLineMax   = 4 << 10
)

// consoleTap is a node's console: it keeps a bounded tail, splits lines and
// runs the console oracles on each. Output is bounded: a guest that floods
// the console costs a constant amount of host memory.
type consoleTap struct {
	u     *Universe
	node  int
	tail  []byte // the last consoleTailBytes bytes
	line  []byte // the current line, at most consoleLineMax bytes
	bytes uint64 // total bytes written
	echo  io.Writer
}

func (c *consoleTap) Write(p []byte) (int, error) {
	c.bytes += uint64(len(p))
	c.u.progressAt = c.u.now()
	if c.echo != nil {
		_, _ = c.echo.Write(p)
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*consoleTailBytes {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-consoleTailBytes:]...)
	}
	for _, b := range p {
		if b == '\n' || len(c.line) >= consoleLineMax {
			c.check()
			c.line = c.line[:0]
			continue
		}
		if b != '\r' {
			c.line = append(c.line, b)
		}
	}
	return len(p), nil
}

func (c *consoleTap) check() {
	if len(c.line) == 0 {
		return
	}
	if w := c.u.watch; w != nil && w.console != nil && w.console.Match(c.line) {
		w.consoleHit = true
	}
	for _, p := range c.u.console {
		if p.re.Match(c.line) {
			c.u.fail(&Failure{Kind: "console", Message: p.name, Node: c.node, Line: string(c.line)})
			return
		}
	}
}

// Tail returns the last bytes of the console.
func (c *consoleTap) Tail() string {
	t := c.tail
	if len(t) > consoleTailBytes {
		t = t[len(t)-consoleTailBytes:]
	}
	return string(bytes.ToValidUTF8(t, []byte("?")))
}

// sink receives one node's SDK hypercalls.
type sink struct {
	u    *Universe
	node int
}

// Assert implements sdk.Sink.
func (s *sink) Assert(kind sdk.Kind, cond bool, msg string, hart int) {
	u := s.u
	u.progressAt = u.now()
	st := u.asserts.get(kind, msg)
	if st == nil {
		return
	}
	st.Hits++
	if cond {
		st.True++
	}
	switch kind {
	case sdk.Always:
		if !cond {
			st.Failed = true
			u.fail(&Failure{Kind: "assertion", Message: "always: " + msg, Node: s.node, Hart: hart})
		}
	case sdk.Unreachable:
		st.Failed = true
		u.fail(&Failure{Kind: "assertion", Message: "unreachable: " + msg, Node: s.node, Hart: hart})
	case sdk.Sometimes, sdk.Reachable:
		if cond && !st.Reached {
			st.Reached = true
			u.interesting("first hit: " + kind.String() + ": " + msg)
		}
	}
}

// Random implements sdk.Sink: guest randomness comes from the node's PRNG.
func (s *sink) Random() uint64 { return s.u.nodes[s.node].b.PRNG.Uint64() }

// SetupComplete implements sdk.Sink. When everett's init marks the
// setup point (a workload's default), the setup is complete once every
// workload node's init has called it, just before it starts the
// workload; otherwise at the first call, from any node.
func (s *sink) SetupComplete(int) {
	u := s.u
	u.nodes[s.node].ready = true
	if u.spec.initSetup {
		for i, n := range u.nodes {
			if u.spec.workload[i] != workloadNone && !n.ready {
				return
			}
		}
	}
	if !u.setupDone {
		u.setupDone = true
		u.setupAt = u.now()
		u.interesting("setup complete")
	}
}

// Progress implements sdk.Sink.
func (s *sink) Progress(uint64, int) { s.u.progressAt = s.u.now() }

// Exit implements sdk.Sink: the guest ends the universe. On a node whose
// workload everett's init runs, an exit is the end of that node's tasks:
// the universe ends when every node with tasks has ended them (the nodes
// go on running their services until then).
func (s *sink) Exit(code int, hart int) {
	u := s.u
	if code != 0 {
		u.fail(&Failure{Kind: "exit", Message: fmt.Sprintf("sdk exit code %d", code), Node: s.node, Hart: hart})
		return
	}
	if u.spec.hasWorkload() {
		u.nodes[s.node].tasksDone = true
		for i, n := range u.nodes {
			if u.spec.workload[i] == workloadTasks && !n.tasksDone {
				u.progressAt = u.now()
				return
			}
		}
		u.finished = true
		u.reason = "every workload task exited 0"
		u.stopAll()
		return
	}
	u.finish()
}

// Event implements sdk.Sink: what everett's init reports of the workload.
func (s *sink) Event(data []byte, hart int) {
	u := s.u
	e, err := sdk.ParseEvent(data)
	if err != nil {
		u.fail(&Failure{Kind: "init", Message: err.Error(), Node: s.node, Hart: hart})
		return
	}
	u.progressAt = u.now()
	if !e.Failed() {
		return
	}
	f := &Failure{Node: s.node, Hart: hart, Process: e}
	switch {
	case e.Event == sdk.EventDeadlock:
		for i := range e.Threads {
			th := &e.Threads[i]
			if pc, err := strconv.ParseUint(strings.TrimPrefix(th.PC, "0x"), 16, 64); err == nil {
				th.Symbol = u.spec.symbolizeIn(s.node, pc, th.Name)
			}
		}
		f.Kind = "deadlock"
		f.Message = deadlockWho(e) + " wait with nothing to wake them"
	case e.Event == sdk.EventError:
		f.Kind = "init"
		f.Message = e.Message
		if e.Name != "" { // the process it could not start, say
			f.Message = e.Name + ": " + e.Message
		}
	case e.GoDeadlock():
		f.Kind = "deadlock"
		f.Message = "the goroutines of " + e.Name + " wait with nothing to wake them (Go's runtime: all goroutines are asleep)"
	case e.Signal != 0:
		f.Kind = "signal"
		f.Message = fmt.Sprintf("%s killed by %s", e.Name, e.SignalLabel())
	default:
		f.Kind = "exit"
		f.Message = fmt.Sprintf("%s exited with code %d", e.Name, *e.Code)
	}
	if line := e.CrashLine(); line != "" && f.Kind != "deadlock" {
		f.Message += ": " + line
	}
	u.fail(f)
}

// deadlockWho names the processes of a deadlock's threads, in order of
// first appearance: "the threads of bank", "the threads of a, b".
func deadlockWho(e *sdk.Event) string {
	var names []string
	for _, t := range e.Threads {
		if !slices.Contains(names, t.Name) {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return "the workload's threads"
	}
	return "the threads of " + strings.Join(names, ", ")
}

// KillNext implements sdk.Sink: the next kill fault of the node's
// services, drawn from the fault stream while the plan has kills left
// and the chaos phase lasts.
func (s *sink) KillNext(n int, _ int) uint64 {
	u := s.u
	if u.inBootStep() {
		// The unperturbed boot to the setup point: the root universes
		// forked from it draw the kills from their own seeds, so the
		// init asks again in 10 ms, past the setup point.
		return 10_000<<8 | 0xff
	}
	now := u.now()
	end := u.chaosEnd()
	if u.kills >= u.plan.Kills || now+1000 >= end || u.liveStart != 0 {
		return 0
	}
	r := u.fltRNG
	delayUs := 1 + r.Uint64()%((end-now)/1000)
	index := r.Uint64() % uint64(n)
	u.kills++
	if !u.candidate("kill", fmt.Sprintf("node %d: service %d killed %dus from now", s.node, index, delayUs)) {
		return 0
	}
	return delayUs<<8 | index
}
