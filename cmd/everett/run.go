package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"everett/devices/sdk"
	"everett/emu"
	"everett/emu/board"
	"everett/emu/enginecheck"
	"everett/explorer"
	"everett/internal/hostfile"
	"everett/isa"
)

// DefaultBIOS is where Debian's opensbi package installs the firmware.
const DefaultBIOS = board.DefaultBIOS

type runFlags struct {
	smp      int
	maxInsns uint64
	trace    bool
	stats    bool
	mem      string
	quantum  uint64
	seed     uint64
	cpuProf  string

	kernel       string
	initrd       string
	appendArgs   string
	bios         string
	disk         string
	diskPersist  bool
	console      string
	consoleInput string

	linux bool // run args as a workload on the bundled kernel

	stateHash    bool
	checkDet     bool
	checkEngines bool
	checkEvery   uint64
	engine       engineValue
	memModel     string

	snap snapshotFlags // --snapshot-at, --snapshot-out, --snapshot-exit
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [PROGRAM.elf] [--kernel Image ...] [--linux PROGRAM [ARGS...]]",
		Short: "Run a bare-metal program, or boot a kernel under OpenSBI",
		Long: `Run a bare-metal RV64 ELF program, or boot a Linux kernel on the virt platform.

A bare-metal program starts on every hart at its entry point in M-mode and
reports through HTIF (its tohost/fromhost symbols); the exit code is the
guest's (0 = pass).

With --kernel, the machine is QEMU-virt compatible: OpenSBI (--bios, default
Debian's fw_dynamic.bin) starts in M-mode and enters the kernel in S-mode.
A guest power-off ends the run with the guest's exit code (0).

With --linux, PROGRAM is a static riscv64 Linux program (or a folder, tar
archive or OCI image, with a command to run in it): everett boots its bundled
kernel (built and cached on first use) with an initramfs of the program and
everett's own init, which runs it with ARGS, reports how it ended, and
powers off with its exit code (128+N when signal N killed it, 125 when its
threads deadlocked). ARGS that start with '-' go after '--'.

With --snapshot-at N --snapshot-out FILE, the machine stops at exactly N
instructions (all harts), saves a snapshot to FILE (atomically), and the run
goes on as if it had not stopped; --snapshot-exit ends the run there (exit
code 0). Continue it with 'everett restore FILE', fork it with 'everett fork'.

Exit codes: the guest's; 3: the guest rebooted; 124: --max-insns reached;
125: every hart waits for an interrupt that cannot arrive; 2: bad input;
70: a bug in everett (e.g. --check-determinism or --check-engines found a
divergence).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.linux {
				if err := linuxInputs(args, &f, cmd.Flags().Changed("append")); err != nil {
					return err
				}
				args = nil
			} else if len(args) > 1 {
				return usageErr("one PROGRAM.elf (a Linux program and its arguments need --linux)")
			}
			return runMain(args, f, cmd.OutOrStdout(), os.Stderr)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.smp, "smp", 1, "number of harts (1-64; the virt platform: 1-8)")
	fl.Uint64Var(&f.maxInsns, "max-insns", 0, "stop after this many instructions (all harts; 0 = no limit) with exit code 124")
	fl.BoolVar(&f.trace, "trace", false, "print one line per instruction to stderr: count, hart, pc, bits, disassembly")
	fl.BoolVar(&f.stats, "stats", false, "print retired instructions, guest MIPS and what the engine did to stderr at exit")
	fl.StringVar(&f.mem, "mem", "256MiB", "RAM size (e.g. 64MiB, 1GiB)")
	fl.Uint64Var(&f.quantum, "quantum", emu.DefaultQuantum, "instructions a hart runs before the next hart's turn")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the universe's PRNG (virtio-rng, and later every scheduling and fault decision)")
	fl.StringVar(&f.kernel, "kernel", "", "boot this kernel Image on the virt platform")
	fl.BoolVar(&f.linux, "linux", false, "run PROGRAM [ARGS...] (a static riscv64 Linux program, or a folder, tar or OCI image) under everett's init on the bundled kernel")
	fl.StringVar(&f.initrd, "initrd", "", "initramfs to pass to the kernel")
	fl.StringVar(&f.appendArgs, "append", "console=ttyS0", "kernel command line")
	fl.StringVar(&f.bios, "bios", "", "M-mode firmware (default: "+DefaultBIOS+")")
	fl.StringVar(&f.disk, "disk", "", "disk image for virtio-blk (read-only; writes go to an in-memory overlay)")
	fl.BoolVar(&f.diskPersist, "disk-persist", false, "write the disk overlay back to --disk at exit")
	fl.StringVar(&f.console, "console", "", "write the console to this file instead of stdout")
	fl.StringVar(&f.consoleInput, "console-input", "", "feed this file to the console, from 1 virtual second on, one byte per 100 virtual µs")
	fl.BoolVar(&f.stateHash, "state-hash", false, "print state-hash: <hex> (harts, memory, devices, disk, clock, PRNG) on stderr at exit")
	fl.BoolVar(&f.checkDet, "check-determinism", false, "run the machine twice side by side and compare state hashes every --check-every instructions")
	fl.BoolVar(&f.checkEngines, "check-engines", false, "run the machine under the interpreter and the jit side by side and compare state hashes every --check-every instructions")
	fl.Uint64Var(&f.checkEvery, "check-every", 1_000_000, "checkpoint interval of --check-determinism and --check-engines, in instructions")
	addEngineFlag(fl, &f.engine)
	fl.StringVar(&f.memModel, "memory-model", "sc", "memory model: sc, or rvwmo (per-hart store buffers and deferred loads drawn from --seed; runs in the interpreter)")
	addSnapshotFlags(fl, &f.snap)
	fl.StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the emulator to this file")
	_ = fl.MarkHidden("cpuprofile")
	return cmd
}

// runSpec turns run's flags and arguments into the spec of the machine
// they describe, its images read (once, before the machine starts) and
// their paths absolute, so that a snapshot of it restores from any folder.
// board.Build builds it; HashImages is left to whoever records it.
func runSpec(args []string, f runFlags) (*board.Spec, error) {
	if f.smp < 1 || f.smp > emu.MaxHarts {
		return nil, usageErr("--smp %d: want 1..%d harts", f.smp, emu.MaxHarts)
	}
	if f.quantum == 0 {
		return nil, usageErr("--quantum must be positive")
	}
	memBytes, err := parseSize(f.mem)
	if err != nil {
		return nil, usageErr("--mem %q: %v", f.mem, err)
	}
	mm, err := emu.ParseMemoryModel(f.memModel)
	if err != nil {
		return nil, usageErr("--memory-model: %v", err)
	}
	s := &board.Spec{Harts: f.smp, RAMBytes: memBytes, Quantum: f.quantum, Seed: f.seed}
	if mm != emu.ModelSC {
		s.MemoryModel = mm.String() // sc stays unwritten: the spec of an sc run is what it was before the field
	}
	switch {
	case f.kernel != "" && len(args) > 0:
		return nil, usageErr("give either a bare-metal PROGRAM.elf or --kernel, not both")
	case f.kernel == "" && len(args) == 0:
		return nil, usageErr("nothing to run: give a PROGRAM.elf or --kernel Image")
	case f.kernel == "":
		for _, fl := range []struct{ name, v string }{{"--initrd", f.initrd}, {"--bios", f.bios}, {"--disk", f.disk}, {"--console-input", f.consoleInput}} {
			if fl.v != "" {
				return nil, usageErr("%s needs --kernel (a bare-metal program has no such device)", fl.name)
			}
		}
		s.Board = board.BoardBareMetal
		if s.ELF, err = readImage("", args[0]); err != nil {
			return nil, err
		}
		// Refused here, before any output file is made (board.Build
		// parses it again: headers and segments, cheap).
		if _, err := emu.ParseELF(s.ELF.Data); err != nil {
			return nil, usageErr("%s: %v", args[0], err)
		}
		return s, nil
	}
	if f.smp > 8 {
		return nil, usageErr("--smp %d: the virt platform has 1..8 harts", f.smp)
	}
	s.Board = board.BoardVirt
	s.Append = f.appendArgs
	if s.Kernel, err = readImage("--kernel", f.kernel); err != nil {
		return nil, err
	}
	bios := f.bios
	if bios == "" {
		bios = DefaultBIOS
		if _, err := os.Stat(bios); err != nil {
			return nil, usageErr("no --bios given and OpenSBI is not installed at %s (apt-get install opensbi, or pass --bios FILE)", bios)
		}
	}
	if s.BIOS, err = readImage("--bios", bios); err != nil {
		return nil, err
	}
	if f.initrd != "" {
		if s.Initrd, err = readImage("--initrd", f.initrd); err != nil {
			return nil, err
		}
	}
	if f.disk != "" {
		if s.Disk, err = readImage("--disk", f.disk); err != nil {
			return nil, err
		}
		if n := len(s.Disk.Data); n%512 != 0 || n == 0 {
			return nil, usageErr("--disk %s: size %d is not a positive multiple of 512 bytes", f.disk, n)
		}
	} else if f.diskPersist {
		return nil, usageErr("--disk-persist needs --disk")
	}
	if f.consoleInput != "" {
		if s.ConsoleInput, err = readImage("--console-input", f.consoleInput); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readImage reads the image a flag names (flag "": the program argument)
// into a board.Image with its absolute path.
func readImage(flag, path string) (*board.Image, error) {
	b, err := hostfile.ReadOnce(path)
	if err != nil {
		if flag == "" {
			return nil, usageErr("%v", err)
		}
		return nil, usageErr("%s: %v", flag, err)
	}
	if ap, err := filepath.Abs(path); err == nil {
		path = ap
	}
	return board.ImageOf(path, b), nil
}

func build(spec *board.Spec, f runFlags, console io.Writer) (*board.Built, error) {
	return buildLogging(spec, f, console, os.Stderr)
}

// buildTwin builds the second machine of --check-determinism and
// --check-engines: its console goes to console and its SDK messages
// nowhere (the first machine prints them).
func buildTwin(spec *board.Spec, f runFlags, console io.Writer) (*board.Built, error) {
	return buildLogging(spec, f, console, io.Discard)
}

// buildLogging builds the machine spec describes with board.Build, under
// --engine, with its SDK messages going to sdkLog.
func buildLogging(spec *board.Spec, f runFlags, console, sdkLog io.Writer) (*board.Built, error) {
	// The SDK sink is attached after the machine exists (it needs its PRNG
	// and power); logSink forwards to it.
	ls := &lateSink{w: sdkLog}
	b, err := board.Build(spec, board.BuildOptions{Console: console, SDK: ls, Engine: f.engine.e})
	if err != nil {
		if errors.Is(err, emu.ErrEngine) {
			return nil, usageErr("--engine: %v", err)
		}
		return nil, usageErr("%v", err)
	}
	ls.LogSink = sdk.LogSink{W: sdkLog, Rand: b.PRNG, Power: b.Machine}
	return b, nil
}

// lateSink is a LogSink filled in once the machine exists.
type lateSink struct {
	sdk.LogSink
	w io.Writer
}

// linuxInputs turns `run --linux PROGRAM ARGS...` into the kernel, the
// initramfs everett builds and the command line: the one-node spec that
// `explore --linux` would use.
func linuxInputs(args []string, f *runFlags, appendSet bool) error {
	if f.kernel != "" || f.initrd != "" {
		return usageErr("--linux brings its own kernel and initramfs: give no --kernel or --initrd")
	}
	explorer.BuildProgress = func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	s, err := explorer.LinuxSpec(args, f.smp, 1)
	if err != nil {
		return usageErr("%v", err)
	}
	b := s.Boards()[0]
	f.kernel, f.initrd = b.Kernel.Path, b.Initrd.Path
	if appendSet {
		f.appendArgs += " everett.node=0"
	} else {
		f.appendArgs = b.Append
	}
	return nil
}

func runMain(args []string, f runFlags, stdout, stderr io.Writer) error {
	spec, err := runSpec(args, f)
	if err != nil {
		return err
	}
	if err := f.snap.check(f.maxInsns, f.checkDet || f.checkEngines); err != nil {
		return err
	}
	if f.checkDet && f.checkEngines {
		return usageErr("--check-determinism and --check-engines do not go together (--check-engines compares two runs too)")
	}
	if (f.checkDet || f.checkEngines) && f.checkEvery == 0 {
		return usageErr("--check-every must be positive")
	}
	if spec.MemoryModel == emu.ModelRVWMO.String() && f.checkEngines {
		return usageErr("--check-engines does not go with --memory-model rvwmo (rvwmo runs in the interpreter only)")
	}
	console, closeConsole, err := openConsole(f.console, stdout)
	if err != nil {
		return err
	}
	defer closeConsole()
	b, err := build(spec, f, console)
	if err != nil {
		return err
	}
	m := b.Machine
	var tw *bufio.Writer
	if f.trace {
		tw = bufio.NewWriterSize(stderr, 1<<16)
		defer tw.Flush()
		m.Tracer = func(h *emu.Hart, pc uint64, raw uint32, trapped bool) {
			writeTrace(tw, m, h, pc, raw, trapped)
		}
	}
	if f.cpuProf != "" {
		stop, err := startCPUProfile(f.cpuProf)
		if err != nil {
			return err
		}
		defer stop()
	}

	start := time.Now()
	var reason emu.StopReason
	snapExit := false     // --snapshot-exit: the run ends at the snapshot
	var twin *emu.Machine // --check-engines: the machine under the jit
	switch {
	case f.checkEngines:
		// The machine built above runs under the interpreter (with the
		// console and --trace), a twin under the jit.
		var out2 bytes.Buffer
		var c enginecheck.Compared
		c, err = checkEngines(func() (*emu.Machine, error) {
			if twin == nil {
				twin = m
				return m, nil
			}
			t, err := buildTwin(spec, f, &out2)
			if err != nil {
				return nil, err
			}
			twin = t.Machine
			return twin, nil
		}, f.checkEvery, f.maxInsns)
		if err != nil {
			return err
		}
		reason = c.Reason
		if c.HostInsns == 0 {
			// Nothing ran as host code: the interpreter was compared
			// with itself.
			return &exitError{code: 1, msg: fmt.Sprintf("engine check inconclusive: the jit ran none of the %d instructions as host code (a longer run, --max-insns, gives it hot code to translate)", m.ICount())}
		}
		fmt.Fprintf(stderr, "everett: engine check passed: interp and jit agree at every checkpoint (every %d instructions, %d in all, %d of them as host code)\n",
			f.checkEvery, m.ICount(), c.HostInsns)
	case f.checkDet:
		var out2 bytes.Buffer
		again, err := buildTwin(spec, f, &out2)
		if err != nil {
			return err
		}
		var div *enginecheck.Divergence
		reason, div = enginecheck.CompareRuns(m, again.Machine, f.checkEvery, f.maxInsns)
		if div != nil {
			return &exitError{code: exitInternal, msg: "determinism check failed: " + div.Error()}
		}
		fmt.Fprintf(stderr, "everett: determinism check passed: two runs agree at every checkpoint (every %d instructions, %d in all)\n",
			f.checkEvery, m.ICount())
	default:
		m.OnlyMachine()
		relaxGC()
		if f.snap.at != 0 {
			if snapExit, err = f.snap.take(m, nil, func() *board.Spec { return recorded(spec) }, stderr); err != nil {
				return err
			}
		}
		if !snapExit {
			reason = m.Run(f.maxInsns)
		}
	}
	elapsed := time.Since(start)
	closeConsole() // what the guest printed comes before what everett says of it
	if tw != nil {
		tw.Flush()
	}
	if f.stats {
		printStats(stderr, m, elapsed)
		printEngineStats(stderr, m.Engine(), m.JITStats())
		printModelNote(stderr, m)
		if twin != nil && twin != m {
			printEngineStats(stderr, twin.Engine(), twin.JITStats())
		}
	}
	if f.stateHash {
		fmt.Fprintf(stderr, "state-hash: %016x\n", m.StateHash())
	}
	if f.diskPersist && b.Virt != nil && b.Virt.Blk != nil {
		if err := persistDisk(spec.Disk.Path, b.Virt); err != nil {
			return usageErr("--disk-persist: %v", err)
		}
	}
	if snapExit {
		return nil
	}
	return exitFor(m, reason)
}

// printStats prints what --stats promises: instructions, guest MIPS,
// virtual time.
func printStats(stderr io.Writer, m *emu.Machine, elapsed time.Duration) {
	var retired uint64
	for _, h := range m.Harts() {
		retired += h.Retired()
	}
	mips := float64(retired) / elapsed.Seconds() / 1e6
	fmt.Fprintf(stderr, "everett: %d instructions retired (%d slots) in %.3fs: %.1f guest MIPS; virtual time %.3fs\n",
		retired, m.ICount(), elapsed.Seconds(), mips, float64(m.Now())/1e9)
}

// printModelNote says, with --stats, that an rvwmo machine ran in the
// interpreter.
func printModelNote(stderr io.Writer, m *emu.Machine) {
	if m.MemoryModel() == emu.ModelRVWMO {
		fmt.Fprintln(stderr, "everett: memory model rvwmo: the interpreter ran every block (the jit does not honour the model)")
	}
}

// persistDisk writes the blocks the guest changed back to the disk file.
func persistDisk(path string, vm *board.VirtMachine) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	for _, blk := range vm.Blk.Overlay() {
		if _, err := f.WriteAt(blk.Data, int64(blk.Off)); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func exitFor(m *emu.Machine, reason emu.StopReason) error {
	switch reason {
	case emu.StopPowerOff:
		return exitCodeErr(m.ExitCode())
	case emu.StopLimit:
		return &exitError{code: exitLimit, msg: fmt.Sprintf("stopped after %d instructions (--max-insns)", m.ICount())}
	case emu.StopIdle, emu.StopHalted:
		return &exitError{code: exitHang, msg: fmt.Sprintf("guest hangs after %d instructions: %s", m.ICount(), reason)}
	case emu.StopReset:
		return &exitError{code: exitReboot, msg: fmt.Sprintf("guest asked for a reboot after %d instructions; the run ends there", m.ICount())}
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

// parseSize parses a RAM size (see board.ParseSize).
func parseSize(s string) (uint64, error) { return board.ParseSize(s) }

// openConsole returns the guest console's writer: stdout, line-buffered
// (flushed by the returned function), or a buffered file (flushed and
// closed by it).
func openConsole(path string, stdout io.Writer) (io.Writer, func(), error) {
	if path == "" {
		lw := &lineWriter{w: stdout}
		return lw, func() { lw.Flush() }, nil
	}
	cf, err := os.Create(path)
	if err != nil {
		return nil, nil, usageErr("--console: %v", err)
	}
	bw := bufio.NewWriter(cf)
	closed := false
	return bw, func() {
		if !closed {
			closed = true
			bw.Flush()
			cf.Close()
		}
	}, nil
}

// lineWriter buffers a console up to the end of each line (or
// lineWriterMax bytes), so that the console costs one write a line, not a
// write a byte: a guest's UART prints one byte per register write.
type lineWriter struct {
	w   io.Writer
	buf []byte
	err error
}

const lineWriterMax = 4 << 10

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 || len(l.buf) >= lineWriterMax {
		if i < 0 || len(l.buf) >= lineWriterMax {
			i = len(l.buf) - 1
		}
		if _, err := l.w.Write(l.buf[:i+1]); err != nil && l.err == nil {
			l.err = err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(p), nil
}

// Flush writes what is buffered and returns the first write error.
func (l *lineWriter) Flush() error {
	if len(l.buf) > 0 {
		if _, err := l.w.Write(l.buf); err != nil && l.err == nil {
			l.err = err
		}
		l.buf = l.buf[:0]
	}
	return l.err
}

// startCPUProfile writes a Go CPU profile to path (the hidden --cpuprofile
// flag of run and explore) until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, usageErr("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, usageErr("--cpuprofile: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		pf.Close()
	}, nil
}
