// Package board assembles machines from the emulator core and the devices:
// the bare-metal board that runs ELF test programs, and (later) the
// QEMU-virt-compatible platform that boots OpenSBI and Linux.
package board

import (
	"fmt"
	"io"

	"everett/devices/clint"
	"everett/devices/htif"
	"everett/devices/sdk"
	"everett/emu"
)

// Physical addresses shared with QEMU's spike and virt machines.
const (
	CLINTBase = 0x0200_0000
	RAMBase   = 0x8000_0000
)

// BareMetal configures a machine for a bare-metal program.
type BareMetal struct {
	Harts    int
	RAMBytes uint64
	Quantum  uint64
	Seed     uint64
	Model    emu.MemoryModel // memory model (the zero value is sc)
	Console  io.Writer       // HTIF console output
	SDK      sdk.Sink        // receives guest-SDK hypercalls (nil: a silent LogSink)
}

// NewBareMetal builds a machine for program prog: RAM at 0x8000_0000, a CLINT,
// and HTIF if the program defines a tohost symbol. Every hart starts at the
// entry point in M-mode; mhartid tells them apart.
func NewBareMetal(cfg BareMetal, prog *emu.ELF) (*emu.Machine, error) {
	return newBareMetal(cfg, prog, true)
}

// newBareMetal builds the machine; load=false skips loading the program
// (for restoring a snapshot), but still finds tohost for HTIF.
func newBareMetal(cfg BareMetal, prog *emu.ELF, load bool) (*emu.Machine, error) {
	m, err := newCore(cfg.Harts, cfg.RAMBytes, cfg.Quantum, cfg.Seed, cfg.Model)
	if err != nil {
		return nil, err
	}
	attachSDK(m, cfg.SDK)
	var lines []clint.Hart
	for _, h := range m.Harts() {
		lines = append(lines, clint.Hart{MSIP: h.IRQ(emu.IntMSI), MTIP: h.IRQ(emu.IntMTI)})
	}
	cl := clint.New(m, lines)
	if err := m.Map(CLINTBase, clint.Size, "clint", cl); err != nil {
		return nil, err
	}
	m.Register("clint", cl)
	if load {
		if err := m.LoadELF(prog); err != nil {
			return nil, err
		}
	}
	if tohost, ok := prog.Symbol("tohost"); ok {
		fromhost, _ := prog.Symbol("fromhost")
		if !m.RAM.Contains(tohost, 8) {
			return nil, fmt.Errorf("tohost symbol at %#x is not in RAM", tohost)
		}
		if fromhost != 0 && !m.RAM.Contains(fromhost, 8) {
			return nil, fmt.Errorf("fromhost symbol at %#x is not in RAM", fromhost)
		}
		console := cfg.Console
		if console == nil {
			console = io.Discard
		}
		d := htif.New(m, m, console, tohost, fromhost)
		if err := m.WatchStores(tohost, d); err != nil {
			return nil, err
		}
		m.Register("htif", d)
	}
	return m, nil
}

// newCore is the core of either board's machine: harts and RAM at RAMBase
// under the memory model, before any device.
func newCore(harts int, ramBytes, quantum, seed uint64, model emu.MemoryModel) (*emu.Machine, error) {
	return emu.New(emu.Config{
		RAMBase:     RAMBase,
		RAMBytes:    ramBytes,
		Harts:       harts,
		Quantum:     quantum,
		Seed:        seed,
		MemoryModel: model,
	})
}

// attachSDK routes the guest-SDK hypercall to sink (nil: a LogSink that
// prints nothing, draws from the universe PRNG and powers off on exit).
func attachSDK(m *emu.Machine, sink sdk.Sink) {
	if sink == nil {
		sink = &sdk.LogSink{Rand: m.PRNG, Power: m}
	}
	m.Hypercall = func(h *emu.Hart) { sdk.Handle(h, sink) }
}
