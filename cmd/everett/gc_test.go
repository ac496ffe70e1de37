package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestRelaxGCRaisesTheTargetUnlessGOGCIsSet(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	t.Setenv("GOGC", "") // restored at the end, like any t.Setenv
	debug.SetGCPercent(100)
	relaxGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set (even empty), relaxGC changed the target to %d", got)
	}

	os.Unsetenv("GOGC")
	relaxGC()
	if got := debug.SetGCPercent(100); got != onlyMachineGCPercent {
		t.Errorf("without GOGC, the target is %d; want %d", got, onlyMachineGCPercent)
	}
}
