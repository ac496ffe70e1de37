package board_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/emu/enginecheck"
	"everett/internal/guestimg"
)

// Linux guest tests: unmodified OpenSBI (Debian's) and Linux 6.1 boot on the
// virt platform to everett's smoke-test init, which checks threads on every
// hart, ext4 on virtio-blk, virtio-rng and the network stack, prints
// EVERETT-SMOKE-OK and powers off.

const (
	smokeOK      = "EVERETT-SMOKE-OK"
	linuxBudget  = 3_000_000_000 // instructions; a boot takes ~60M per hart
	linuxAppend  = "console=ttyS0"
	linuxRAMSize = 256 << 20
)

type linuxImages struct {
	bios, kernel, initrd, disk []byte
}

var (
	linuxOnce sync.Once
	linuxImgs linuxImages
)

func loadLinux(t *testing.T) linuxImages {
	t.Helper()
	im := guestimg.Linux(t)
	linuxOnce.Do(func() {
		k, i, d := guestimg.Read(t, im)
		linuxImgs = linuxImages{bios: guestimg.BIOS(t), kernel: k, initrd: i, disk: d}
	})
	return linuxImgs
}

type bootResult struct {
	out    string
	reason emu.StopReason
	code   int
	icount uint64
	hash   uint64
	vtime  uint64
}

func bootLinux(t *testing.T, harts int, appendArgs string, seed uint64) (*board.VirtMachine, *bytes.Buffer) {
	t.Helper()
	img := loadLinux(t)
	var out bytes.Buffer
	vm, err := board.NewVirt(board.Virt{
		Harts: harts, RAMBytes: linuxRAMSize, Seed: seed,
		BIOS: img.bios, Kernel: img.kernel, Initrd: img.initrd, Disk: img.disk,
		Append: appendArgs, Console: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	return vm, &out
}

func runLinux(t *testing.T, harts int, appendArgs string, seed uint64) bootResult {
	t.Helper()
	vm, out := bootLinux(t, harts, appendArgs, seed)
	reason := vm.Run(linuxBudget)
	return bootResult{out: out.String(), reason: reason, code: vm.ExitCode(), icount: vm.ICount(), hash: vm.StateHash(), vtime: vm.Now()}
}

func TestLinuxBootsToInitAndPowersOff(t *testing.T) {
	for _, harts := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("with %d harts", harts), func(t *testing.T) {
			r := runLinux(t, harts, linuxAppend, 1)
			if r.reason != emu.StopPowerOff || r.code != 0 {
				t.Fatalf("stopped with %v (code %d) after %d instructions:\n%s", r.reason, r.code, r.icount, tail(r.out))
			}
			for _, want := range []string{
				smokeOK,
				fmt.Sprintf("init: everett smoke init, %d online CPUs", harts),
				fmt.Sprintf("init: smp: shared counters ok (%d)", harts*10000),
				"init: disk: ext4 on /dev/vda ok",
				"init: rng: read 32 bytes from /dev/hwrng",
				"reboot: Power down",
			} {
				if !strings.Contains(r.out, want) {
					t.Errorf("console lacks %q:\n%s", want, tail(r.out))
				}
			}
			for _, bad := range []string{"Kernel panic", "Oops", "BUG:", "WARNING:"} {
				if strings.Contains(r.out, bad) {
					t.Errorf("console has %q:\n%s", bad, tail(r.out))
				}
			}
		})
	}
}

func TestTenBootsWithTheSameInputsAreIdentical(t *testing.T) {
	first := runLinux(t, 4, linuxAppend, 7)
	if !strings.Contains(first.out, smokeOK) {
		t.Fatalf("boot failed:\n%s", tail(first.out))
	}
	for i := 2; i <= 10; i++ {
		r := runLinux(t, 4, linuxAppend, 7)
		if r.out != first.out {
			t.Fatalf("boot %d: console differs from boot 1", i)
		}
		if r.hash != first.hash || r.icount != first.icount {
			t.Fatalf("boot %d: state hash %x after %d instructions; boot 1: %x after %d", i, r.hash, r.icount, first.hash, first.icount)
		}
	}
}

func TestADifferentSeedChangesOnlyWhatTheSeedFeeds(t *testing.T) {
	a := runLinux(t, 1, linuxAppend, 1)
	b := runLinux(t, 1, linuxAppend, 2)
	if a.hash == b.hash {
		t.Fatal("seeds 1 and 2 gave the same state: the PRNG does not reach the guest")
	}
	if !strings.Contains(b.out, smokeOK) {
		t.Fatalf("seed 2 boot failed:\n%s", tail(b.out))
	}
}

func TestCheckDeterminismPassesOnAFullSMPBoot(t *testing.T) {
	a, _ := bootLinux(t, 2, linuxAppend, 3)
	b, _ := bootLinux(t, 2, linuxAppend, 3)
	reason, div := enginecheck.CompareRuns(a.Machine, b.Machine, 2_000_000, linuxBudget)
	if div != nil {
		t.Fatal(div)
	}
	if reason != emu.StopPowerOff {
		t.Fatalf("stopped with %v", reason)
	}
}

func TestAnIdleGuestSleepingSixtySecondsSkipsAheadInVirtualTime(t *testing.T) {
	r := runLinux(t, 2, linuxAppend+" everett.sleep=60", 1)
	if !strings.Contains(r.out, "init: slept 60 s") || r.reason != emu.StopPowerOff {
		t.Fatalf("stopped with %v:\n%s", r.reason, tail(r.out))
	}
	if r.vtime < 60_000_000_000 {
		t.Fatalf("virtual time at the end is %d ns, want at least 60 s", r.vtime)
	}
	// 60 s at 1e9 instructions per virtual second would be 1.2e11 slots for
	// two busy harts; an idle guest must skip almost all of it.
	if r.icount > 400_000_000 {
		t.Fatalf("%d instructions for a boot and a 60 s sleep: idle harts are spinning", r.icount)
	}
}

func TestTheGeneratedDeviceTreeDescribesTheMachine(t *testing.T) {
	vm, _ := bootLinux(t, 3, "console=ttyS0 quiet", 1)
	tree, err := fdtParse(vm.FDT)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/chosen/bootargs":                     "console=ttyS0 quiet",
		"/chosen/stdout-path":                  "/soc/serial@10000000",
		"/cpus/cpu@2/riscv,isa":                "rv64imafdc_zicsr_zifencei",
		"/cpus/cpu@2/mmu-type":                 "riscv,sv48",
		"/soc/serial@10000000/compatible":      "ns16550a",
		"/soc/virtio_mmio@10008000/compatible": "virtio,mmio",
	} {
		if got := tree[path]; got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if _, ok := tree["/cpus/cpu@3/reg"]; ok {
		t.Error("a fourth cpu node exists on a 3-hart machine")
	}
}

func linuxSpec(t *testing.T, harts int, seed uint64) *board.Spec {
	t.Helper()
	im := guestimg.Linux(t)
	img := loadLinux(t)
	return &board.Spec{
		Board: board.BoardVirt, Harts: harts, RAMBytes: linuxRAMSize, Seed: seed, Append: linuxAppend,
		BIOS:   &board.Image{Path: "fw_dynamic.bin", Data: img.bios},
		Kernel: &board.Image{Path: im.Kernel, Data: img.kernel},
		Initrd: &board.Image{Path: im.Initrd, Data: img.initrd},
		Disk:   &board.Image{Path: im.Disk, Data: img.disk},
	}
}

func TestSnapshotsDuringAnSMPBootRestoreToTheStraightRun(t *testing.T) {
	spec := linuxSpec(t, 2, 5)
	straight, err := board.Build(spec, board.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := straight.Run(linuxBudget); r != emu.StopPowerOff {
		t.Fatalf("straight boot stopped with %v", r)
	}
	want, n := straight.StateHash(), straight.ICount()

	parent, err := board.Build(spec, board.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Snapshot at many points of one run (a parent continues after each).
	for _, k := range []uint64{1, 999_999, 5_000_001, n / 7, n / 3, n / 2, 2 * n / 3, n - 10} {
		if k <= parent.ICount() {
			continue
		}
		if r := parent.Run(k); r != emu.StopLimit {
			t.Fatalf("parent stopped with %v before %d", r, k)
		}
		snap := parent.Snapshot()
		child, err := board.Restore(spec, snap, board.BuildOptions{}, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		if child.StateHash() != parent.StateHash() {
			t.Fatalf("k=%d: the restored machine's state differs from the snapshot's", k)
		}
		if r := child.Run(linuxBudget); r != emu.StopPowerOff {
			t.Fatalf("k=%d: child stopped with %v", k, r)
		}
		if child.StateHash() != want || child.ICount() != n {
			t.Fatalf("k=%d: child ends with %x after %d instructions; straight run %x after %d", k, child.StateHash(), child.ICount(), want, n)
		}
	}
}

// A one-hart boot under a random schedule of short rounds, as the explorer
// draws them, runs its rounds merged (emu/merge.go) exactly as one by one:
// the same state at stops inside and between rounds, the same console.
func TestALinuxBootRunsItsMergedRoundsExactlyAsOneByOne(t *testing.T) {
	if testing.Short() {
		t.Skip("boots Linux twice")
	}
	var vms [2]*board.VirtMachine
	var outs [2]*bytes.Buffer
	for i := range vms {
		vms[i], outs[i] = bootLinux(t, 1, linuxAppend, 1)
		if err := vms[i].SetSchedule(emu.SchedConfig{Mode: emu.SchedRandom, QuantumMin: 1, QuantumMax: 64, StallPercent: 5, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		vms[i].MergeRounds(i == 1)
	}
	for at := uint64(9_999_991); ; at += 7_000_003 {
		r0, r1 := vms[0].Run(at), vms[1].Run(at)
		if r0 != r1 || vms[0].ICount() != vms[1].ICount() || vms[0].StateHash() != vms[1].StateHash() {
			t.Fatalf("at %d: one by one %v at %d (%x), merged %v at %d (%x)", at,
				r0, vms[0].ICount(), vms[0].StateHash(), r1, vms[1].ICount(), vms[1].StateHash())
		}
		if r0 != emu.StopLimit {
			if r0 != emu.StopPowerOff || !strings.Contains(outs[0].String(), smokeOK) {
				t.Fatalf("stopped with %v:\n%s", r0, tail(outs[0].String()))
			}
			break
		}
		if at > linuxBudget {
			t.Fatal("no power-off within the budget")
		}
	}
	if outs[0].String() != outs[1].String() {
		t.Fatal("the consoles differ")
	}
	if n0, n1 := vms[0].MergedRounds(), vms[1].MergedRounds(); n0 != 0 || n1 == 0 {
		t.Fatalf("rounds merged: %d one by one, %d merged", n0, n1)
	}
	t.Logf("%d rounds merged", vms[1].MergedRounds())
}
