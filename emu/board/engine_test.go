package board_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"everett/devices/sdk"
	"everett/emu"
	"everett/emu/board"
	"everett/emu/enginecheck"
	"everett/internal/guestbuild"
)

// The lockstep tests: the JIT and the interpreter run every program side
// by side through enginecheck.CompareEngines; their state hashes must agree
// at every checkpoint and their console output byte for byte.
// A divergence names the first instruction after which the two differ.

// lockstepRun is what an engine comparison returns: the interpreter's
// console output, stop reason and exit code, and what the JIT did.
type lockstepRun struct {
	out    string
	reason emu.StopReason
	code   int
	jit    emu.JITStats
	// preempts: the interpreter's preemptions at communication events
	// and synchronization points; holds: the threads it held back.
	preempts int
	holds    uint64
}

// lockstep is one engine comparison: build makes a machine that writes its
// console to out.
func lockstep(t *testing.T, every, limit uint64, build func(out *bytes.Buffer) (*emu.Machine, error)) lockstepRun {
	t.Helper()
	if !emu.JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	var outs []*bytes.Buffer
	var ms []*emu.Machine
	c, div, err := enginecheck.CompareEngines(func() (*emu.Machine, error) {
		out := new(bytes.Buffer)
		m, err := build(out)
		outs, ms = append(outs, out), append(ms, m)
		return m, err
	}, every, limit)
	if err != nil {
		t.Fatal(err)
	}
	if div != nil {
		t.Fatalf("%v\ninterp console:\n%s", div, tail(outs[0].String()))
	}
	if len(outs) != 2 {
		t.Fatalf("build was called %d times without a divergence, want 2", len(outs))
	}
	// CompareEngines builds the interpreter's machine first.
	if ms[0].Engine() != emu.EngineInterp || ms[1].Engine() != emu.EngineJIT {
		t.Fatalf("engines %v and %v, want interp and jit", ms[0].Engine(), ms[1].Engine())
	}
	if a, b := outs[0].Bytes(), outs[1].Bytes(); !bytes.Equal(a, b) {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Fatalf("console output differs from byte %d (interp %d bytes, jit %d):\ninterp: %q\njit:    %q",
			i, len(a), len(b), a[i:min(len(a), i+80)], b[i:min(len(b), i+80)])
	}
	if c.HostInsns == 0 && ms[1].ICount() >= lockstepHostMin {
		t.Fatalf("the jit ran none of %d instructions as host code: the comparison compared the interpreter with itself", ms[1].ICount())
	}
	reason := c.Reason
	r := lockstepRun{out: outs[0].String(), reason: reason, code: ms[0].ExitCode(), jit: ms[1].JITStats(), preempts: ms[0].CommPreemptions(), holds: ms[0].CommHolds()}
	t.Logf("%v after %d instructions, %d of them in JIT code (%d entries)", reason, ms[1].ICount(), r.jit.Insns, r.jit.Entries)
	return r
}

// lockstepHostMin is the length of run from which lockstep requires some
// host code: the harness translates a block on its second run, so a run
// this long has run some block twice; shorter programs (smc, irqprio: a few
// thousand instructions) may run each block once.
const lockstepHostMin = 20_000

func bareMetal(prog *emu.ELF, harts int, ram uint64) func(out *bytes.Buffer) (*emu.Machine, error) {
	return func(out *bytes.Buffer) (*emu.Machine, error) {
		return board.NewBareMetal(board.BareMetal{Harts: harts, RAMBytes: ram, Console: out}, prog)
	}
}

func parseELF(t *testing.T, path string) *emu.ELF {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := emu.ParseELF(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return prog
}

func TestTheJITAndTheInterpreterAgreeOnEveryTestProgram(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			prog := loadProgram(t, p.name)
			r := lockstep(t, 100_000, maxInsns, bareMetal(prog, p.harts, 256<<20))
			if r.reason != emu.StopPowerOff || r.code != 0 {
				t.Fatalf("stopped with %v (exit code %d):\n%s", r.reason, r.code, tail(r.out))
			}
		})
	}
}

// explorerPrograms are the bare-metal programs of explorer/testdata (races,
// assertions, faults, floods of SDK calls) on two harts; they stop in
// different ways, and the engines must agree on how.
// (segv and goinit are Linux programs.) SDK messages go to the console.
var explorerPrograms = []string{"atomic", "deadlock", "fault", "flood", "racy", "setup", "sweep"}

func TestTheJITAndTheInterpreterAgreeOnTheExplorersPrograms(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "explorer", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range explorerPrograms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := guestbuild.BuildSpec(t, guestbuild.Spec{
				Name:         "explorer-" + name,
				Dirs:         []string{filepath.Join(dir, "crt"), filepath.Join(dir, name)},
				LinkerScript: filepath.Join(dir, "crt", "link.ld"),
			})
			prog := parseELF(t, path)
			r := lockstep(t, 50_000, 20_000_000, func(out *bytes.Buffer) (*emu.Machine, error) {
				sink := &sdk.LogSink{W: out}
				m, err := board.NewBareMetal(board.BareMetal{Harts: 2, RAMBytes: 64 << 20, Console: out, SDK: sink}, prog)
				if err == nil {
					sink.Rand, sink.Power = m.PRNG, m
				}
				return m, err
			})
			t.Logf("exit code %d, %d bytes of console", r.code, len(r.out))
		})
	}
}

func TestTheJITAndTheInterpreterAgreeOnTheBareMetalExamples(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range []struct {
		name  string
		harts int
	}{{"race", 2}, {"ttas", 3}} {
		t.Run(ex.name, func(t *testing.T) {
			out, err := exec.Command("make", "-s", "-C", filepath.Join(root, "guest-images/examples", ex.name)).CombinedOutput()
			if err != nil {
				t.Fatalf("building the %s example: %v\n%s", ex.name, err, out)
			}
			prog := parseELF(t, filepath.Join(root, "build/examples", ex.name+".elf"))
			r := lockstep(t, 50_000, 50_000_000, bareMetal(prog, ex.harts, 64<<20))
			t.Logf("exit code %d, %d bytes of console", r.code, len(r.out))
		})
	}
}

func TestTheJITAndTheInterpreterAgreeOnRandomUserSequences(t *testing.T) {
	// The generator of the user-mode differential fuzz test (userfuzz_test.go),
	// run on its bare-metal harness; the console is the register and
	// scratch-memory dump.
	h := loadHarness(t, false)
	n := 100
	if *fuzzLong {
		n = 2000
	}
	for i := range n {
		seed := *fuzzSeed0 + uint64(i)
		c := generate(seed, 200)
		prog, err := emu.ParseELF(h.patch(c))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			r := lockstep(t, 500, 10_000_000, bareMetal(prog, 1, 16<<20))
			if r.reason != emu.StopPowerOff || r.code != 0 || len(r.out) == 0 {
				t.Fatalf("stopped with %v (exit code %d, %d bytes of dump)\n%s", r.reason, r.code, len(r.out), c.listing(h.codeAddr))
			}
		})
	}
}

// lockstepLinuxEvery is the checkpoint interval of the Linux boots: coarse,
// since a checkpoint hashes all of RAM; a divergence is narrowed to the
// instruction anyway.
const lockstepLinuxEvery = 20_000_000

func TestTheJITAndTheInterpreterAgreeOnLinuxBootsToPowerOff(t *testing.T) {
	if testing.Short() {
		t.Skip("boots Linux twice per hart count")
	}
	img := loadLinux(t)
	for _, c := range []struct {
		harts int
		comm  bool
		hold  bool
	}{{1, false, false}, {2, false, false}, {4, false, false}, {2, true, false}, {2, true, true}} {
		name := fmt.Sprintf("with %d harts", c.harts)
		switch {
		case c.hold:
			// As the explorer runs a workload: user threads held back at
			// LRs and AMOs (translated code leaves before each) and at
			// communication events until the other hart idles.
			name += ", user threads held back"
		case c.comm:
			// As the explorer runs an SMP node: short random turns,
			// preemptions at communication events, pages the harts share
			// followed by the tracker (some line by line, which translated
			// code checks itself), and their TLB entries dropped as
			// ownership moves.
			name += ", preempted where they communicate"
		}
		t.Run(name, func(t *testing.T) {
			r := lockstep(t, lockstepLinuxEvery, linuxBudget, func(out *bytes.Buffer) (*emu.Machine, error) {
				vm, err := board.NewVirt(board.Virt{
					Harts: c.harts, RAMBytes: linuxRAMSize, Seed: 1,
					BIOS: img.bios, Kernel: img.kernel, Initrd: img.initrd, Disk: img.disk,
					Append: linuxAppend, Console: out,
				})
				if err != nil {
					return nil, err
				}
				if c.hold {
					err = vm.Machine.SetSchedule(emu.SchedConfig{Mode: emu.SchedPCT, QuantumMin: 1, QuantumMax: 200, Seed: 5,
						Depth: 10, Comm: true, Preemptions: 64, EventSpan: 16, YieldMin: 100_000, YieldMax: 5_000_000,
						UserOnly: true, Hold: true, SyncPoints: true})
				} else if c.comm {
					err = vm.Machine.SetSchedule(emu.SchedConfig{Mode: emu.SchedRandom, QuantumMin: 1, QuantumMax: 200, Seed: 3,
						Comm: true, Preemptions: 2000, PreemptOdds: 8, YieldMin: 100, YieldMax: 20_000})
				}
				return vm.Machine, err
			})
			if r.reason != emu.StopPowerOff || r.code != 0 || !bytes.Contains([]byte(r.out), []byte(smokeOK)) {
				t.Fatalf("stopped with %v (exit code %d):\n%s", r.reason, r.code, tail(r.out))
			}
			if r.jit.Insns == 0 {
				t.Fatal("the JIT ran none of the boot: the comparison compared the interpreter with itself")
			}
			if r.jit.Switches == 0 {
				t.Fatal("no write of satp changed the ASID: the boot did not exercise the TLBs' ASID tags")
			}
			if c.comm && !c.hold && r.preempts == 0 || c.hold && r.holds == 0 {
				t.Fatal("no preemption was taken: the schedule was not exercised")
			}
		})
	}
}
