package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"everett/litmus"
)

type litmusFlags struct {
	model  string
	runs   int
	seed   uint64
	jobs   int
	check  bool
	engine engineValue
}

func newLitmusCmd() *cobra.Command {
	var f litmusFlags
	cmd := &cobra.Command{
		Use:   "litmus [--model sc|rvwmo] [--runs N] [--seed S] [--jobs J] [--check] FILE.litmus...",
		Short: "Run memory-model litmus tests and print litmus7-style results",
		Long: `Run litmus tests in the diy/herd format (RISCV header, initial state,
one column of RISC-V assembly per thread, an exists/~exists/forall
condition over /\, \/, ~ or not and parentheses, with an optional filter
that discards the runs it does not hold for). Each test runs --runs
times on a machine with one hart per thread; run i draws its schedule and
thread delays from a seed derived from --seed and i, so the output is the
same for any --jobs.

For each test it prints the final states with their counts, whether the
condition is validated, and "Observation NAME Never|Sometimes|Always P N".

--model sc (the default) is the emulator's sequentially consistent memory;
--model rvwmo runs the harts with store buffers and deferred loads, drawn
from each run's seed (a sound subset of what RVWMO allows; see README).

With --check, a test's "Verdict=" metadata (Verdict=rvwmo:Allowed
sc:Forbidden) is compared with what the runs saw under the chosen model:
Forbidden fails if any run satisfies the condition, Allowed if none does,
Required if some run does not; a test with no verdict for the model
fails too.

A file everett cannot run (bad syntax, an instruction it does not know, a
run that never ends) is reported on stderr as one line "FILE:LINE: reason
(skipped)" (just FILE when no line is to blame) and skipped; the other
files run. At the end a line says how many were skipped.

Exit codes: 0 when every test ran (and, with --check, agreed with its
verdict); 1 when --check found a contradiction or a test without a
verdict for the model (whether or not files were skipped); 4 when some files were skipped and --check found nothing wrong
with the others; 2 for a bad command line.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return litmusMain(args, f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", litmus.ModelSC, "memory model: sc or rvwmo")
	fl.IntVar(&f.runs, "runs", litmus.DefaultRuns, "runs per test")
	fl.Uint64Var(&f.seed, "seed", 1, "root seed; run i uses a seed derived from it and i")
	fl.IntVar(&f.jobs, "jobs", 0, "host goroutines (default: one per CPU); results do not depend on it")
	fl.BoolVar(&f.check, "check", false, "exit 1 when a result contradicts the test's Verdict= for the model")
	addEngineFlag(fl, &f.engine)
	return cmd
}

func litmusMain(files []string, f litmusFlags, stdout, stderr io.Writer) error {
	if f.runs < 1 || f.runs > 1e9 {
		return usageErr("--runs %d: want 1 to 10^9", f.runs)
	}
	opt := litmus.Options{Model: f.model, Runs: f.runs, Seed: f.seed, Jobs: f.jobs,
		Engine: f.engine.e, SetEngine: true}
	if err := opt.CheckModel(); err != nil {
		return usageErr("%v", err)
	}
	// Read and parse everything first, so that every file's syntax is
	// reported before the first run; a file that cannot be read, parsed
	// or laid out is reported and skipped.
	var tests []*litmus.Test
	skipped := 0
	skip := func(err error) {
		fmt.Fprintf(stderr, "%v (skipped)\n", err)
		skipped++
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			skip(err)
			continue
		}
		t, err := litmus.Parse(name, src)
		if err == nil {
			_, err = litmus.Layout(t)
		}
		if err != nil {
			skip(err)
			continue
		}
		tests = append(tests, t)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	contradicted, unchecked, ran := 0, 0, 0
	for _, t := range tests {
		r, err := litmus.Run(t, opt)
		if errors.Is(err, litmus.ErrModel) {
			w.Flush()
			return &exitError{code: exitInternal, msg: err.Error()}
		}
		if err != nil {
			w.Flush()
			skip(err) // a *litmus.RunError: FILE[:LINE]: run N (seed S): reason
			continue
		}
		if ran > 0 {
			fmt.Fprintln(w)
		}
		ran++
		if err := r.Write(w); err != nil {
			return err
		}
		if f.check {
			if err := r.Check(); err != nil {
				w.Flush()
				fmt.Fprintf(stderr, "everett: %v\n", err)
				if errors.Is(err, litmus.ErrNoVerdict) {
					unchecked++
				} else {
					contradicted++
				}
			}
		}
	}
	w.Flush()
	if skipped > 0 {
		fmt.Fprintf(stderr, "everett: litmus: %d of %d files skipped\n", skipped, len(files))
	}
	if contradicted+unchecked > 0 {
		var why []string
		if contradicted > 0 {
			why = append(why, fmt.Sprintf("%d of %d tests contradict their verdict under %s", contradicted, ran, f.model))
		}
		if unchecked > 0 {
			why = append(why, fmt.Sprintf("%d of %d tests give no verdict for %s", unchecked, ran, f.model))
		}
		return &exitError{code: 1, msg: "litmus: " + strings.Join(why, "; ")}
	}
	if skipped > 0 {
		return &exitError{code: exitSkipped}
	}
	return nil
}
