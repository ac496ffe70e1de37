package gdbstub

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// The fake machine of the tests: a few threads running one straight-line
// program of fakeInsns instructions from fakeBase. The instruction at
// fakeStorePC adds one to the doubleword at fakeData (and running it in
// reverse takes the one away), so watchpoints have something to see.
// Continue runs to a breakpoint, a watchpoint or the end of the program;
// reverse continue back to a breakpoint, a watchpoint or the start.
const (
	fakeBase    = 0x8000_0000
	fakeInsns   = 64
	fakeEnd     = fakeBase + 4*fakeInsns
	fakeStorePC = fakeBase + 0x2c
	fakeData    = 0x8000_1000
	fakeMemSize = 0x1_0000
	fakeNop     = 0x0000_0013 // addi x0, x0, 0
)

// fakeThread is one hart's registers.
type fakeThread struct {
	x    [32]uint64
	f    [32]uint64
	pc   uint64
	priv uint64
	csr  map[int]uint64
}

// bpKey is one inserted breakpoint or watchpoint.
type bpKey struct {
	kind BreakKind
	addr uint64
}

// fakeTarget is the Target of the tests.
type fakeTarget struct {
	mu      sync.Mutex
	ids     []int
	threads map[int]*fakeThread
	mem     []byte // fakeMemSize bytes from fakeBase
	bps     map[bpKey]uint64
	stop    Stop
	resumes []Resume // every Resume gdb asked for
	script  []Stop   // if non-empty, Resume returns these in turn instead of running
	block   bool     // Resume (forward continue) waits for Interrupt
	intr    chan struct{}
}

// newFake makes a fake with n threads; thread t starts at fakeBase+16*(t-1).
func newFake(n int) *fakeTarget {
	f := &fakeTarget{
		threads: map[int]*fakeThread{},
		mem:     make([]byte, fakeMemSize),
		bps:     map[bpKey]uint64{},
		intr:    make(chan struct{}, 1),
	}
	for i := 0; i < fakeInsns; i++ {
		putLE(f.mem[4*i:], fakeNop, 4)
	}
	putLE(f.mem[fakeData-fakeBase:], 1, 8)
	for tid := 1; tid <= n; tid++ {
		th := &fakeThread{pc: fakeBase + 16*uint64(tid-1), priv: 3, csr: map[int]uint64{
			1: 0, 2: 0, 3: 0,
			0x300: 0xa_0000_0080,
			0x301: 0x8000_0000_0014_112d, // RV64IMAFDCSU
			0xf14: uint64(tid - 1),
		}}
		for i := 1; i < 32; i++ {
			th.x[i] = uint64(tid)<<8 | uint64(i)
		}
		th.x[2] = fakeBase + fakeMemSize - 0x100*uint64(tid) // sp
		th.f[1] = 0x3ff0_0000_0000_0000                      // 1.0
		if tid > 1 {
			th.priv = 1
		}
		f.ids = append(f.ids, tid)
		f.threads[tid] = th
	}
	f.stop = Stop{Kind: StopStep, Thread: 1}
	return f
}

func putLE(b []byte, v uint64, n int) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

func (f *fakeTarget) Threads() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.ids...)
}

func (f *fakeTarget) ThreadInfo(tid int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	mode := map[uint64]string{0: "U", 1: "S", 3: "M"}[f.threads[tid].priv]
	return fmt.Sprintf("hart %d, %s-mode", tid-1, mode)
}

func (f *fakeTarget) ReadReg(tid int, r Reg) (uint64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	th := f.threads[tid]
	if th == nil {
		return 0, false
	}
	switch r.Kind {
	case RegX:
		return th.x[r.N], true
	case RegPC:
		return th.pc, true
	case RegF:
		return th.f[r.N], true
	case RegCSR:
		v, ok := th.csr[r.N]
		return v, ok
	case RegPriv:
		return th.priv, true
	}
	return 0, false
}

func (f *fakeTarget) WriteReg(tid int, r Reg, v uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	th := f.threads[tid]
	if th == nil {
		return errors.New("no such thread")
	}
	switch r.Kind {
	case RegX:
		if r.N != 0 {
			th.x[r.N] = v
		}
	case RegPC:
		th.pc = v
	case RegF:
		th.f[r.N] = v
	case RegCSR:
		if _, ok := th.csr[r.N]; !ok {
			return errors.New("no such CSR")
		}
		th.csr[r.N] = v
	case RegPriv:
		th.priv = v
	}
	return nil
}

// span is the part of memory [addr, addr+n) covers, and how much of it.
func (f *fakeTarget) span(addr uint64, n int) ([]byte, error) {
	if addr < fakeBase || addr >= fakeBase+fakeMemSize {
		return nil, fmt.Errorf("address %#x not mapped", addr)
	}
	b := f.mem[addr-fakeBase:]
	if len(b) < n {
		return b, fmt.Errorf("address %#x not mapped", fakeBase+fakeMemSize)
	}
	return b[:n], nil
}

func (f *fakeTarget) ReadMem(tid int, addr uint64, b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.span(addr, len(b))
	return copy(b, m), err
}

func (f *fakeTarget) WriteMem(tid int, addr uint64, b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.span(addr, len(b))
	if err != nil {
		return err
	}
	copy(m, b)
	return nil
}

func (f *fakeTarget) Breakpoint(kind BreakKind, addr, size uint64, insert bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if kind == WatchRead {
		return fmt.Errorf("read watchpoints: %w", errors.ErrUnsupported)
	}
	k := bpKey{kind, addr}
	if insert {
		f.bps[k] = size
	} else {
		delete(f.bps, k)
	}
	return nil
}

func (f *fakeTarget) Interrupt() {
	select {
	case f.intr <- struct{}{}:
	default:
	}
}

func (f *fakeTarget) Monitor(cmd string) (string, error) {
	switch cmd {
	case "icount":
		return "icount=42\n", nil
	case "":
		return "", nil
	}
	return "", fmt.Errorf("unknown monitor command %q", cmd)
}

func (f *fakeTarget) Stopped() Stop {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stop
}

func (f *fakeTarget) Resume(r Resume) (Stop, error) {
	f.mu.Lock()
	f.resumes = append(f.resumes, r)
	block := f.block && !r.Step && !r.Reverse
	f.mu.Unlock()
	if block {
		select {
		case <-f.intr:
			return f.stopped(Stop{Kind: StopInterrupt, Thread: r.Thread}), nil
		case <-time.After(10 * time.Second):
			return Stop{}, errors.New("fake: no interrupt came")
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.script) > 0 {
		st := f.script[0]
		f.script = f.script[1:]
		f.stop = st
		return st, nil
	}
	if f.threads[r.Thread] == nil {
		return Stop{}, fmt.Errorf("fake: no thread %d", r.Thread)
	}
	// A step or a resume of one thread moves that thread; otherwise all
	// threads run in lockstep, one instruction each in turn.
	ids := f.ids
	if r.Step || r.Only {
		ids = []int{r.Thread}
	}
	for range 2 * fakeInsns {
		for _, tid := range ids {
			if st, stopped := f.execute(f.threads[tid], r); stopped {
				st.Thread = tid
				f.stop = st
				return st, nil
			}
		}
	}
	return Stop{}, errors.New("fake: the program did not end")
}

// stopped records st as the current stop.
func (f *fakeTarget) stopped(st Stop) Stop {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stop = st
	return st
}

// execute runs one instruction of th, forward or in reverse, and reports
// the stop it makes, if any. Forward, a breakpoint or watchpoint stops the
// thread before the instruction (gdb's RISC-V watchpoints are not
// steppable: gdb steps the store itself); in reverse, after it.
func (f *fakeTarget) execute(th *fakeThread, r Resume) (Stop, bool) {
	if r.Reverse {
		if th.pc <= fakeBase {
			return Stop{Kind: StopHistoryBegin}, true
		}
		th.pc -= 4
		if st, hit := f.store(th.pc, -1); hit {
			return st, true
		}
		if r.Step {
			return Stop{Kind: StopStep}, true
		}
		return f.breakAt(th.pc)
	}
	if st, hit := f.breakAt(th.pc); hit && !r.Step {
		return st, true
	}
	if th.pc >= fakeEnd {
		return Stop{Kind: StopHistoryEnd, Message: "the program ended\n"}, true
	}
	if st, hit := f.watchAt(th.pc); hit && !r.Step {
		return st, true
	}
	f.store(th.pc, +1)
	th.pc += 4
	if r.Step {
		return Stop{Kind: StopStep}, true
	}
	return Stop{}, false
}

// breakAt reports the stop of a breakpoint at pc.
func (f *fakeTarget) breakAt(pc uint64) (Stop, bool) {
	if _, ok := f.bps[bpKey{BreakSW, pc}]; ok {
		return Stop{Kind: StopBreak}, true
	}
	if _, ok := f.bps[bpKey{BreakHW, pc}]; ok {
		return Stop{Kind: StopHWBreak}, true
	}
	return Stop{}, false
}

// store does the store of the instruction at pc, if it is the one that
// stores (adding delta to the data doubleword), and reports the stop of a
// watchpoint on it.
func (f *fakeTarget) store(pc uint64, delta int) (Stop, bool) {
	if pc != fakeStorePC {
		return Stop{}, false
	}
	b := f.mem[fakeData-fakeBase:]
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	putLE(b, v+uint64(delta), 8)
	return f.watchAt(pc)
}

// watchAt reports the stop of a watchpoint on the store at pc.
func (f *fakeTarget) watchAt(pc uint64) (Stop, bool) {
	if pc != fakeStorePC {
		return Stop{}, false
	}
	for _, kind := range []BreakKind{WatchWrite, WatchAccess} {
		for k, size := range f.bps {
			if k.kind == kind && k.addr <= fakeData && fakeData < k.addr+size {
				return Stop{Kind: map[BreakKind]StopKind{WatchWrite: StopWatch, WatchAccess: StopAWatch}[kind], Addr: fakeData}, true
			}
		}
	}
	return Stop{}, false
}

// received is every Resume so far.
func (f *fakeTarget) received() []Resume {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Resume(nil), f.resumes...)
}
