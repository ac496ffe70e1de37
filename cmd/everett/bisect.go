package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"everett/emu"
	"everett/explorer"
)

func newBisectCmd() *cobra.Command {
	var pred string
	var until uint64
	var window int
	var diverge uint64
	var divergeSet bool
	var engine engineValue
	var bootCache string
	cmd := &cobra.Command{
		Use:   "bisect REPORT.json [--predicate P]",
		Short: "Find the first instruction count at which a predicate holds",
		Long: `Bisect replays a report's universe and finds the first instruction count N at
which a predicate holds (false at N-1, true at N), using checkpoint snapshots
and binary search. Predicates:

  failure                 the report's failure (default)
  mem:ADDR==V, mem:ADDR!=V the 64-bit word at guest physical ADDR (mem8/16/32:)
                          ADDR may be a symbol of a bare-metal program
  console:/REGEX/         a node's console printed a matching line
  pc:ADDR, pc:SYMBOL      a hart is about to execute ADDR
  reg:HART:xN==V          integer register xN of hart HART (also !=)
  trap:CAUSE              a hart has taken an exception of this cause: a name
                          (load-page-fault, store-page-fault, fetch-page-fault,
                          illegal-instruction, breakpoint, load-access-fault,
                          misaligned-load, ecall-u, ...) or a number
  trap:CAUSE@TVAL         ... with this trap value (hex): the faulting address
                          of a memory fault; a report's root_trap names its own

Prefix "nodeK/" to apply a predicate to node K (default 0).

With --diverge SEED it instead compares the report's run with the same
universe forked with SEED at the report's last fork point (or its start),
and finds the first instruction count at which their states differ.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := explorer.LoadReport(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			r.Spec.SetEngine(engine.e)
			useBootCache(bootCache, cmd.ErrOrStderr())
			out := cmd.OutOrStdout()
			if divergeSet {
				d, err := explorer.Diverge(r, diverge, until)
				if err != nil {
					return usageErr("%v", err)
				}
				fmt.Fprintf(out, "first difference: icount=%d (runs start equal at %d; %d replays)\n", d.First, d.From, d.Replays)
				for _, p := range d.Components {
					fmt.Fprintf(out, "  differs: %s\n", p)
				}
				for _, x := range d.Diffs {
					fmt.Fprintf(out, "    %s\n", x)
				}
				return nil
			}
			var p *explorer.Predicate
			if pred != "" && pred != "failure" {
				p, err = explorer.ParsePredicate(pred, reportSymbols(r))
				if err != nil {
					return usageErr("--predicate: %v", err)
				}
			}
			res, err := explorer.Bisect(r, explorer.BisectOptions{Predicate: p, Until: until, Window: window})
			if err != nil {
				return usageErr("%v", err)
			}
			if !res.Found {
				fmt.Fprintf(out, "the predicate never holds up to instruction %d\n", max(until, r.ICount))
				return &exitError{code: 1}
			}
			printStep := func(w io.Writer, prefix string, s explorer.Step) {
				sym := ""
				if s.Symbol != "" {
					sym = " <" + s.Symbol + ">"
				}
				bits := fmt.Sprintf("%08x", s.Raw)
				if s.Raw&3 != 3 {
					bits = fmt.Sprintf("    %04x", s.Raw&0xffff)
				}
				trap := ""
				if s.Trapped {
					trap = "  (trapped)"
				}
				fmt.Fprintf(w, "%s%d node %d hart %d pc 0x%x%s: %s %s%s\n", prefix, s.ICount, s.Node, s.Hart, s.PC, sym, bits, s.Disasm, trap)
			}
			fmt.Fprintf(out, "first: icount=%d hart=%d pc=0x%x\n", res.First, res.At.Hart, res.At.PC)
			printStep(out, "  instruction ", res.At)
			if len(res.History) > 0 {
				fmt.Fprintf(out, "  the %d instructions before it:\n", len(res.History))
				for _, s := range res.History {
					printStep(out, "    ", s)
				}
			}
			fmt.Fprintf(out, "  (%d short replays after a forward pass with checkpoints every %d instructions)\n", res.Replays, res.Interval)
			return nil
		},
	}
	cmd.Flags().StringVar(&pred, "predicate", "", "the predicate (default: the report's failure)")
	cmd.Flags().Uint64Var(&until, "until", 0, "search up to this instruction count (default: the report's)")
	cmd.Flags().IntVar(&window, "window", 20, "instructions of history to print before the first one")
	cmd.Flags().Uint64Var(&diverge, "diverge", 0, "compare with the run forked with this seed instead")
	addEngineFlag(cmd.Flags(), &engine)
	addBootCacheFlag(cmd.Flags(), &bootCache)
	cmd.PreRun = func(cmd *cobra.Command, args []string) { divergeSet = cmd.Flags().Changed("diverge") }
	return cmd
}

// reportSymbols resolves symbols of a report's first bare-metal program.
func reportSymbols(r *explorer.Report) func(string) (uint64, bool) {
	for _, b := range r.Spec.Boards {
		if b.ELF != nil && b.ELF.Data != nil {
			e, err := emu.ParseELF(b.ELF.Data)
			if err == nil {
				return e.Symbol
			}
		}
	}
	return nil
}

func newShrinkCmd() *cobra.Command {
	var out string
	var maxReplays int
	var engine engineValue
	var bootCache string
	cmd := &cobra.Command{
		Use:   "shrink REPORT.json [--out FILE]",
		Short: "Remove decisions from a report while its failure still reproduces",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := explorer.LoadReport(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			r.Spec.SetEngine(engine.e)
			useBootCache(bootCache, cmd.ErrOrStderr())
			res, err := explorer.Shrink(r, maxReplays)
			if err != nil {
				return usageErr("%v", err)
			}
			if out == "" {
				out = strings.TrimSuffix(args[0], ".json") + ".shrunk.json"
			}
			dir, name := filepath.Split(out)
			if dir == "" {
				dir = "."
			}
			path, err := res.Report.WriteAs(dir, name)
			if err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "shrunk %s: %d decisions -> %d (%d replays)\n  reproduce with: everett replay %s\n",
				r.Signature, res.Before, res.After, res.Replays, path)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "where to write the shrunk report (default: REPORT.shrunk.json)")
	cmd.Flags().IntVar(&maxReplays, "max-replays", 200, "bound on the replays shrinking may use")
	addEngineFlag(cmd.Flags(), &engine)
	addBootCacheFlag(cmd.Flags(), &bootCache)
	return cmd
}
