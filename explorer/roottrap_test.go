package explorer

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"everett/emu"
	"everett/emu/board"
)

// faultReport explores the faulting bare-metal program and returns its
// failure's report.
func faultReport(t *testing.T) *Report {
	t.Helper()
	s := elfSpec(t, "fault", 1)
	res, err := Explore(s, Options{Seed: 1, Universes: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Signature != "exit: exit code 7" {
		t.Fatalf("failures %v, want the trap handler's exit code 7", signatures(res))
	}
	return res.Failures[0]
}

func hexVal(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("%q is not 0x hex: %v", s, err)
	}
	return v
}

func TestABareMetalFailureNamesTheFaultThatLedThereNotTheOneItHandled(t *testing.T) {
	r := faultReport(t)
	rt := r.RootTrap
	if rt == nil {
		t.Fatal("the report names no root trap")
	}
	t.Logf("root trap: %s", rt)
	if rt.CauseName != "load-access-fault" || rt.Cause != 5 || rt.Priv != "M" || rt.Hart != 0 || rt.Node != 0 {
		t.Fatalf("root trap %+v, want hart 0's M-mode load-access-fault", rt)
	}
	if hexVal(t, rt.Tval) != 0x10 {
		t.Fatalf("tval %s, want the bad pointer 0x10", rt.Tval)
	}
	if !strings.HasPrefix(rt.Symbol, "read_config") {
		t.Fatalf("symbol %q, want read_config", rt.Symbol)
	}
	if rt.Predicate != "trap:load-access-fault@0x10" {
		t.Fatalf("predicate %q", rt.Predicate)
	}
	// It survives the JSON round trip, under its documented name.
	b, _ := json.Marshal(r)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m["root_trap"] == nil {
		t.Fatalf("no root_trap in the report JSON (%v)", err)
	}
	// A replay names the same trap.
	got, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reproduced || got.RootTrap == nil || *got.RootTrap != *rt {
		t.Fatalf("replay: reproduced %v, root trap %+v; the report's %+v", got.Reproduced, got.RootTrap, rt)
	}
	// So does a shrunk report.
	sh, err := Shrink(r, 5)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Report.RootTrap == nil || *sh.Report.RootTrap != *rt {
		t.Fatalf("shrunk report's root trap %+v; the report's %+v", sh.Report.RootTrap, rt)
	}
}

func TestBisectingATrapLandsOnTheFaultingInstruction(t *testing.T) {
	r := faultReport(t)
	rt := r.RootTrap
	if rt == nil {
		t.Fatal("no root trap")
	}
	pc := hexVal(t, rt.PC)
	for _, c := range []struct {
		pred  string
		first uint64 // 0: before the root trap
	}{
		{rt.Predicate, rt.ICount},
		{"trap:5@10", rt.ICount},
		{"trap:load-access-fault", rt.ICount},
		{"trap:breakpoint", 0}, // the handled ebreak, earlier
	} {
		t.Run(c.pred, func(t *testing.T) {
			p, err := ParsePredicate(c.pred, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Bisect(r, BisectOptions{Predicate: p})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Found {
				t.Fatal("not found")
			}
			if c.first != 0 && res.First != c.first {
				t.Fatalf("first %d, want the root trap's %d", res.First, c.first)
			}
			if c.first == 0 && res.First >= rt.ICount {
				t.Fatalf("first %d, want before the root trap at %d", res.First, rt.ICount)
			}
			if !res.At.Trapped || res.At.ICount != res.First {
				t.Fatalf("the instruction at %d is %+v: not the trapping one", res.First, res.At)
			}
			if c.first != 0 && (res.At.PC != pc || !strings.HasPrefix(res.At.Symbol, "read_config")) {
				t.Fatalf("landed on pc %#x <%s>, want the faulting %#x", res.At.PC, res.At.Symbol, pc)
			}
			for _, n := range []struct {
				n    uint64
				want bool
			}{{res.First - 1, false}, {res.First, true}} {
				rp, err := newReplayer(r, nil)
				if err != nil {
					t.Fatal(err)
				}
				w := p.trap
				rp.w.trap = &w
				rp.advanceExact(n.n)
				if got := p.holds(rp.u, r.Signature); got != n.want {
					t.Fatalf("at %d the predicate is %v, want %v", n.n, got, n.want)
				}
			}
		})
	}
	p, _ := ParsePredicate("trap:load-page-fault", nil)
	res, err := Bisect(r, BisectOptions{Predicate: p})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Fatalf("a trap that never happens was found at %d", res.First)
	}
}

func TestTrapPredicatesNeedAKnownCauseAndAHexTval(t *testing.T) {
	for _, text := range []string{"trap:", "trap:page-fault", "trap:13@", "trap:13@xyz", "trap:99", "node1/trap:load-page-fault@zz"} {
		if _, err := ParsePredicate(text, nil); err == nil {
			t.Errorf("%q accepted", text)
		}
	}
	for _, text := range []string{"trap:13", "trap:0xd@0x10", "trap:load-page-fault@10", "trap:store-page-fault@ffffffff80000000", "node1/trap:illegal-instruction"} {
		if _, err := ParsePredicate(text, nil); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func TestTrapChainsKeepTheFaultsWhoseHandlersHaveNotReturned(t *testing.T) {
	fault := func(at uint64, priv, to uint8, pc uint64) trapEntry {
		return trapEntry{Trap: emu.Trap{Hart: 1, Priv: priv, To: to, PC: pc, Cause: emu.CauseLoadPageFault}, at: at}
	}
	irq := trapEntry{Trap: emu.Trap{Hart: 1, Priv: emu.PrivS, To: emu.PrivS, Cause: emu.IntSTI, Interrupt: true}, at: 5}
	pcs := func(tp *trapTap) []uint64 {
		var out []uint64
		for _, e := range tp.chains[1] {
			out = append(out, e.PC)
		}
		return out
	}
	t.Run("a demand-paging fault ends with its sret", func(t *testing.T) {
		tp := &trapTap{}
		tp.push(fault(1, emu.PrivU, emu.PrivS, 0x100))
		tp.Return(1, emu.PrivS, emu.PrivU, 0x100)
		if len(tp.chains[1]) != 0 {
			t.Fatalf("chain %x", pcs(tp))
		}
	})
	t.Run("an interrupt inside the fault's handler pops itself, not the fault", func(t *testing.T) {
		tp := &trapTap{}
		tp.push(fault(1, emu.PrivU, emu.PrivS, 0x100))
		tp.push(irq)
		tp.Return(1, emu.PrivS, emu.PrivS, 0xffff0000)
		if got := pcs(tp); len(got) != 1 || got[0] != 0x100 {
			t.Fatalf("chain %x, want the fault at 0x100", got)
		}
	})
	t.Run("an mret pops the M-mode entry above an S-mode one", func(t *testing.T) {
		tp := &trapTap{}
		tp.push(fault(1, emu.PrivU, emu.PrivS, 0x100))
		tp.push(fault(2, emu.PrivS, emu.PrivM, 0x200))
		tp.Return(1, emu.PrivM, emu.PrivS, 0x204)
		if got := pcs(tp); len(got) != 1 || got[0] != 0x100 {
			t.Fatalf("chain %x, want the fault at 0x100", got)
		}
	})
	t.Run("a trap from U-mode starts a new chain", func(t *testing.T) {
		tp := &trapTap{}
		tp.push(fault(1, emu.PrivU, emu.PrivS, 0x100))
		tp.push(fault(2, emu.PrivS, emu.PrivS, 0x200)) // its handler never returned
		tp.push(fault(3, emu.PrivU, emu.PrivS, 0x300))
		if got := pcs(tp); len(got) != 1 || got[0] != 0x300 {
			t.Fatalf("chain %x, want only the fault at 0x300", got)
		}
	})
	t.Run("a trap storm keeps its first trap", func(t *testing.T) {
		tp := &trapTap{}
		for i := uint64(0); i < 3*trapChainMax; i++ {
			tp.push(fault(i, emu.PrivM, emu.PrivM, 0x1000+i))
		}
		got := pcs(tp)
		if len(got) != trapChainMax || got[0] != 0x1000 || got[len(got)-1] != 0x1000+3*trapChainMax-1 {
			t.Fatalf("chain of %d from %#x to %#x", len(got), got[0], got[len(got)-1])
		}
	})
}

func TestKernelFailuresAreTracedToTheKernelModeExceptionTheyReport(t *testing.T) {
	entry := func(hart int, at uint64, priv, to uint8, pc uint64, cause, tval uint64) trapEntry {
		return trapEntry{Trap: emu.Trap{Hart: hart, Priv: priv, To: to, PC: pc, Cause: cause, Tval: tval}, at: at}
	}
	const kpc = 0xffffffff80201234
	universe := func() *Universe {
		tp := &trapTap{node: 0}
		// Hart 0: a user fault whose handler faults in the kernel at
		// address 8 (an oops), with a syscall's ecall around it all.
		tp.push(entry(0, 10, emu.PrivU, emu.PrivS, 0x10500, emu.CauseLoadPageFault, 0x7fff0000))
		tp.push(entry(0, 20, emu.PrivS, emu.PrivS, kpc, emu.CauseLoadPageFault, 8))
		// Hart 1: a BUG()'s ebreak, later.
		tp.push(entry(1, 30, emu.PrivS, emu.PrivS, kpc+0x100, emu.CauseBreakpoint, kpc+0x100))
		u := &Universe{spec: &Spec{}}
		u.nodes = []*node{{spec: &board.Spec{Board: board.BoardVirt}, traps: tp}}
		return u
	}
	for _, c := range []struct {
		name, message, line string
		running             int
		wantPC              uint64
		why                 string
	}{
		{"an oops names the address it could not handle", "kernel oops",
			"[    1.000000] Unable to handle kernel paging request at virtual address 0000000000000008", -1, kpc, "the kernel's message names its address"},
		{"a BUG is the kernel-mode trap of the hart that printed it", "kernel BUG",
			"[    1.000000] kernel BUG at mm/slub.c:123!", 1, kpc + 0x100, "the outermost pending exception of the hart that failed"},
		{"a panic on hart 0 is its kernel-mode fault, not the user fault beneath", "kernel panic",
			"[    1.000000] Kernel panic - not syncing: Fatal exception", 0, kpc, "the outermost pending exception of the hart that failed"},
		{"a signal without an address is the user fault", "process killed by a signal",
			"[    1.000000] Killed process 7 (x)", 0, 0x10500, "the outermost pending exception of the hart that failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &Failure{Kind: "console", Message: c.message, Line: c.line}
			rt := universe().explain(f, c.running)
			if rt == nil {
				t.Fatal("no root trap")
			}
			if hexVal(t, rt.PC) != c.wantPC || rt.Why != c.why {
				t.Fatalf("root trap %s, want pc %#x because %q", rt, c.wantPC, c.why)
			}
		})
	}
	t.Run("a Linux hang names no trap", func(t *testing.T) {
		if rt := universe().explain(&Failure{Kind: "hang", Message: "no progress"}, -1); rt != nil {
			t.Fatalf("a hang was traced to %s", rt)
		}
	})
}

func TestAFailureWithoutAFaultNamesNoTrap(t *testing.T) {
	if r := raceReport(t); r.RootTrap != nil {
		t.Fatalf("the lost update (no exception at all) was traced to %s", r.RootTrap)
	}
}
