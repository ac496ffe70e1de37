package emu

import (
	"testing"
)

// zalasrProgram stores -1 with sd.rl, reads it back with every width of
// load-acquire, overwrites the low byte with sb.rl and reads the word with
// lw.aqrl; then it counts s0 to 1000 around a loop that stores the count
// with sw.aqrl, loads it back with lw.aq and sums what it loaded in s4;
// then it waits. t0 is the data word (0x8001_0000).
var zalasrProgram = []string{
	"addi t0,zero,1", // 80000000
	"slli t0,t0,31",
	"lui t1,0x10",
	"add t0,t0,t1",
	"addi a0,zero,-1", // 80000010
	"sd.rl a0,(t0)",
	"lb.aq a2,(t0)",
	"lh.aq a3,(t0)",
	"lw.aq a4,(t0)", // 80000020
	"ld.aq a5,(t0)",
	"addi a6,zero,0x12",
	"sb.rl a6,(t0)",
	"lw.aqrl a7,(t0)", // 80000030
	"addi s0,zero,0",
	"addi s1,zero,1000",
	"addi s0,s0,1", // 8000003c: loop
	"add s3,s3,s0", // 80000040
	"sw.aqrl s0,(t0)",
	"lw.aq s2,(t0)",
	"add s4,s4,s2",
	"bne s0,s1,8000003c", // 80000050
	"wfi",
	"j 80000054",
}

func TestZalasrLoadsSignExtendAndStoresWriteTheirWidthUnderEveryModel(t *testing.T) {
	for _, model := range []MemoryModel{ModelSC, ModelRVWMO} {
		t.Run(model.String(), func(t *testing.T) {
			m := mustBuild(t, programBuild(t, zalasrProgram, 1, 97, func(m *Machine) {
				if err := m.SetMemoryModel(model); err != nil {
					t.Fatal(err)
				}
			}))
			if r := m.Run(20_000); r != StopIdle {
				t.Fatalf("stopped with %v, want every hart waiting", r)
			}
			h := m.harts[0]
			for _, c := range []struct {
				name string
				reg  int
				want uint64
			}{
				{"lb.aq", 12, ^uint64(0)}, {"lh.aq", 13, ^uint64(0)}, {"lw.aq", 14, ^uint64(0)},
				{"ld.aq", 15, ^uint64(0)}, {"lw.aqrl after sb.rl", 17, 0xffff_ffff_ffff_ff12},
				{"the loop's last lw.aq", 18, 1000}, {"the sum of what the loop loaded", 20, 500500},
			} {
				if got := h.X(c.reg); got != c.want {
					t.Errorf("%s: x%d = %#x, want %#x", c.name, c.reg, got, c.want)
				}
			}
		})
	}
}

func TestTheEnginesAgreeOnZalasrLoadsAndStores(t *testing.T) {
	if !JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	build := programBuild(t, zalasrProgram, 1, 97, nil)
	r, d, err := compareEngines(t, build, 97, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	if d != nil {
		t.Fatal(d)
	}
	if r.Reason != StopIdle || r.HostInsns == 0 {
		t.Fatalf("stopped with %v after %d instructions as host code, want every hart waiting and some", r.Reason, r.HostInsns)
	}
	m := mustBuild(t, build)
	if err := m.SetEngine(EngineJIT); err != nil {
		t.Fatal(err)
	}
	m.Run(20_000)
	if m.harts[0].X(20) != 500500 || m.JITStats().Insns == 0 {
		t.Fatalf("s4 = %d after %d instructions as host code, want 500500 and some", m.harts[0].X(20), m.JITStats().Insns)
	}
}

// A misaligned Zalasr access raises address-misaligned (the Zalasr
// specification requires natural alignment; Privileged table 3.6 causes
// 4 and 6), where a plain load or store of the same address would not.
func TestAMisalignedZalasrAccessRaisesAddressMisaligned(t *testing.T) {
	for _, c := range []struct {
		inst  string
		cause uint64
	}{
		{"lw.aq a0,(t0)", CauseMisalignedLoad},
		{"lh.aqrl a0,(t0)", CauseMisalignedLoad},
		{"sd.rl a0,(t0)", CauseMisalignedStore},
	} {
		for _, model := range []MemoryModel{ModelSC, ModelRVWMO} {
			t.Run(c.inst+" under "+model.String(), func(t *testing.T) {
				prog := []string{
					"addi t0,zero,1", // 80000000
					"slli t0,t0,31",
					"lui t1,0x10",
					"add t0,t0,t1",
					"addi t0,t0,1", // 80000010
					"auipc t1,0x0",
					"addi t1,t1,16",
					"csrw mtvec,t1",
					c.inst, // 80000020
					"wfi",  // 80000024: mtvec
					"j 80000024",
				}
				m := mustBuild(t, programBuild(t, prog, 1, 97, func(m *Machine) {
					if err := m.SetMemoryModel(model); err != nil {
						t.Fatal(err)
					}
				}))
				if r := m.Run(1000); r != StopIdle {
					t.Fatalf("stopped with %v, want every hart waiting", r)
				}
				h := m.harts[0]
				if h.csr.mcause != c.cause || h.csr.mtval != 0x8001_0001 || h.csr.mepc != 0x8000_0020 {
					t.Errorf("mcause %d mtval %#x mepc %#x, want %d, 0x80010001, 0x80000020", h.csr.mcause, h.csr.mtval, h.csr.mepc, c.cause)
				}
			})
		}
	}
}
