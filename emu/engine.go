package emu

import (
	"errors"
	"fmt"
	"runtime"
)

// Engine selects how a machine executes guest code. Both engines give the
// same results, state hash for state hash: the interpreter is the
// reference, and the JIT (jit_amd64.go) translates hot decoded blocks to
// host code, falling back to the interpreter for everything it does not
// translate (see RATIONALE.md, "Why a JIT that leaves everything hard to
// the interpreter?").
type Engine uint8

// Engines.
const (
	EngineInterp Engine = iota // the interpreter (exec.go)
	EngineJIT                  // amd64 translation of hot blocks (linux/amd64 only)
)

// ErrEngine is returned for an engine this host cannot run.
var ErrEngine = errors.New("engine not available")

// DefaultEngine is the engine machines use unless told otherwise: the JIT
// where the host supports it, the interpreter elsewhere.
var DefaultEngine = func() Engine {
	if JITSupported() {
		return EngineJIT
	}
	return EngineInterp
}()

// JITSupported reports whether this host can run the JIT.
func JITSupported() bool { return jitSupported && runtime.GOARCH == "amd64" }

func (e Engine) String() string {
	switch e {
	case EngineInterp:
		return "interp"
	case EngineJIT:
		return "jit"
	}
	return fmt.Sprintf("engine(%d)", uint8(e))
}

// ParseEngine parses an engine name: "interp" or "jit".
func ParseEngine(s string) (Engine, error) {
	switch s {
	case "interp":
		return EngineInterp, nil
	case "jit":
		if !JITSupported() {
			return 0, fmt.Errorf("%w: jit needs a linux/amd64 host (this is %s/%s); use --engine interp", ErrEngine, runtime.GOOS, runtime.GOARCH)
		}
		return EngineJIT, nil
	}
	return 0, fmt.Errorf("%w: unknown engine %q (want interp or jit)", ErrEngine, s)
}

// SetEngine selects the machine's engine. The engine is a property of the
// host run, not of the guest: it is neither saved in snapshots nor hashed,
// and changing it never changes results.
func (m *Machine) SetEngine(e Engine) error {
	switch e {
	case EngineInterp:
	case EngineJIT:
		if !JITSupported() {
			return fmt.Errorf("%w: jit on %s/%s", ErrEngine, runtime.GOOS, runtime.GOARCH)
		}
	default:
		return fmt.Errorf("%w: %v", ErrEngine, e)
	}
	m.eng.asked = e
	if m.wmo != nil {
		e = EngineInterp // the JIT does not honour rvwmo (wmo.go)
	}
	m.eng.cur = e
	return nil
}

// Engine returns the machine's engine.
func (m *Machine) Engine() Engine { return m.eng.cur }

// JITStats describes what the JIT did for one machine, and how often its
// harts' TLBs and jump caches were emptied or missed (under either engine).
// Host bookkeeping: in no hash or report.
type JITStats struct {
	Entries uint64 // entries from the Go run loop into host code
	Insns   uint64 // instruction slots executed in host code
	// Flushes counts full flushes of a hart's TLBs and jump cache;
	// Switches writes of satp that changed the ASID.
	Flushes, Switches uint64
	// Lookups counts block lookups after a jump-cache miss; Stale those
	// of them whose entry had the pc but another context.
	Lookups, Stale uint64
	// Exits counts, per cause (ExitCauseName), the returns of translated
	// code to the run loop, and the blocks the run loop ran in the
	// interpreter under the JIT engine.
	Exits [NumExitCauses]uint64
}

// JITStats returns the machine's JIT statistics (Entries and Insns are zero
// under the interpreter).
func (m *Machine) JITStats() JITStats { return m.eng.stats }

// JITCacheStats describes the process-wide translation cache that all
// machines (all forks) share.
type JITCacheStats struct {
	Translations uint64 // distinct regions translated
	GuestBytes   uint64 // bytes of guest code they cover
	HostBytes    uint64 // bytes of host code
	Limit        uint64 // the cache's bound in bytes; at the bound, no more is translated
}

// MachineVersion numbers what a guest sees of the machine beyond its
// architecture: behaviour the specifications leave open (which
// translations the TLBs keep, and so when page-table A and D bits are
// set again), which the same seed must reproduce. A report or snapshot
// made under another machine version cannot be replayed exactly.
//
//	1: TLBs and jump caches emptied by every write of satp
//	2: kept per ASID (RATIONALE.md, "Why ASIDs?")
const MachineVersion = 2

// MachineChange says what machine version v changed.
func MachineChange(v int) string {
	switch v {
	case 1:
		return "TLBs emptied by every write of satp"
	case 2:
		return "TLB entries kept per ASID across writes of satp"
	}
	return "unknown"
}
