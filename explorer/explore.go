package explorer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"

	"everett/emu"
	"everett/internal/buildinfo"
	"everett/internal/pool"
)

// Options bound and direct a search.
type Options struct {
	Seed uint64 // root seed
	// Universes bounds the search (0: the spec's budget; when neither
	// sets one, no bound if there is a wall-time budget, else 1000).
	Universes int
	// Wall is the wall-time budget (0: the spec's budget; 0 there: none).
	// When it is spent, the universes still running are cancelled (see
	// Result.Cancelled) and the search ends.
	Wall    time.Duration
	Workers int // 0: every host core
	// Progress, when set, receives a live progress line (a terminal).
	Progress io.Writer
	Metrics  *Metrics
	// OnFailure is called (on the search's goroutine) for every new
	// distinct failure.
	OnFailure func(r *Report)
	// ConsoleDir, when set, receives every node's console of every
	// universe as u<universe>-n<node>.log (bounded per file).
	ConsoleDir string
	// StopOnFailure ends the search at the failing universe of the lowest
	// index: every universe before it runs to its end, every one after it
	// is cancelled or, if it had already ended, not counted. The result is
	// therefore the same whatever Workers is (a wall-time budget spent
	// first aside). In a shared search (Share) it ends the worker at its
	// next claim once it or another worker has found a failure.
	StopOnFailure bool
	// MemoryLimit is the host memory the search aims to stay under, in
	// bytes (0: the spec's budgets.memory, else DefaultMemoryLimit;
	// NoMemoryLimit: none). The corpus may hold a quarter of it beyond
	// the boot snapshot (corpusmem.go): past that, the search evicts
	// entries, least recently added or picked first, to their fork
	// paths, and rebuilds one when it is picked again. It never changes a
	// result, only memory and time. (The everett command also sets Go's
	// soft memory limit to it, less what lies outside Go's heap; Explore
	// leaves the runtime alone.)
	MemoryLimit uint64
	// UniverseLog, when set, receives a line for every universe counted,
	// in the order the search takes them: its index, root seed, forks,
	// instruction count, state hash and failure signature ("-": none; the
	// rest of the line).
	// Two binaries that should run alike (a change inside the engine)
	// must write the same log for the same spec and seed.
	UniverseLog io.Writer
	// Share, when set, makes the search one of many processes' (share.go):
	// the universes to run are claimed from it, not counted from 0, and
	// what they find is published to it. Universes then bounds the whole
	// shared search, not this process's part.
	Share Share
}

// Result is what a search found.
type Result struct {
	Universes int       // universes run to their end and counted
	Failures  []*Report // distinct, by universe
	// FirstFailure is when the first of Failures (the lowest universe
	// index) was found; nil without failures.
	FirstFailure *FirstFailure
	// Cancelled counts the universes planned but not counted: stopped
	// while running or before they started when the wall-time budget was
	// spent or (StopOnFailure) a universe before them failed, and, under
	// StopOnFailure, those after the failing one that ended anyway.
	Cancelled  int
	Assertions []AssertionState
	Coverage   int // edge slots covered (kernel and user)
	// CoverageFill is the fraction of the edge map's slots in use: near 1,
	// the map no longer tells universes apart.
	CoverageFill float64
	Pairs        int // interleaving pairs (communication events' pc pairs) seen
	Corpus       int
	ICount       uint64
	// Engine ran every machine (the spec's, see Spec.SetEngine); JIT sums
	// what the JIT did over every universe's machines, the boot's too
	// (zero under the interpreter). Neither ever changes another field.
	Engine  emu.Engine
	JIT     emu.JITStats
	Elapsed time.Duration
	// Ended says which budget ended the search: "universes" (the count
	// was reached), "wall" (the wall-time budget was spent) or "failure"
	// (StopOnFailure).
	Ended string
	// Limit is that budget's value: "200", "1m0s".
	Limit string
	// Boot is the boot universe the root universes started from (see
	// BootOnce); its Snap is nil when every universe booted.
	Boot *Boot
	// Shared searches only: Pulled counts the corpus entries of other
	// workers added to this one's corpus (as placeholders), Rejected
	// those picked that did not rebuild exactly, Lost the universes of claims another worker
	// finished first (run, but not counted). Rebuilt counts the pulled
	// entries rebuilt (those picked to fork from) and ReplayedICount the
	// instructions their replays ran (work no universe counts).
	Pulled, Rejected, Lost, Rebuilt int
	ReplayedICount                  uint64
	// Memory is what the corpus held (host bookkeeping, like JIT: it
	// depends on what ran first where universes share decoded code).
	Memory CorpusMemory
}

// CorpusMemory is what a search's corpus held beyond the boot snapshot,
// and what bounding it cost.
type CorpusMemory struct {
	LimitBytes uint64 // what the corpus may hold: a quarter of the memory target (0: no bound)
	PeakBytes  uint64 // the most the corpus held, before evictions
	HeldBytes  uint64 // what it held at the end
	// Evicted counts the entries evicted to their fork paths, Rebuilt
	// those of them rebuilt when picked again.
	Evicted, Rebuilt int
}

// FirstFailure says when a search found its first failure.
type FirstFailure struct {
	Universe  int    `json:"universe"`
	Signature string `json:"signature"`
	// Seconds is the host time from the start of the search (the boot
	// included) to the end of that universe.
	Seconds float64 `json:"seconds"`
	// Instructions and VirtualTimeNs are where in its universe the failure
	// came: the report's instruction count and virtual time.
	Instructions  uint64 `json:"instructions"`
	VirtualTimeNs uint64 `json:"virtual_time_ns"`
}

// batchSize fixes how many universes are planned together. It does not
// depend on the number of workers, so that the search is the same with any
// number of them.
const batchSize = 8

// job is one universe to run.
type job struct {
	index  int
	seed   uint64
	parent *UniverseSnapshot // nil: a root universe
	boot   *UniverseSnapshot // a root universe starts here (nil: it boots)
	cancel *atomic.Bool      // true: stop it (or do not start it) and throw it away
}

// outcome is what a universe did.
type outcome struct {
	job       job
	u         *Universe
	err       error
	cancelled bool
	// bug, when set, is the failure of a universe that panicked (a bug
	// in everett); u is then nil.
	bug     *Report
	elapsed time.Duration
	ended   time.Time // when the universe ended
}

// Explore runs a search and returns what it found. Results depend only on
// the spec and the options' seed and universe count: never on the number of
// workers or on host speed. A wall-time budget cancels the universes
// running when it is spent and ends the search; the universes that ran to
// their end are each exactly what they are without a budget.
func Explore(spec *Spec, o Options) (*Result, error) {
	start := time.Now()
	n, wall, workers := searchBounds(spec, o)
	res := &Result{Engine: spec.engine}
	st := &search{spec: spec, o: o, res: res, global: newSeen(spec), seen: map[string]bool{}, start: start}
	wallCtx, wallFlag, stopWall := wallBudget(wall)
	defer stopWall()

	boot, err := st.boot(wallFlag)
	if err != nil {
		return nil, err
	}
	_, corpusLimit := memoryLimit(spec, o)
	st.mem = newCorpusMem(corpusLimit, boot.Snap)
	run := &runner{spec: spec, seed: o.Seed, global: st.global, consoleDir: o.ConsoleDir, workers: workers, wall: wallCtx}
	res.Ended, res.Limit = "universes", fmt.Sprint(n)
	wallSpent := boot.cancelled
	if o.Share != nil {
		wallSpent, err = st.shared(boot, run, wallFlag, wallSpent, n, wall)
	} else {
		wallSpent, err = st.local(boot, run, wallFlag, wallSpent, n, wall)
	}
	if err != nil {
		return nil, err
	}
	st.finish(wallSpent, wall)
	return res, nil
}

// searchBounds returns a search's budgets: the universes to run (0: no
// bound), the wall time (0: none), and the workers.
func searchBounds(spec *Spec, o Options) (n int, wall time.Duration, workers int) {
	n = o.Universes
	if n == 0 {
		n = spec.Budgets.Universes
	}
	wall = o.Wall
	if wall == 0 {
		wall = time.Duration(spec.Budgets.Wall)
	}
	if n == 0 && wall == 0 {
		n = defaultUniverses
	}
	workers = o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	return n, wall, workers
}

// wallBudget starts the wall-time budget (none when wall is 0): when it is
// spent, a timer sets the flag (the boot, which runs on the search's
// goroutine, checks it) and cancels the context (the batches run under
// it). stop ends the timer.
func wallBudget(wall time.Duration) (ctx context.Context, flag *atomic.Bool, stop func()) {
	flag = new(atomic.Bool)
	ctx, cancel := context.WithCancelCause(context.Background())
	if wall == 0 {
		return ctx, flag, func() { cancel(nil) }
	}
	timer := time.AfterFunc(wall, func() {
		flag.Store(true)
		cancel(errWallSpent)
	})
	return ctx, flag, func() {
		timer.Stop()
		cancel(nil)
	}
}

// boot boots once (root universes start from the setup snapshot), with
// the boot's consoles in the console directory, and counts the boot in
// the result: its JIT statistics, and its edges, which are no news to any
// universe.
func (st *search) boot(wallFlag *atomic.Bool) (*Boot, error) {
	var echo func(int) io.Writer
	var logs []*consoleLog
	if dir := st.o.ConsoleDir; dir != "" {
		echo = func(node int) io.Writer {
			l := newConsoleLog(dir, -1, node)
			logs = append(logs, l)
			return l
		}
	}
	boot, err := bootOnce(st.spec, echo, wallFlag)
	for _, l := range logs {
		l.Close()
	}
	if err != nil {
		return nil, err
	}
	st.res.Boot = boot
	addJIT(&st.res.JIT, boot.JIT)
	st.global.merge(boot.cov)
	return boot, nil
}

// local is the driver of a search of this process alone: it plans and
// runs batches of universes until n are counted (0: no bound), the
// wall-time budget is spent, or (StopOnFailure) a universe fails, and
// takes their outcomes in universe order. It returns whether the
// wall-time budget was spent.
func (st *search) local(boot *Boot, run *runner, wallFlag *atomic.Bool, wallSpent bool, n int, wall time.Duration) (bool, error) {
	o, res := st.o, st.res
	ctl := emu.NewPRNG(derive(o.Seed, 99))
	for base := 0; n == 0 || base < n; base += batchSize {
		if wallSpent || wallFlag.Load() {
			return true, nil
		}
		if o.StopOnFailure && len(res.Failures) > 0 {
			break
		}
		end := base + batchSize
		if n > 0 {
			end = min(end, n)
		}
		batch := planBatch(st.spec, o.Seed, base, end, ctl, st.corpus, boot.Snap)
		st.beforeBatch(batch, boot)
		outs, failAt, spent := run.batch(batch, o.StopOnFailure)
		wallSpent = wallSpent || spent
		// Merge in universe order.
		for k, r := range outs {
			if r.err != nil {
				return wallSpent, fmt.Errorf("universe %d: %w", r.job.index, r.err)
			}
			if r.cancelled || k > failAt {
				res.Cancelled++
				continue
			}
			st.take(r)
		}
		st.progress(n, wall)
	}
	return wallSpent, nil
}

// finish says which budget ended the search and completes the result.
func (st *search) finish(wallSpent bool, wall time.Duration) {
	o, res := st.o, st.res
	switch {
	case o.StopOnFailure && (len(res.Failures) > 0 || st.othersFailed):
		res.Ended, res.Limit = "failure", "the first"
	case wallSpent:
		res.Ended, res.Limit = "wall", wall.String()
	}
	if o.Progress != nil {
		fmt.Fprintln(o.Progress)
	}
	res.Assertions = st.cat.list()
	res.Elapsed = time.Since(st.start)
	m := st.mem
	m.balance(st.corpus, nil, &st.rejected, false)
	res.Memory = CorpusMemory{LimitBytes: m.limit, PeakBytes: m.peak, HeldBytes: m.held, Evicted: m.evicted, Rebuilt: m.rebuilt}
}

// beforeBatch records the corpus entries batch forks from as used, then
// bounds the corpus's memory: entries used least recently are evicted
// first, so that the batch's own are evicted last.
func (st *search) beforeBatch(batch []job, boot *Boot) {
	for _, j := range batch {
		if j.parent != nil {
			st.mem.picked(j.parent)
		}
	}
	st.mem.balance(st.corpus, boot, &st.rejected, true)
}

// search is the state of a search that its driver keeps between batches.
type search struct {
	spec   *Spec
	o      Options
	res    *Result
	global *Seen
	corpus []*UniverseSnapshot
	mem    *corpusMem // what corpus holds
	cat    assertions
	seen   map[string]bool // failure signatures found
	start  time.Time
	// othersFailed: a shared search's other workers have found a failure.
	othersFailed bool
	// rejected counts the other workers' corpus entries that did not
	// rebuild (explorer workers add to it).
	rejected atomic.Int64
	// tally counts those that did (explorer workers add to it).
	tally rebuildTally
}

// take counts a universe that ran to its end: its instructions, coverage,
// assertions and snapshots, and its failure when the signature is new, in
// which case it returns the failure's report.
func (st *search) take(r outcome) *Report {
	u, res, o := r.u, st.res, st.o
	res.Universes++
	if r.bug != nil {
		if o.UniverseLog != nil {
			fmt.Fprintf(o.UniverseLog, "%d %d %d - - panicked %s\n", r.job.index, r.job.seed, len(r.bug.Path)-1, r.bug.Signature)
		}
		return st.failed(r, r.bug)
	}
	if o.UniverseLog != nil {
		sig := "-"
		if u.failure != nil {
			sig = u.failure.Signature()
		}
		fmt.Fprintf(o.UniverseLog, "%d %d %d %d %016x %s\n", r.job.index, r.job.seed, len(u.path)-1, u.ICount(), u.StateHash(), sig)
	}
	res.ICount += u.ICount()
	addJIT(&res.JIT, u.JITStats())
	st.global.merge(u.cov)
	st.cat.merge(u.asserts.list())
	for _, s := range u.snaps {
		st.addCorpus(s)
	}
	if o.Metrics != nil {
		o.Metrics.universe(u, r.elapsed)
	}
	if u.failure == nil {
		return nil
	}
	if st.seen[u.failure.Signature()] {
		return nil
	}
	return st.failed(r, newReport(st.spec, o.Seed, r.job.index, u))
}

// failed records a failure whose signature is new and returns its report.
func (st *search) failed(r outcome, rep *Report) *Report {
	res, o := st.res, st.o
	if st.seen[rep.Signature] {
		return nil
	}
	st.seen[rep.Signature] = true
	res.Failures = append(res.Failures, rep)
	if res.FirstFailure == nil {
		res.FirstFailure = &FirstFailure{Universe: rep.Universe, Signature: rep.Signature,
			Seconds: r.ended.Sub(st.start).Seconds(), Instructions: rep.ICount, VirtualTimeNs: rep.Time}
	}
	if o.Metrics != nil {
		o.Metrics.failure()
	}
	if o.OnFailure != nil {
		o.OnFailure(rep)
	}
	return rep
}

// addCorpus adds a snapshot to the corpus, dropping the oldest beyond the
// spec's bound.
func (st *search) addCorpus(s *UniverseSnapshot) {
	st.corpus = append(st.corpus, s)
	st.mem.added(s)
	if len(st.corpus) > st.spec.Search.Corpus {
		st.mem.dropped(st.corpus[0])
		st.corpus = st.corpus[1:]
	}
}

// progress updates the result's coverage figures after a batch, the
// metrics and the progress line (n universes, or a wall-time budget).
func (st *search) progress(n int, wall time.Duration) {
	res, o, global := st.res, st.o, st.global
	res.Coverage = global.EdgesCovered()
	res.CoverageFill = global.Fill()
	res.Pairs = global.PairsCovered()
	res.Corpus = len(st.corpus)
	if o.Metrics != nil {
		o.Metrics.coverage(res.Coverage, res.CoverageFill, res.Pairs, len(st.corpus))
	}
	if o.Progress != nil {
		el := time.Since(st.start).Seconds()
		of := fmt.Sprintf("/%d", n)
		if n == 0 {
			of = " (of " + wall.String() + ")"
		}
		fmt.Fprintf(o.Progress, "\reverett explore: %d%s universes  %.0f MIPS  %d edges (%.1f%% of the map)  %d pairs  corpus %d  %d failures   ",
			res.Universes, of, float64(res.ICount)/el/1e6, res.Coverage, 100*res.CoverageFill, res.Pairs, len(st.corpus), len(res.Failures))
	}
}

// planBatch plans universes base..end-1 from the corpus as it is now: each
// a root universe of its own seed, or (search.fork_percent of them) a fork
// of a corpus snapshot, as ctl draws.
func planBatch(spec *Spec, seed uint64, base, end int, ctl *emu.PRNG, corpus []*UniverseSnapshot, boot *UniverseSnapshot) []job {
	var batch []job
	for i := base; i < end; i++ {
		j := job{index: i, seed: derive(seed, 1000+uint64(i)), boot: boot, cancel: new(atomic.Bool)}
		if i == 0 {
			j.seed = seed // universe 0 is the root seed itself
		}
		pick := ctl.Uint64()
		if len(corpus) > 0 && pick%100 < uint64(spec.Search.ForkPercent) {
			j.parent = corpus[(pick/100)%uint64(len(corpus))]
			if unbuiltPulled(j.parent) {
				j.parent = costlyPick(j.parent, ctl, corpus)
			}
		}
		batch = append(batch, j)
	}
	return batch
}

// Another worker's entry costs a replay of its path before the first
// universe forks from it, about half a universe on the one-node Linux
// spec (its snapshots fall ~8 million instructions into universes of
// ~20 million after the boot); the search's own entries cost nothing to
// fork from. With half the corpus pulled and picked uniformly, the
// rebuilds were 12% of a shared worker's instructions after the boot,
// and two processes ran at 1.61-1.65 times one where sharing only the
// claims ran at 1.77-1.95 (2026-12-05). As fuzzers spend less energy on
// slow inputs, a pick that lands on a pulled entry not yet rebuilt keeps
// it with probability 1/costlyKeep and otherwise picks again among the
// entries that cost nothing; rebuilt, it is picked like any other. A
// search of one process has no pulled entries: its plans are unchanged.
const costlyKeep = 4

// unbuiltPulled says whether s is another worker's entry not yet rebuilt.
func unbuiltPulled(s *UniverseSnapshot) bool {
	return s.lazy != nil && s.lazy.tally != nil && !s.lazy.done.Load()
}

// costlyPick keeps the unbuilt pulled entry picked, or picks again among
// the corpus's other entries, as ctl draws.
func costlyPick(picked *UniverseSnapshot, ctl *emu.PRNG, corpus []*UniverseSnapshot) *UniverseSnapshot {
	r := ctl.Uint64()
	if r%costlyKeep == 0 {
		return picked
	}
	var cheap []*UniverseSnapshot
	for _, c := range corpus {
		if !unbuiltPulled(c) {
			cheap = append(cheap, c)
		}
	}
	if len(cheap) == 0 {
		return picked
	}
	return cheap[(r/costlyKeep)%uint64(len(cheap))]
}

// errWallSpent is the cause of a search's cancellation when its wall-time
// budget is spent.
var errWallSpent = errors.New("the wall-time budget is spent")

// runner runs batches of universes on a pool of workers.
type runner struct {
	spec       *Spec
	seed       uint64 // the search's root seed (for reports)
	global     *Seen
	consoleDir string
	workers    int
	wall       context.Context // cancelled when the wall-time budget is spent
}

// batch runs a batch on the pool and gathers its outcomes, in universe
// order. When the wall-time budget is spent, it cancels every universe of
// the batch; with stopOnFailure, a failure cancels the universes after
// it. Cancelled universes still come back, so the batch is always
// gathered whole. A universe that panics (a bug in everett) comes back as
// a failure of kind KindEverettBug. It returns the outcomes, the position
// of the first failing universe (len(batch) when none, or without
// stopOnFailure), and whether the wall-time budget was spent.
func (rn *runner) batch(batch []job, stopOnFailure bool) (outs []outcome, failAt int, wallSpent bool) {
	ctx, cancel := context.WithCancel(rn.wall)
	defer cancel()
	outs = make([]outcome, len(batch))
	failAt = len(batch)
	// built[k] is universe k once built: what a panic's report is made of.
	built := make([]*Universe, len(batch))
	_ = pool.Run(ctx, rn.workers, len(batch), func(ctx context.Context, k int) (outcome, error) {
		return rn.runJob(ctx, batch[k], &built[k]), nil
	}, func(k int, r outcome, err error) error {
		if err != nil {
			var pe *pool.PanicError
			if !errors.As(err, &pe) {
				// Not started: the batch was cancelled first.
				r = outcome{job: batch[k], cancelled: true, ended: time.Now()}
			} else {
				r = outcome{job: batch[k], bug: bugReport(rn.spec, rn.seed, batch[k], built[k], pe), ended: time.Now()}
			}
		}
		outs[k] = r
		switch {
		case r.err != nil:
			cancel() // the search ends with the error
		case stopOnFailure && !r.cancelled && r.failed() && k < failAt:
			failAt = k
			cancel() // every universe before k has come back
		}
		return nil
	})
	return outs, failAt, rn.wall.Err() != nil
}

// failed reports whether the universe failed.
func (r *outcome) failed() bool { return r.bug != nil || r.u != nil && r.u.failure != nil }

// testHookUniverse, when set (tests), is called with every universe of a
// search just before it runs.
var testHookUniverse func(index int, u *Universe)

// runJob runs one universe to its end, or until it is cancelled (ctx is
// done). It keeps *built at the universe once built.
func (rn *runner) runJob(ctx context.Context, j job, built **Universe) outcome {
	spec, global, consoleDir := rn.spec, rn.global, rn.consoleDir
	start := time.Now()
	stop := context.AfterFunc(ctx, func() { j.cancel.Store(true) })
	defer stop()
	if j.cancel.Load() {
		return outcome{job: j, cancelled: true, ended: start}
	}
	var u *Universe
	var err error
	var logs []*consoleLog
	echo := func(node int) io.Writer {
		l := newConsoleLog(consoleDir, j.index, node)
		logs = append(logs, l)
		return l
	}
	if consoleDir == "" {
		echo = nil
	}
	switch {
	case j.parent != nil:
		parent := j.parent
		if parent.lazy != nil {
			// Another worker's entry, rebuilt on first use; one that
			// does not rebuild leaves the universe a root of its seed.
			if parent = parent.lazy.get(spec); parent == nil {
				parent, j.parent = j.boot, nil
			}
		}
		if parent == nil {
			u, err = newUniverseWith(spec, Fork{Seed: j.seed}, global, func(u *Universe) { u.echo = echo })
			break
		}
		plan := ""
		if j.parent == nil {
			plan = PlanSeed // from the boot snapshot: the seed's root
		}
		u, err = forkWith(spec, parent, Fork{Seed: j.seed, Plan: plan}, global, echo)
	case j.boot != nil:
		u, err = forkWith(spec, j.boot, Fork{Seed: j.seed, Plan: PlanSeed}, global, echo)
	default:
		u, err = newUniverseWith(spec, Fork{Seed: j.seed}, global, func(u *Universe) { u.echo = echo })
	}
	if err != nil {
		return outcome{job: j, err: err}
	}
	*built = u
	u.setCancel(j.cancel)
	if testHookUniverse != nil {
		testHookUniverse(j.index, u)
	}
	u.runTo(0)
	for _, l := range logs {
		l.Close()
	}
	if u.cancelled {
		return outcome{job: j, cancelled: true, ended: time.Now()}
	}
	u.release(u.failure != nil) // only a failure's report names its state hash
	end := time.Now()
	return outcome{job: j, u: u, elapsed: end.Sub(start), ended: end}
}

// release drops the machines of a finished universe (keeping what the
// search reads: failure, assertions, coverage, snapshots, decisions), and
// with hash its state hash first (hashing every page and the tracker's
// state was a tenth of a short universe's time, 2026-12-04).
func (u *Universe) release(hash bool) {
	if hash {
		u.hash = u.StateHash()
	}
	u.icountEnd = u.ICount()
	u.tails = u.ConsoleTails()
	for _, n := range u.nodes {
		if n.b != nil {
			u.preemptions += n.b.CommPreemptions()
			n.icount += n.b.ICount()
			addJIT(&u.jit, n.b.JITStats())
		}
		n.b = nil
		n.down = true
	}
}

// KindEverettBug is the failure kind of a universe that panicked: a bug in
// everett, not in the guest. Its report replays the universe (which
// panics again) from its fork path.
const KindEverettBug = "everett bug"

// bugReport is the report of job j's universe, which panicked; u is the
// universe if it was built before the panic.
func bugReport(s *Spec, root uint64, j job, u *Universe, pe *pool.PanicError) *Report {
	r := &Report{
		Format:   ReportFormat,
		Version:  buildinfo.Version(),
		Machine:  emu.MachineVersion,
		Failure:  Failure{Kind: KindEverettBug, Message: fmt.Sprint(pe.Value), Stack: string(pe.Stack)},
		Spec:     ReportSpec{Spec: *s, Boards: s.nodes, Workload: workloadOrNil(s), SyncRanges: syncRangesOrNil(s)},
		RootSeed: root,
		Universe: j.index,
		Path:     jobPath(j),
	}
	if u != nil {
		r.Path = append([]Fork(nil), u.path...)
		r.Decisions = append([]Decision(nil), u.decisions...)
	}
	r.Signature = r.Failure.Signature()
	r.Plan = r.derivedPlan(r.spec())
	return r
}

// jobPath is the fork path job j's universe starts with.
func jobPath(j job) []Fork {
	from, plan := j.parent, ""
	if from == nil || from.lazy != nil && heldSnap(from) == nil {
		// A root, or a placeholder not rebuilt (the universe ran as
		// the root of its seed if it did not rebuild); a placeholder's
		// path and time are its entry's.
		from, plan = j.boot, PlanSeed
	}
	if from == nil {
		return []Fork{{Seed: j.seed}}
	}
	return append(append([]Fork(nil), from.Path...), Fork{At: from.T, Seed: j.seed, Plan: plan})
}
