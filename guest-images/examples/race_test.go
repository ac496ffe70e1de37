// Package examples holds the tests of the example guests. The data-race
// example's (race/race.c, built with its own crt0.S and link.ld like its
// Makefile does): the audit passes under fixed schedules from a quantum of
// 64 instructions up, everett's default included, and fails under a very
// fine one. The kv example's tests live in kv/; the etcd example's in its
// own module, which etcd_test.go runs.
package examples

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"everett/devices/sdk"
	"everett/emu"
	"everett/emu/board"
	"everett/internal/guestbuild"
)

func build(t *testing.T) *emu.ELF {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wd, "race")
	path := guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:         "race-example",
		Dirs:         []string{dir, filepath.Join(wd, "..", "sdk")},
		LinkerScript: filepath.Join(dir, "link.ld"),
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	elf, err := emu.ParseELF(b)
	if err != nil {
		t.Fatal(err)
	}
	return elf
}

// audit records the example's always-assertion.
type audit struct {
	sdk.LogSink
	failed bool
}

func (a *audit) Assert(kind sdk.Kind, cond bool, msg string, hart int) {
	if kind == sdk.Always && msg == "transfers conserve money" && !cond {
		a.failed = true
	}
}

func run(t *testing.T, elf *emu.ELF, quantum uint64) (code int, failed bool, console string) {
	t.Helper()
	var out bytes.Buffer
	a := &audit{}
	m, err := board.NewBareMetal(board.BareMetal{Harts: 2, RAMBytes: 16 << 20, Quantum: quantum, Console: &out, SDK: a}, elf)
	if err != nil {
		t.Fatal(err)
	}
	a.Rand, a.Power = m.PRNG, m
	if r := m.Run(100_000_000); r != emu.StopPowerOff {
		t.Fatalf("quantum %d: stopped with %v:\n%s", quantum, r, out.String())
	}
	return m.ExitCode(), a.failed, out.String()
}

func TestTheAuditPassesUnderCoarseFixedSchedules(t *testing.T) {
	elf := build(t)
	for _, q := range []uint64{emu.DefaultQuantum, 20000, 9999, 5000, 1000, 64} {
		t.Run(fmt.Sprintf("quantum %d", q), func(t *testing.T) {
			code, failed, console := run(t, elf, q)
			if code != 0 || failed {
				t.Fatalf("exit code %d, assertion failed %v:\n%s", code, failed, console)
			}
		})
	}
}

func TestAFineScheduleExposesTheLostUpdate(t *testing.T) {
	elf := build(t)
	code, failed, console := run(t, elf, 5)
	if code != 1 || !failed {
		t.Fatalf("exit code %d, assertion failed %v; want 1 and a failed audit:\n%s", code, failed, console)
	}
}
