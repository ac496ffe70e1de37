package explorer

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"everett/emu"
	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/guestbuild"
	"everett/internal/guestimg"
)

// segvSpec boots Linux with explorer/testdata/segv as init. Its symbols
// are listed second, after those of a decoy built from the same source
// with read_config renamed: the kernel's "in init[...]" must pick init's.
func segvSpec(t *testing.T, harts int, appendArgs string) (*Spec, *emu.ELF) {
	t.Helper()
	if testing.Short() {
		t.Skip("boots Linux")
	}
	im := guestimg.Linux(t)
	dir, _ := filepath.Abs("testdata")
	prog := guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:  "explorer-segv",
		CC:    guestbuild.LinuxCC,
		Flags: []string{"-static", "-O2", "-Wall", "-Werror"},
		Dirs:  []string{filepath.Join(dir, "segv")},
	})
	decoy := guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:  "explorer-segv-decoy",
		CC:    guestbuild.LinuxCC,
		Flags: []string{"-static", "-O2", "-Wall", "-Werror", "-Dread_config=decoy_config"},
		Dirs:  []string{filepath.Join(dir, "segv")},
	})
	b, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(decoy)
	if err != nil {
		t.Fatal(err)
	}
	e, err := emu.ParseELF(b)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for name, data := range map[string][]byte{"init": b, "decoy": db} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(tmp, "initramfs.cpio"))
	if err != nil {
		t.Fatal(err)
	}
	if err := initramfs.Write(f, initramfs.Init(b)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	yaml := "name: segv\n" +
		"nodes:\n" +
		"  - name: n\n" +
		"    kernel: " + im.Kernel + "\n" +
		"    initrd: initramfs.cpio\n" +
		"    append: \"" + appendArgs + "\"\n" +
		"    harts: " + strconv.Itoa(harts) + "\n" +
		"    memory: 128MiB\n" +
		"    symbols: [decoy, init]\n" +
		"faults: {swarm: false}\n" +
		"budgets: {time: 20s, universes: 1}\n"
	s, err := ParseSpec([]byte(yaml), tmp)
	if err != nil {
		t.Fatal(err)
	}
	return s, e
}

// segvReport explores the segv init and returns the report of failure sig.
func segvReport(t *testing.T, appendArgs, sig string) (*Report, *emu.ELF) {
	t.Helper()
	s, e := segvSpec(t, 2, appendArgs)
	res, err := Explore(s, Options{Seed: 1, Universes: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Signature != sig {
		t.Fatalf("failures %v, want %q", signatures(res), sig)
	}
	return res.Failures[0], e
}

func TestAPanicWithoutTheSignalLineIsTracedToTheUserFaultBeneathIt(t *testing.T) {
	// loglevel=4 hides the kernel's "unhandled signal" line (KERN_INFO):
	// the failure is the panic of init's death, and no address is printed.
	// (Nor the file: the symbol comes from the first listed file that
	// covers the pc, here the decoy, so it is not checked.)
	r, e := segvReport(t, "console=ttyS0 loglevel=4", "console: kernel panic")
	rt := r.RootTrap
	if rt == nil {
		t.Fatalf("no root trap; the console said %q", r.Failure.Line)
	}
	t.Logf("%s; console: %s", rt, r.Failure.Line)
	fn, _ := e.Symbol("read_config")
	if pc := hexVal(t, rt.PC); rt.Priv != "U" || rt.CauseName != "load-page-fault" || hexVal(t, rt.Tval) != 0x10 || pc < fn || pc >= fn+e.SymbolSize("read_config") {
		t.Fatalf("root trap %s, want init's U-mode load-page-fault at 0x10 in read_config", rt)
	}
}

func TestAProcessKilledBySIGSEGVIsTracedToItsFaultingLoad(t *testing.T) {
	r, e := segvReport(t, "console=ttyS0", "console: process killed by a signal")
	rt := r.RootTrap
	if rt == nil {
		t.Fatalf("no root trap; the console said %q", r.Failure.Line)
	}
	t.Logf("%s; console: %s", rt, r.Failure.Line)
	fn, _ := e.Symbol("read_config")
	size := e.SymbolSize("read_config")
	pc := hexVal(t, rt.PC)
	if rt.Priv != "U" || rt.CauseName != "load-page-fault" || hexVal(t, rt.Tval) != 0x10 ||
		pc < fn || pc >= fn+size || !strings.HasPrefix(rt.Symbol, "read_config") {
		t.Fatalf("root trap %s, want a U-mode load-page-fault at 0x10 in read_config [%#x, %#x)", rt, fn, fn+size)
	}
	if rt.Why != "the kernel's message names its address" {
		t.Errorf("chosen because %q", rt.Why)
	}
	if rt.ICount >= r.ICount {
		t.Fatalf("the trap at %d is not before the failure at %d", rt.ICount, r.ICount)
	}

	p, err := ParsePredicate(rt.Predicate, nil)
	if err != nil {
		t.Fatal(err)
	}
	bis, err := Bisect(r, BisectOptions{Predicate: p})
	if err != nil {
		t.Fatal(err)
	}
	if !bis.Found || bis.First != rt.ICount || bis.At.PC != pc || !bis.At.Trapped {
		t.Fatalf("bisect %s: found %v at %d (%+v); want the trap at %d, pc %#x", rt.Predicate, bis.Found, bis.First, bis.At, rt.ICount, pc)
	}
	for _, c := range []struct {
		n    uint64
		want bool
	}{{bis.First - 1, false}, {bis.First, true}} {
		rp, err := newReplayer(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := p.trap
		rp.w.trap = &w
		rp.advanceExact(c.n)
		if got := p.holds(rp.u, r.Signature); got != c.want {
			t.Fatalf("at %d the predicate is %v, want %v", c.n, got, c.want)
		}
	}
}

func TestAChildKilledBySIGSEGVIsTracedToItsStoreNotToTheFaultsTheKernelResolved(t *testing.T) {
	r, e := segvReport(t, "console=ttyS0 child", "console: process killed by a signal")
	rt := r.RootTrap
	if rt == nil {
		t.Fatalf("no root trap; the console said %q", r.Failure.Line)
	}
	t.Logf("%s; console: %s", rt, r.Failure.Line)
	fn, _ := e.Symbol("write_config")
	if pc := hexVal(t, rt.PC); rt.Priv != "U" || rt.CauseName != "store-page-fault" || hexVal(t, rt.Tval) != 0x18 || pc < fn || pc >= fn+e.SymbolSize("write_config") {
		t.Fatalf("root trap %s, want the child's U-mode store-page-fault at 0x18 in write_config", rt)
	}
	// Without the address, the fatal fault is still the only user fault
	// pending: the copy-on-write faults before it ended with their srets.
	got, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	blind := got.Universe.explain(&Failure{Kind: "console", Message: "process killed by a signal", Line: "Killed"}, -1)
	if blind == nil || blind.ICount != rt.ICount {
		t.Fatalf("without the address: %v, want the fault at %d", blind, rt.ICount)
	}
	p, err := ParsePredicate(rt.Predicate, nil)
	if err != nil {
		t.Fatal(err)
	}
	bis, err := Bisect(r, BisectOptions{Predicate: p})
	if err != nil {
		t.Fatal(err)
	}
	if !bis.Found || bis.First != rt.ICount || !bis.At.Trapped {
		t.Fatalf("bisect %s: found %v at %d (%+v); want the trap at %d", rt.Predicate, bis.Found, bis.First, bis.At, rt.ICount)
	}
}
