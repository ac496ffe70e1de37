package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"everett/explorer"
	"everett/explorer/bucket"
)

type sweepFlags struct {
	elf      string
	smp      int
	seeds    string
	shard    string
	workers  int
	out      string
	json     string
	junit    string
	html     string
	maxInsns uint64
	setup    string
	engine   engineValue
	shared   string
	claim    int
	lease    time.Duration
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep [SPEC.yaml | --elf PROG --smp N] --seeds A..B [--shard I/N]",
		Short: "Run the root universe of every seed in a range (or in one shard of it)",
		Long: `Sweep runs one universe per seed of A..B (both included) — the seed's root
universe, no forking — so that each seed's outcome depends only on the spec
and the seed. It prints one line per seed and a summary, writes a report for
the first seed of every distinct failure into --out, and optionally the
results as JSON (--json), JUnit XML (--junit) and a self-contained HTML
report (--html).

--shard I/N runs only the seeds s with (s - A) mod N = I; I counts from 0
(a Kubernetes Indexed Job's JOB_COMPLETION_INDEX). The JSON files of the N
shards merge with 'everett report merge' into exactly the unsharded result.
Results are the same with any number of --workers.

With --shared URL the process is one worker of a sweep shared through a
bucket: it claims shards of the range until none is left; the worker that
ends last writes the whole sweep's --json, --junit and --html, and
'everett report --shared URL --out DIR' writes them at any time. A worker
exits 0 when nothing is left to claim, whatever was found.

Exit codes: 1 when a seed failed, 0 when all passed, 2 on bad input,
70 for a bug in everett.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(args, f, cmd.OutOrStdout(), os.Stderr)
		},
	}
	pointToSpecReference(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.elf, "elf", "", "sweep one bare-metal program (the smallest spec)")
	fl.IntVar(&f.smp, "smp", 1, "harts for --elf")
	fl.StringVar(&f.seeds, "seeds", "", "seeds A..B, both included (required)")
	fl.StringVar(&f.shard, "shard", "0/1", "run shard I of N (I from 0): seeds with (seed - A) mod N = I")
	fl.IntVar(&f.workers, "workers", 0, "host goroutines running seeds (default: all cores)")
	fl.StringVar(&f.out, "out", "everett-out", "directory for failure reports (created on the first failure)")
	fl.StringVar(&f.json, "json", "", "write the results as JSON to this file")
	fl.StringVar(&f.junit, "junit", "", "write the results as JUnit XML to this file")
	fl.StringVar(&f.html, "html", "", "write a self-contained HTML report to this file")
	fl.Uint64Var(&f.maxInsns, "max-insns", 0, "instruction budget per universe (overrides the spec)")
	fl.StringVar(&f.setup, "setup", "", "setup point: init, sdk or off (default: the spec's; each shard boots once there)")
	addEngineFlag(fl, &f.engine)
	fl.StringVar(&f.shared, "shared", "", "be one worker of the sweep shared through this bucket (s3://, gs://, azblob://, file:///DIR): claim shards of about --claim seeds until none is left (README, \"Many machines\")")
	fl.IntVar(&f.claim, "claim", 256, "with --shared: seeds per claimed shard (part of the sweep's identity)")
	fl.DurationVar(&f.lease, "lease", bucket.DefaultLease, "with --shared: a claim not renewed for this long is taken over by another worker (part of the sweep's identity)")
	return cmd
}

// sweepArgs are the arguments that select the spec, for rerun commands.
func sweepArgs(args []string, f sweepFlags) []string {
	var a []string
	if len(args) == 1 {
		a = append(a, args[0])
	} else {
		a = append(a, "--elf", f.elf, "--smp", strconv.Itoa(f.smp))
	}
	if f.maxInsns != 0 {
		a = append(a, "--max-insns", strconv.FormatUint(f.maxInsns, 10))
	}
	if f.setup != "" {
		a = append(a, "--setup", f.setup)
	}
	return a
}

func runSweep(args []string, f sweepFlags, stdout, stderr io.Writer) error {
	if f.seeds == "" {
		return usageErr("--seeds A..B is required")
	}
	seeds, err := explorer.ParseSeedRange(f.seeds)
	if err != nil {
		return usageErr("--seeds: %v", err)
	}
	shard, err := explorer.ParseShard(f.shard)
	if err != nil {
		return usageErr("--shard: %v", err)
	}
	if f.workers < 0 || f.workers > explorer.MaxSweepWorkers {
		return usageErr("--workers: %d (want 0 for all cores, or 1..%d)", f.workers, explorer.MaxSweepWorkers)
	}
	spec, name, err := loadExploreSpec(args, specSource{elf: f.elf, smp: f.smp})
	if err != nil {
		return err
	}
	for _, o := range []struct{ flag, path string }{{"--json", f.json}, {"--junit", f.junit}, {"--html", f.html}} {
		if err := prepareOutputPath(o.flag, o.path); err != nil {
			return err
		}
	}
	if f.maxInsns != 0 {
		spec.Budgets.Instructions = f.maxInsns
	}
	if f.setup != "" {
		if err := spec.SetSetupPoint(f.setup); err != nil {
			return usageErr("--setup: %v", err)
		}
	}
	spec.SetEngine(f.engine.e)
	workers := f.workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(shard.Seeds(seeds))))
	shardNote := ""
	if shard.Count > 1 {
		shardNote = " shard " + shard.String()
	}
	fmt.Fprintf(stdout, "sweep %s seeds %s%s: %d seeds on %d workers, engine %s\n", name, seeds, shardNote, len(shard.Seeds(seeds)), workers, f.engine.e)

	rerun := func(seed uint64) string {
		tmp := &explorer.SweepFile{Spec: explorer.SweepSpec{Args: sweepArgs(args, f)}}
		return tmp.RerunCommand(seed, f.out)
	}
	madeOut := false
	o := explorer.SweepOptions{Seeds: seeds, Shard: shard, Workers: workers, Args: sweepArgs(args, f)}
	o.OnOutcome = func(so *explorer.SeedOutcome, isNew bool) (string, error) {
		line := fmt.Sprintf("seed %d %s insns %d state %s", so.Seed, so.Outcome, so.ICount, so.StateHash)
		if so.Outcome != "fail" {
			fmt.Fprintln(stdout, line)
			return "", nil
		}
		fmt.Fprintf(stdout, "%s %s\n", line, so.Signature)
		if !isNew || so.Report == nil {
			fmt.Fprintf(stdout, "  reproduce with: %s\n", rerun(so.Seed))
			return "", nil
		}
		if !madeOut {
			if err := os.MkdirAll(f.out, 0o755); err != nil {
				return "", fmt.Errorf("--out: %w", err)
			}
			madeOut = true
		}
		p, err := so.Report.Write(f.out)
		if err != nil {
			return "", fmt.Errorf("writing the report: %w", err)
		}
		fmt.Fprintf(stdout, "  reproduce with: %s\n", so.Report.Replay)
		return p, nil
	}
	var sf *explorer.SweepFile
	if f.shared != "" {
		sf, err = runSharedSweep(spec, name, f, o, stdout)
		if sf == nil && err == nil {
			return nil // this worker's part is in the bucket
		}
	} else {
		sf, err = explorer.RunSweep(spec, o)
	}
	if err != nil {
		var sp *explorer.SeedPanic
		if errors.As(err, &sp) {
			fmt.Fprintf(stderr, "everett: %v\nreproduce with: %s\n", err, rerun(sp.Seed))
			return &exitError{code: exitInternal}
		}
		return err
	}
	printSweepSummary(stdout, sf, name)
	if err := writeSweepOutputs(stdout, sf, f.json, f.junit, f.html); err != nil {
		return err
	}
	if sf.Totals.Failed > 0 && f.shared == "" {
		return &exitError{code: 1}
	}
	return nil
}

// prepareOutputPath creates the folders an output file goes in, before
// hours of sweeping rather than after: it fails early only when they cannot
// be made (a file in the way, no permission).
func prepareOutputPath(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("%s %s: cannot create its directory: %v", flag, path, err)
	}
	return nil
}

// printSweepSummary prints the totals and one line per failure signature.
func printSweepSummary(w io.Writer, sf *explorer.SweepFile, name string) {
	t := sf.Totals
	el := 0.0
	var engines []string
	for _, h := range sf.Host {
		el += h.ElapsedSeconds
		if h.Engine != "" && !slices.Contains(engines, h.Engine) {
			engines = append(engines, h.Engine)
		}
	}
	engine := ""
	if len(engines) > 0 {
		engine = ", engine " + strings.Join(engines, "+")
	}
	fmt.Fprintf(w, "%s seeds %s: %d seeds, %d passed, %d failed (%s, 95%% CI %s–%s), %d distinct failure(s), %d edges, %s%s\n",
		name, sf.Seeds, t.Seeds, t.Passed, t.Failed, pct(t.FailureRate.P), pct(t.FailureRate.Low), pct(t.FailureRate.High),
		t.Signatures, t.Edges, (time.Duration(el * float64(time.Second))).Round(time.Millisecond), engine)
	for _, g := range sf.Failures {
		fmt.Fprintf(w, "  %d × %s (first seed %d)", g.Seeds, g.Signature, g.FirstSeed)
		if g.Replay != "" {
			fmt.Fprintf(w, ": %s", g.Replay)
		}
		fmt.Fprintln(w)
	}
	for _, a := range sf.Assertions {
		if (a.Kind == "sometimes" || a.Kind == "reachable") && a.SeedsReached == 0 {
			fmt.Fprintf(w, "  never reached: %s: %s\n", a.Kind, a.Message)
		}
	}
}

// writeSweepOutputs writes the JSON, JUnit and HTML files that were asked
// for.
func writeSweepOutputs(w io.Writer, sf *explorer.SweepFile, jsonPath, junitPath, htmlPath string) error {
	if jsonPath != "" {
		if err := explorer.WriteJSON(jsonPath, sf); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
		fmt.Fprintf(w, "results: %s\n", jsonPath)
	}
	if junitPath != "" {
		if err := sf.WriteJUnit(junitPath); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
		fmt.Fprintf(w, "JUnit: %s\n", junitPath)
	}
	if htmlPath != "" {
		if err := sf.WriteHTML(htmlPath); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		fmt.Fprintf(w, "HTML report: %s\n", htmlPath)
	}
	return nil
}

// pct formats a proportion as a percentage.
func pct(p float64) string {
	return strconv.FormatFloat(p*100, 'f', 1, 64) + "%"
}
