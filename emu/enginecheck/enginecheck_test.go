package enginecheck

import (
	"fmt"
	"strings"
	"testing"

	"everett/emu"
	"everett/internal/testelf"
)

// lockstepProgram: every hart counts in a0 and stores the count into a
// 2 KiB ring of its own in RAM, forever.
var lockstepProgram = testelf.CountingProgram

// lockstepBuild returns a builder of machines of harts harts that run
// lockstepProgram from the start of RAM.
func lockstepBuild(t *testing.T, harts int) func() (*emu.Machine, error) {
	code, err := testelf.Assemble(emu.DefaultRAMBase, lockstepProgram...)
	if err != nil {
		t.Fatal(err)
	}
	return func() (*emu.Machine, error) {
		m, err := emu.New(emu.Config{RAMBytes: 1 << 20, Harts: harts, Quantum: 1000})
		if err != nil {
			return nil, err
		}
		if err := m.WritePhys(emu.DefaultRAMBase, code); err != nil {
			return nil, err
		}
		for _, h := range m.Harts() {
			h.SetPC(emu.DefaultRAMBase)
		}
		return m, nil
	}
}

func TestTheEnginesAgreeOnAnSMPCountingLoopAndHostCodeRan(t *testing.T) {
	if !emu.JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	c, d, err := CompareEngines(lockstepBuild(t, 2), 997, 50_000)
	if err != nil {
		t.Fatal(err)
	}
	if d != nil {
		t.Fatal(d)
	}
	if c.Reason != emu.StopLimit || c.HostInsns == 0 {
		t.Fatalf("stopped with %v after %d instructions as host code, want the limit and some", c.Reason, c.HostInsns)
	}
}

// corruptAt makes the JIT machines deliberately wrong: the first time one
// of them stops at or past count n, fn changes its state.
func corruptAt(t *testing.T, n uint64, fn func(m *emu.Machine)) {
	t.Helper()
	if !emu.JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	done := map[*emu.Machine]bool{}
	corrupt = func(m *emu.Machine) {
		if m.Engine() != emu.EngineJIT {
			t.Errorf("the corruption hook was called on an %v machine", m.Engine())
		}
		if m.ICount() >= n && !done[m] {
			done[m] = true
			fn(m)
		}
	}
	t.Cleanup(func() { corrupt = nil })
}

// slotAt returns the hart, pc and raw bits of instruction slot n as a
// single reference run executes it.
func slotAt(t *testing.T, build func() (*emu.Machine, error), n uint64) (hart int, pc uint64, raw uint32) {
	t.Helper()
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Run(n - 1); r != emu.StopLimit {
		t.Fatalf("reference run stopped with %v", r)
	}
	hart = -1
	m.Tracer = func(h *emu.Hart, p uint64, r uint32, _ bool) { hart, pc, raw = h.ID, p, r }
	m.Run(n)
	return hart, pc, raw
}

func TestTheHarnessNamesTheFirstInstructionAfterWhichARegisterDiffers(t *testing.T) {
	const n = 12_345
	build := lockstepBuild(t, 2)
	corruptAt(t, n, func(m *emu.Machine) { h := m.Hart(1); h.SetX(10, h.X(10)^4) })
	_, d, err := CompareEngines(build, 1000, 50_000)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil {
		t.Fatal("no divergence found: the harness misses a wrong engine")
	}
	if !d.Narrowed || d.Note != "" {
		t.Fatalf("the divergence was not narrowed: %v", d)
	}
	hart, pc, raw := slotAt(t, build, n)
	if d.First != n || d.Hart != hart || d.PC != pc || d.Insn != raw {
		t.Fatalf("named instruction %d (hart %d pc %#x bits %08x), want %d (hart %d pc %#x bits %08x):\n%v",
			d.First, d.Hart, d.PC, d.Insn, n, hart, pc, raw, d)
	}
	if d.LastEqual != 12_000 || d.ICount != 13_000 {
		t.Errorf("checkpoints: equal at %d, differ at %d; want 12000 and 13000", d.LastEqual, d.ICount)
	}
	if len(d.Diffs) != 1 || d.Diffs[0].Name != "hart1.x10" || d.Diffs[0].A^d.Diffs[0].B != 4 {
		t.Fatalf("diffs %+v, want only hart1.x10 differing in bit 2", d.Diffs)
	}
	if len(d.Components) != 1 || d.Components[0] != "hart1" {
		t.Errorf("components %v, want [hart1]", d.Components)
	}
	msg := d.Error()
	for _, want := range []string{"interp and jit diverge at instruction 12345", "hart1.x10", "pc after"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	t.Logf("\n%v", d)
}

func TestTheHarnessNamesARAMWordThatDiffers(t *testing.T) {
	const n = 777
	corruptAt(t, n, func(m *emu.Machine) {
		if err := m.WritePhys(emu.DefaultRAMBase+0x1_0009, []byte{0x40}); err != nil {
			panic(err)
		}
	})
	_, d, err := CompareEngines(lockstepBuild(t, 1), 500, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || !d.Narrowed || d.First != n {
		t.Fatalf("divergence %v, want one narrowed to instruction %d", d, n)
	}
	want := "ram[0x80010008]"
	if len(d.Diffs) != 1 || d.Diffs[0].Name != want || d.Diffs[0].A^d.Diffs[0].B != 0x4000 {
		t.Fatalf("diffs %+v, want only %s differing in bit 14", d.Diffs, want)
	}
	if len(d.Components) != 1 || d.Components[0] != "ram" {
		t.Errorf("components %v, want [ram]", d.Components)
	}
}

func TestTheHarnessNamesAStopThatDiffers(t *testing.T) {
	// A JIT that overruns the instruction limit by one slot.
	const n = 3001
	corruptAt(t, n-1, func(m *emu.Machine) { m.Run(m.ICount() + 1) })
	_, d, err := CompareEngines(lockstepBuild(t, 1), 1000, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || !d.Narrowed || d.First != n-1 {
		t.Fatalf("divergence %v, want one narrowed to instruction %d", d, n-1)
	}
	if len(d.Diffs) == 0 || d.Diffs[0].Name != "icount" || d.Diffs[0].A != n-1 || d.Diffs[0].B != n {
		t.Fatalf("diffs %+v, want icount %d vs %d first", d.Diffs, n-1, n)
	}
}

func TestCompareRunsStillReportsCheckpointsOnly(t *testing.T) {
	build := lockstepBuild(t, 1)
	a, _ := build()
	b, _ := build()
	if _, d := CompareRuns(a, b, 1000, 5000); d != nil {
		t.Fatal(d)
	}
	a, _ = build()
	b, _ = build()
	b.Hart(0).SetX(20, 1) // a leak before the first checkpoint
	_, d := CompareRuns(a, b, 1000, 5000)
	if d == nil || d.Narrowed || d.ICount != 1000 || d.LastEqual != 0 {
		t.Fatalf("divergence %+v, want the first checkpoint, not narrowed", d)
	}
	if got := d.Error(); got != "runs diverge by instruction 1000 (equal at 0): [hart0] differ" {
		t.Errorf("message %q", got)
	}
}

func TestTheHarnessSaysWhenBuildIsNotDeterministic(t *testing.T) {
	if !emu.JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	build := lockstepBuild(t, 1)
	n := 0
	_, d, err := CompareEngines(func() (*emu.Machine, error) {
		m, err := build()
		if n++; n%2 == 0 && err == nil {
			m.Hart(0).SetX(20, 1) // the JIT's machine starts differently
		}
		return m, err
	}, 1000, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || d.Narrowed || !strings.Contains(d.Note, "before the first instruction") {
		t.Fatalf("divergence %+v, want a note that the machines differ from the start", d)
	}
	if !strings.Contains(d.Error(), "runs diverge by instruction 1000 (equal at 0)") {
		t.Errorf("message %q", d.Error())
	}
}

func TestDiffRAMAndDiffHartNameWhatDiffersBetweenTwoMachines(t *testing.T) {
	build := lockstepBuild(t, 2)
	a, _ := build()
	b, _ := build()
	if d := DiffRAM(a, b, MaxDiffs); len(d) != 0 {
		t.Fatalf("equal machines differ: %v", d)
	}
	if err := b.WritePhys(emu.DefaultRAMBase+3*emu.PageBytes+9, []byte{1}); err != nil {
		t.Fatal(err)
	}
	want := StateDiff{fmt.Sprintf("ram[%#x]", emu.DefaultRAMBase+3*emu.PageBytes+8), 0, 0x100}
	if d := DiffRAM(a, b, MaxDiffs); len(d) != 1 || d[0] != want {
		t.Fatalf("RAM diffs %v, want [%v]", d, want)
	}
	b.Hart(1).SetX(5, 7)
	b.Hart(1).SetPC(0x1234)
	got := DiffHart(a.Hart(1), b.Hart(1), "", MaxDiffs)
	wantH := []StateDiff{{"pc", emu.DefaultRAMBase, 0x1234}, {"x5", 0, 7}}
	if len(got) != len(wantH) || got[0] != wantH[0] || got[1] != wantH[1] {
		t.Fatalf("hart diffs %v, want %v", got, wantH)
	}
	if d := DiffHarts(a, b, 1); len(d) != 1 || d[0].Name != "hart1.pc" {
		t.Fatalf("DiffHarts(…, 1) = %v, want only hart1.pc", d)
	}
}
