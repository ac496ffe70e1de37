package emu

import "testing"

func TestEnteredUserTurnsOnAtTheFirstReturnToUModeAndNotBefore(t *testing.T) {
	// Privileged ISA §3.3.2: mret and sret are the only ways into U-mode.
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	runCode(t, m, 7,
		"auipc t0,0", // M-mode: mret to S at +28
		"addi t0,t0,28",
		"csrw mepc,t0",
		"lui t1,1",
		"addi t1,t1,-2048", // mstatus.MPP = S
		"csrs mstatus,t1",
		"mret",
		"auipc t0,0", // S-mode: sret to U at +16 (SPP is 0)
		"addi t0,t0,16",
		"csrw sepc,t0",
		"sret",
		"j 8000002c", // U-mode
	)
	if m.Hart(0).priv != PrivS || m.EnteredUser() {
		t.Fatalf("after mret to S: privilege %d, EnteredUser %v; want S and false", m.Hart(0).priv, m.EnteredUser())
	}
	if r := m.Run(m.ICount() + 5); r != StopLimit {
		t.Fatalf("stopped with %v", r)
	}
	if !m.EnteredUser() {
		t.Fatal("sret to U-mode did not set EnteredUser")
	}
	before := m.StateHash()
	m.enteredU = false
	if m.StateHash() != before {
		t.Fatal("EnteredUser is part of the state hash; it is an observation, not state")
	}
}
