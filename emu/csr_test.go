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
	if h.csr.mip&MipSEIP == 0 {
		t.Fatal("mip.SEIP must read as 1 while the line is high")
	}
	line.SetLevel(false)
	if h.csr.mip&MipSEIP != 0 {
		t.Fatal("csrc mip latched the external SEIP signal into the software bit")
	}
	// The software bit itself is writable and sticks.
	runCode(t, m, 2,
		"addi t0,zero,512", // SEIP
		"csrs mip,t0",
		"j 80000008",
	)
	if h.csr.mip&MipSEIP == 0 || !h.csr.seipSW {
		t.Fatal("csrs mip, SEIP must set the software bit")
	}
}

func TestTheTimeCSRReadsTheSameMtimeAsTheCLINTIncludingItsOffset(t *testing.T) {
	// A node's clock skew (or software writing mtime) must move the time
	// CSR with mtime: Linux programs deadlines from rdtime and the CLINT
	// fires them by mtime (priv spec §3.2.1, Zicntr time).
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	runCode(t, m, 1000, "j 80000000")
	m.SetMTime(m.MTime() + 5_000_000)
	h := m.Hart(0)
	v, ok := h.readCSR(0xc01) // time
	if !ok || v != m.MTime() {
		t.Fatalf("time CSR %d, mtime %d", v, m.MTime())
	}
	if at := m.TicksToTime(m.MTime() + 10); at != m.Now()+10*m.cfg.InsnsPerTick {
		t.Fatalf("TicksToTime ignores the offset: %d, want %d", at, m.Now()+10*m.cfg.InsnsPerTick)
	}
}
