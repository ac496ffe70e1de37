package sdk

import (
	"errors"
	"strings"
	"testing"
)

type fakeCaller struct {
	regs  [32]uint64
	mem   map[uint64]byte
	owned int
}

func (c *fakeCaller) OwnSpace() { c.owned++ }

func (c *fakeCaller) HartID() int            { return 1 }
func (c *fakeCaller) Reg(i int) uint64       { return c.regs[i] }
func (c *fakeCaller) SetReg(i int, v uint64) { c.regs[i] = v }
func (c *fakeCaller) ReadVirt(va uint64, b []byte) error {
	for i := range b {
		v, ok := c.mem[va+uint64(i)]
		if !ok {
			return errors.New("fault")
		}
		b[i] = v
	}
	return nil
}

type event struct {
	kind Kind
	cond bool
	msg  string
}

type recSink struct {
	events []event
	exit   int
	prog   uint64
	setup  bool
	raw    [][]byte // events
	killN  int      // the n of the last kill_next
}

func (s *recSink) Assert(k Kind, c bool, m string, _ int) {
	s.events = append(s.events, event{k, c, m})
}
func (s *recSink) Random() uint64           { return 0xfeed }
func (s *recSink) SetupComplete(int)        { s.setup = true }
func (s *recSink) Progress(v uint64, _ int) { s.prog = v }
func (s *recSink) Exit(code int, _ int)     { s.exit = code }
func (s *recSink) Event(b []byte, _ int)    { s.raw = append(s.raw, b) }
func (s *recSink) KillNext(n int, _ int) uint64 {
	s.killN = n
	return 1234<<8 | uint64(n-1)
}

func caller(msg string) *fakeCaller {
	c := &fakeCaller{mem: map[uint64]byte{}}
	for i := 0; i < len(msg); i++ {
		c.mem[0x1000+uint64(i)] = msg[i]
	}
	return c
}

func TestEachOperationReachesTheSink(t *testing.T) {
	for _, tc := range []struct {
		name string
		regs []uint64 // a0..a3
		want event
	}{
		{"always with a true condition", []uint64{OpAlways, 1, 0x1000, 5}, event{Always, true, "hello"}},
		{"always with a false condition", []uint64{OpAlways, 0, 0x1000, 5}, event{Always, false, "hello"}},
		{"sometimes", []uint64{OpSometimes, 1, 0x1000, 3}, event{Sometimes, true, "hel"}},
		{"reachable ignores a1", []uint64{OpReachable, 0, 0x1000, 5}, event{Reachable, true, "hello"}},
		{"unreachable", []uint64{OpUnreachable, 0, 0x1000, 5}, event{Unreachable, true, "hello"}},
		{"a message stops at NUL", []uint64{OpAlways, 1, 0x1000, 99}, event{Always, true, "hello"}},
		{"a bad pointer is reported, not fatal", []uint64{OpAlways, 1, 0xdead0000, 5}, event{Always, true, "<unreadable message>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := caller("hello\x00")
			copy(c.regs[10:], tc.regs)
			s := &recSink{}
			Handle(c, s)
			if len(s.events) != 1 || s.events[0] != tc.want {
				t.Fatalf("events %+v, want %+v", s.events, tc.want)
			}
			if c.regs[10] != 0 {
				t.Fatalf("a0 = %d, want 0", c.regs[10])
			}
		})
	}
}

func TestRandomProgressSetupExitAndUnknownOps(t *testing.T) {
	s := &recSink{}
	c := caller("")
	c.regs[10] = OpRandom
	Handle(c, s)
	if c.regs[10] != 0xfeed {
		t.Fatalf("random returned %#x", c.regs[10])
	}
	c.regs[10], c.regs[11] = OpProgress, 42
	Handle(c, s)
	c.regs[10] = OpSetupComplete
	Handle(c, s)
	c.regs[10], c.regs[11] = OpExit, 0xffffffff // -1 as a 32-bit code
	Handle(c, s)
	if s.prog != 42 || !s.setup || s.exit != -1 {
		t.Fatalf("sink %+v", s)
	}
	c.regs[10] = 999
	Handle(c, s)
	if int64(c.regs[10]) != -38 {
		t.Fatalf("unknown op returned %d, want -38", int64(c.regs[10]))
	}
}

func TestLogSinkIsBoundedAndReportsFailuresOnce(t *testing.T) {
	var b strings.Builder
	s := &LogSink{W: &b}
	for i := 0; i < 3*MaxAssertions; i++ {
		s.Assert(Always, false, strings.Repeat("x", i%7000), 0)
	}
	if s.Failed != 3*MaxAssertions {
		t.Fatalf("failed count %d", s.Failed)
	}
	if len(s.seen) > MaxAssertions {
		t.Fatalf("%d distinct assertions remembered, limit %d", len(s.seen), MaxAssertions)
	}
}

func TestAnEventIsReadWholeUpToItsBoundAndABadPointerDropsIt(t *testing.T) {
	js := `{"event":"exit","name":"prog","pid":7,"code":3}`
	c := caller(js)
	s := &recSink{}
	c.regs[10], c.regs[12], c.regs[13] = OpEvent, 0x1000, uint64(len(js))
	Handle(c, s)
	if len(s.raw) != 1 || string(s.raw[0]) != js || c.regs[10] != 0 {
		t.Fatalf("events %q, a0 %d", s.raw, c.regs[10])
	}
	c.regs[10], c.regs[12], c.regs[13] = OpEvent, 0xdead0000, 10
	Handle(c, s)
	if len(s.raw) != 1 {
		t.Fatalf("an unreadable event reached the sink: %q", s.raw)
	}
	c.regs[10], c.regs[12], c.regs[13] = OpEvent, 0x1000, 1<<40 // longer than memory: cut, then unreadable
	Handle(c, s)
	if len(s.raw) != 1 {
		t.Fatalf("an event past MaxEvent was read: %d events", len(s.raw))
	}
}

func TestKillNextAsksTheSinkOnlyForAPlausibleServiceCount(t *testing.T) {
	s := &recSink{}
	c := caller("")
	c.regs[10], c.regs[11] = OpKillNext, 3
	Handle(c, s)
	if s.killN != 3 || c.regs[10] != 1234<<8|2 {
		t.Fatalf("n %d, a0 %#x", s.killN, c.regs[10])
	}
	for _, n := range []uint64{0, 256, 1 << 40} {
		s.killN = -1
		c.regs[10], c.regs[11] = OpKillNext, n
		Handle(c, s)
		if s.killN != -1 || c.regs[10] != 0 {
			t.Fatalf("n=%d: the sink was asked (%d) or a0 = %#x", n, s.killN, c.regs[10])
		}
	}
}

func TestEventsParseAndSayWhetherTheyAreFailures(t *testing.T) {
	for _, tc := range []struct {
		js      string
		failed  bool
		summary string
	}{
		{`{"event":"exit","name":"a","pid":5,"task":true,"code":0}`, false, "a (pid 5) exited with code 0"},
		{`{"event":"exit","name":"a","pid":5,"task":true,"code":2}`, true, "a (pid 5) exited with code 2"},
		{`{"event":"exit","name":"s","pid":5,"code":1,"restarting":true}`, false, "s (pid 5) exited with code 1; restarting"},
		{`{"event":"exit","name":"a","pid":5,"signal":6,"signal_name":"SIGABRT","core":true}`, true, "a (pid 5) was killed by SIGABRT (core dumped)"},
		{`{"event":"exit","name":"s","pid":5,"signal":9,"signal_name":"SIGKILL","killed_by_everett":true,"restarting":true}`, false, "s (pid 5) was killed by SIGKILL, a kill fault; restarting"},
		{`{"event":"deadlock","reason":"every thread waits","threads":[{"name":"a","pid":5,"tid":6,"state":"S","syscall":"futex"}]}`, true, "deadlock: 1 threads blocked (every thread waits)"},
		{`{"event":"error","name":"a","message":"exec: no such file"}`, true, "error: a: exec: no such file"},
		{`{"event":"start","name":"a","pid":5}`, false, "a (pid 5) started"},
	} {
		e, err := ParseEvent([]byte(tc.js))
		if err != nil {
			t.Fatalf("%s: %v", tc.js, err)
		}
		if e.Failed() != tc.failed || e.Summary() != tc.summary {
			t.Errorf("%s: failed %v, summary %q; want %v, %q", tc.js, e.Failed(), e.Summary(), tc.failed, tc.summary)
		}
	}
	for _, bad := range []string{`{`, `{"event":"nope"}`, `{"event":"exit","name":"a"}`, `[]`} {
		if _, err := ParseEvent([]byte(bad)); !errors.Is(err, ErrBadEvent) {
			t.Errorf("%s: error %v, want ErrBadEvent", bad, err)
		}
	}
}

func TestAGoCrashReportsFirstLineNamesTheFailureWithoutItsAddresses(t *testing.T) {
	for _, tc := range []struct {
		crash, line string
		deadlock    bool
	}{
		{"", "", false},
		{"panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\n", "panic: assignment to entry in nil map", false},
		{"panic: bad pointer 0xc000012340 (0x1f)\n", "panic: bad pointer 0x… (0x1f)", false},
		{"fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [semacquire]:\n", "fatal error: all goroutines are asleep - deadlock!", true},
		{"fatal error: concurrent map writes\n", "fatal error: concurrent map writes", false},
	} {
		code := 2
		e := &Event{Event: EventExit, Name: "p", Code: &code, Crash: tc.crash}
		if e.CrashLine() != tc.line || e.GoDeadlock() != tc.deadlock {
			t.Errorf("crash %q: line %q, Go deadlock %v; want %q, %v", tc.crash, e.CrashLine(), e.GoDeadlock(), tc.line, tc.deadlock)
		}
	}
}
