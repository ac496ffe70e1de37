package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"everett/emu"
	"everett/emu/enginecheck"
	"everett/explorer"
)

// engineValue is the --engine flag of every command that runs machines:
// interp or jit, default emu.DefaultEngine. The engine is a host setting:
// it is in no spec, snapshot, report or state hash, and results never
// depend on it.
type engineValue struct{ e emu.Engine }

func (v *engineValue) String() string { return v.e.String() }

func (v *engineValue) Set(s string) error {
	e, err := emu.ParseEngine(s)
	if err != nil {
		if s == "interp" || s == "jit" {
			return err // known, but not on this host: ParseEngine says why
		}
		return fmt.Errorf("unknown engine %q (want interp or jit)", s)
	}
	v.e = e
	return nil
}

func (v *engineValue) Type() string { return "interp|jit" }

// addEngineFlag adds --engine to fl, defaulting to emu.DefaultEngine.
func addEngineFlag(fl *pflag.FlagSet, v *engineValue) {
	v.e = emu.DefaultEngine
	fl.Var(v, "engine", "how guest code runs: interp (the interpreter) or jit (host code; linux/amd64); results never depend on it")
}

// engineStats describes what an engine did: for the JIT, the guest code
// it ran as host code (s, summed over the machines concerned) and the
// process-wide translation cache.
func engineStats(e emu.Engine, s emu.JITStats) string {
	caches := fmt.Sprintf("; %d full TLB flushes, %d ASID switches, %d block lookups after jump-cache misses (%d of a stale context)", s.Flushes, s.Switches, s.Lookups, s.Stale)
	if e != emu.EngineJIT {
		return "engine " + e.String() + caches
	}
	c := emu.JITCache()
	return fmt.Sprintf("engine jit: %d instructions run as host code, in %d entries; shared cache %d translations of %d guest bytes, %d host bytes (limit %d)",
		s.Insns, s.Entries, c.Translations, c.GuestBytes, c.HostBytes, c.Limit) + caches + exitCauses(s)
}

// exitCauses lists the JIT's exits to the run loop by cause, most
// frequent first (host bookkeeping, for --stats and explore's summary).
func exitCauses(s emu.JITStats) string {
	idx := make([]int, 0, emu.NumExitCauses)
	for i, n := range s.Exits {
		if n != 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return ""
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.Exits[idx[a]] > s.Exits[idx[b]] })
	var b strings.Builder
	b.WriteString("; exits by cause:")
	for i, c := range idx {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s %d", emu.ExitCauseName(c), s.Exits[c])
	}
	return b.String()
}

// engineNote names the engine for a summary line without per-machine
// counts (fork's): for the JIT, with the shared cache.
func engineNote(e emu.Engine) string {
	if e != emu.EngineJIT {
		return "engine " + e.String()
	}
	c := emu.JITCache()
	return fmt.Sprintf("engine jit (shared cache %d translations of %d guest bytes, %d host bytes, limit %d)", c.Translations, c.GuestBytes, c.HostBytes, c.Limit)
}

// printEngineStats prints the engine line of --stats.
func printEngineStats(w io.Writer, e emu.Engine, s emu.JITStats) {
	fmt.Fprintf(w, "everett: %s\n", engineStats(e, s))
}

// checkEngines runs two machines from build side by side, the first built
// under the interpreter and the second under the jit, comparing state
// hashes every `every` instructions up to limit (0: none): run
// --check-engines. A divergence is a bug in everett (the interpreter is the
// reference): exit code 70, naming it.
func checkEngines(build func() (*emu.Machine, error), every, limit uint64) (enginecheck.Compared, error) {
	c, div, err := enginecheck.CompareEngines(build, every, limit)
	if err != nil {
		if errors.Is(err, emu.ErrEngine) {
			return c, usageErr("--check-engines: %v", err)
		}
		return c, err
	}
	if div != nil {
		return c, &exitError{code: exitInternal, msg: "engine check failed: the jit diverges from the interpreter: " + div.Error()}
	}
	return c, nil
}

// addBootCacheFlag adds --boot-cache to a command that replays reports.
func addBootCacheFlag(fl *pflag.FlagSet, dir *string) {
	fl.StringVar(dir, "boot-cache", "",
		"keep boots on disk in this directory (e.g. "+explorer.DefaultBootCacheDir()+"): a replay of a report whose boot is there restores it instead of booting")
}

// useBootCache turns the disk boot cache on at dir ("" or "off": off),
// with its notes to stderr.
func useBootCache(dir string, stderr io.Writer) {
	if dir == "off" {
		dir = ""
	}
	explorer.SetBootCacheDir(dir, stderr)
}
