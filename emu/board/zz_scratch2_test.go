package board_test

import (
	"os"
	"testing"
	"time"

	"everett/emu"
)

func TestScratchBoot(t *testing.T) {
	if os.Getenv("SCRATCH_BOOT") == "" {
		t.Skip()
	}
	for _, e := range []emu.Engine{emu.EngineJIT, emu.EngineInterp, emu.EngineJIT} {
		vm, out := bootLinux(t, 1, linuxAppend, 1)
		vm.SetEngine(e)
		t0 := time.Now()
		r := vm.Run(linuxBudget)
		d := time.Since(t0)
		t.Logf("%v: %v icount %d %.3fs hash %x smoke %v stats %+v cache %+v", e, r, vm.ICount(), d.Seconds(), vm.StateHash(), len(out.String()) > 0, vm.JITStats(), emu.JITCache())
	}
}
