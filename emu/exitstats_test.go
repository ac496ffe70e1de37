package emu

import (
	"testing"

	"everett/isa"
)

func TestEveryExitCauseHasItsOwnName(t *testing.T) {
	seen := map[string]int{}
	for c := 0; c < NumExitCauses; c++ {
		n := ExitCauseName(c)
		if n == "unknown" {
			t.Fatalf("cause %d has no name", c)
		}
		if d, ok := seen[n]; ok {
			t.Fatalf("causes %d and %d are both named %q", d, c, n)
		}
		seen[n] = c
	}
}

func TestAMidBlockExitIsNamedByTheOpItStoppedBefore(t *testing.T) {
	for _, c := range []struct {
		kind isa.Op
		mmio bool
		want int
	}{
		{isa.LD, false, ExitMemory},
		{isa.SW, true, ExitMMIO},
		{isa.FLD, false, ExitMemory},
		{isa.LR_D, false, ExitAMO},
		{isa.AMOADD_W, true, ExitAMO},
		{isa.CSRRS, false, ExitCSR},
		{isa.CSRRCI, true, ExitCSR},
		{isa.ECALL, false, ExitECALL},
		{isa.SRET, false, ExitXRET},
		{isa.MRET, false, ExitXRET},
		{isa.WFI, false, ExitWFI},
		{isa.SFENCE_VMA, false, ExitSFENCE},
		{isa.FADD_D, false, ExitFP},
		{isa.HYPERCALL, false, ExitOtherOp},
	} {
		if got := midExitCause(&op{kind: c.kind}, c.mmio); got != c.want {
			t.Errorf("%v (device access %v): %q, want %q", c.kind, c.mmio, ExitCauseName(got), ExitCauseName(c.want))
		}
	}
}
