package emu

import (
	"encoding/binary"
	"testing"

	"everett/isa"
)

// asm assembles lines at successive addresses from DefaultRAMBase+at.
func asm(t *testing.T, m *Machine, at uint64, lines ...string) {
	t.Helper()
	pc := DefaultRAMBase + at
	for _, l := range lines {
		in, err := isa.Parse(l, pc)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		raw, err := isa.Encode(in)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], raw)
		if err := m.WritePhys(pc, b[:]); err != nil {
			t.Fatal(err)
		}
		pc += 4
	}
}

type trapLog struct {
	traps []Trap
	rets  [][4]uint64
}

func (l *trapLog) Trap(t Trap) { l.traps = append(l.traps, t) }
func (l *trapLog) Return(hart int, from, priv uint8, pc uint64) {
	l.rets = append(l.rets, [4]uint64{uint64(hart), uint64(from), uint64(priv), pc})
}

// trapProgram is an M-mode program whose sixth instruction (at +0x14, in
// the middle of a block) is fault; its handler returns past it.
func trapProgram(t *testing.T, fault string) *Machine {
	t.Helper()
	m, err := New(Config{RAMBytes: 1 << 20, Harts: 1})
	if err != nil {
		t.Fatal(err)
	}
	asm(t, m, 0,
		"auipc t0,0",
		"addi t0,t0,0x100",
		"csrrw zero,mtvec,t0",
		"addi a0,zero,1",
		"addi a0,a0,1",
		fault,
		"addi a0,a0,5",
		"jal zero,0x8000001c", // spin
	)
	asm(t, m, 0x100,
		"csrrs a1,mepc,zero",
		"addi a1,a1,4",
		"csrrw zero,mepc,a1",
		"mret",
	)
	m.Hart(0).SetPC(DefaultRAMBase)
	return m
}

func TestTheTrapObserverNamesTheInstructionCountAtWhichEachExceptionIsTaken(t *testing.T) {
	const faultPC = DefaultRAMBase + 0x14
	for _, c := range []struct {
		name  string
		fault string
		cause uint64
		tval  uint64
	}{
		{"a load outside RAM (§3.1.15: load access fault)", "ld a2,8(zero)", CauseLoadAccess, 8},
		{"a store outside RAM", "sd a2,16(zero)", CauseStoreAccess, 16},
		{"an FP op with mstatus.FS off (§3.1.6.6: illegal instruction)", "fadd.d f1,f2,f3", CauseIllegalInst, 0},
		{"ebreak (tval is the pc)", "ebreak", CauseBreakpoint, faultPC},
		{"ecall from M-mode", "ecall", CauseEcallM, 0},
		{"a misaligned atomic", "amoadd.w a2,a0,(a0)", CauseMisalignedStore, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := trapProgram(t, c.fault)
			log := &trapLog{}
			m.ObserveTraps(log)
			m.Run(100)
			if len(log.traps) != 1 {
				t.Fatalf("observed %d traps, want 1: %+v", len(log.traps), log.traps)
			}
			tr := log.traps[0]
			if c.cause == CauseIllegalInst {
				in, _ := isa.Parse(c.fault, faultPC)
				raw, _ := isa.Encode(in)
				c.tval = uint64(raw)
			}
			want := Trap{ICount: 6, Hart: 0, Priv: PrivM, To: PrivM, PC: faultPC, Cause: c.cause, Tval: c.tval}
			if tr != want {
				t.Fatalf("observed %+v, want %+v", tr, want)
			}
			if len(log.rets) != 1 || log.rets[0] != [4]uint64{0, PrivM, PrivM, faultPC + 4} {
				t.Fatalf("returns %v, want one mret to %#x", log.rets, faultPC+4)
			}
			// Running to ICount-1 stops before the trap; to ICount takes it.
			for _, n := range []uint64{tr.ICount - 1, tr.ICount} {
				m := trapProgram(t, c.fault)
				m.Run(n)
				h := m.Hart(0)
				taken := h.PC() == DefaultRAMBase+0x100
				if taken != (n == tr.ICount) {
					t.Fatalf("after %d instructions pc=%#x: trap taken %v", n, h.PC(), taken)
				}
				if !taken && h.PC() != faultPC {
					t.Fatalf("after %d instructions pc=%#x, want the faulting %#x", n, h.PC(), faultPC)
				}
			}
		})
	}
}

func TestTheTrapObserverSeesAnInterruptAfterTheInstructionThatEnablesIt(t *testing.T) {
	m := trapProgram(t, "csrrsi zero,mstatus,8") // MIE: the pending MSI is taken after it
	asm(t, m, 0xc, "addi t1,zero,8", "csrrs zero,mie,t1")
	m.Hart(0).IRQ(IntMSI).SetLevel(true)
	log := &trapLog{}
	m.ObserveTraps(log)
	m.Run(20)
	if len(log.traps) == 0 {
		t.Fatal("no trap observed")
	}
	want := Trap{ICount: 6, Hart: 0, Priv: PrivM, To: PrivM, PC: DefaultRAMBase + 0x18, Cause: IntMSI, Interrupt: true}
	if got := log.traps[0]; got != want {
		t.Fatalf("observed %+v, want %+v", got, want)
	}
}

func TestObservingTrapsDoesNotChangeTheRun(t *testing.T) {
	a := trapProgram(t, "ld a2,8(zero)")
	b := trapProgram(t, "ld a2,8(zero)")
	b.ObserveTraps(&trapLog{})
	a.Run(1000)
	b.Run(1000)
	if a.StateHash() != b.StateHash() || a.ICount() != b.ICount() {
		t.Fatalf("state %x at %d without the observer, %x at %d with it", a.StateHash(), a.ICount(), b.StateHash(), b.ICount())
	}
}

func TestCauseNamesReadBack(t *testing.T) {
	for c := uint64(0); c < 20; c++ {
		n := CauseName(c)
		got, err := ParseCause(n)
		if err != nil || got != c {
			t.Errorf("cause %d is named %q, which parses as %d (%v)", c, n, got, err)
		}
	}
	for s, want := range map[string]uint64{"13": 13, "0xf": 15, "load-page-fault": 13, "illegal-instruction": 2} {
		if got, err := ParseCause(s); err != nil || got != want {
			t.Errorf("ParseCause(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "load-fault", "64", "-1"} {
		if _, err := ParseCause(s); err == nil {
			t.Errorf("ParseCause(%q) accepted", s)
		}
	}
}
