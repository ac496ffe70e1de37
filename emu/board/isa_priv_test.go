package board_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/testelf"
)

// The privileged part of the ISA suite: bare-metal programs on everett's
// board, in M, S and U modes, whose results are compared with values
// written from the RISC-V privileged specification (20211203, "priv"
// below), under the interpreter and under the JIT.
//
// Every program has the same frame: M-mode start-up, then privTests'
// body, run privRounds times (so that the JIT translates what it can);
// the results of the last round are compared. The body records values
// with "rec REG" (one doubleword) and through the trap handlers: the
// M-mode handler (mtvec) records mcause, mepc, mtval and mstatus masked
// to its trap fields, then continues in M-mode at s11; the S-mode handler
// (stvec) records scause, sepc, stval and sstatus masked the same way, and
// continues in S-mode at s11. "goto MODE LABEL" sets MPP and mepc and
// runs mret; "la REG,LABEL" loads a label's address.

// privRounds is how many times a program runs its body.
const privRounds = 300

// Physical layout of a program (offsets from board.RAMBase).
const (
	privTohost  = 0x3000 // tohost, fromhost
	privRecs    = 0x4000 // the records; at privRecs-8 the end pointer
	privTables  = 0x10000
	privPrist   = 0x20000 // a pristine copy of privTables, copied back every round
	privTableSz = 0x8000
	privImage   = 0x28000
	privMega    = 0x200000 // the 2 MiB page the Sv39 megapage maps
	privRAM     = 16 << 20
)

// privMask keeps the trap fields of mstatus and sstatus: SIE, MIE, SPIE,
// MPIE, SPP, MPP, MPRV.
const privMask = 1<<1 | 1<<3 | 1<<5 | 1<<7 | 1<<8 | 3<<11 | 1<<17

// Causes (priv 3.1.15, table 3.6).
const (
	cFetchAccess = 1
	cIllegal     = 2
	cLoadMisal   = 4
	cLoadAccess  = 5
	cStoreMisal  = 6
	cStoreAccess = 7
	cEcallU      = 8
	cEcallS      = 9
	cEcallM      = 11
	cFetchPage   = 12
	cLoadPage    = 13
	cStorePage   = 15
)

// privFrame is the start-up, the round loop and the handlers around a body.
func privFrame(body []string) []string {
	base := board.RAMBase
	out := []string{
		fmt.Sprintf("li s9,%d", privRounds),
		"round:",
		// copy the pristine page tables back (the A and D bits)
		"la t0,pristine", "la t1,tables", fmt.Sprintf("li t2,%d", privTableSz/8),
		"copy:", "ld t3,0(t0)", "sd t3,0(t1)", "addi t0,t0,8", "addi t1,t1,8", "addi t2,t2,-1", "bne t2,zero,copy",
		"sfence.vma zero,zero",
		"la t0,mtrap", "csrrw zero,mtvec,t0", "la t0,strap", "csrrw zero,stvec,t0",
		"csrrw zero,mstatus,zero", "csrrw zero,medeleg,zero", "csrrw zero,mideleg,zero", "csrrw zero,satp,zero",
		"csrrw zero,mie,zero", "csrrw zero,sie,zero", "csrrwi zero,mip,0", "csrrw zero,mcounteren,zero", "csrrw zero,scounteren,zero",
		"la s10,recs",
	}
	out = append(out, body...)
	out = append(out,
		"la t0,recs", "sd s10,-8(t0)",
		"addi s9,s9,-1", "beq s9,zero,{+8}", "jal zero,round",
		"li t0,1", "la t1,tohost", "sd t0,0(t1)", "park:", "jal zero,park",
		"mtrap:",
		"csrrs t0,mcause,zero", "rec t0", "csrrs t0,mepc,zero", "rec t0", "csrrs t0,mtval,zero", "rec t0",
		"csrrs t0,mstatus,zero", fmt.Sprintf("li t1,%d", privMask), "and t0,t0,t1", "rec t0", "jalr zero,0(s11)",
		"strap:",
		"csrrs t0,scause,zero", "rec t0", "csrrs t0,sepc,zero", "rec t0", "csrrs t0,stval,zero", "rec t0",
		"csrrs t0,sstatus,zero", fmt.Sprintf("li t1,%d", privMask), "and t0,t0,t1", "rec t0", "jalr zero,0(s11)",
	)
	_ = base
	return out
}

// privAsm assembles a program with labels ("name:"), "la REG,LABEL"
// (auipc+addi), "rec REG", "goto MODE LABEL" (MODE u, s or m) and "li"
// of any constant, all of known length, into code placed at pc.
// Branch and jump operands may name labels. Fixed labels: recs, tohost,
// tables, pristine.
func privAsm(pc uint64, lines []string) ([]byte, map[string]uint64, error) {
	labels := map[string]uint64{
		"recs": pc + privRecs, "tohost": pc + privTohost, "tables": pc + privTables, "pristine": pc + privPrist,
	}
	// Expand the pseudo-instructions.
	var exp []string
	for _, l := range lines {
		f := strings.Fields(strings.ReplaceAll(l, ",", " "))
		switch {
		case len(f) == 0:
		case f[0] == "rec":
			exp = append(exp, "sd "+f[1]+",0(s10)", "addi s10,s10,8")
		case f[0] == "goto":
			mpp := map[string]int{"u": 0, "s": 1, "m": 3}[f[1]]
			exp = append(append(exp, li("t0", 3<<11)...), "csrrc zero,mstatus,t0")
			if mpp != 0 {
				exp = append(append(exp, li("t0", uint64(mpp)<<11)...), "csrrs zero,mstatus,t0")
			}
			exp = append(exp, "la t0,"+f[2], "csrrw zero,mepc,t0", "mret")
		case f[0] == "li":
			var v uint64
			if _, err := fmt.Sscan(f[2], &v); err != nil {
				var s int64
				if _, err := fmt.Sscan(f[2], &s); err != nil {
					return nil, nil, fmt.Errorf("%q: %w", l, err)
				}
				v = uint64(s)
			}
			exp = append(exp, li(f[1], v)...)
		default:
			exp = append(exp, l)
		}
	}
	// Pass 1: addresses.
	at := pc
	for _, l := range exp {
		if strings.HasSuffix(l, ":") {
			labels[strings.TrimSuffix(l, ":")] = at
			continue
		}
		switch {
		case strings.HasPrefix(l, "la "):
			at += 8
		case strings.HasPrefix(l, "c."):
			at += 2
		default:
			at += 4
		}
	}
	// Pass 2: encode.
	var code []byte
	at = pc
	for _, l := range exp {
		if strings.HasSuffix(l, ":") {
			continue
		}
		var text []string
		if strings.HasPrefix(l, "la ") {
			rd, lab, _ := strings.Cut(strings.TrimPrefix(l, "la "), ",")
			target, ok := labels[lab]
			if !ok {
				return nil, nil, fmt.Errorf("%q: no label %s", l, lab)
			}
			off := int64(target - at)
			lo := off << 52 >> 52
			text = []string{fmt.Sprintf("auipc %s,0x%x", rd, uint64(off-lo)>>12&0xfffff), fmt.Sprintf("addi %s,%s,%d", rd, rd, lo)}
		} else {
			// a label as the last operand of a branch or jump
			if i := strings.LastIndex(l, ","); i >= 0 {
				if a, ok := labels[l[i+1:]]; ok {
					l = l[:i+1] + fmt.Sprintf("%x", a)
				}
			}
			text = []string{l}
		}
		b, err := assembleAt(at, text)
		if err != nil {
			return nil, nil, err
		}
		code = append(code, b...)
		at += uint64(len(b))
	}
	return code, labels, nil
}

// privTest is one program: its body, the page tables it needs (physical
// offset from privTables and doubleword) and the records it must leave.
type privTest struct {
	name   string
	body   []string
	tables map[uint64]uint64
	want   func(l map[string]uint64) []uint64
}

// bitsOf is the encoding of one instruction (for mtval of an illegal one).
func bitsOf(t *testing.T, line string) uint64 {
	t.Helper()
	b, err := assembleAt(0, []string{line})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 2 {
		return uint64(binary.LittleEndian.Uint16(b))
	}
	return uint64(binary.LittleEndian.Uint32(b))
}

// runPriv builds p's program and runs it under each engine.
func runPriv(t *testing.T, p privTest) {
	t.Helper()
	base := uint64(board.RAMBase)
	code, labels, err := privAsm(base, privFrame(p.body))
	if err != nil {
		t.Fatal(err)
	}
	if len(code) > privTohost {
		t.Fatalf("program of %d bytes overlaps tohost", len(code))
	}
	img := make([]byte, privImage)
	copy(img, code)
	for off, v := range p.tables {
		binary.LittleEndian.PutUint64(img[privTables+off:], v)
		binary.LittleEndian.PutUint64(img[privPrist+off:], v)
	}
	elf := testelf.Build(base, img, privImage, testelf.Symbol{Name: "tohost", Value: base + privTohost},
		testelf.Symbol{Name: "fromhost", Value: base + privTohost + 8})
	want := p.want(labels)
	engines := []emu.Engine{emu.EngineInterp}
	if emu.JITSupported() {
		engines = append(engines, emu.EngineJIT)
	}
	for _, e := range engines {
		prog, err := emu.ParseELF(elf)
		if err != nil {
			t.Fatal(err)
		}
		m, err := board.NewBareMetal(board.BareMetal{Harts: 1, RAMBytes: privRAM}, prog)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetEngine(e); err != nil {
			t.Fatal(err)
		}
		if r := m.Run(50_000_000); r != emu.StopPowerOff || m.ExitCode() != 0 {
			t.Fatalf("%v: stopped with %v, exit code %d, pc %#x", e, r, m.ExitCode(), m.Harts()[0].PC())
		}
		var end [8]byte
		if err := m.ReadPhys(base+privRecs-8, end[:]); err != nil {
			t.Fatal(err)
		}
		n := (binary.LittleEndian.Uint64(end[:]) - (base + privRecs)) / 8
		if n > 512 {
			t.Fatalf("%v: %d records", e, n)
		}
		buf := make([]byte, 8*n)
		if err := m.ReadPhys(base+privRecs, buf); err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for i := range n {
			got = append(got, binary.LittleEndian.Uint64(buf[8*i:]))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: records differ from the specification's\n got: %s\nwant: %s", e, hexs(got), hexs(want))
		}
		if e == emu.EngineJIT && m.JITStats().Insns == 0 {
			t.Errorf("the JIT ran no instruction as host code in %d rounds", privRounds)
		}
	}
}

func hexs(v []uint64) string {
	var b bytes.Buffer
	for i, x := range v {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%#x", x)
	}
	return b.String()
}

// trap is the four records of a trap.
func trap(cause, epc, tval, status uint64) []uint64 { return []uint64{cause, epc, tval, status} }

const (
	mppS = 1 << 11
	mppM = 3 << 11
	sIE  = 1 << 1
	mIE  = 1 << 3
	sPIE = 1 << 5
	mPIE = 1 << 7
	sPP  = 1 << 8
	mPRV = 1 << 17
)

func privTests(t *testing.T) []privTest {
	return []privTest{
		{
			name: "ecall from U, S and M traps to M with causes 8, 9 and 11 (priv 3.1.15, 3.3.1)",
			body: []string{
				"la s11,Lt1", "goto u Lu1", "Lu1:", "ecall",
				"Lt1:", "la s11,Lt2", "goto s Ls1", "Ls1:", "ecall",
				"Lt2:", "la s11,Lt3", "Lm1:", "ecall", "Lt3:",
			},
			want: func(l map[string]uint64) []uint64 {
				var w []uint64
				w = append(w, trap(cEcallU, l["Lu1"], 0, 0)...)
				w = append(w, trap(cEcallS, l["Ls1"], 0, mppS)...)
				return append(w, trap(cEcallM, l["Lm1"], 0, mppM)...)
			},
		},
		{
			name: "mret and sret restore xIE from xPIE, set xPIE, leave the least privilege in xPP, and clear MPRV below M (priv 3.1.6.1, 3.3.2)",
			body: []string{
				// mret to M with MPIE and MPRV: MIE=1, MPIE=1, MPP=U, MPRV kept
				fmt.Sprintf("li t0,%d", mPIE|mppM|mPRV), "csrrw zero,mstatus,t0",
				"la t0,La1", "csrrw zero,mepc,t0", "mret", "La1:",
				"csrrs t0,mstatus,zero", fmt.Sprintf("li t1,%d", privMask), "and t0,t0,t1", "rec t0",
				// mret to S with MPRV: MPRV cleared; then sret to U with SPIE
				fmt.Sprintf("li t0,%d", mppS|mPRV), "csrrw zero,mstatus,t0",
				"la s11,La3", "la t0,Ls1", "csrrw zero,mepc,t0", "mret",
				"Ls1:", "csrrs t0,sstatus,zero", "rec t0",
				fmt.Sprintf("li t0,%d", sPIE), "csrrs zero,sstatus,t0", fmt.Sprintf("li t0,%d", sPP|sIE), "csrrc zero,sstatus,t0",
				"la t0,Lu1", "csrrw zero,sepc,t0", "sret",
				"Lu1:", "ecall",
				"La3:",
				// sret to S (SPP=S) keeps S
				fmt.Sprintf("li t0,%d", mppS), "csrrw zero,mstatus,t0", "la s11,La4", "la t0,Ls2", "csrrw zero,mepc,t0", "mret",
				"Ls2:", fmt.Sprintf("li t0,%d", sPP|sPIE), "csrrs zero,sstatus,t0", "la t0,Ls3", "csrrw zero,sepc,t0", "sret",
				"Ls3:", "csrrs t0,sstatus,zero", fmt.Sprintf("li t1,%d", privMask), "and t0,t0,t1", "rec t0", "Le3:", "ecall",
				"La4:",
			},
			want: func(l map[string]uint64) []uint64 {
				w := []uint64{mIE | mPIE | mPRV}
				w = append(w, 2<<32) // sstatus after mret to S: only UXL (64 bits, priv 4.1.1.1)
				w = append(w, trap(cEcallU, l["Lu1"], 0, sIE|sPIE)...)
				w = append(w, sIE|sPIE)
				return append(w, trap(cEcallS, l["Le3"], 0, mppS|sIE|sPIE)...)
			},
		},
	}
}

// TestISASuitePrivilegedMatchesTheSpecUnderBothEngines runs the privileged
// programs on the bare-metal board under both engines.
func TestISASuitePrivilegedMatchesTheSpecUnderBothEngines(t *testing.T) {
	for _, p := range privTests(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			runPriv(t, p)
		})
	}
}
