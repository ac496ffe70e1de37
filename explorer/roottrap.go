package explorer

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"everett/emu"
	"everett/emu/board"
	"everett/isa"
)

// Root traps: when a guest process dies of a signal, the kernel panics or
// a bare-metal program fails, the report names the exception that led
// there, so that bisecting the failure can start from the faulting
// instruction rather than from the console line that reported it.
//
// Each node keeps, per hart, the chain of traps whose handlers have not
// returned yet: a trap pushes, an xRET pops the innermost entry handled at
// the level it returns from, and a trap taken from U-mode starts a new
// chain (nothing can be pending below user code on
// that hart). A demand-paging fault therefore lives only until its sret;
// the fault that kills a process is still there when the kernel prints
// why, and so is the first fault of a bare-metal trap storm.

// RootTrap is the exception a failure is traced back to.
type RootTrap struct {
	// ICount is the universe's instruction count at which the trap is
	// taken: bisect --predicate trap:CAUSE@TVAL lands here.
	ICount    uint64 `json:"icount"`
	Node      int    `json:"node"`
	Hart      int    `json:"hart"`
	Priv      string `json:"priv"` // the privilege it was taken from: U, S or M
	PC        string `json:"pc"`   // the faulting instruction, 0x hex
	Cause     uint64 `json:"cause"`
	CauseName string `json:"cause_name"`
	Tval      string `json:"tval"` // 0x hex
	Symbol    string `json:"symbol,omitempty"`
	// Why says how it was chosen.
	Why string `json:"why"`
	// Predicate is the bisect predicate that finds it.
	Predicate string `json:"predicate"`
}

// String is the one-line form failure output prints.
func (r *RootTrap) String() string {
	sym := ""
	if r.Symbol != "" {
		sym = " <" + r.Symbol + ">"
	}
	return fmt.Sprintf("%s (cause %d) from %s-mode at pc %s%s, tval %s: node %d hart %d, instruction %d (%s)",
		r.CauseName, r.Cause, r.Priv, r.PC, sym, r.Tval, r.Node, r.Hart, r.ICount, r.Why)
}

// Bounds of the trap chains.
const (
	trapChainMax = 32 // per hart; when full, the newest entry replaces the last
)

// trapEntry is one trap of a chain.
type trapEntry struct {
	emu.Trap
	at   uint64 // the universe's instruction count at which it was taken
	satp uint64 // the address space it was taken in
	seq  uint64 // the node's trap and return events before it
}

// trapTap is a node's trap observer.
type trapTap struct {
	u      *Universe
	node   int
	chains [][]trapEntry // per hart, outermost first
	// diverted are the node's latest user exceptions whose handler did
	// not return to the faulting instruction (a signal was delivered, or
	// the process died, or another process runs now), newest last: what
	// a death by a signal reported by everett's init is traced to, long
	// after the hart has left the chain it died in.
	diverted []trapEntry
	// lastUser is, per address space (satp), the seq of the node's latest
	// return to U-mode in it: a diverted exception after which its
	// address space never ran user code again killed its process.
	lastUser map[uint64]uint64
	seq      uint64
}

// lastUserMax bounds the address spaces a node remembers; past it they
// are forgotten (a fork-bombing guest costs bounded memory).
const lastUserMax = 4096

// divertedMax bounds a node's diverted exceptions.
const divertedMax = 16

// candidate reports whether the entry may be a root trap: an exception
// other than an ecall. Interrupts and ecalls are in the chains only so
// that the xRETs that end them pop them and not a fault beneath.
func (e *trapEntry) candidate() bool {
	c := e.Cause
	return !e.Interrupt && c != emu.CauseEcallU && c != emu.CauseEcallS && c != emu.CauseEcallM
}

// Trap implements emu.TrapObserver.
func (tp *trapTap) Trap(t emu.Trap) {
	u := tp.u
	n := u.nodes[tp.node]
	at := u.ICount() - n.b.ICount() + t.ICount
	if uw := u.watch; uw != nil && uw.trap != nil && !uw.trapHit && !t.Interrupt {
		if w := uw.trap; w.node == tp.node && w.cause == t.Cause && (!w.hasTval || w.tval == t.Tval) {
			uw.trapHit = true
		}
	}
	tp.seq++
	satp, _ := n.b.Hart(t.Hart).PeekCSR(isa.CSRSatp)
	tp.push(trapEntry{Trap: t, at: at, satp: satp, seq: tp.seq})
}

// push adds a trap to its hart's chain.
func (tp *trapTap) push(e trapEntry) {
	t := e.Trap
	for len(tp.chains) <= t.Hart {
		tp.chains = append(tp.chains, nil)
	}
	c := tp.chains[t.Hart]
	if t.Priv == emu.PrivU {
		c = c[:0]
	}
	if len(c) == trapChainMax {
		c[len(c)-1] = e
	} else {
		c = append(c, e)
	}
	tp.chains[t.Hart] = c
}

// Return implements emu.TrapObserver.
func (tp *trapTap) Return(hart int, from, priv uint8, pc uint64) {
	if hart >= len(tp.chains) {
		return
	}
	c := tp.chains[hart]
	tp.seq++
	if priv == emu.PrivU && tp.u != nil {
		if n := tp.u.nodes[tp.node]; n.b != nil {
			satp, _ := n.b.Hart(hart).PeekCSR(isa.CSRSatp)
			if tp.lastUser == nil || len(tp.lastUser) >= lastUserMax {
				tp.lastUser = map[uint64]uint64{}
			}
			tp.lastUser[satp] = tp.seq
		}
	}
	if priv == emu.PrivU && from == emu.PrivS && len(c) > 0 {
		if e := c[0]; e.Priv == emu.PrivU && e.To == emu.PrivS && e.candidate() && e.PC != pc {
			// Entries whose address space has run user code since can
			// never be chosen: drop them first.
			tp.diverted = slices.DeleteFunc(tp.diverted, func(d trapEntry) bool { return tp.lastUser[d.satp] > d.seq })
			if len(tp.diverted) == divertedMax {
				tp.diverted = append(tp.diverted[:0], tp.diverted[1:]...)
			}
			tp.diverted = append(tp.diverted, e)
		}
	}
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].To == from {
			tp.chains[hart] = append(c[:i], c[i+1:]...)
			return
		}
	}
}

// clone copies the chains (a snapshot).
func (tp *trapTap) clone() [][]trapEntry {
	out := make([][]trapEntry, len(tp.chains))
	for i, c := range tp.chains {
		out[i] = append([]trapEntry(nil), c...)
	}
	return out
}

// Addresses in the kernel's messages. riscv's do_trap prints
// "comm[pid]: unhandled signal 11 code 0x1 at 0x0000000000000010 in ..."
// (the faulting address for memory faults, the pc otherwise); other
// architectures print "segfault at ADDR ip PC"; an oops begins "Unable to
// handle kernel ... at virtual address ADDR".
var (
	reUnhandled = regexp.MustCompile(`unhandled signal \d+ code 0x[0-9a-fA-F]+ at (?:0x)?([0-9a-fA-F]+)`)
	reSegfault  = regexp.MustCompile(`segfault at (?:0x)?([0-9a-fA-F]+)(?: ip (?:0x)?([0-9a-fA-F]+))?`)
	reKernelVA  = regexp.MustCompile(`Unable to handle kernel .* at virtual address (?:0x)?([0-9a-fA-F]+)`)
	// "... in init[10000+61000]": the file mapped at the faulting pc.
	reInFile = regexp.MustCompile(` in ([^\s\[\]/]+)\[[0-9a-fA-F]+\+[0-9a-fA-F]+\]`)
)

// explain finds the root trap of failure f, or nil. runningHart is the hart
// that was executing when the failure was seen (-1: none, between slices).
func (u *Universe) explain(f *Failure, runningHart int) *RootTrap {
	if f.Node < 0 || f.Node >= len(u.nodes) {
		return nil
	}
	n := u.nodes[f.Node]
	tp := n.traps
	if tp == nil {
		return nil
	}
	if f.Kind == "signal" && f.Process != nil {
		causes := signalCauses[f.Process.Signal]
		for i := len(tp.diverted) - 1; i >= 0; i-- {
			e := tp.diverted[i]
			// Only a fault after which its address space never ran user
			// code again: a fault the process handled (Go's runtime turns
			// nil dereferences into panics that way) is no death.
			if slices.Contains(causes, e.Cause) && tp.lastUser[e.satp] < e.seq {
				return u.rootOf(f, e, "the node's last user exception of the kind that raises "+f.Process.SignalLabel()+" after which its address space never ran again")
			}
		}
		// Still pending: the signal is being delivered as we look.
		for _, c := range tp.chains {
			for _, e := range c {
				if e.Priv == emu.PrivU && slices.Contains(causes, e.Cause) {
					return u.rootOf(f, e, "the pending user exception of the kind that raises "+f.Process.SignalLabel())
				}
			}
		}
		return nil // a signal sent by a process (abort, kill): no exception
	}
	kind := "" // user, kernel, or "" (any exception)
	if f.Kind == "console" {
		switch f.Message {
		case "process killed by a signal":
			kind = "user"
		case "kernel panic", "kernel oops", "kernel BUG":
			kind = "kernel"
		}
	}
	if kind == "" && n.spec.Board != board.BoardBareMetal {
		// A Linux guest's other failures (a hang, a spec's console
		// pattern) are seen away from any fault: a pending exception
		// would be a coincidence, not a cause.
		return nil
	}
	pick := func(e trapEntry, why string) *RootTrap { return u.rootOf(f, e, why) }
	_ = pick // 1. An address the kernel printed.
	if f.Kind == "console" {
		var addrs []uint64
		for _, re := range []*regexp.Regexp{reUnhandled, reSegfault, reKernelVA} {
			m := re.FindStringSubmatch(f.Line)
			for i := 1; i < len(m); i++ {
				if v, err := strconv.ParseUint(m[i], 16, 64); err == nil {
					addrs = append(addrs, v)
				}
			}
		}
		var best *trapEntry
		for _, c := range tp.chains {
			for i := range c {
				e := &c[i]
				if !e.candidate() || (kind == "user" && e.Priv != emu.PrivU) || (kind == "kernel" && e.Priv == emu.PrivU) {
					continue
				}
				for _, a := range addrs {
					if (e.Tval == a || e.PC == a) && (best == nil || e.at > best.at) {
						best = e
					}
				}
			}
		}
		if best != nil {
			return pick(*best, "the kernel's message names its address")
		}
	}
	// 2. The outermost pending exception of the right kind on the hart
	// that saw the failure, or on the hart with the latest one.
	first := func(c []trapEntry) *trapEntry {
		var any *trapEntry
		for i := range c {
			e := &c[i]
			if !e.candidate() {
				continue
			}
			if any == nil {
				any = e
			}
			if (kind == "user" && e.Priv == emu.PrivU) || (kind == "kernel" && e.Priv != emu.PrivU) {
				return e
			}
		}
		if kind == "user" {
			return nil // a signal comes from a user exception, or from elsewhere (kill)
		}
		return any
	}
	if runningHart >= 0 && runningHart < len(tp.chains) {
		if e := first(tp.chains[runningHart]); e != nil {
			return pick(*e, "the outermost pending exception of the hart that failed")
		}
	}
	var best *trapEntry
	var bestLast uint64
	for _, c := range tp.chains {
		if e := first(c); e != nil && (best == nil || c[len(c)-1].at > bestLast) {
			best, bestLast = e, c[len(c)-1].at
		}
	}
	if best != nil {
		return pick(*best, "the outermost pending exception of the hart that trapped last")
	}
	return nil
}

// rootOf is the root trap e of failure f, chosen for reason why.
func (u *Universe) rootOf(f *Failure, e trapEntry, why string) *RootTrap {
	r := &RootTrap{
		ICount: e.at, Node: f.Node, Hart: e.Hart, Priv: emu.PrivName(e.Priv),
		PC: fmt.Sprintf("%#x", e.PC), Cause: e.Cause, CauseName: emu.CauseName(e.Cause),
		Tval: fmt.Sprintf("%#x", e.Tval), Why: why,
	}
	file := ""
	if m := reInFile.FindStringSubmatch(f.Line); m != nil && e.Priv == emu.PrivU {
		file = m[1]
	}
	if f.Process != nil && e.Priv == emu.PrivU {
		file = f.Process.Name // a workload's process: named after its program
	}
	r.Symbol = u.spec.symbolizeIn(f.Node, e.PC, file)
	r.Predicate = fmt.Sprintf("trap:%s@%#x", r.CauseName, e.Tval)
	if f.Node != 0 {
		r.Predicate = fmt.Sprintf("node%d/%s", f.Node, r.Predicate)
	}
	return r
}

// signalCauses are the exceptions after which Linux sends each signal
// (arch/riscv/kernel/traps.c): page and access faults SIGSEGV (access
// faults SIGBUS too), misaligned accesses SIGBUS, an illegal instruction
// SIGILL, a breakpoint SIGTRAP.
var signalCauses = map[int][]uint64{
	11: {emu.CauseFetchPageFault, emu.CauseLoadPageFault, emu.CauseStorePageFault, emu.CauseFetchAccess, emu.CauseLoadAccess, emu.CauseStoreAccess},
	7:  {emu.CauseMisalignedLoad, emu.CauseMisalignedStore, emu.CauseMisalignedFetch, emu.CauseFetchAccess, emu.CauseLoadAccess, emu.CauseStoreAccess},
	4:  {emu.CauseIllegalInst},
	5:  {emu.CauseBreakpoint},
}

// trapWatch is a trap predicate being watched (bisection).
type trapWatch struct {
	node    int
	cause   uint64
	tval    uint64
	hasTval bool
}

// parseTrapPredicate reads CAUSE or CAUSE@TVAL (TVAL in hex).
func parseTrapPredicate(s string) (cause, tval uint64, hasTval bool, err error) {
	c, t, hasTval := strings.Cut(s, "@")
	if cause, err = emu.ParseCause(c); err != nil {
		return 0, 0, false, err
	}
	if hasTval {
		t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
		if tval, err = strconv.ParseUint(t, 16, 64); err != nil {
			return 0, 0, false, fmt.Errorf("tval %q is not a hex number", t)
		}
	}
	return cause, tval, hasTval, nil
}
