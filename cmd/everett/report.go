package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"everett/explorer"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Merge and compare sweep results (the JSON files of everett sweep), or report a shared search (--shared URL --out DIR)",
	}
	cmd.AddCommand(newReportMergeCmd(), newReportCompareCmd())
	addSharedReport(cmd)
	return cmd
}

func newReportMergeCmd() *cobra.Command {
	var out, junit, html string
	cmd := &cobra.Command{
		Use:   "merge --out FILE [--junit FILE] [--html FILE] SHARD.json...",
		Short: "Combine the JSON files of a sweep's shards into the whole sweep's",
		Long: `Merge combines the JSON files of the shards of one sweep (everett sweep
--shard I/N --json FILE) into one file with exactly the outcomes, failure
groups, assertion rates and coverage curve of the unsharded sweep, and can
write its JUnit XML and HTML report too. The files must be of the same spec
(hash), seed range and everett build, and together hold every seed of the
range exactly once: overlapping shards and missing seeds are errors that
name the seeds. A single complete file is accepted, to render it again.

Exit codes: 0 when merged (whether or not the sweep found failures; gate on
'everett report compare' or on the merged totals), 2 on bad or inconsistent
input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" && junit == "" && html == "" {
				return usageErr("nothing to write: give --out, --junit or --html")
			}
			for _, o := range []struct{ flag, path string }{{"--out", out}, {"--junit", junit}, {"--html", html}} {
				if err := prepareOutputPath(o.flag, o.path); err != nil {
					return err
				}
			}
			files := make([]*explorer.SweepFile, len(args))
			for i, p := range args {
				f, err := explorer.LoadSweep(p)
				if err != nil {
					return usageErr("%v", err)
				}
				files[i] = f
			}
			m, err := explorer.MergeSweeps(files, args)
			if err != nil {
				return usageErr("%v", err)
			}
			w := cmd.OutOrStdout()
			t := m.Totals
			fmt.Fprintf(w, "merged %d file(s): %s seeds %s: %d seeds, %d passed, %d failed (%s), %d distinct failure(s), %d edges\n",
				len(files), m.Spec.Name, m.Seeds, t.Seeds, t.Passed, t.Failed, pct(t.FailureRate.P), t.Signatures, t.Edges)
			for _, g := range m.Failures {
				fmt.Fprintf(w, "  %d × %s (first seed %d)", g.Seeds, g.Signature, g.FirstSeed)
				if g.Replay != "" {
					fmt.Fprintf(w, ": %s", g.Replay)
				}
				fmt.Fprintln(w)
			}
			return writeSweepOutputs(w, m, out, junit, html)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the merged JSON to this file")
	cmd.Flags().StringVar(&junit, "junit", "", "write the merged results as JUnit XML to this file")
	cmd.Flags().StringVar(&html, "html", "", "write the merged HTML report to this file")
	return cmd
}

func newReportCompareCmd() *cobra.Command {
	var jsonOut, markdown string
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "List new, fixed and unchanged failures between two sweeps",
		Long: `Compare lists failure signatures that are in NEW and not in OLD (new),
in OLD and not in NEW (fixed), and in both (unchanged), with how many seeds
of each sweep failed with them. It notes when the sweeps differ in spec,
seed range or everett build.

Exit codes: 1 when there are new failures (a CI gate), 0 otherwise, 2 on bad
input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			oldF, err := explorer.LoadSweep(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			newF, err := explorer.LoadSweep(args[1])
			if err != nil {
				return usageErr("%v", err)
			}
			c := explorer.CompareSweeps(oldF, newF)
			w := cmd.OutOrStdout()
			io.WriteString(w, comparisonText(c))
			if jsonOut != "" {
				if err := explorer.WriteJSON(jsonOut, c); err != nil {
					return fmt.Errorf("--json: %w", err)
				}
			}
			if markdown != "" {
				if err := appendFile(markdown, comparisonMarkdown(c)); err != nil {
					return fmt.Errorf("--markdown: %w", err)
				}
			}
			if len(c.New) > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the comparison as JSON to this file")
	cmd.Flags().StringVar(&markdown, "markdown", "", "append the comparison as Markdown to this file (e.g. $GITHUB_STEP_SUMMARY)")
	return cmd
}

// rates formats a signature's failing seeds in the old and new sweeps.
func rates(c explorer.SignatureChange) string {
	f := func(r *explorer.Rate) string {
		if r == nil {
			return "-"
		}
		return fmt.Sprintf("%d/%d", r.K, r.N)
	}
	return f(c.Old) + " → " + f(c.New) + " seeds"
}

func comparisonText(c *explorer.Comparison) string {
	var b strings.Builder
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, l := range []struct {
		title, mark string
		list        []explorer.SignatureChange
	}{{"new failures", "+", c.New}, {"fixed failures", "-", c.Fixed}, {"unchanged failures", "=", c.Unchanged}} {
		fmt.Fprintf(&b, "%s: %d\n", l.title, len(l.list))
		for _, s := range l.list {
			fmt.Fprintf(&b, "  %s %s  (%s, first seed %d)\n", l.mark, s.Signature, rates(s), s.FirstSeed)
			if s.Replay != "" && l.mark != "-" {
				fmt.Fprintf(&b, "      reproduce with: %s\n", s.Replay)
			}
		}
	}
	fmt.Fprintf(&b, "compare: %d new, %d fixed, %d unchanged\n", len(c.New), len(c.Fixed), len(c.Unchanged))
	return b.String()
}

func comparisonMarkdown(c *explorer.Comparison) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### everett sweep: %d new, %d fixed, %d unchanged failure(s)\n\n", len(c.New), len(c.Fixed), len(c.Unchanged))
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "> note: %s\n\n", n)
	}
	if len(c.New)+len(c.Fixed)+len(c.Unchanged) == 0 {
		b.WriteString("No failures in either sweep.\n")
		return b.String()
	}
	b.WriteString("| change | signature | failing seeds (old → new) | first seed | reproduce |\n|---|---|---|---|---|\n")
	esc := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s) }
	for _, l := range []struct {
		title string
		list  []explorer.SignatureChange
	}{{"new", c.New}, {"fixed", c.Fixed}, {"unchanged", c.Unchanged}} {
		for _, s := range l.list {
			rep := ""
			if s.Replay != "" {
				rep = "`" + esc(s.Replay) + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", l.title, esc(s.Signature), rates(s), s.FirstSeed, rep)
		}
	}
	return b.String()
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
