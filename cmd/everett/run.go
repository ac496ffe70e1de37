package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"everett/emu"
	"everett/emu/board"
	"everett/isa"
)

type runFlags struct {
	smp      int
	maxInsns uint64
	trace    bool
	stats    bool
	mem      string
	quantum  uint64
	cpuProf  string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run PROGRAM.elf",
		Short: "Run a bare-metal RISC-V program; the exit code is the guest's",
		Long: `Run a bare-metal RV64 ELF program. Every hart starts at the entry point in
M-mode. The program reports through HTIF (its tohost/fromhost symbols): the
exit code is the guest's (0 = pass). Exit code 124: --max-insns reached;
125: every hart waits for an interrupt that cannot arrive; 2: bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProgram(args[0], f, cmd.OutOrStdout(), os.Stderr)
		},
	}
	cmd.Flags().IntVar(&f.smp, "smp", 1, "number of harts (1-64)")
	cmd.Flags().Uint64Var(&f.maxInsns, "max-insns", 0, "stop after this many instructions (all harts; 0 = no limit) with exit code 124")
	cmd.Flags().BoolVar(&f.trace, "trace", false, "print one line per instruction to stderr: count, hart, pc, bits, disassembly")
	cmd.Flags().BoolVar(&f.stats, "stats", false, "print retired instructions and guest MIPS to stderr at exit")
	cmd.Flags().StringVar(&f.mem, "mem", "256MiB", "RAM size (e.g. 64MiB, 1GiB)")
	cmd.Flags().Uint64Var(&f.quantum, "quantum", emu.DefaultQuantum, "instructions a hart runs before the next hart's turn")
	cmd.Flags().StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the emulator to this file")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	return cmd
}

func runProgram(path string, f runFlags, stdout, stderr io.Writer) error {
	if f.smp < 1 || f.smp > emu.MaxHarts {
		return usageErr("--smp %d: want 1..%d harts", f.smp, emu.MaxHarts)
	}
	if f.quantum == 0 {
		return usageErr("--quantum must be positive")
	}
	memBytes, err := parseSize(f.mem)
	if err != nil {
		return usageErr("--mem %q: %v", f.mem, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return usageErr("%v", err)
	}
	prog, err := emu.ParseELF(data)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	m, err := board.NewBareMetal(board.BareMetal{
		Harts:    f.smp,
		RAMBytes: memBytes,
		Quantum:  f.quantum,
		Console:  stdout,
	}, prog)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	var tw *bufio.Writer
	if f.trace {
		tw = bufio.NewWriterSize(stderr, 1<<16)
		defer tw.Flush()
		m.Tracer = func(h *emu.Hart, pc uint64, raw uint32, trapped bool) {
			writeTrace(tw, m, h, pc, raw, trapped)
		}
	}
	if f.cpuProf != "" {
		pf, err := os.Create(f.cpuProf)
		if err != nil {
			return usageErr("--cpuprofile: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return usageErr("--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	reason := m.Run(f.maxInsns)
	elapsed := time.Since(start)
	if tw != nil {
		tw.Flush()
	}
	if f.stats {
		var retired uint64
		for _, h := range m.Harts() {
			retired += h.Retired()
		}
		mips := float64(retired) / elapsed.Seconds() / 1e6
		fmt.Fprintf(stderr, "everett: %d instructions retired (%d slots) in %.3fs: %.1f guest MIPS\n",
			retired, m.ICount(), elapsed.Seconds(), mips)
	}
	switch reason {
	case emu.StopPowerOff:
		return exitCodeErr(m.ExitCode())
	case emu.StopLimit:
		return &exitError{code: exitLimit, msg: fmt.Sprintf("stopped after %d instructions (--max-insns)", m.ICount())}
	case emu.StopIdle, emu.StopHalted:
		return &exitError{code: exitHang, msg: fmt.Sprintf("guest hangs after %d instructions: %s", m.ICount(), reason)}
	case emu.StopReset:
		return &exitError{code: exitHang, msg: "guest asked for a reset, which a bare-metal run does not support"}
	}
	return errors.New("machine stopped: " + reason.String())
}

// exitCodeErr maps a guest exit code to a process exit code (0 stays 0; a
// nonzero code never becomes 0).
func exitCodeErr(code int) error {
	if code == 0 {
		return nil
	}
	c := code & 0xff
	if c == 0 {
		c = 1
	}
	return &exitError{code: c}
}

func writeTrace(w *bufio.Writer, m *emu.Machine, h *emu.Hart, pc uint64, raw uint32, trapped bool) {
	in := isa.Decode(raw)
	bits := fmt.Sprintf("%08x", raw)
	if in.Len == 2 {
		bits = fmt.Sprintf("    %04x", raw&0xffff)
	}
	mark := ""
	if trapped {
		mark = "  # trap"
	}
	fmt.Fprintf(w, "%d %d %016x %s %s%s\n", m.ICount(), h.ID, pc, bits, isa.Disasm(in, pc), mark)
}

// parseSize parses sizes like 4096, 64K, 64KiB, 256M, 256MiB, 1G, 1GiB.
func parseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if strings.HasSuffix(t, u.suffix) {
			t = strings.TrimSuffix(t, u.suffix)
			mult = u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("not a size (want e.g. 256MiB)")
	}
	if n > (1<<40)/mult {
		return 0, fmt.Errorf("larger than 1 TiB")
	}
	v := n * mult
	if v%4096 != 0 {
		return 0, fmt.Errorf("not a multiple of 4 KiB")
	}
	return v, nil
}
