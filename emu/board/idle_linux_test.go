package board_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/guestbuild"
	"everett/internal/hosttool"
)

// idleBudget bounds the instructions of a boot plus an idle wait. A boot
// and a wait of any length take about 40M on 2 harts (2026-12-04); a hart
// that spins instead of waiting runs 1e9 per virtual second.
const idleBudget = 100_000_000

// idlewaitInitrd builds testdata/linux/idlewait (a thread blocked on a
// held mutex while main waits 30 s in sigtimedwait) as a static
// Linux program and returns an initramfs whose /init it is.
func idlewaitInitrd(t *testing.T) []byte {
	t.Helper()
	progs, err := guestbuild.ProgsDir()
	if err != nil {
		t.Fatal(err)
	}
	elf, err := guestbuild.Compile(guestbuild.Spec{
		Name:  "idlewait",
		CC:    guestbuild.LinuxCC,
		Flags: []string{"-static", "-O2", "-pthread", "-Wall", "-Werror"},
		Dirs:  []string{filepath.Join(filepath.Dir(progs), "linux", "idlewait")},
	})
	if errors.Is(err, guestbuild.ErrNoCompiler) {
		hosttool.Missing(t, guestbuild.LinuxCC, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile(elf)
	if err != nil {
		t.Fatal(err)
	}
	var cpio bytes.Buffer
	if err := initramfs.Write(&cpio, initramfs.Init(prog)); err != nil {
		t.Fatal(err)
	}
	return cpio.Bytes()
}

// TestAnIdleLinuxGuestWaitsWithoutSpinningWhenAHartHasNoTimerLeft is issue
// 25. Linux 6.1's riscv timer clears sie.STIE in its interrupt handler and
// sets it again only when it programs the next event, and OpenSBI clears
// sip.STIP only when a timer is programmed: a hart whose last timer has
// fired idles in wfi with STIP pending but not enabled. WFI must wait
// there (Privileged §3.3.3); everett's completed at once, and that hart
// spun at 1e9 instructions per virtual second for the rest of the wait
// (24.96G instructions for a 30 s wait). Which hart is left without a
// timer, and from when, depends on where the kernel's own timers land, so
// several waits run; before the fix (2026-12-04) the 30 s sigtimedwait and
// the 20 s nanosleep on 2 harts spun from 5.17 virtual s on.
func TestAnIdleLinuxGuestWaitsWithoutSpinningWhenAHartHasNoTimerLeft(t *testing.T) {
	img := loadLinux(t)
	initrd := idlewaitInitrd(t)
	engines := []emu.Engine{emu.EngineInterp}
	if emu.JITSupported() {
		engines = append(engines, emu.EngineJIT)
	}
	type run struct {
		harts   int
		mode    string
		seconds int
	}
	var runs []run
	for _, s := range []int{12, 20, 30} {
		runs = append(runs, run{2, "sigtimedwait", s})
	}
	runs = append(runs, run{1, "sigtimedwait", 30}, run{2, "nanosleep", 20}, run{2, "nanosleep", 30})
	for _, e := range engines {
		for _, r := range runs {
			name := fmt.Sprintf("%v: %s for %d s on %d harts", e, r.mode, r.seconds, r.harts)
			t.Run(name, func(t *testing.T) {
				var out bytes.Buffer
				vm, err := board.NewVirt(board.Virt{
					Harts: r.harts, RAMBytes: linuxRAMSize, Seed: 1,
					BIOS: img.bios, Kernel: img.kernel, Initrd: initrd,
					Append:  fmt.Sprintf("console=ttyS0 IDLEWAIT_S=%d IDLEWAIT_MODE=%s", r.seconds, r.mode),
					Console: &out,
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := vm.SetEngine(e); err != nil {
					t.Fatal(err)
				}
				reason := vm.Run(idleBudget)
				if reason != emu.StopPowerOff {
					t.Fatalf("stopped with %v after %d instructions at %.3f virtual s (a hart spins instead of waiting):\n%s",
						reason, vm.ICount(), float64(vm.Now())/1e9, tail(out.String()))
				}
				marker := fmt.Sprintf("IDLEWAIT-DONE mode=%s waited=%d s", r.mode, r.seconds)
				if !strings.Contains(out.String(), marker) {
					t.Fatalf("console lacks %q:\n%s", marker, tail(out.String()))
				}
				if vm.Now() < uint64(r.seconds)*1_000_000_000 {
					t.Fatalf("powered off at %d ns of virtual time, before the %d s wait could end", vm.Now(), r.seconds)
				}
				if e == emu.EngineJIT && vm.JITStats().Insns == 0 {
					t.Fatal("the jit engine ran no translated code")
				}
				t.Logf("%d instructions, %.3f virtual s", vm.ICount(), float64(vm.Now())/1e9)
			})
		}
	}
}
