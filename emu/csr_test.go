package emu

import (
	"testing"

	"everett/internal/testelf"
)

// runCode runs lines of assembly at RAM base in M-mode for n instructions.
func runCode(t *testing.T, m *Machine, n uint64, lines ...string) {
	t.Helper()
	code, err := testelf.Assemble(DefaultRAMBase, lines...)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WritePhys(DefaultRAMBase, code); err != nil {
		t.Fatal(err)
	}
	m.Hart(0).SetPC(DefaultRAMBase)
	if r := m.Run(m.ICount() + n); r != StopLimit {
		t.Fatalf("stopped with %v", r)
	}
}

func TestMipReadModifyWriteNeverLatchesTheExternalSEIPSignal(t *testing.T) {
	// Privileged ISA §3.1.9: only the software-writable SEIP bit takes part
	// in the read-modify-write of CSRRS/CSRRC on mip.
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := m.Hart(0)
	line := h.IRQ(IntSEI)
	line.SetLevel(true)
	runCode(t, m, 2,
		"addi t0,zero,32", // STIP
		"csrc mip,t0",
		"j 80000008",
	)
	if h.mip&MipSEIP == 0 {
		t.Fatal("mip.SEIP must read as 1 while the line is high")
	}
	line.SetLevel(false)
	if h.mip&MipSEIP != 0 {
		t.Fatal("csrc mip latched the external SEIP signal into the software bit")
	}
	// The software bit itself is writable and sticks.
	runCode(t, m, 2,
		"addi t0,zero,512", // SEIP
		"csrs mip,t0",
		"j 80000008",
	)
	if h.mip&MipSEIP == 0 || !h.seipSW {
		t.Fatal("csrs mip, SEIP must set the software bit")
	}
}
