package explorer

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"

	"everett/devices/sdk"
)

// Failure is what an oracle found.
type Failure struct {
	// Kind is one of: assertion, unreachable, exit, console, hang,
	// liveness, idle.
	Kind string `json:"kind"`
	// Message says what failed (the assertion's message, the console
	// pattern, the exit code).
	Message string `json:"message"`
	Node    int    `json:"node"`
	Hart    int    `json:"hart"`
	// Line is the console line that matched, for console failures.
	Line string `json:"line,omitempty"`
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

// defaultConsole are the patterns that mean failure for any Linux guest.
var defaultConsole = []consolePattern{
	{"kernel panic", regexp.MustCompile(`Kernel panic`)},
	{"kernel oops", regexp.MustCompile(`Oops[:\s]|Unable to handle kernel`)},
	{"kernel BUG", regexp.MustCompile(`\bBUG: |kernel BUG at`)},
	{"process killed by a signal", regexp.MustCompile(`unhandled signal \d+|segfault at|killed by signal|Killed process`)},
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
	echo  interface{ Write([]byte) (int, error) }
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
	if w := c.u.consoleWatch; w != nil && w.Match(c.line) {
		c.u.consoleHit = true
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

// SetupComplete implements sdk.Sink.
func (s *sink) SetupComplete(int) {
	u := s.u
	if !u.setupDone {
		u.setupDone = true
		u.setupAt = u.now()
		u.interesting("setup complete")
	}
}

// Progress implements sdk.Sink.
func (s *sink) Progress(uint64, int) { s.u.progressAt = s.u.now() }

// Exit implements sdk.Sink: the guest ends the universe.
func (s *sink) Exit(code int, hart int) {
	u := s.u
	if code != 0 {
		u.fail(&Failure{Kind: "exit", Message: fmt.Sprintf("sdk exit code %d", code), Node: s.node, Hart: hart})
		return
	}
	u.finish()
}
