// Command everett is the command-line interface of the everett emulator. It
// is thin: flags are parsed here, and the work is done by the packages it
// calls, where tests can reach it.
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes besides the guest's own.
const (
	exitUsage    = 2   // bad command line or bad input file
	exitReboot   = 3   // the guest asked for a reboot
	exitSkipped  = 4   // litmus: some tests could not be run and were skipped
	exitInternal = 70  // a bug in everett (EX_SOFTWARE)
	exitLimit    = 124 // --max-insns reached (as timeout(1))
	exitHang     = 125 // every hart waits for an interrupt that cannot come
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, a...)}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI and returns the process exit code.
func run(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "everett: internal error: %v\nreproduce with: everett %s\n", r, strings.Join(args, " "))
			code = exitInternal
		}
	}()
	root := newRoot()
	root.SetArgs(programArgs(root, args))
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(os.Stderr, "everett: %s\n", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(os.Stderr, "everett: %v\n", err)
	return exitUsage
}

// programArgs lets `everett run|explore --linux [FLAGS] PROGRAM ARGS...`
// pass ARGS to the program as they are, flags like -test.v included: it
// puts "--" after PROGRAM (the first argument that is not a flag of the
// command or a flag's value), unless the line has one already.
func programArgs(root *cobra.Command, args []string) []string {
	cmd, rest, err := root.Find(args)
	if err != nil || (cmd.Name() != "run" && cmd.Name() != "explore") || !slices.Contains(rest, "--linux") || slices.Contains(rest, "--") {
		return args
	}
	fl := cmd.Flags()
	for i := len(args) - len(rest); i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			out := append(append(append([]string(nil), args[:i+1]...), "--"), args[i+1:]...)
			return out
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		if strings.HasPrefix(a, "--") {
			f = fl.Lookup(name)
		} else if len(name) == 1 {
			f = fl.ShorthandLookup(name)
		}
		if f != nil && f.NoOptDefVal == "" && !hasValue {
			i++ // the flag's value
		}
	}
	return args
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "everett",
		Short: "A deterministic RISC-V (RV64GC) emulator for testing distributed and concurrent systems",
		Long: `everett runs RISC-V guests where everything is a function of one seed:
harts run on one host thread, time is counted in instructions, and every
run can be replayed exactly.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newExploreCmd(), newSpecCmd(), newReplayCmd(), newBisectCmd(), newShrinkCmd())
	root.AddCommand(newRestoreCmd(), newForkCmd(), newSnapshotCmd())
	root.AddCommand(newSweepCmd(), newReportCmd())
	root.AddCommand(newLitmusCmd(), newDebugCmd())
	return root
}
