package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"everett/debug"
	"everett/debug/gdbstub"
	"everett/emu"
	"everett/emu/board"
	"everett/explorer"
	"everett/snapshot"
)

type debugFlags struct {
	run       runFlags
	gdb       string
	listenAny bool
	node      int
	symbols   string
	every     uint64
	rspLog    string
}

func newDebugCmd() *cobra.Command {
	var f debugFlags
	cmd := &cobra.Command{
		Use:   "debug --gdb ADDR (PROGRAM.elf | --kernel Image | SNAPSHOT | REPORT.json)",
		Short: "Serve a run to gdb, forward and backward",
		Long: `Serve a run to gdb over the GDB remote protocol, with reverse execution.

TARGET is a bare-metal program (with the flags of 'everett run'), a kernel
boot (--kernel, ...), a snapshot file, or a failure report of 'everett
explore' (for a cluster, --node N picks the node whose harts gdb sees). The
run starts at its beginning (a snapshot: where it was saved) and is exactly
the run 'everett run', 'everett restore' or 'everett replay' makes.

Harts are gdb's threads (thread N is hart N-1). Breakpoints, watchpoints
(write, read, access; on virtual addresses, every hart), stepi, continue and
Ctrl-C work as usual; reverse-stepi, reverse-step, reverse-continue and
reverse-finish go backward, to the previous stop on any hart. On a report,
continue stops at the failure ("No more reverse-execution history") so that
you can go backward from it; the same at a power-off or an HTIF exit.

Going backward replays: the session takes a copy-on-write checkpoint every
--checkpoint-every instructions as the run first goes forward, and more near
where you are, and replays from the nearest one. Registers and memory can be
written; the change holds until you go back before it.

monitor commands: icount, goto N, snapshot FILE, trap, hash, points,
console, help.

The server takes one gdb connection and exits when gdb detaches. It listens
on the loopback interface unless --listen-any.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return debugMain(args, f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gdb, "gdb", "127.0.0.1:1234", "serve gdb on this address (host:port)")
	fl.BoolVar(&f.listenAny, "listen-any", false, "allow --gdb on an address other than the loopback interface")
	fl.IntVar(&f.node, "node", 0, "the node of a report's cluster whose harts gdb sees")
	fl.StringVar(&f.symbols, "symbols", "", "the symbol file gdb should load (a kernel's vmlinux); printed in the gdb command line")
	fl.Uint64Var(&f.every, "checkpoint-every", debug.DefaultEvery, "instructions between checkpoints")
	fl.StringVar(&f.rspLog, "rsp-log", "", "write every remote-protocol packet to this file")
	r := &f.run
	fl.IntVar(&r.smp, "smp", 1, "number of harts (1-64; the virt platform: 1-8)")
	fl.StringVar(&r.mem, "mem", "256MiB", "RAM size (e.g. 64MiB, 1GiB)")
	fl.Uint64Var(&r.quantum, "quantum", emu.DefaultQuantum, "instructions a hart runs before the next hart's turn")
	fl.Uint64Var(&r.seed, "seed", 0, "seed of the universe's PRNG")
	fl.StringVar(&r.kernel, "kernel", "", "boot this kernel Image on the virt platform")
	fl.StringVar(&r.initrd, "initrd", "", "initramfs to pass to the kernel")
	fl.StringVar(&r.appendArgs, "append", "console=ttyS0", "kernel command line")
	fl.StringVar(&r.bios, "bios", "", "M-mode firmware (default: "+DefaultBIOS+")")
	fl.StringVar(&r.disk, "disk", "", "disk image for virtio-blk (read-only; writes go to an in-memory overlay)")
	fl.StringVar(&r.consoleInput, "console-input", "", "feed this file to the console, from 1 virtual second on")
	addEngineFlag(fl, &r.engine)
	return cmd
}

// debugTarget is what a debug session serves, and what to tell the user.
type debugTarget struct {
	run     debug.Run
	save    func(path string, m *emu.Machine) error
	what    string // for the banner
	symbols string // the symbol file gdb should load, if known
}

func debugMain(args []string, f debugFlags, stdout, stderr io.Writer) error {
	if f.every == 0 {
		return usageErr("--checkpoint-every must be positive")
	}
	if err := checkListen(f.gdb, f.listenAny); err != nil {
		return err
	}
	t, err := openDebugTarget(args, f, stdout, stderr)
	if err != nil {
		return err
	}
	if f.symbols != "" {
		if _, err := os.Stat(f.symbols); err != nil {
			return usageErr("--symbols: %v", err)
		}
		t.symbols = f.symbols
	}
	s, err := debug.NewSession(t.run, debug.Options{Every: f.every, Save: t.save})
	if err != nil {
		return usageErr("%s: %v", t.what, err)
	}
	ln, err := net.Listen("tcp", f.gdb)
	if err != nil {
		return usageErr("--gdb %s: %v", f.gdb, err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	fmt.Fprintf(stderr, "everett: debugging %s at icount=%d\n", t.what, s.ICount())
	fmt.Fprintf(stderr, "everett: gdb server on %s; connect with:\n  gdb-multiarch -ex 'target remote %s'%s\n", addr, addr, quoteArg(t.symbols))
	conn, err := ln.Accept()
	if err != nil {
		return err
	}
	defer conn.Close()
	var o gdbstub.Options
	if f.rspLog != "" {
		lf, err := os.OpenFile(f.rspLog, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return usageErr("--rsp-log: %v", err)
		}
		defer lf.Close()
		o.Log = lf
	}
	if err := gdbstub.Serve(conn, s, o); err != nil {
		return fmt.Errorf("gdb session: %w", err)
	}
	fmt.Fprintf(stderr, "everett: gdb detached at icount=%d\n", s.ICount())
	return nil
}

// checkListen refuses an address other than the loopback interface unless
// any is set: the protocol reads and writes the guest's memory and has no
// authentication.
func checkListen(addr string, any bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErr("--gdb %q: want host:port (%v)", addr, err)
	}
	if any {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usageErr("--gdb %s is not a loopback address: the debugger reads and writes the guest without authentication; give --listen-any to serve it anyway", addr)
}

func quoteArg(s string) string {
	if s == "" {
		return ""
	}
	if strings.ContainsAny(s, " '\"\\$") {
		return " '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return " " + s
}

// openDebugTarget builds the run TARGET names.
func openDebugTarget(args []string, f debugFlags, stdout, stderr io.Writer) (*debugTarget, error) {
	if len(args) == 1 && f.run.kernel == "" {
		head := make([]byte, 8)
		if fh, err := os.Open(args[0]); err == nil {
			n, _ := io.ReadFull(fh, head)
			head = head[:n]
			fh.Close()
		}
		switch {
		case bytes.HasPrefix(head, []byte(snapshot.Magic)):
			return debugSnapshot(args[0], f, stdout)
		case bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")):
			return debugReport(args[0], f)
		}
	}
	if f.node != 0 {
		return nil, usageErr("--node is for a report's cluster")
	}
	spec, err := runSpec(args, f.run)
	if err != nil {
		return nil, err
	}
	console := debug.NewConsole(stdout)
	b, err := buildLogging(spec, f.run, console, stderr)
	if err != nil {
		return nil, err
	}
	what := args
	if spec.Board == board.BoardVirt {
		what = []string{"a boot of " + f.run.kernel}
	}
	t := &debugTarget{
		run:  debug.NewMachineRun(b.Machine, console),
		save: saveSpec(spec),
		what: fmt.Sprintf("%s (%d harts)", what[0], f.run.smp),
	}
	if spec.ELF != nil {
		t.symbols = spec.ELF.Path
	}
	return t, nil
}

// saveSpec writes snapshots of machines spec describes.
func saveSpec(spec *board.Spec) func(path string, m *emu.Machine) error {
	return func(path string, m *emu.Machine) error {
		_, err := snapshot.Write(path, recorded(spec), m.Snapshot(), nil)
		return err
	}
}

func debugSnapshot(path string, f debugFlags, stdout io.Writer) (*debugTarget, error) {
	file, err := loadSnapshot(path, snapshot.LoadOptions{})
	if err != nil {
		return nil, err
	}
	console := debug.NewConsole(stdout)
	b, err := file.Restore(board.BuildOptions{Console: console, Engine: f.run.engine.e}, false, 0)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	t := &debugTarget{
		run:  debug.NewMachineRun(b.Machine, console),
		save: saveSpec(b.Spec),
		what: fmt.Sprintf("snapshot %s (%d harts)", path, len(b.Harts())),
	}
	if file.Spec.ELF != nil {
		t.symbols = file.Spec.ELF.Path
	}
	return t, nil
}

func debugReport(path string, f debugFlags) (*debugTarget, error) {
	r, err := explorer.LoadReport(path)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	tl, err := explorer.NewTimeline(r, f.node)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	spec := tl.NodeSpec()
	t := &debugTarget{
		run:  debug.TimelineRun{Timeline: tl},
		save: saveSpec(spec),
		what: fmt.Sprintf("report %s, node %d (%d harts)", path, f.node, spec.Harts),
	}
	if spec.ELF != nil {
		t.symbols = spec.ELF.Path
	}
	return t, nil
}
