package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"everett/explorer"
	"everett/snapshot"
)

type exploreFlags struct {
	elf         string
	smp         int
	linux       bool
	nodes       int
	seed        uint64
	universes   int
	wall        time.Duration
	workers     int
	out         string
	metricsAddr string
	maxInsns    uint64
	consoleDir  string
	setup       string
	cpuProf     string
	universeLog string
	memProf     string
	memLimit    string
	memModel    string
	stopOnFail  bool
	engine      engineValue
	shared      string
	claim       int
	lease       time.Duration
	isolated    bool
}

func newExploreCmd() *cobra.Command {
	var f exploreFlags
	cmd := &cobra.Command{
		Use:   "explore [SPEC.yaml | --elf PROG --smp N | --linux [--smp N] [--nodes K] PROGRAM [ARGS...]]",
		Short: "Search seeds, schedules and faults of a universe for failures",
		Long: `Explore runs many universes of a spec — each a function of one seed — varying
the hart schedule, network fates, partitions, crashes, disk faults and clock
skew, forking new futures from snapshots of interesting states, and reports
every distinct failure with everything needed to replay it.

With --linux, PROGRAM is your own software: a static riscv64 Linux program,
or a folder, tar archive or OCI image (its command, or ARGS as the command
to run in it). Each of K nodes boots the bundled kernel (built and cached on
first use) with everett's own init, which runs it and reports how it ended:
a non-zero exit, a death by a signal, a deadlock of its threads, or not
finishing within the time budget are failures. ARGS that start with '-' go
after '--'.

With --shared URL, the process is one worker of a search that any number
of them share through a bucket (s3://, gs://, azblob:// or file://): see
README, "Many machines". Its summary.json is then the whole search's as the
bucket has it when the worker ends; 'everett report --shared URL --out DIR'
writes it, the failures' reports and an HTML page when all are done.

Exit codes: 1 when a failure was found, 0 when none, 2 on bad input. A
worker of a shared search exits 0 when it ran to its end, whatever was
found: gate on 'everett report --shared'.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplore(args, f, cmd.OutOrStdout(), os.Stderr)
		},
	}
	pointToSpecReference(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.elf, "elf", "", "explore one bare-metal program (the smallest spec)")
	fl.IntVar(&f.smp, "smp", 1, "harts for --elf, and of each node for --linux")
	fl.BoolVar(&f.linux, "linux", false, "explore PROGRAM [ARGS...] (a static riscv64 Linux program, or a folder, tar or OCI image) on Linux nodes under everett's init")
	fl.IntVar(&f.nodes, "nodes", 1, "nodes for --linux, each running the program (addresses 10.0.0.1...; EVERETT_NODE, EVERETT_PEERS in its environment)")
	fl.Uint64Var(&f.seed, "seed", 1, "root seed")
	fl.IntVar(&f.universes, "universes", 0, "number of universes (default: the spec's budget; without one, none with --time, else 1000)")
	fl.DurationVar(&f.wall, "time", 0, "wall-clock budget (e.g. 5m; when spent, the universes still running are cancelled and the search ends)")
	fl.BoolVar(&f.stopOnFail, "stop-on-failure", false, "stop at the first failure: the failing universe of the lowest index (the same whatever --workers is); later universes are cancelled")
	fl.IntVar(&f.workers, "workers", 0, "host goroutines running universes (default: all cores)")
	fl.StringVar(&f.out, "out", "everett-out", "directory for reports and the summary")
	fl.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address (e.g. :9100)")
	fl.Uint64Var(&f.maxInsns, "max-insns", 0, "instruction budget per universe (overrides the spec)")
	fl.StringVar(&f.consoleDir, "console-dir", "", "write every universe's node consoles to files in this directory")
	fl.StringVar(&f.memModel, "memory-model", "", "memory model of every node: sc, rvwmo or swarm (drawn per seed); overrides the spec's memory_model")
	fl.StringVar(&f.setup, "setup", "", "setup point: init, sdk or off (default: the spec's; boot once there, fork every root universe from it)")
	fl.StringVar(&f.memLimit, "memory-limit", "", "host memory the search aims to stay under (e.g. 1536MiB, 4GiB, or none): the corpus holds at most a quarter of it beyond the boot snapshot, evicting entries to their fork paths (rebuilt when picked again; results never change), and Go's garbage collector keeps its heap under it less 256 MiB for the JIT's code (default: the spec's budgets.memory, else 1536MiB: a 2-core CI runner has 4-7 GB)")
	fl.StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the search to this file")
	fl.StringVar(&f.universeLog, "universe-log", "", "write each universe's index, seed, forks, instructions, state hash and failure to this file (to check that two binaries run alike)")
	_ = fl.MarkHidden("universe-log")
	_ = fl.MarkHidden("cpuprofile")
	fl.StringVar(&f.memProf, "memprofile", "", "write a Go heap profile of the search at its peak heap to this file (sampled every 2 s)")
	_ = fl.MarkHidden("memprofile")
	addEngineFlag(fl, &f.engine)
	addSharedFlags(fl, &f)
	return cmd
}

// specSource is where a command's spec comes from: a SPEC.yaml argument,
// --elf, or --linux and the program with its arguments.
type specSource struct {
	elf   string
	smp   int
	linux bool
	nodes int
}

func loadExploreSpec(args []string, src specSource) (*explorer.Spec, string, error) {
	switch {
	case src.linux && src.elf != "":
		return nil, "", usageErr("give --linux PROGRAM or --elf PROG, not both")
	case src.linux:
		explorer.BuildProgress = func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
		s, err := explorer.LinuxSpec(args, src.smp, src.nodes)
		if err != nil {
			return nil, "", usageErr("%v", err)
		}
		return s, strings.Join(args, " "), nil
	case len(args) > 1:
		return nil, "", usageErr("one SPEC.yaml (a Linux program and its arguments need --linux)")
	case len(args) == 1 && src.elf != "":
		return nil, "", usageErr("give a SPEC.yaml or --elf, not both")
	case len(args) == 1:
		explorer.BuildProgress = func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
		s, err := explorer.LoadSpec(args[0])
		var uf *explorer.UnknownFieldError
		switch {
		case errors.As(err, &uf):
			return nil, "", usageErr("%v", err) // each line names the file
		case err != nil:
			return nil, "", usageErr("%s: %v", args[0], err)
		}
		return s, args[0], nil
	case src.elf != "":
		s, err := explorer.ELFSpec(src.elf, src.smp)
		if err != nil {
			return nil, "", usageErr("%v", err)
		}
		return s, src.elf, nil
	}
	return nil, "", usageErr("nothing to explore: give a SPEC.yaml, --elf PROG or --linux PROGRAM")
}

func runExplore(args []string, f exploreFlags, stdout, stderr io.Writer) error {
	spec, name, err := loadExploreSpec(args, specSource{elf: f.elf, smp: f.smp, linux: f.linux, nodes: f.nodes})
	if err != nil {
		return err
	}
	if f.maxInsns != 0 {
		spec.Budgets.Instructions = f.maxInsns
	}
	if f.memModel != "" {
		if err := spec.SetMemoryModel(f.memModel); err != nil {
			return usageErr("--memory-model: %v", err)
		}
	}
	if f.setup != "" {
		if err := spec.SetSetupPoint(f.setup); err != nil {
			return usageErr("--setup: %v", err)
		}
	}
	spec.SetEngine(f.engine.e)
	memLimit, err := exploreMemoryLimit(f.memLimit, spec)
	if err != nil {
		return err
	}
	if memLimit != explorer.NoMemoryLimit {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(goMemoryLimit(memLimit))))
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return usageErr("--out: %v", err)
	}
	if f.cpuProf != "" {
		stop, err := startCPUProfile(f.cpuProf)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.memProf != "" {
		stop, err := startMemProfile(f.memProf, stderr)
		if err != nil {
			return err
		}
		defer stop()
	}
	o := explorer.Options{Seed: f.seed, Universes: f.universes, Wall: f.wall, Workers: f.workers, ConsoleDir: f.consoleDir, StopOnFailure: f.stopOnFail, MemoryLimit: memLimit}
	if f.consoleDir != "" {
		if err := os.MkdirAll(f.consoleDir, 0o755); err != nil {
			return usageErr("--console-dir: %v", err)
		}
	}
	if isTerminal(os.Stderr) {
		o.Progress = stderr
	}
	if f.universeLog != "" {
		lf, err := os.Create(f.universeLog)
		if err != nil {
			return usageErr("--universe-log: %v", err)
		}
		defer lf.Close()
		o.UniverseLog = lf
	}
	if f.metricsAddr != "" {
		o.Metrics = explorer.NewMetrics()
		addr, stop, err := o.Metrics.Serve(f.metricsAddr)
		if err != nil {
			return usageErr("--metrics-addr: %v", err)
		}
		defer stop()
		fmt.Fprintf(stderr, "everett: metrics on http://%s/metrics\n", addr)
	}
	var writeErr error
	paths := map[string]string{}
	o.OnFailure = func(r *explorer.Report) {
		p, err := r.Write(f.out)
		if err != nil && writeErr == nil {
			writeErr = err
		}
		paths[r.Signature] = p
		fmt.Fprintf(stdout, "FAILURE universe %d: %s\n  reproduce with: %s\n", r.Universe, r.Signature, r.Replay)
		printProcess(stdout, &r.Failure)
		printRootTrap(stdout, r.RootTrap, p)
	}
	share, err := joinShared(f, spec, name, &o)
	if err != nil {
		return err
	}
	if share != nil {
		defer share.Close()
	}
	res, err := explorer.Explore(spec, o)
	if err != nil {
		return err
	}
	if writeErr != nil {
		return fmt.Errorf("writing reports: %w", writeErr)
	}
	sum := explorer.NewSummary(name, f.seed, res, res.Boot.String(), paths)
	if share != nil {
		// The summary is the whole shared search's, as the bucket has
		// it now; this worker's part is on stdout.
		merged, err := writeSharedSummary(share, f.out, stdout)
		if err != nil {
			return err
		}
		printWorker(stdout, share, res)
		sum.NeverHit = merged.NeverHit
	} else if err := sum.Write(f.out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "everett: %s\n", sum.Boot)
	fmt.Fprintf(stderr, "everett: %s\n", engineStats(res.Engine, res.JIT))
	fmt.Fprintf(stderr, "everett: %s\n", corpusMemory(res.Memory))
	if memLimit != explorer.NoMemoryLimit && gcLimited() {
		fmt.Fprintf(stderr, "everett: Go's garbage collector used all the CPU it may to keep its heap under %d MiB (--memory-limit %d MiB): the search needs more than that to run at full speed\n", goMemoryLimit(memLimit)>>20, memLimit>>20)
	}
	if m := spec.MemoryModel; m == "rvwmo" || m == "swarm" {
		fmt.Fprintf(stderr, "everett: memory model %s: rvwmo nodes ran in the interpreter (the jit does not honour the model)\n", m)
	}
	cancelled := ""
	if res.Cancelled > 0 {
		cancelled = fmt.Sprintf(" (%d more cancelled)", res.Cancelled)
	}
	fmt.Fprintf(stdout, "explored %d universes%s in %s (%.2f universes/s, engine %s): %d distinct failure(s), %d edges covered; summary in %s\n",
		res.Universes, cancelled, sum.Elapsed, float64(res.Universes)/max(res.Elapsed.Seconds(), 1e-9), sum.Engine, len(res.Failures), res.Coverage, filepath.Join(f.out, explorer.SummaryFile))
	for _, n := range sum.NeverHit {
		fmt.Fprintf(stdout, "  never reached: %s\n", n)
	}
	fmt.Fprintln(stdout, endedBy(res))
	if len(res.Failures) > 0 && share == nil {
		return &exitError{code: 1}
	}
	return nil
}

// exploreMemoryLimit is the search's memory target: --memory-limit, else
// the spec's budgets.memory, else explorer.DefaultMemoryLimit.
func exploreMemoryLimit(flag string, spec *explorer.Spec) (uint64, error) {
	v := flag
	if v == "" {
		v = spec.Budgets.Memory
	}
	if v == "" {
		return explorer.DefaultMemoryLimit, nil
	}
	n, err := explorer.ParseMemoryLimit(v)
	if err != nil {
		return 0, usageErr("--memory-limit: %v", err)
	}
	return n, nil
}

// nonGoBytes is what a search holds outside Go's heap, which Go's soft
// memory limit does not see: the JIT's code arena (110-126 MB in the etcd
// example's 5-minute search, 2026-12-04; at most 512 MiB) and the binary's
// own text and data (35 MB).
const nonGoBytes = 256 << 20

// goMemoryLimit is Go's soft memory limit for a search's memory target:
// the target less what lies outside Go's heap, and at least half the
// target.
func goMemoryLimit(target uint64) uint64 {
	return max(target-min(nonGoBytes, target), target/2)
}

// gcLimited reports whether Go's garbage collector ever hit its CPU
// limit in this process: the heap's live part came so near the memory
// limit that collecting more often could no longer keep it under.
func gcLimited() bool {
	m := []metrics.Sample{{Name: "/gc/limiter/last-enabled:gc-cycle"}}
	metrics.Read(m)
	return m[0].Value.Kind() == metrics.KindUint64 && m[0].Value.Uint64() > 0
}

// corpusMemory says in a line what the corpus held and what bounding it
// did.
func corpusMemory(m explorer.CorpusMemory) string {
	const mib = 1 << 20
	bound := "no bound"
	if m.LimitBytes != 0 {
		bound = fmt.Sprintf("bound %d MiB", m.LimitBytes/mib)
	}
	return fmt.Sprintf("corpus held at most %d MiB beyond the boot snapshot (%s), %d MiB at the end: %d entries evicted to their fork paths, %d rebuilt",
		m.PeakBytes/mib, bound, m.HeldBytes/mib, m.Evicted, m.Rebuilt)
}

// printProcess prints what everett's init reported with a workload's
// failure: where each thread of a deadlock waits, or the last lines the
// failed process wrote.
func printProcess(w io.Writer, f *explorer.Failure) {
	e := f.Process
	if e == nil {
		return
	}
	for _, t := range e.Threads {
		fmt.Fprintf(w, "  thread %s\n", t)
	}
	for _, g := range e.Goroutines {
		dump, left := userGoroutines(g.Dump)
		title := fmt.Sprintf("goroutines of %s (pid %d), as Go's runtime wrote them on SIGQUIT", g.Name, g.PID)
		if left > 0 {
			title += fmt.Sprintf(" (%d of the runtime's own left out here)", left)
		}
		printLines(w, title, dump)
	}
	if e.Crash != "" {
		printLines(w, "Go's crash report of "+e.Name, e.Crash)
	}
	printLines(w, "last output of "+e.Name, e.Output)
}

// printLines prints text under a title, indented and marked, up to
// printLinesMax lines: the whole is in the report.
func printLines(w io.Writer, title, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	fmt.Fprintf(w, "  %s:\n", title)
	for i, l := range lines {
		if i == printLinesMax {
			fmt.Fprintf(w, "    | … %d more lines in the report\n", len(lines)-i)
			break
		}
		fmt.Fprintf(w, "    | %s\n", l)
	}
}

// userGoroutines is a Go goroutine dump without the goroutines whose
// every function is the runtime's (the idle, GC and finalizer goroutines
// a SIGQUIT dump lists before the program's own), and how many it left
// out. The dump's first block (the signal and the goroutine it came on)
// is kept.
func userGoroutines(dump string) (string, int) {
	blocks := strings.Split(dump, "\n\n")
	kept, left := blocks[:1], 0
	for _, b := range blocks[1:] {
		if strings.HasPrefix(b, "goroutine ") && runtimeOnly(b) {
			left++
			continue
		}
		kept = append(kept, b)
	}
	return strings.Join(kept, "\n\n"), left
}

// runtimeOnly reports whether every function of a goroutine's stack
// (the lines after its header that do not start with a tab) is in Go's
// runtime.
func runtimeOnly(block string) bool {
	lines := strings.Split(block, "\n")
	for _, l := range lines[1:] {
		if l == "" || strings.HasPrefix(l, "\t") {
			continue
		}
		fn := strings.TrimPrefix(l, "created by ")
		if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/") {
			return false
		}
	}
	return true
}

// printLinesMax bounds the lines of one block printProcess prints.
const printLinesMax = 60

// printRootTrap prints the exception a failure is traced back to, and the
// bisection that finds it.
func printRootTrap(w io.Writer, t *explorer.RootTrap, report string) {
	if t == nil {
		return
	}
	fmt.Fprintf(w, "  root trap: %s\n  bisect it with: everett bisect %s --predicate %s\n", t, report, t.Predicate)
}

// endedBy says which budget ended a search, and when the first failure
// came, for the last line of explore.
func endedBy(res *explorer.Result) string {
	var s string
	switch res.Ended {
	case "wall":
		s = "stopped by the wall-time budget (" + res.Limit + ")"
	case "universes":
		s = "stopped by the universe budget (" + res.Limit + " universes)"
	case "failure":
		s = "stopped at the first failure"
	default:
		s = "stopped: " + res.Ended
	}
	if ff := res.FirstFailure; ff != nil {
		after := time.Duration(ff.Seconds * float64(time.Second)).Round(time.Millisecond)
		s += fmt.Sprintf("; first failure in universe %d after %v, at instruction %d (virtual time %v): %s",
			ff.Universe, after, ff.Instructions, time.Duration(ff.VirtualTimeNs), ff.Signature)
	}
	return s
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newReplayCmd() *cobra.Command {
	var o replayFlags
	var engine engineValue
	var bootCache string
	var cpuProf string
	cmd := &cobra.Command{
		Use:   "replay REPORT.json... | BUCKET-URL/failures/NAME.json",
		Short: "Reproduce a report's failure exactly (exit code 1 when it reproduces)",
		Long: `Reproduce a report's failure exactly (exit code 1 when it reproduces).

Several reports replay one after another in one process, each boot run
once (a report whose boot another one ran restores it): exit code 1 when
every one of them ends in a failure, and a last line counting those
reproduced.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 && o.snapOut != "" {
				return usageErr("--snapshot-out takes one report, not %d", len(args))
			}
			useBootCache(bootCache, cmd.ErrOrStderr())
			if cpuProf != "" {
				stop, err := startCPUProfile(cpuProf)
				if err != nil {
					return err
				}
				defer stop()
			}
			out := cmd.OutOrStdout()
			failed, reproduced := 0, 0
			for i, arg := range args {
				if len(args) > 1 {
					fmt.Fprintf(out, "%s (%d of %d):\n", arg, i+1, len(args))
				}
				start := time.Now()
				res, err := replayOne(cmd, arg, engine, o)
				if err != nil {
					return err
				}
				if len(args) > 1 {
					fmt.Fprintf(cmd.ErrOrStderr(), "everett replay: %s in %.2f s\n", arg, time.Since(start).Seconds())
				}
				if res.Failure != nil && (o.until == 0 || res.ICount <= o.until) {
					failed++
					if res.Reproduced {
						reproduced++
					}
				}
			}
			if len(args) > 1 {
				fmt.Fprintf(out, "%d of %d reports reproduced\n", reproduced, len(args))
			}
			if failed == len(args) {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().Uint64Var(&o.until, "until", 0, "stop at this instruction count")
	cmd.Flags().BoolVar(&o.console, "console", false, "show the guests' console output")
	cmd.Flags().IntVar(&o.traceWindow, "trace-window", 0, "trace the last K instructions before the failure (or --until)")
	cmd.Flags().StringVar(&cpuProf, "cpuprofile", "", "write a Go CPU profile of the replay to this file")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	cmd.Flags().StringVar(&o.snapOut, "snapshot-out", "", "save the state where the replay stopped (one file per node: FILE, or FILE.nodeK for clusters)")
	addEngineFlag(cmd.Flags(), &engine)
	addBootCacheFlag(cmd.Flags(), &bootCache)
	return cmd
}

// replayFlags are replay's flags that apply to each report.
type replayFlags struct {
	until       uint64
	console     bool
	traceWindow int
	snapOut     string
}

// replayOne replays one report and prints what came of it.
func replayOne(cmd *cobra.Command, arg string, engine engineValue, f replayFlags) (*explorer.ReplayResult, error) {
	local, err := localReport(arg, cmd.ErrOrStderr())
	if err != nil {
		return nil, usageErr("%v", err)
	}
	r, err := explorer.LoadReport(local)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	r.Spec.SetEngine(engine.e)
	o := explorer.ReplayOptions{Until: f.until}
	if f.console {
		o.Echo = func(node int) io.Writer { return cmd.OutOrStdout() }
	}
	res, err := explorer.Replay(r, o)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	out := cmd.OutOrStdout()
	if f.snapOut != "" && res.Universe == nil {
		fmt.Fprintln(out, "no snapshot: everett panicked in the universe")
	} else if f.snapOut != "" {
		if err := saveReplaySnapshots(out, res.Universe, f.snapOut); err != nil {
			return nil, fmt.Errorf("--snapshot-out: %w", err)
		}
	}
	if f.traceWindow > 0 && res.Universe != nil {
		steps, err := explorer.TraceWindow(r, res.ICount, f.traceWindow)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		fmt.Fprintf(out, "the last %d instructions:\n", len(steps))
		for _, s := range steps {
			bits := fmt.Sprintf("%08x", s.Raw)
			if s.Raw&3 != 3 {
				bits = fmt.Sprintf("    %04x", s.Raw&0xffff)
			}
			sym := ""
			if s.Symbol != "" {
				sym = " <" + s.Symbol + ">"
			}
			trap := ""
			if s.Trapped {
				trap = "  (trapped)"
			}
			fmt.Fprintf(out, "  %d node %d hart %d pc 0x%x%s: %s %s%s\n", s.ICount, s.Node, s.Hart, s.PC, sym, bits, s.Disasm, trap)
		}
	}
	switch {
	case res.Failure == nil:
		fmt.Fprintf(out, "no failure by instruction %d (state hash %s)\n", res.ICount, res.StateHash)
	case f.until != 0 && res.ICount > f.until:
		fmt.Fprintf(out, "no failure by instruction %d\n", f.until)
	case res.Reproduced:
		fmt.Fprintf(out, "reproduced: %s\n  at instruction %d, virtual time %d ns, state hash %s\n",
			res.Failure.Signature(), res.ICount, res.Time, res.StateHash)
		if res.HashUncompared {
			format := "a snapshot format it does not record"
			if r.HashFormat != 0 {
				format = fmt.Sprintf("snapshot format %d", r.HashFormat)
			}
			fmt.Fprintf(out, "  the report's state hash (%s) was computed over %s, this everett's over format %d: not compared\n",
				r.StateHash, format, snapshot.Version)
		}
		printProcess(out, res.Failure)
		printRootTrap(out, res.RootTrap, arg)
		if res.Failure.Stack != "" { // a bug in everett: where it panicked
			fmt.Fprintf(out, "  everett panicked:\n%s\n", res.Failure.Stack)
		}
	default:
		fmt.Fprintf(out, "failed differently: %s at instruction %d (state hash %s); the report says %s at %d (%s)\n",
			res.Failure.Signature(), res.ICount, res.StateHash, r.Signature, r.ICount, r.StateHash)
		printRootTrap(out, res.RootTrap, arg)
	}
	return res, nil
}

// saveReplaySnapshots writes each node's state where a replay stopped as a
// snapshot file that everett restore accepts.
func saveReplaySnapshots(out io.Writer, u *explorer.Universe, path string) error {
	nodes := u.Nodes()
	for i, n := range nodes {
		if n.Machine == nil {
			fmt.Fprintf(out, "node %d is down: no snapshot\n", i)
			continue
		}
		p := path
		if len(nodes) > 1 {
			p = fmt.Sprintf("%s.node%d", path, i)
		}
		if _, err := snapshot.Write(p, n.Spec, n.Machine.Snapshot(), nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "saved node %d at instruction %d to %s (everett restore %s)\n", i, n.Machine.ICount(), p, p)
	}
	return nil
}
