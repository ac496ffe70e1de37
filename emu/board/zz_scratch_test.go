package board

import (
	"bytes"
	"os"
	"testing"
	"time"

	"everett/emu"
)

func TestScratchBench(t *testing.T) {
	path := os.Getenv("SCRATCH_ELF")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	prog, err := emu.ParseELF(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range engines() {
		var out bytes.Buffer
		m, err := NewBareMetal(BareMetal{Harts: 1, RAMBytes: 64 << 20, Console: &out}, prog)
		if err != nil {
			t.Fatal(err)
		}
		m.SetEngine(e)
		t0 := time.Now()
		r := m.Run(0)
		d := time.Since(t0)
		t.Logf("%v: %v %q icount %d %.1f MIPS hash %x stats %+v cache %+v", e, r, out.String(), m.ICount(), float64(m.ICount())/d.Seconds()/1e6, m.StateHash(), m.JITStats(), emu.JITCache())
	}
}

func engines() []emu.Engine {
	if os.Getenv("SCRATCH_JITONLY") != "" {
		return []emu.Engine{emu.EngineJIT}
	}
	return []emu.Engine{emu.EngineJIT, emu.EngineInterp}
}
