package litmus

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"everett/emu"
	"everett/internal/pool"
)

// Models the runner knows by name.
const (
	ModelSC    = "sc"
	ModelRVWMO = "rvwmo"
)

// ErrModel says a memory model is unknown or not available in this build.
var ErrModel = errors.New("memory model")

// DefaultRuns is how many runs a test gets unless told otherwise.
const DefaultRuns = 100000

// runInsnsMax bounds one run: a test that has not finished by then (an
// endless loop, a trap to mtvec 0) is an error.
const runInsnsMax = 200000

// Options configure Run.
type Options struct {
	// Model is the memory model: "sc" (the default) or another name that
	// SetModel accepts.
	Model string
	// SetModel puts a machine under a memory model other than sc. It is
	// called once per machine, after the program is loaded and before the
	// snapshot every run starts from, so the model's state must be part of
	// emu snapshots. nil: EmuModel, emu's own models.
	SetModel func(m *emu.Machine, model string) error
	Runs     int    // runs per test (0: DefaultRuns)
	Seed     uint64 // root seed; run i uses runSeed(Seed, i)
	Jobs     int    // host goroutines (0: GOMAXPROCS); results do not depend on it
	// Engine runs the harts (the zero value is emu's default for the host).
	Engine emu.Engine
	// SetEngine is true when Engine was chosen (the zero Engine is valid).
	SetEngine bool
}

// CheckModel reports whether opt's model can run: ErrModel otherwise.
func (opt *Options) CheckModel() error {
	switch {
	case opt.Model == "" || opt.Model == ModelSC:
		return nil
	case opt.SetModel == nil && opt.Model == ModelRVWMO:
		return nil // EmuModel
	case opt.SetModel == nil:
		return fmt.Errorf("%w %q: unknown (want sc or rvwmo)", ErrModel, opt.Model)
	}
	return nil
}

// EmuModel puts m under emu's memory model of that name (emu.ParseMemoryModel):
// the SetModel of Options that name none. Under rvwmo it lets harts wait
// at fences (emu's SetFenceWaits), which the three-thread shapes of the
// suite need to show, and link loads of the same bytes (emu's
// SetLinkedLoads: a litmus machine has no device writing RAM), which its
// RSW shapes need.
func EmuModel(m *emu.Machine, model string) error {
	mm, err := emu.ParseMemoryModel(model)
	if err != nil {
		return err
	}
	if err := m.SetMemoryModel(mm); err != nil {
		return err
	}
	m.SetFenceWaits(true)
	m.SetLinkedLoads(true)
	return nil
}

func (opt *Options) model() string {
	if opt.Model == "" {
		return ModelSC
	}
	return opt.Model
}

// Run runs test t opt.Runs times and returns what it saw. Run i is a
// function of t and runSeed(opt.Seed, i): its schedule and thread delays
// are drawn from that seed (drawPlan), and the machine starts from the same
// snapshot every time. The histogram is the same whatever opt.Jobs is.
func Run(t *Test, opt Options) (*Result, error) {
	if err := opt.CheckModel(); err != nil {
		return nil, err
	}
	prog, err := layoutFor(t, opt.model())
	if err != nil {
		return nil, err
	}
	runs := opt.Runs
	if runs <= 0 {
		runs = DefaultRuns
	}
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, max(runs/256, 1))
	obs := observed(t)
	// Part j runs runs j·runs/jobs up to (j+1)·runs/jobs on a machine of
	// its own; parts come back in run order.
	// at[j] is the run part j is at: the one to blame if it panics.
	at := make([]int, jobs)
	parts := pool.Map(context.Background(), jobs, jobs, func(_ context.Context, j int) (map[string]int, error) {
		return runPart(t, prog, obs, &opt, runs*j/jobs, runs*(j+1)/jobs, &at[j])
	})
	res := &Result{Test: t, Model: opt.model(), Runs: runs, Seed: opt.Seed, Locs: obs}
	hist := map[string]int{}
	for j, p := range parts {
		if p.Err != nil {
			var pe *pool.PanicError
			if errors.As(p.Err, &pe) {
				return nil, &RunError{File: t.File, Run: at[j], Seed: runSeed(opt.Seed, at[j]), Err: fmt.Errorf("a bug in everett: %w", p.Err)}
			}
			return nil, p.Err // parts are in run order: the first failing run's error
		}
		for k, n := range p.Value {
			hist[k] += n // a sum: the order of iteration does not matter
		}
	}
	for k, n := range hist {
		vals := make([]uint64, len(obs))
		for i := range vals {
			vals[i] = binary.LittleEndian.Uint64([]byte(k[8*i:]))
		}
		res.States = append(res.States, State{Values: vals, Count: n})
	}
	res.finish(prog)
	return res, nil
}

// runPart runs runs lo..hi-1 on a machine of its own and returns their
// histogram, or the error of the first run that failed. It keeps *at at
// the run it is at.
func runPart(t *Test, prog *Program, obs []Loc, opt *Options, lo, hi int, at *int) (map[string]int, error) {
	*at = lo
	w, err := newWorker(prog, obs, opt)
	if err != nil {
		return nil, err
	}
	hist := map[string]int{}
	for i := lo; i < hi; i++ {
		*at = i
		key, err := w.run(runSeed(opt.Seed, i))
		if err != nil {
			re := &RunError{File: t.File, Run: i, Seed: runSeed(opt.Seed, i), Err: err}
			if le, ok := err.(*lineError); ok {
				re.Line, re.Err = le.line, le.err
			}
			return nil, re
		}
		hist[key]++
	}
	return hist, nil
}

// observed lists the locations a state records: the locations list, then
// every location the condition names, then those only the filter names,
// each once, in order of mention.
func observed(t *Test) []Loc {
	var out []Loc
	add := func(l Loc) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, l := range t.Locs {
		add(l)
	}
	t.Cond.walk(func(a *Atom) { add(a.Loc) })
	t.Filter.walk(func(a *Atom) { add(a.Loc) })
	return out
}

// worker owns one machine and runs tests on it, one run after another.
type worker struct {
	p    *Program
	obs  []Loc
	m    *emu.Machine
	snap *emu.Snapshot
	key  []byte
	buf  [8]byte
	weak bool // a model other than sc: runs may keep a thread behind
}

func newWorker(p *Program, obs []Loc, opt *Options) (*worker, error) {
	t := p.Test
	m, err := emu.New(emu.Config{RAMBase: RAMBase, RAMBytes: p.RAMBytes, Harts: len(t.Threads), Quantum: 1})
	if err != nil {
		return nil, fmt.Errorf("%s: build the machine: %w", t.Name, err)
	}
	if opt.SetEngine {
		if err := m.SetEngine(opt.Engine); err != nil {
			return nil, err
		}
	}
	if err := m.WritePhys(RAMBase, p.image()); err != nil {
		return nil, fmt.Errorf("%s: load the program: %w", t.Name, err)
	}
	for _, r := range t.Regs {
		m.Hart(r.Thread).SetX(r.Reg, p.regValue(r))
	}
	if opt.model() != ModelSC {
		set := opt.SetModel
		if set == nil {
			set = EmuModel
		}
		if err := set(m, opt.model()); err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrModel, opt.model(), err)
		}
	}
	return &worker{p: p, obs: obs, m: m, snap: m.Snapshot(), key: make([]byte, 8*len(obs)), weak: opt.model() != ModelSC}, nil
}

// run performs one run from the snapshot under the plan seed draws, and
// returns the final state as a histogram key: 8 bytes per observed
// location, little-endian.
func (w *worker) run(seed uint64) (string, error) {
	m, p := w.m, w.p
	if err := m.RestoreSnapshot(w.snap); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	pl := drawPlan(seed, len(p.Threads), p.CodeInsns, p.LRSC, w.weak)
	if err := m.SetSchedule(pl.sched); err != nil {
		return "", fmt.Errorf("schedule: %w", err)
	}
	if pl.lag >= 0 {
		m.LagHart(pl.lag)
	}
	for i, th := range p.Threads {
		m.Hart(i).SetPC(th.Entry - 4*uint64(pl.delay[i]))
	}
	if r := m.Run(m.ICount() + runInsnsMax); r != emu.StopIdle {
		return "", w.unfinished(r)
	}
	for i, l := range w.obs {
		binary.LittleEndian.PutUint64(w.key[8*i:], w.value(l))
	}
	return string(w.key), nil
}

// value reads a location's final value, zero- or sign-extended as its type
// says.
func (w *worker) value(l Loc) uint64 {
	if l.Thread >= 0 {
		return extend(w.m.Hart(l.Thread).X(l.Reg), w.p.Test.regTypeOf(l.Thread, l.Reg))
	}
	v := w.p.Test.Var(l.Var)
	b := w.buf[:v.Type.Bytes]
	clear(w.buf[:])
	if err := w.m.ReadPhys(w.p.addrOf(l.Var), b); err != nil {
		panic(fmt.Sprintf("litmus: read %s: %v", l.Var, err)) // the layout put it in RAM
	}
	return extend(binary.LittleEndian.Uint64(w.buf[:]), v.Type)
}

// extend truncates v to t's width and extends it by t's signedness.
func extend(v uint64, t Type) uint64 {
	if t.Bytes >= 8 {
		return v
	}
	s := uint(64 - 8*t.Bytes)
	if t.Signed {
		return uint64(int64(v<<s) >> s)
	}
	return v << s >> s
}

// unfinished explains a run that did not end with every hart waiting,
// naming the line of the instruction a thread stopped at when it is in
// the thread's column.
func (w *worker) unfinished(r emu.StopReason) error {
	for i := range w.p.Threads {
		th := &w.p.Threads[i]
		h := w.m.Hart(i)
		if h.Waiting() {
			continue
		}
		pc := h.PC()
		end := th.Base + 4*uint64(len(th.Words))
		if pc < th.Base || pc >= end {
			return fmt.Errorf("thread P%d left its code (pc %#x; a trap goes to mtvec 0): %v", i, pc, r)
		}
		err := fmt.Errorf("thread P%d did not finish within %d instructions (pc %#x): %v", i, runInsnsMax, pc, r)
		if line := th.lineAt(pc); line > 0 {
			return &lineError{line, err}
		}
		return err
	}
	return fmt.Errorf("the run stopped: %v", r)
}

// lineError is an error of a run that a line of the file is to blame for.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }

// RunError is a run that could not finish: its message names the file,
// the line when one is to blame, the run and the run's seed
// ("mp.litmus:7: run 3 (seed 0x...): ...").
type RunError struct {
	File string
	Line int // 0: no line is to blame
	Run  int
	Seed uint64
	Err  error
}

func (e *RunError) Error() string {
	at := e.File
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s: run %d (seed %#x): %v", at, e.Run, e.Seed, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }
