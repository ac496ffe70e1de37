package emu

import "testing"

// Privileged ISA §3.3.3: WFI must resume for an interrupt that is pending
// and enabled in mie (sie), whatever mstatus.MIE/SIE and mideleg say, and
// "should avoid resuming the hart if the interrupt is pending but not
// individually enabled". Linux's idle loop depends on the second half: a
// hart with no timer left runs wfi with sie.STIE clear and sip.STIP still
// set by the SBI firmware (RATIONALE.md, "Why does WFI ignore a pending
// interrupt that mie does not enable?").

// wfiToS is an M-mode prologue that delegates SSIP and STIP, sets the mip
// bits pend, writes mie, and returns to S-mode at +0x100.
func wfiToS(pend, mie string) []string {
	return []string{
		"auipc t0,0",
		"addi t0,t0,0x100",
		"csrw mepc,t0",
		"addi t1,zero,0x22",
		"csrw mideleg,t1",
		"addi t1,zero," + pend,
		"csrs mip,t1",
		"addi t1,zero," + mie,
		"csrw mie,t1",
		"lui t1,0x1",
		"addi t1,t1,-2048",
		"csrs mstatus,t1", // MPP = S
		"mret",
	}
}

func TestWFIWaitsWhenThePendingInterruptIsNotEnabledInMieAndResumesWhenItIs(t *testing.T) {
	// Each program ends in "wfi; addi a0,zero,7; j wfi": a hart that
	// waits never sets a0, and a machine whose only hart waits with
	// nothing scheduled stops idle; one that resumes loops to the limit.
	sWait := []string{"wfi", "addi a0,zero,7", "jal zero,0x80000100"}
	for _, c := range []struct {
		name   string
		m      []string // M-mode code at +0
		s      []string // S-mode code at +0x100, if any
		resume bool
	}{
		{
			name: "S-mode with sip.STIP pending and sie.STIE clear waits (Linux idle after its last timer)",
			m:    wfiToS("0x20", "0"),
			s:    sWait,
		},
		{
			name: "S-mode with sip.SSIP pending and only sie.STIE set waits",
			m:    wfiToS("0x2", "0x20"),
			s:    sWait,
		},
		{
			name: "M-mode with mip.STIP pending and mie clear waits",
			m:    []string{"addi t1,zero,0x20", "csrs mip,t1", "csrw mie,zero", "wfi", "addi a0,zero,7", "jal zero,0x8000000c"},
		},
		{
			name:   "S-mode with sip.SSIP pending and enabled but sstatus.SIE clear resumes (riscv-tests rv64si-p-wfi)",
			m:      wfiToS("0x2", "0x2"),
			s:      sWait,
			resume: true,
		},
		{
			name:   "M-mode with mip.STIP pending, delegated and enabled, resumes (§3.3.3: regardless of mideleg)",
			m:      []string{"addi t1,zero,0x20", "csrw mideleg,t1", "csrs mip,t1", "csrw mie,t1", "wfi", "addi a0,zero,7", "jal zero,0x80000010"},
			resume: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
			if err != nil {
				t.Fatal(err)
			}
			asm(t, m, 0, c.m...)
			if c.s != nil {
				asm(t, m, 0x100, c.s...)
			}
			h := m.Hart(0)
			h.SetPC(DefaultRAMBase)
			const limit = 100_000
			reason := m.Run(limit)
			if c.resume {
				if reason != StopLimit || h.X(10) != 7 {
					t.Fatalf("stopped with %v after %d instructions, a0 = %d: wfi did not resume", reason, m.ICount(), h.X(10))
				}
				return
			}
			if reason != StopIdle || !h.Waiting() || h.X(10) != 0 {
				t.Fatalf("stopped with %v after %d instructions (waiting %v, a0 = %d, pc %#x): wfi fell through", reason, m.ICount(), h.Waiting(), h.X(10), h.PC())
			}
		})
	}
}
