package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"everett/emu"
	"everett/emu/board"
	"everett/snapshot"
)

// The snapshot commands: run --snapshot-at, restore, fork, snapshot info
// and snapshot diff. The work is done in package snapshot.

// snapshotFlags are --snapshot-at, --snapshot-out and --snapshot-exit, of
// run and restore.
type snapshotFlags struct {
	at   uint64
	out  string
	exit bool
	full bool // restore: write a full file, not one incremental on FILE
}

func addSnapshotFlags(fl *pflag.FlagSet, s *snapshotFlags) {
	fl.Uint64Var(&s.at, "snapshot-at", 0, "stop at exactly this instruction count (all harts, from boot), save a snapshot to --snapshot-out, and go on")
	fl.StringVar(&s.out, "snapshot-out", "", "the snapshot file --snapshot-at writes (atomically: an existing file is replaced only by a whole new one)")
	fl.BoolVar(&s.exit, "snapshot-exit", false, "end the run after saving the snapshot (exit code 0)")
}

// check validates the flags against the run's limit and where it starts.
func (s *snapshotFlags) check(limit uint64, checkDet bool) error {
	return s.checkFrom(0, limit, checkDet)
}

func (s *snapshotFlags) checkFrom(icount, limit uint64, checkDet bool) error {
	switch {
	case s.at == 0 && (s.out != "" || s.exit):
		return usageErr("--snapshot-out and --snapshot-exit need --snapshot-at N")
	case s.at == 0:
		return nil
	case s.out == "":
		return usageErr("--snapshot-at needs --snapshot-out FILE")
	case s.at <= icount:
		return usageErr("--snapshot-at %d: the machine is already at %d instructions", s.at, icount)
	case limit != 0 && s.at >= limit:
		return usageErr("--snapshot-at %d is not below the instruction limit %d", s.at, limit)
	case checkDet:
		return usageErr("--snapshot-at does not go with --check-determinism or --check-engines")
	}
	return nil
}

// take runs m to exactly s.at instructions and saves a snapshot, incremental
// on parent when parent is not nil. exit reports --snapshot-exit.
func (s *snapshotFlags) take(m *emu.Machine, parent *snapshot.File, spec func() *board.Spec, stderr io.Writer) (exit bool, err error) {
	if r := m.Run(s.at); r != emu.StopLimit {
		return false, usageErr("the guest stopped (%s) after %d instructions, before --snapshot-at %d: no snapshot written", r, m.ICount(), s.at)
	}
	f, err := snapshot.Write(s.out, spec(), m.Snapshot(), parent)
	if err != nil {
		return false, usageErr("%v", err)
	}
	kind := "full"
	if parent != nil {
		kind = "incremental on " + parent.Path
	}
	fmt.Fprintf(stderr, "everett: snapshot at %d instructions written to %s (%d bytes, %s)\n", m.ICount(), s.out, f.Bytes, kind)
	return s.exit, nil
}

// recorded is spec as a snapshot records it: with its images' hashes.
func recorded(spec *board.Spec) *board.Spec {
	spec.HashImages()
	return spec
}

// loadSnapshot loads a snapshot file for the CLI: any failure is bad input
// (exit code 2), and the message says which check failed.
func loadSnapshot(path string, o snapshot.LoadOptions) (*snapshot.File, error) {
	f, err := snapshot.LoadWith(path, o)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return f, nil
}

// insnsValue is an instruction count flag: N (counted from boot, like
// every instruction count everett prints) or +N (N more than the
// snapshot's count). K, M and G multiply by 10^3, 10^6, 10^9.
type insnsValue struct {
	n   uint64
	rel bool
	set bool
}

func (v *insnsValue) String() string {
	if !v.set {
		return "0"
	}
	if v.rel {
		return "+" + strconv.FormatUint(v.n, 10)
	}
	return strconv.FormatUint(v.n, 10)
}

func (v *insnsValue) Set(s string) error {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	rel := strings.HasPrefix(t, "+")
	t = strings.TrimPrefix(t, "+")
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"K", 1e3}, {"M", 1e6}, {"G", 1e9}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n > ^uint64(0)/mult {
		return fmt.Errorf("not an instruction count (want N, +N, or e.g. 50M)")
	}
	v.n, v.rel, v.set = n*mult, rel, true
	return nil
}

func (v *insnsValue) Type() string { return "N|+N" }

// limit returns the absolute instruction limit for a machine at icount (0:
// none).
func (v *insnsValue) limit(icount uint64) (uint64, error) {
	if !v.set || v.n == 0 {
		return 0, nil
	}
	if v.rel {
		if icount > ^uint64(0)-v.n {
			return ^uint64(0), nil
		}
		return icount + v.n, nil
	}
	if v.n <= icount {
		return 0, usageErr("--max-insns %d: the snapshot is already at %d instructions (use +N for N more)", v.n, icount)
	}
	return v.n, nil
}

type restoreFlags struct {
	seed      uint64
	maxInsns  insnsValue
	stateHash bool
	stats     bool
	console   string
	snap      snapshotFlags
	engine    engineValue
}

func newRestoreCmd() *cobra.Command {
	var f restoreFlags
	cmd := &cobra.Command{
		Use:   "restore FILE",
		Short: "Continue a machine from a snapshot file",
		Long: `Restore the machine saved in a snapshot file and run it on.

The file and its parents are checked (checksum, version, architecture,
the images' hashes, the parent chain); any failure is exit code 2 with a
message that says which check failed.

Without --seed the universe continues exactly as it would have: running
'everett run ... --snapshot-at K' to its end and restoring the snapshot to
its end give the same state. With --seed S the universe's PRNG starts afresh
from S: a fork, the same past with another future. 'everett fork' runs
many seeds at once; each of its lines is reproduced by
'everett restore FILE --seed S' with the same --max-insns.

Instruction counts are counted from boot; --max-insns +N means N more than
the snapshot's. --snapshot-at N --snapshot-out OUT saves a snapshot on the
way, incremental on FILE (it records only the pages that changed) unless
--snapshot-full.

Exit codes: as 'everett run'.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return restoreMain(args[0], f, cmd.Flags().Changed("seed"), os.Stdout, os.Stderr)
		},
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.seed, "seed", 0, "reseed the universe's PRNG with this seed (a fork); without it the PRNG continues from the snapshot")
	fl.Var(&f.maxInsns, "max-insns", "stop at this instruction count (from boot; +N: N more than the snapshot's) with exit code 124")
	fl.BoolVar(&f.stateHash, "state-hash", false, "print state-hash: <hex> on stderr at exit")
	fl.BoolVar(&f.stats, "stats", false, "print retired instructions, guest MIPS and what the engine did to stderr at exit")
	fl.StringVar(&f.console, "console", "", "write the console to this file instead of stdout")
	addEngineFlag(fl, &f.engine)
	addSnapshotFlags(fl, &f.snap)
	fl.BoolVar(&f.snap.full, "snapshot-full", false, "make the --snapshot-out file a full one instead of one incremental on FILE")
	return cmd
}

func restoreMain(path string, f restoreFlags, reseed bool, stdout, stderr io.Writer) error {
	file, err := loadSnapshot(path, snapshot.LoadOptions{})
	if err != nil {
		return err
	}
	icount := file.Snap.ICount
	limit, err := f.maxInsns.limit(icount)
	if err != nil {
		return err
	}
	if err := f.snap.checkFrom(icount, limit, false); err != nil {
		return err
	}
	console, closeConsole, err := openConsole(f.console, stdout)
	if err != nil {
		return err
	}
	defer closeConsole()
	b, err := file.Restore(board.BuildOptions{Console: console, Engine: f.engine.e}, reseed, f.seed)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	m := b.Machine
	start := time.Now()
	var reason emu.StopReason
	snapExit := false
	if f.snap.at != 0 {
		parent := file
		if f.snap.full {
			parent = nil
		}
		if snapExit, err = f.snap.take(m, parent, func() *board.Spec { return b.Spec }, stderr); err != nil {
			return err
		}
	}
	if !snapExit {
		reason = m.Run(limit)
	}
	elapsed := time.Since(start)
	closeConsole() // what the guest printed comes before what everett says of it
	if f.stats {
		printStats(stderr, m, elapsed)
		printEngineStats(stderr, m.Engine(), m.JITStats())
		printModelNote(stderr, m)
	}
	if f.stateHash {
		fmt.Fprintf(stderr, "state-hash: %016x\n", m.StateHash())
	}
	if snapExit {
		return nil
	}
	return exitFor(m, reason)
}

type forkFlags struct {
	seeds      string
	workers    int
	maxInsns   insnsValue
	consoleDir string
	engine     engineValue
}

func newForkCmd() *cobra.Command {
	var f forkFlags
	cmd := &cobra.Command{
		Use:   "fork FILE --seeds A..B",
		Short: "Run one universe per seed from a snapshot, across host cores",
		Long: `Fork a snapshot into one universe per seed and run them all.

Every universe is restored from the same in-memory snapshot (sharing its
pages until it writes them), its PRNG reseeded with its seed, and run on
one of --workers goroutines (default: the number of host CPUs) until it
stops or reaches --max-insns. Then one line per seed, in seed order, goes to
stdout:

  seed=S outcome=power-off exit=0 insns=N state-hash=H

exit is the exit code 'everett restore FILE --seed S' gives for that
universe (as 'everett run': the guest's, 3 reboot, 124 limit, 125 hang),
and that command reproduces the line exactly. The lines do not depend on
the number of workers. A summary (universes, universes per second,
distinct outcomes) goes to stderr. Consoles are discarded unless
--console-dir DIR, which gets one file per seed (seed-S.console).

--seeds takes A..B (inclusive), a single seed, or a comma-separated list of
both. Exit code: 0 when every universe ran (whatever its outcome), 2 when
one could not be restored.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return forkMain(args[0], f, os.Stdout, os.Stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.seeds, "seeds", "", "the seeds: A..B, S, or a comma-separated list of both")
	fl.IntVar(&f.workers, "workers", 0, "goroutines running universes (default: runtime.NumCPU())")
	fl.Var(&f.maxInsns, "max-insns", "stop each universe at this instruction count (from boot; +N: N more than the snapshot's)")
	fl.StringVar(&f.consoleDir, "console-dir", "", "write each universe's console to DIR/seed-S.console")
	addEngineFlag(fl, &f.engine)
	return cmd
}

// parseSeeds parses A..B, S, and comma-separated lists of both.
func parseSeeds(s string) ([]uint64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("no seeds (want e.g. --seeds 1..100)")
	}
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "..")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed or a range A..B", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range A..B with A <= B", part)
			}
		}
		if b-a >= snapshot.MaxForkSeeds || uint64(len(out))+b-a+1 > snapshot.MaxForkSeeds {
			return nil, fmt.Errorf("more than %d seeds", snapshot.MaxForkSeeds)
		}
		for v := a; ; v++ {
			out = append(out, v)
			if v == b {
				break
			}
		}
	}
	return out, nil
}

func forkMain(path string, f forkFlags, stdout, stderr io.Writer) error {
	seeds, err := parseSeeds(f.seeds)
	if err != nil {
		return usageErr("--seeds: %v", err)
	}
	if f.workers < 0 {
		return usageErr("--workers %d: want a positive number (0: one per CPU)", f.workers)
	}
	workers := f.workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	file, err := loadSnapshot(path, snapshot.LoadOptions{})
	if err != nil {
		return err
	}
	limit, err := f.maxInsns.limit(file.Snap.ICount)
	if err != nil {
		return err
	}
	cfg := snapshot.ForkConfig{Spec: file.Spec, Snap: file.Snap, Seeds: seeds, Workers: workers, Limit: limit, Engine: f.engine.e}
	if f.consoleDir != "" {
		if err := os.MkdirAll(f.consoleDir, 0o755); err != nil {
			return usageErr("--console-dir: %v", err)
		}
		cfg.Console = func(seed uint64) (io.WriteCloser, error) {
			return os.Create(filepath.Join(f.consoleDir, fmt.Sprintf("seed-%d.console", seed)))
		}
	}
	start := time.Now()
	outs, err := snapshot.Fork(cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	elapsed := time.Since(start)
	w := bufio.NewWriter(stdout)
	outcomes, states := map[string]bool{}, map[uint64]bool{}
	failed := 0
	for _, o := range outs {
		if o.Err != nil {
			failed++
			fmt.Fprintf(w, "seed=%d error=%q\n", o.Seed, o.Err.Error())
			continue
		}
		name, code := outcomeOf(o)
		fmt.Fprintf(w, "seed=%d outcome=%s exit=%d insns=%d state-hash=%016x\n", o.Seed, name, code, o.ICount, o.StateHash)
		outcomes[fmt.Sprintf("%s exit=%d", name, code)] = true
		states[o.StateHash] = true
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "fork: %d universes from %d instructions in %.3fs on %d workers: %.2f universes/s; %d distinct outcomes (stop reason and exit code), %d distinct final states; %s\n",
		len(outs), file.Snap.ICount, elapsed.Seconds(), min(workers, len(seeds)), float64(len(outs))/elapsed.Seconds(), len(outcomes), len(states), engineNote(f.engine.e))
	if failed > 0 {
		return usageErr("%d of %d universes could not be restored", failed, len(outs))
	}
	return nil
}

// outcomeOf names how a universe stopped and the exit code `everett
// restore` gives for it (exitFor's mapping).
func outcomeOf(o snapshot.Outcome) (string, int) {
	switch o.Reason {
	case emu.StopPowerOff:
		code := 0
		if o.ExitCode != 0 {
			if code = o.ExitCode & 0xff; code == 0 {
				code = 1
			}
		}
		return "power-off", code
	case emu.StopLimit:
		return "limit", exitLimit
	case emu.StopIdle, emu.StopHalted:
		return "hang", exitHang
	case emu.StopReset:
		return "reboot", exitReboot
	}
	return "stopped", exitInternal
}

func newSnapshotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Describe and compare snapshot files",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "info FILE",
		Short: "Describe a snapshot file: format, machine, images, parent chain, pages",
		Long: `Describe a snapshot file: its format version and architecture, the
machine (board, harts, RAM), its instruction count, its images with their
hashes and whether the files still match them, the chain of parents, and
its pages and sizes. The file and its parents are checked as 'restore'
checks them, except that changed or missing images are reported, not
refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return infoMain(args[0], os.Stdout)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "diff A B",
		Short: "Compare two snapshots: machine, component state, RAM pages",
		Long: `Compare two snapshot files: the machines' descriptions, which components'
state differs (machine core, each hart, the PRNG, each device), and which
RAM pages differ, counted and given as physical address ranges.

Exit code: 0 when the snapshots are the same state, 1 when they differ,
2 when a file does not load.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return diffMain(args[0], args[1], os.Stdout)
		},
	})
	return cmd
}

func infoMain(path string, stdout io.Writer) error {
	f, err := loadSnapshot(path, snapshot.LoadOptions{SkipImages: true})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	s, c := f.Spec, f.Snap.Config
	fmt.Fprintf(w, "file:          %s (%d bytes)\n", f.Path, f.Bytes)
	fmt.Fprintf(w, "format:        everett snapshot version %d, %s\n", snapshot.Version, snapshot.Arch)
	fmt.Fprintf(w, "checksum:      sha256:%x\n", f.ID)
	fmt.Fprintf(w, "config hash:   sha256:%x\n", f.ConfigHash)
	fmt.Fprintf(w, "board:         %s, %d harts, %s of RAM at %#x, quantum %d, %d instructions per mtime tick\n",
		s.Board, c.Harts, sizeString(c.RAMBytes), c.RAMBase, c.Quantum, c.InsnsPerTick)
	if s.Append != "" {
		fmt.Fprintf(w, "command line:  %s\n", s.Append)
	}
	fmt.Fprintf(w, "memory model:  %s\n", modelName(s))
	fmt.Fprintf(w, "seed:          %d (the seed it was built with)\n", s.Seed)
	fmt.Fprintf(w, "instructions:  %d\n", f.Snap.ICount)
	fmt.Fprintf(w, "components:    %s\n", strings.Join(f.Snap.Components, " "))
	for _, im := range s.Images() {
		fmt.Fprintf(w, "image:         %-13s sha256:%s %s (%s)\n", im.Name, im.Im.SHA256, im.Im.Path, imageStatus(im.Im))
	}
	total := 0
	f.Snap.Pages(func(emu.Page) { total++ })
	if f.Parent == nil {
		fmt.Fprintf(w, "parent chain:  none (a full snapshot)\n")
	} else {
		for p := f.Parent; p != nil; p = p.Parent {
			kind := "incremental"
			if p.Parent == nil {
				kind = "full"
			}
			fmt.Fprintf(w, "parent:        %s (sha256:%x…, %s, %d instructions)\n", p.Path, p.ID[:8], kind, p.Snap.ICount)
		}
	}
	fmt.Fprintf(w, "pages:         %d with data and %d zero in this file (%s); %d in the snapshot\n",
		f.DataPages, f.ZeroPages, sizeString(uint64(f.DataPages)*emu.PageBytes), total)
	fmt.Fprintf(w, "compressed:    state %d bytes, pages %d bytes\n", f.StateBytes, f.PageBytes)
	return nil
}

// modelName names the memory model a snapshot's spec records ("" is sc).
func modelName(s *board.Spec) string {
	if mm, err := s.Model(); err == nil {
		return mm.String()
	}
	return fmt.Sprintf("%q (unknown: restore will refuse it)", s.MemoryModel)
}

// imageStatus checks an image file against its recorded hash, as restore
// will (board.Image.Load).
func imageStatus(im *board.Image) string {
	err := (&board.Image{Path: im.Path, SHA256: im.SHA256}).Load()
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, os.ErrNotExist):
		return "missing"
	case errors.Is(err, board.ErrImageChanged):
		return "changed: restore will refuse it"
	}
	return err.Error()
}

func sizeString(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func diffMain(pa, pb string, stdout io.Writer) error {
	a, err := loadSnapshot(pa, snapshot.LoadOptions{})
	if err != nil {
		return err
	}
	b, err := loadSnapshot(pb, snapshot.LoadOptions{})
	if err != nil {
		return err
	}
	d, err := snapshot.Compare(a, b)
	if err != nil {
		return usageErr("%v", err)
	}
	w := bufio.NewWriter(stdout)
	for _, c := range d.Config {
		fmt.Fprintf(w, "machine:      %s\n", c)
	}
	if d.ICountA != d.ICountB {
		fmt.Fprintf(w, "instructions: %d → %d\n", d.ICountA, d.ICountB)
	}
	if len(d.Components) > 0 {
		fmt.Fprintf(w, "state:        %s differ\n", strings.Join(d.Components, ", "))
	}
	if d.Pages > 0 {
		base := a.Snap.Config.RAMBase
		var rs []string
		for i, r := range d.Ranges {
			if i == 16 {
				rs = append(rs, fmt.Sprintf("and %d more ranges", len(d.Ranges)-16))
				break
			}
			lo := base + r.First*emu.PageBytes
			rs = append(rs, fmt.Sprintf("%#x-%#x", lo, lo+r.Count*emu.PageBytes-1))
		}
		fmt.Fprintf(w, "ram:          %d pages (%s) differ in %d ranges: %s\n", d.Pages, sizeString(uint64(d.Pages)*emu.PageBytes), len(d.Ranges), strings.Join(rs, " "))
	}
	if d.Same() {
		fmt.Fprintf(w, "same: the snapshots hold the same state\n")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if !d.Same() {
		return &exitError{code: 1}
	}
	return nil
}
