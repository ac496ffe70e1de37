package debug

import (
	"os"
	"slices"
	"strconv"
	"testing"

	"everett/debug/gdbstub"
	"everett/emu"
	"everett/emu/board"
	"everett/internal/guestbuild"
)

// smpMachine builds testdata/progs/smp (four harts: AMOs, LR/SC, barriers,
// IPIs) and returns the machine and the program's symbols.
func smpMachine(t *testing.T, quantum uint64) (*emu.Machine, *emu.ELF) {
	t.Helper()
	b, err := os.ReadFile(guestbuild.Build(t, "smp"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := emu.ParseELF(b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := board.NewBareMetal(board.BareMetal{Harts: 4, RAMBytes: 16 << 20, Quantum: quantum, Seed: 1}, prog)
	if err != nil {
		t.Fatal(err)
	}
	return m, prog
}

func symbol(t *testing.T, prog *emu.ELF, name string) uint64 {
	t.Helper()
	a, ok := prog.Symbol(name)
	if !ok {
		t.Fatalf("no symbol %s", name)
	}
	return a
}

func newSession(t *testing.T, m *emu.Machine, every uint64) *Session {
	t.Helper()
	s, err := NewSession(NewMachineRun(m, nil), Options{Every: every})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func resume(t *testing.T, s *Session, r gdbstub.Resume) gdbstub.Stop {
	t.Helper()
	st, err := s.Resume(r)
	if err != nil {
		t.Fatalf("%+v: %v", r, err)
	}
	return st
}

// toEnd continues until the run ends.
func toEnd(t *testing.T, s *Session) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if st := resume(t, s, gdbstub.Resume{Thread: 1}); st.Kind == gdbstub.StopHistoryEnd {
			return
		}
	}
	t.Fatal("the run did not end")
}

func TestSteppingBackNInstructionsAndForwardNAgainGivesTheSameStateHash(t *testing.T) {
	for _, tid := range []int{1, 3} {
		m, prog := smpMachine(t, 97)
		s := newSession(t, m, 5000) // small spacing: grid and fine points both used
		// Somewhere in the middle: the barrier, reached by hart tid-1.
		if err := s.Breakpoint(gdbstub.BreakSW, symbol(t, prog, "barrier"), 4, true); err != nil {
			t.Fatal(err)
		}
		for {
			st := resume(t, s, gdbstub.Resume{Thread: 1})
			if st.Kind != gdbstub.StopBreak {
				t.Fatalf("stop %+v at icount %d before hart %d reached the barrier", st, s.ICount(), tid-1)
			}
			if st.Thread == tid {
				break
			}
		}
		if err := s.Breakpoint(gdbstub.BreakSW, symbol(t, prog, "barrier"), 4, false); err != nil {
			t.Fatal(err)
		}
		// A position a step leaves the machine at.
		resume(t, s, gdbstub.Resume{Step: true, Thread: tid})
		hash, pos := s.StateHash(), s.ICount()
		const n = 300
		var back []uint64
		for i := 0; i < n; i++ {
			st := resume(t, s, gdbstub.Resume{Step: true, Reverse: true, Thread: tid})
			if st.Kind != gdbstub.StopStep {
				t.Fatalf("reverse step %d: stop %+v", i, st)
			}
			back = append(back, s.ICount())
		}
		if !slices.IsSortedFunc(back, func(a, b uint64) int { return int(b) - int(a) }) || back[n-1] >= pos {
			t.Fatalf("thread %d: reverse steps did not go back: %v... from %d", tid, back[:5], pos)
		}
		for i := 0; i < n; i++ {
			resume(t, s, gdbstub.Resume{Step: true, Thread: tid})
			if i < n-1 && s.ICount() != back[n-2-i] {
				t.Fatalf("thread %d: forward step %d is at %d, the reverse steps passed %d", tid, i, s.ICount(), back[n-2-i])
			}
		}
		if s.ICount() != pos || s.StateHash() != hash {
			t.Fatalf("thread %d: %d steps back and forward: icount %d hash %016x, want %d %016x", tid, n, s.ICount(), s.StateHash(), pos, hash)
		}
	}
}

// forwardWrites runs a fresh machine to its end with a write watchpoint and
// returns the slots of the stores it saw.
func forwardWrites(t *testing.T, addr uint64) []uint64 {
	t.Helper()
	m, _ := smpMachine(t, 97)
	d := emu.NewDebug()
	if err := d.SetWatchpoints([]emu.Watchpoint{{Addr: addr, Len: 8, Kind: emu.WatchStore}}); err != nil {
		t.Fatal(err)
	}
	m.SetDebug(d)
	var slots []uint64
	for {
		r := m.Run(0)
		hits, _ := d.Hits()
		for _, h := range hits {
			slots = append(slots, h.Slot)
		}
		if r != emu.StopWatch {
			return slots
		}
	}
}

func TestReverseContinueFindsEveryWriteOfAWatchedAddressThatAForwardRunSees(t *testing.T) {
	for _, e := range []emu.Engine{emu.EngineInterp, emu.EngineJIT} {
		t.Run(e.String(), func(t *testing.T) { reverseContinueFindsEveryWrite(t, e) })
	}
}

// reverseContinueFindsEveryWrite checks, under engine e (watchpoints alone
// keep the JIT), the writes continue and reverse-continue stop at against
// those an interpreted forward run sees.
func reverseContinueFindsEveryWrite(t *testing.T, e emu.Engine) {
	m, prog := smpMachine(t, 97)
	if err := m.SetEngine(e); err != nil {
		if emu.JITSupported() {
			t.Fatal(err) // the JIT is there: the engine must take
		}
		t.Skip(err)
	}
	addr := symbol(t, prog, "maxv")
	want := forwardWrites(t, addr)
	if len(want) < 4 {
		t.Fatalf("a forward run saw %d writes of maxv, want one per hart at least", len(want))
	}
	s := newSession(t, m, 20000)
	if err := s.Breakpoint(gdbstub.WatchWrite, addr, 8, true); err != nil {
		t.Fatal(err)
	}
	// Forward: each write, right before it; then, as gdb does, step the
	// hart over it with the watchpoint lifted.
	watchOff := func(on bool) {
		if err := s.Breakpoint(gdbstub.WatchWrite, addr, 8, on); err != nil {
			t.Fatal(err)
		}
	}
	var fwd []uint64
	for {
		st := resume(t, s, gdbstub.Resume{Thread: 1})
		if st.Kind == gdbstub.StopHistoryEnd {
			break
		}
		if st.Kind != gdbstub.StopWatch || st.Addr != addr {
			t.Fatalf("forward stop %+v, want a write of %#x", st, addr)
		}
		fwd = append(fwd, s.ICount())
		watchOff(false)
		resume(t, s, gdbstub.Resume{Step: true, Thread: st.Thread})
		watchOff(true)
	}
	if !slices.Equal(fwd, want) {
		t.Fatalf("continue stopped before slots %v, a forward run wrote in %v", fwd, want)
	}
	// Backward from the end: each write, right after it, last first; gdb
	// steps back over it.
	var rev []uint64
	for {
		st := resume(t, s, gdbstub.Resume{Reverse: true, Thread: 1})
		if st.Kind == gdbstub.StopHistoryBegin {
			break
		}
		if st.Kind != gdbstub.StopWatch {
			t.Fatalf("reverse stop %+v", st)
		}
		rev = append(rev, s.ICount()-1)
		var after, before [8]byte
		if _, err := s.ReadMem(1, addr, after[:]); err != nil {
			t.Fatal(err)
		}
		watchOff(false)
		resume(t, s, gdbstub.Resume{Step: true, Reverse: true, Thread: st.Thread})
		watchOff(true)
		if _, err := s.ReadMem(1, addr, before[:]); err != nil {
			t.Fatal(err)
		}
		if s.ICount() > rev[len(rev)-1] {
			t.Fatalf("reverse-stepi over the write at slot %d went to %d", rev[len(rev)-1], s.ICount())
		}
		_ = before
	}
	slices.Reverse(rev)
	if !slices.Equal(rev, want) {
		t.Fatalf("reverse-continue stopped before slots %v, a forward run wrote in %v", rev, want)
	}
	if e == emu.EngineJIT && m.JITStats().Insns == 0 {
		t.Fatal("no instruction ran as host code: the test did not try the JIT with watchpoints")
	}
	if s.ICount() != 0 {
		t.Fatalf("history begins at %d, want 0", s.ICount())
	}
}

func TestReverseContinueStopsAtEachBreakpointHitOfEveryHartInReverseOrder(t *testing.T) {
	m, prog := smpMachine(t, 97)
	s := newSession(t, m, 30000)
	bp := symbol(t, prog, "barrier")
	if err := s.Breakpoint(gdbstub.BreakSW, bp, 4, true); err != nil {
		t.Fatal(err)
	}
	type hit struct {
		icount uint64
		tid    int
	}
	var fwd []hit
	harts := map[int]bool{}
	for {
		st := resume(t, s, gdbstub.Resume{Thread: 1})
		if st.Kind == gdbstub.StopHistoryEnd {
			break
		}
		if st.Kind != gdbstub.StopBreak {
			t.Fatalf("stop %+v", st)
		}
		if pc, _ := s.ReadReg(st.Thread, gdbstub.Reg{Kind: gdbstub.RegPC}); pc != bp {
			t.Fatalf("thread %d stopped at %#x, want the breakpoint %#x", st.Thread, pc, bp)
		}
		fwd = append(fwd, hit{s.ICount(), st.Thread})
		harts[st.Thread] = true
	}
	if len(harts) != 4 || len(fwd) != 8 {
		t.Fatalf("breakpoint hits %v: want two per hart, on all four", fwd)
	}
	var rev []hit
	for {
		st := resume(t, s, gdbstub.Resume{Reverse: true, Thread: 1})
		if st.Kind == gdbstub.StopHistoryBegin {
			break
		}
		if pc, _ := s.ReadReg(st.Thread, gdbstub.Reg{Kind: gdbstub.RegPC}); st.Kind != gdbstub.StopBreak || pc != bp {
			t.Fatalf("reverse stop %+v at pc %#x", st, pc)
		}
		rev = append(rev, hit{s.ICount(), st.Thread})
	}
	slices.Reverse(rev)
	if !slices.Equal(rev, fwd) {
		t.Fatalf("reverse-continue hits %v, continue hit %v", rev, fwd)
	}
}

func TestGotoReachesTheSameStateForwardAndBackward(t *testing.T) {
	m, _ := smpMachine(t, 97)
	s := newSession(t, m, 10000)
	toEnd(t, s)
	end := s.ICount()
	target := end / 3
	if _, err := s.Monitor("goto " + itoa(target)); err != nil {
		t.Fatal(err)
	}
	back := s.StateHash()
	// A fresh machine run straight to the target.
	m2, _ := smpMachine(t, 97)
	m2.Run(target)
	if s.ICount() != target || back != m2.StateHash() {
		t.Fatalf("goto %d backward: icount %d hash %016x; a straight run: %016x", target, s.ICount(), back, m2.StateHash())
	}
	out, err := s.Monitor("icount")
	if err != nil || out != "icount="+itoa(target)+"\n" {
		t.Fatalf("monitor icount: %q %v", out, err)
	}
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func TestTheDebuggersStopsDoNotChangeTheRun(t *testing.T) {
	plain, prog := smpMachine(t, 97)
	plain.Run(0)
	m, _ := smpMachine(t, 97)
	d := emu.NewDebug()
	d.SetBreakpoints([]uint64{symbol(t, prog, "barrier"), symbol(t, prog, "barrier") + 8})
	if err := d.SetWatchpoints([]emu.Watchpoint{
		{Addr: symbol(t, prog, "lrsc_count"), Len: 8, Kind: emu.WatchLoad | emu.WatchStore},
		{Addr: symbol(t, prog, "acks"), Len: 32, Kind: emu.WatchStore},
	}); err != nil {
		t.Fatal(err)
	}
	m.SetDebug(d)
	stops := map[emu.StopReason]int{}
	for i := 0; ; i++ {
		if i%7 == 3 {
			d.StepHart(i%4, m.Hart(i%4).Steps()+uint64(i%5)+1)
		}
		r := m.Run(0)
		d.Hits()
		if !r.Debugger() {
			break
		}
		stops[r]++
	}
	if stops[emu.StopBreak] == 0 || stops[emu.StopWatch] == 0 || stops[emu.StopStep] == 0 {
		t.Fatalf("stops %v: want breakpoints, watchpoints and steps", stops)
	}
	if m.ICount() != plain.ICount() || m.StateHash() != plain.StateHash() {
		t.Fatalf("with %v stops: icount %d hash %016x; without: %d %016x", stops, m.ICount(), m.StateHash(), plain.ICount(), plain.StateHash())
	}
}

func TestCtrlCStopsAContinueThatWouldNotStop(t *testing.T) {
	m, _ := smpMachine(t, 97)
	s := newSession(t, m, 1000)
	s.Interrupt() // before Resume: kept for it
	if st := resume(t, s, gdbstub.Resume{Thread: 2}); st.Kind != gdbstub.StopInterrupt || st.Thread != 2 {
		t.Fatalf("stop %+v, want an interrupt of thread 2", st)
	}
	if st := resume(t, s, gdbstub.Resume{Thread: 1}); st.Kind != gdbstub.StopHistoryEnd {
		t.Fatalf("after the interrupt, continue stopped with %+v; want the end", st)
	}
}

func TestMonitorSnapshotWritesANewFileAndNeverOverwritesOne(t *testing.T) {
	m, _ := smpMachine(t, 97)
	var saved []string
	s, err := NewSession(NewMachineRun(m, nil), Options{Save: func(path string, m *emu.Machine) error {
		saved = append(saved, path)
		return os.WriteFile(path, []byte("snapshot"), 0o644)
	}})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/here.evsnap"
	if out, err := s.Monitor("snapshot " + path); err != nil || len(saved) != 1 {
		t.Fatalf("monitor snapshot: %q %v", out, err)
	}
	if _, err := s.Monitor("snapshot " + path); err == nil || len(saved) != 1 {
		t.Fatal("a second monitor snapshot to the same file overwrote it")
	}
	for _, bad := range []string{"goto", "goto x", "snapshot", "nosuch", "goto 1 2"} {
		if _, err := s.Monitor(bad); err == nil {
			t.Errorf("monitor %q: no error", bad)
		}
	}
}
