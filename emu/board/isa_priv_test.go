package board_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
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
	privUCode   = 0x7000 // a page of code for U-mode (privTest.ucode)
	privUCodeVA = 0x40206000
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
	out := []string{
		// one PMP entry granting everything: with PMP implemented and no
		// entry matching, S and U accesses fail (priv 3.7.1)
		"addi t0,zero,-1", "csrrw zero,pmpaddr0,t0", "addi t0,zero,31", "csrrw zero,pmpcfg0,t0",
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
		// the last round's records, raw, through the HTIF console
		"la s1,recs", "la t1,tohost",
		"pr:", "beq s1,s10,pdone", "lbu a0,0(s1)",
		"pw1:", "ld t0,0(t1)", "bne t0,zero,pw1",
		"li t0,257", "slli t0,t0,48", "or t0,t0,a0", "sd t0,0(t1)",
		"pw2:", "ld t0,8(t1)", "beq t0,zero,pw2", "sd zero,8(t1)",
		"addi s1,s1,1", "jal zero,pr",
		"pdone:", "li t0,1", "sd t0,0(t1)", "park:", "jal zero,park",
		"align4", "mtrap:", // xtvec's low bits are its mode
		"csrrs t0,mcause,zero", "rec t0", "csrrs t0,mepc,zero", "rec t0", "csrrs t0,mtval,zero", "rec t0",
		"csrrs t0,mstatus,zero", fmt.Sprintf("li t1,%d", privMask), "and t0,t0,t1", "rec t0", "jalr zero,0(s11)",
		"align4", "strap:",
		"csrrs t0,scause,zero", "rec t0", "csrrs t0,sepc,zero", "rec t0", "csrrs t0,stval,zero", "rec t0",
		"csrrs t0,sstatus,zero", fmt.Sprintf("li t1,%d", privMask), "and t0,t0,t1", "rec t0", "jalr zero,0(s11)",
	)
	return out
}

// privAsm assembles a program with labels ("name:"), "la REG,LABEL"
// (auipc+addi), "rec REG", "goto MODE LABEL" (MODE u, s or m) and "li"
// of any constant, all of known length, and "align4", into code placed
// at pc.
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
	// Pass 1: addresses ("align4" becomes a c.nop where needed).
	at := pc
	var aligned []string
	for _, l := range exp {
		if l == "align4" {
			if at%4 != 0 {
				aligned = append(aligned, "c.nop")
				at += 2
			}
			continue
		}
		aligned = append(aligned, l)
		if strings.HasSuffix(l, ":") {
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
	exp = aligned
	at = pc
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
	ucode  []string // code for a user page at privUCodeVA, placed at privUCode
	want   func(l map[string]uint64) []uint64
	// qemu: records where qemu-system-riscv64 may differ from want, and
	// why (an implementation's choice, or QEMU's deviation from the spec).
	qemu map[int]string
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
	ucode, err := assembleAt(privUCodeVA, p.ucode)
	if err != nil {
		t.Fatal(err)
	}
	copy(img[privUCode:], ucode)
	for off, v := range p.tables {
		binary.LittleEndian.PutUint64(img[privTables+off:], v)
		binary.LittleEndian.PutUint64(img[privPrist+off:], v)
	}
	elf := testelf.Build(base, img, privImage, testelf.Symbol{Name: "tohost", Value: base + privTohost, Size: 8},
		testelf.Symbol{Name: "fromhost", Value: base + privTohost + 8, Size: 8})
	want := p.want(labels)
	comparePrivQEMU(t, p, elf, want)
	engines := []emu.Engine{emu.EngineInterp}
	if emu.JITSupported() {
		engines = append(engines, emu.EngineJIT)
	}
	for _, e := range engines {
		prog, err := emu.ParseELF(elf)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		m, err := board.NewBareMetal(board.BareMetal{Harts: 1, RAMBytes: privRAM, Console: &out}, prog)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetEngine(e); err != nil {
			t.Fatal(err)
		}
		if r := m.Run(50_000_000); r != emu.StopPowerOff || m.ExitCode() != 0 {
			pc := m.Harts()[0].PC()
			near := ""
			for name, a := range labels {
				if a <= pc && (near == "" || a > labels[near]) {
					near = name
				}
			}
			s10 := m.Harts()[0].X(26)
			buf := make([]byte, min(s10-(base+privRecs), 64*8))
			m.ReadPhys(base+privRecs, buf)
			var got []uint64
			for i := 0; i+8 <= len(buf); i += 8 {
				got = append(got, binary.LittleEndian.Uint64(buf[i:]))
			}
			t.Fatalf("%v: stopped with %v, exit code %d, pc %#x (%s+%d); records so far: %s", e, r, m.ExitCode(), pc, near, pc-labels[near], hexs(got))
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
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%v: records differ from the specification's from record %d\n got: %s\nwant: %s", e, i, hexs(got), hexs(want))
		}
		if !bytes.Equal(out.Bytes(), buf) {
			t.Errorf("%v: the console (%d bytes) is not the records (%d bytes)", e, out.Len(), len(buf))
		}
		if e == emu.EngineJIT && m.JITStats().Insns == 0 {
			t.Errorf("the JIT ran no instruction as host code in %d rounds", privRounds)
		}
	}
}

// comparePrivQEMU runs the program on qemu-system-riscv64 (the spike
// machine: HTIF, RAM at 0x8000_0000, nothing at low addresses) and
// compares its records with want, except those p.qemu excuses.
func comparePrivQEMU(t *testing.T, p privTest, elf []byte, want []uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "priv.elf")
	if d := os.Getenv("PRIVDUMP"); d != "" { // keep the ELF there, for a run by hand
		path = d
	}
	if err := os.WriteFile(path, elf, 0o644); err != nil {
		t.Fatal(err)
	}
	q := runQEMU(t, path, 1)
	if q.code != 0 {
		t.Fatalf("qemu: exit code %d", q.code)
	}
	out := []byte(q.out)
	var got []uint64
	for i := 0; i+8 <= len(out); i += 8 {
		got = append(got, binary.LittleEndian.Uint64(out[i:]))
	}
	for i := len(got); i < len(want) && p.qemu[i] != ""; i++ {
		got = append(got, want[i]) // QEMU leaves out what p.qemu excuses
	}
	if len(got) != len(want) {
		t.Fatalf("qemu: %d records, want %d\n got: %s\nwant: %s", len(got), len(want), hexs(got), hexs(want))
	}
	for i := range got {
		if got[i] != want[i] && p.qemu[i] == "" {
			t.Errorf("qemu: record %d is %#x, the specification's %#x", i, got[i], want[i])
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
			name: "ecall from U, S and M traps to M with causes 8, 9 and 11, ebreak and c.ebreak with 3 (priv 3.1.15, 3.3.1)",
			body: []string{
				"la s11,Lt1", "goto u Lu1", "Lu1:", "ecall",
				"Lt1:", "la s11,Lt2", "goto s Ls1", "Ls1:", "ecall",
				"Lt2:", "la s11,Lt3", "Lm1:", "ecall", "Lt3:",
				"la s11,Lt4", "goto u Lu4", "Lu4:", "ebreak", "Lt4:",
				"la s11,Lt5", "goto s Ls5", "Ls5:", "c.ebreak", "Lt5:",
			},
			want: func(l map[string]uint64) []uint64 {
				var w []uint64
				w = append(w, trap(cEcallU, l["Lu1"], 0, 0)...)
				w = append(w, trap(cEcallS, l["Ls1"], 0, mppS)...)
				w = append(w, trap(cEcallM, l["Lm1"], 0, mppM)...)
				// breakpoints: mtval is the address of the ebreak (priv 3.1.16)
				w = append(w, trap(3, l["Lu4"], l["Lu4"], 0)...)
				return append(w, trap(3, l["Ls5"], l["Ls5"], mppS)...)
			},
			qemu: map[int]string{
				14: "QEMU 7.2 writes 0 to mtval on a breakpoint; priv 3.1.16 allows zero or the address (everett writes the address)",
				18: "(the same, for c.ebreak)",
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
			qemu: map[int]string{5: "QEMU 7.2 leaves MPRV set on an mret to S; priv 3.1.6.3 (20211203): an MRET or SRET that changes the privilege mode to a mode less privileged than M also sets MPRV=0"},
		},
		privIllegal(t),
		privDelegation(t),
		privPaging(t, 8),
		privPaging(t, 9),
		privFaults(t),
		privCSRs(t),
	}
}

// set is the lines that set bits v of CSR c from M-mode (t0 clobbered).
func set(c string, v uint64) []string {
	return append(li("t0", v), "csrrs zero,"+c+",t0")
}

// clr is the lines that clear bits v of CSR c.
func clr(c string, v uint64) []string {
	return append(li("t0", v), "csrrc zero,"+c+",t0")
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func privIllegal(t *testing.T) privTest {
	mstatusRead := bitsOf(t, "csrrs t0,mstatus,zero")
	return privTest{
		name: "CSR access from a lower mode, xRET from a lower mode, counters without xcounteren and the TVM/TSR/TW traps are illegal instructions (priv 2.1, 3.1.6.5, 3.1.11)",
		body: cat(
			[]string{"la s11,Lb1", "goto u Lu1", "Lu1:", "csrrs t0,mstatus,zero"},
			[]string{"Lb1:", "la s11,Lb2", "goto u Lu2", "Lu2:", "csrrs t0,sstatus,zero"},
			[]string{"Lb2:", "la s11,Lb3", "goto s Ls3", "Ls3:", "csrrs t0,mstatus,zero"},
			[]string{"Lb3:", "la s11,Lb4", "goto s Ls4a", "Ls4a:", "csrrs t0,sstatus,zero", "Ls4:", "mret"},
			[]string{"Lb4:", "la s11,Lb5", "goto u Lu5", "Lu5:", "sret"},
			[]string{"Lb5:", "la s11,Lb6", "Lm6:", "csrrw zero,mhartid,zero"},
			[]string{"Lb6:", "csrrs t0,mhartid,zero", "rec t0"}, // a read of a read-only CSR is legal
			// counters: S needs mcounteren, U needs mcounteren and scounteren
			[]string{"la s11,Lb7", "goto s Ls7", "Ls7:", "csrrs zero,cycle,zero"},
			[]string{"Lb7:", "csrrwi zero,mcounteren,7", "la s11,Lb8", "goto u Lu8", "Lu8:", "csrrs zero,instret,zero"},
			[]string{"Lb8:", "csrrwi zero,scounteren,1", "la s11,Lb9", "goto u Lu9a", "Lu9a:", "csrrs zero,cycle,zero", "Lu9:", "csrrs zero,instret,zero"},
			[]string{"Lb9:", "csrrwi zero,scounteren,7", "la s11,Lb10", "goto u Lu10a", "Lu10a:", "csrrs zero,cycle,zero", "csrrs zero,instret,zero", "Lu10:", "ecall"},
			// TVM: satp and sfence.vma in S; TSR: sret in S; TW: wfi in S
			[]string{"Lb10:"}, set("mstatus", 1<<20), []string{"la s11,Lb11", "goto s Ls11", "Ls11:", "csrrs t0,satp,zero"},
			[]string{"Lb11:"}, set("mstatus", 1<<20), []string{"la s11,Lb12", "goto s Ls12", "Ls12:", "sfence.vma zero,zero"},
			[]string{"Lb12:"}, set("mstatus", 1<<22), []string{"la s11,Lb13", "goto s Ls13", "Ls13:", "sret"},
			[]string{"Lb13:"}, set("mstatus", 1<<21), []string{"la s11,Lb14", "goto s Ls14", "Ls14:", "wfi"},
			[]string{"Lb14:", "csrrw zero,mstatus,zero", "la s11,Lb15", "goto u Lu15", "Lu15:", "sfence.vma zero,zero"},
			[]string{"Lb15:"},
		),
		want: func(l map[string]uint64) []uint64 {
			return cat64(
				trap(cIllegal, l["Lu1"], mstatusRead, 0),
				trap(cIllegal, l["Lu2"], bitsOf(t, "csrrs t0,sstatus,zero"), 0),
				trap(cIllegal, l["Ls3"], mstatusRead, mppS),
				trap(cIllegal, l["Ls4"], bitsOf(t, "mret"), mppS),
				trap(cIllegal, l["Lu5"], bitsOf(t, "sret"), 0),
				trap(cIllegal, l["Lm6"], bitsOf(t, "csrrw zero,mhartid,zero"), mppM),
				[]uint64{0},
				trap(cIllegal, l["Ls7"], bitsOf(t, "csrrs zero,cycle,zero"), mppS),
				trap(cIllegal, l["Lu8"], bitsOf(t, "csrrs zero,instret,zero"), 0),
				trap(cIllegal, l["Lu9"], bitsOf(t, "csrrs zero,instret,zero"), 0),
				trap(cEcallU, l["Lu10"], 0, 0),
				trap(cIllegal, l["Ls11"], bitsOf(t, "csrrs t0,satp,zero"), mppS),
				trap(cIllegal, l["Ls12"], bitsOf(t, "sfence.vma zero,zero"), mppS),
				trap(cIllegal, l["Ls13"], bitsOf(t, "sret"), mppS),
				trap(cIllegal, l["Ls14"], bitsOf(t, "wfi"), mppS),
				trap(cIllegal, l["Lu15"], bitsOf(t, "sfence.vma zero,zero"), 0),
			)
		},
	}
}

func cat64(parts ...[]uint64) []uint64 {
	var out []uint64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func privDelegation(t *testing.T) privTest {
	return privTest{
		name: "medeleg sends U's ecall and illegal instructions to S, never M's own traps; mideleg sends SSI and STI to S; an undelegated SSI in S goes to M; the CLINT's MTI is taken in M once MIE is set (priv 3.1.6.1, 3.1.8, 3.1.9, 4.1.3)",
		body: cat(
			set("medeleg", 1<<8|1<<2),
			[]string{"la s11,Lc1", "goto u Lu1", "Lu1:", "ecall", "Lc1:", "la s11,Ln1", "Le1:", "ecall", "Ln1:"}, // S handler, then S's ecall to M
			[]string{"la s11,Lc2", "goto s Ls2"},
			[]string{"Ls2:"}, li("t0", sPIE), []string{"csrrs zero,sstatus,t0"}, li("t0", sPP), []string{"csrrc zero,sstatus,t0",
				"la t0,Lu2", "csrrw zero,sepc,t0", "sret", "Lu2:", "csrrs t0,mstatus,zero", "Lc2:", "la s11,Ln2", "Le2:", "ecall", "Ln2:"},
			[]string{"la s11,Lc3", "Lm3:", "csrrw zero,mhartid,zero", "Lc3:"},
			[]string{"csrrw zero,medeleg,zero", "csrrsi zero,mideleg,2", "csrrsi zero,mip,2", "la s11,Lc4", "goto s Ls4"},
			[]string{"Ls4:", "csrrsi zero,sie,2", "csrrsi zero,sstatus,2", "Li4:", "addi zero,zero,0", "Lc4:", "csrrci zero,sip,2", "la s11,Ln4", "Le4:", "ecall", "Ln4:"},
			[]string{"csrrw zero,mideleg,zero", "csrrsi zero,mie,2", "csrrsi zero,mip,2", "la s11,Lc5", "goto s Ls5", "Ls5:", "addi zero,zero,0",
				"Lc5:", "csrrci zero,mip,2", "csrrw zero,mie,zero"},
			// STIP, set by M (mip.STIP is writable there), delegated to S
			set("mideleg", 1<<5), set("mip", 1<<5),
			[]string{"la s11,Lc6", "goto s Ls6", "Ls6:"}, set("sie", 1<<5), []string{"csrrsi zero,sstatus,2", "Li6:", "addi zero,zero,0",
				"Lc6:", "la s11,Ln6", "Le6:", "ecall", "Ln6:"}, clr("mip", 1<<5), []string{"csrrw zero,mie,zero", "csrrw zero,mideleg,zero"},
			// MTI from the CLINT: mtimecmp 0 is due at once; taken in M once MIE is set
			// (a4 holds the address: the handlers use t0 and t1)
			li("a4", board.CLINTBase+0x4000), []string{"sd zero,0(a4)"}, set("mie", 1<<7),
			[]string{"la s11,Lc7", "csrrsi zero,mstatus,8", "Li7:", "addi zero,zero,0", "Lc7:", "addi t0,zero,-1", "sd t0,0(a4)", "csrrw zero,mie,zero"},
		),
		want: func(l map[string]uint64) []uint64 {
			intr := uint64(1)<<63 | 1
			return cat64(
				trap(cEcallU, l["Lu1"], 0, 0), // in S: SPP=U, SPIE=SIE=0
				trap(cEcallS, l["Le1"], 0, mppS),
				trap(cIllegal, l["Lu2"], bitsOf(t, "csrrs t0,mstatus,zero"), sPIE), // SIE was 1 in U
				trap(cEcallS, l["Le2"], 0, mppS|sPIE),
				trap(cIllegal, l["Lm3"], bitsOf(t, "csrrw zero,mhartid,zero"), mppM|sPIE),
				trap(intr, l["Li4"], 0, sPP|sPIE), // taken in S after the write that enabled it
				trap(cEcallS, l["Le4"], 0, mppS|sPP|sPIE),
				trap(intr, l["Ls5"], 0, mppS|sPP|sPIE), // M: before S's first instruction
				trap(1<<63|5, l["Li6"], 0, sPP|sPIE),
				trap(cEcallS, l["Le6"], 0, mppS|sPP|sPIE),
				trap(1<<63|7, l["Li7"], 0, mppM|mPIE|sPP|sPIE),
			)
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

// PTE bits (priv 4.3.1).
const (
	pV = 1 << 0
	pR = 1 << 1
	pW = 1 << 2
	pX = 1 << 3
	pU = 1 << 4
	pA = 1 << 6
	pD = 1 << 7
)

// pte is a page-table entry for physical address pa.
func pte(pa, flags uint64) uint64 { return pa>>12<<10 | flags }

// privPaging is the Sv39 (mode 8) or Sv48 (mode 9) program: S-mode
// accesses through a gigapage, a megapage, 4 KiB pages with each
// permission, an invalid and a reserved PTE, a misaligned megapage and a
// non-canonical address, with page faults delegated to S.
func privPaging(t *testing.T, mode uint64) privTest {
	base := uint64(board.RAMBase)
	tab := base + privTables
	root := tab
	name := "Sv39"
	if mode == 9 {
		root, name = tab+0x3000, "Sv48"
	}
	mega := base + privMega
	tables := map[uint64]uint64{
		0x0000 + 2*8: pte(base, pV|pR|pW|pX|pA|pD),          // VA 0x8000_0000: identity gigapage
		0x0000 + 1*8: pte(tab+0x1000, pV),                   // VA 0x4000_0000: the tables below
		0x1000 + 0*8: pte(mega, pV|pR|pW|pA|pD),             // 0x4000_0000: megapage
		0x1000 + 1*8: pte(tab+0x2000, pV),                   // 0x4020_0000: 4 KiB pages
		0x1000 + 2*8: pte(mega+0x1000, pV|pR|pW|pA|pD),      // 0x4040_0000: misaligned megapage
		0x2000 + 0*8: pte(mega+0x100000, pV|pR|pW),          // A and D clear
		0x2000 + 1*8: pte(mega+0x101000, pV|pR|pW|pU|pA|pD), // a user page
		0x2000 + 2*8: pte(mega+0x102000, pV|pX|pA),          // execute-only
		0x2000 + 4*8: pte(mega+0x104000, pV|pR|pA),          // read-only
		0x2000 + 5*8: pte(mega+0x105000, pV|pW|pA|pD),       // W without R: reserved
		0x2000 + 6*8: pte(base+privUCode, pV|pR|pX|pU|pA),   // user code
		0x3000 + 0*8: pte(tab, pV),                          // Sv48 root: VA 0..512 GiB through the Sv39 root
	}
	const (
		vMega = 0x40000000
		vPage = 0x40200000
	)
	pte0 := tab + 0x2000
	return privTest{
		name:   name + ": superpages, hardware-set A and D, U/SUM, MXR, invalid, reserved and misaligned-superpage PTEs, non-canonical addresses, U code on a user page, MPRV (priv 3.1.6.3, 4.3.1, 4.3.2, 4.4, 4.5)",
		tables: tables,
		ucode:  []string{"ld a3,0(a1)", "sd a3,8(a1)", "ld a5,8(a1)", "ld t0,0(a2)"},
		body: cat(
			li("t1", mega+8), li("t0", 0x1111), []string{"sd t0,0(t1)"},
			li("t1", mega+0x100010), li("t0", 0x2222), []string{"sd t0,0(t1)"},
			li("t1", mega+0x101000), li("t0", 0x3333), []string{"sd t0,0(t1)"},
			li("t1", mega+0x102000), li("t0", 0x4444), []string{"sd t0,0(t1)"},
			li("t1", mega+0x104000), li("t0", 0x5555), []string{"sd t0,0(t1)"},
			li("t0", mode<<60|root>>12), []string{"csrrw zero,satp,t0", "sfence.vma zero,zero"},
			set("medeleg", 1<<12|1<<13|1<<15),
			[]string{"la s11,Lend", "goto s Ls"},
			[]string{"Ls:"}, li("a1", vMega+8), []string{"ld t0,0(a1)", "rec t0"},
			li("a1", vPage+0x10), li("a2", pte0), []string{"ld t0,0(a1)", "rec t0", "ld t0,0(a2)", "andi t0,t0,192", "rec t0",
				"sd t0,0(a1)", "ld t0,0(a2)", "andi t0,t0,192", "rec t0"},
			li("a1", vPage+0x1000), []string{"la s11,Lc3", "Lf3:", "ld t0,0(a1)", "Lc3:"},
			set("sstatus", 1<<18), []string{"ld t0,0(a1)", "rec t0", "la s11,Lc5", "jalr ra,0(a1)", "Lc5:"}, clr("sstatus", 1<<18),
			li("a1", vPage+0x2000), []string{"la s11,Lc6", "Lf6:", "ld t0,0(a1)", "Lc6:"},
			set("sstatus", 1<<19), []string{"ld t0,0(a1)", "rec t0"}, clr("sstatus", 1<<19),
			li("a1", vPage+0x3008), []string{"la s11,Lc7", "Lf7:", "ld t0,0(a1)", "Lc7:"},
			li("a1", vPage+0x4000), []string{"ld t0,0(a1)", "rec t0", "la s11,Lc8", "Lf8:", "sd t0,0(a1)", "Lc8:"},
			li("a1", vPage+0x5000), []string{"la s11,Lc9", "Lf9:", "ld t0,0(a1)", "Lc9:"},
			li("a1", 0x40400000), []string{"la s11,Lc10", "Lf10:", "ld t0,0(a1)", "Lc10:"},
			li("a1", 0x0000800000000000), []string{"la s11,Lc11", "Lf11:", "ld t0,0(a1)", "Lc11:"},
			li("a1", 0xffffffc000000000), []string{"la s11,Lc12", "Lf12:", "ld t0,0(a1)", "Lc12:"},
			// U-mode: loads and stores to its own page, then a load from
			// a supervisor page (a page fault, to S)
			li("a1", vPage+0x1000), li("a2", vMega+8), clr("sstatus", sPP), li("t0", privUCodeVA),
			[]string{"csrrw zero,sepc,t0", "la s11,Lc14", "sret", "Lc14:", "rec a5"},
			[]string{"la s11,Lend", "Le:", "ecall", "Lend:"},
			// MPRV: M-mode loads and stores translated as if in MPP's mode
			set("mstatus", mPRV|mppS), li("a1", vMega+8), []string{"ld t0,0(a1)", "rec t0"},
			// (with MPP=U no record can be stored: the records' page is S's)
			clr("mstatus", mppM), li("a1", vPage+0x1000), []string{"ld a3,0(a1)"},
			li("a1", vMega+8), []string{"la s11,Lc13", "Lf13:", "ld t0,0(a1)", "Lc13:", "rec a3"},
			clr("mstatus", mPRV), li("a1", mega+8), []string{"ld t0,0(a1)", "rec t0"},
		),
		want: func(l map[string]uint64) []uint64 {
			w := cat64(
				[]uint64{0x1111, 0x2222, pA, pA | pD},
				trap(cLoadPage, l["Lf3"], vPage+0x1000, sPP),
				[]uint64{0x3333},
				trap(cFetchPage, vPage+0x1000, vPage+0x1000, sPP),
				trap(cLoadPage, l["Lf6"], vPage+0x2000, sPP),
				[]uint64{0x4444},
				trap(cLoadPage, l["Lf7"], vPage+0x3008, sPP),
				[]uint64{0x5555},
				trap(cStorePage, l["Lf8"], vPage+0x4000, sPP),
				trap(cLoadPage, l["Lf9"], vPage+0x5000, sPP),
				trap(cLoadPage, l["Lf10"], 0x40400000, sPP),
				trap(cLoadPage, l["Lf11"], 0x0000800000000000, sPP),
			)
			// 0xffff_ffc0_0000_0000 is canonical under both; Sv39 finds
			// root[256] empty; Sv48 root[511] empty: a page fault either way.
			w = append(w, trap(cLoadPage, l["Lf12"], 0xffffffc000000000, sPP)...)
			w = append(w, trap(cLoadPage, privUCodeVA+12, vMega+8, 0)...) // from U: SPP=U
			w = append(w, 0x3333)
			w = append(w, trap(cEcallS, l["Le"], 0, mppS)...)
			w = append(w, 0x1111)
			// a U access to a supervisor page: a fault taken in M, never delegated
			w = append(w, trap(cLoadPage, l["Lf13"], vMega+8, mppM|mPRV)...)
			return append(w, 0x3333, 0x1111) // MPP=M now: MPRV translates nothing
		},
	}
}

func privFaults(t *testing.T) privTest {
	data := uint64(board.RAMBase) + 0x6000
	return privTest{
		name: "misaligned loads work, misaligned LR/SC/AMOs and accesses outside RAM trap with the address in mtval (priv 3.1.15, 3.1.16, 3.6; unprivileged 8.4)",
		body: cat(
			li("a0", data), li("t0", 0x1122334455667788), []string{"sd t0,0(a0)"}, li("t0", 0x99aabbccddeeff00), []string{"sd t0,8(a0)"},
			[]string{"ld t0,3(a0)", "rec t0", "lw t0,6(a0)", "rec t0", "lhu t0,7(a0)", "rec t0"},
			[]string{"addi a1,a0,2", "la s11,Lc1", "Lf1:", "lr.w t0,(a1)", "Lc1:"},
			[]string{"addi a1,a0,1", "la s11,Lc3", "Lf3:", "amoadd.w t0,t1,(a1)", "Lc3:"},
			[]string{"addi a1,zero,256", "la s11,Lc4", "Lf4:", "ld t0,0(a1)", "Lc4:"},
			[]string{"la s11,Lc5", "Lf5:", "sd t0,8(a1)", "Lc5:"},
			[]string{"la s11,Lc6", "jalr ra,0(a1)", "Lc6:"},
			[]string{"addi a1,a0,4", "la s11,Lc2", "Lf2:", "sc.d t0,t1,(a1)", "Lc2:"},
		),
		want: func(l map[string]uint64) []uint64 {
			return cat64(
				[]uint64{0xeeff001122334455, 0xffffffffff001122, 0x0011},
				trap(cLoadMisal, l["Lf1"], data+2, mppM),
				trap(cStoreMisal, l["Lf3"], data+1, mppM),
				trap(cLoadAccess, l["Lf4"], 256, mppM),
				trap(cStoreAccess, l["Lf5"], 264, mppM),
				trap(cFetchAccess, 256, 256, mppM),
				trap(cStoreMisal, l["Lf2"], data+4, mppM),
			)
		},
		qemu: map[int]string{
			7:  "QEMU 7.2 reports a misaligned AMO as a load address misaligned (cause 4); priv 3.1.15 table 3.6 names it a store/AMO address-misaligned exception (6)",
			23: "QEMU 7.2 fails an SC without a reservation before checking its alignment, so it does not trap; unprivileged 8.2 requires a misaligned LR/SC to raise an address-misaligned (or access-fault) exception",
			24: "(the same SC)", 25: "(the same SC)", 26: "(the same SC)",
		},
	}
}

func privCSRs(t *testing.T) privTest {
	const (
		fsInit  = 1 << 13
		sum     = 1 << 18
		mxr     = 1 << 19
		uxl64   = 2 << 32
		fsShift = 13
	)
	fsRead := []string{"csrrs t0,mstatus,zero", "srli t1,t0,13", "andi t1,t1,3", "rec t1", "srli t1,t0,63", "rec t1"}
	return privTest{
		name: "CSR side effects: FP instructions dirty mstatus.FS and set SD, FS=Off and reserved rounding modes make them illegal, sstatus is a view of mstatus, minstret counts, unsupported satp modes are ignored, misa (priv 3.1.1, 3.1.6.6, 3.1.11, 4.1.11)",
		body: cat(
			set("mstatus", fsInit), []string{"fadd.d ft0,ft0,ft0"}, fsRead,
			[]string{"csrrw zero,mstatus,zero"}, set("mstatus", fsInit), []string{"csrrwi zero,fflags,1"}, fsRead,
			[]string{"csrrw zero,mstatus,zero"}, set("mstatus", fsInit), []string{"fmv.d.x ft0,zero"}, fsRead,
			[]string{"csrrw zero,mstatus,zero", "la s11,Lc1", "Lf1:", "fadd.d ft0,ft0,ft0", "Lc1:"},
			[]string{"la s11,Lc2", "Lf2:", "csrrs t0,fcsr,zero", "Lc2:"},
			[]string{"la s11,Lc3", "Lf3:", "fld ft0,0(s10)", "Lc3:"},
			set("mstatus", mppM|mIE|sum|mxr|sIE), []string{"csrrs t0,sstatus,zero", "rec t0", "csrrw zero,sstatus,zero", "csrrs t0,mstatus,zero"},
			li("t1", mppM|mIE|sum|mxr|sIE), []string{"and t0,t0,t1", "rec t0", "csrrw zero,mstatus,zero"},
			[]string{"csrrs a1,minstret,zero", "csrrs a2,minstret,zero", "sub t0,a2,a1", "rec t0"},
			li("t0", 10<<60|5), []string{"csrrw zero,satp,t0", "csrrs t0,satp,zero", "rec t0"},
			li("t0", 8<<60|0x80010), []string{"csrrw zero,satp,t0", "csrrs t0,satp,zero", "rec t0", "csrrw zero,satp,zero"},
			[]string{"csrrs t0,misa,zero", "rec t0"},
			// reserved rounding modes: static 5 and 6, dyn with frm 5..7
			set("mstatus", fsInit),
			[]string{"la s11,Lc4", "Lf4:", fmt.Sprintf(".4byte %#x", rmFadd(5)), "Lc4:"},
			[]string{"la s11,Lc5", "Lf5:", fmt.Sprintf(".4byte %#x", rmFadd(6)), "Lc5:"},
			[]string{"csrrwi zero,frm,5", "la s11,Lc6", "Lf6:", "fadd.d ft0,ft0,ft0", "Lc6:"},
			[]string{"csrrwi zero,frm,7", "la s11,Lc7", "Lf7:", "fadd.d ft0,ft0,ft0", "Lc7:", "csrrwi zero,frm,0"},
			[]string{"csrrw zero,mstatus,zero"},
		),
		want: func(l map[string]uint64) []uint64 {
			return cat64(
				[]uint64{3, 1, 3, 1, 3, 1},
				trap(cIllegal, l["Lf1"], bitsOf(t, "fadd.d ft0,ft0,ft0"), mppM),
				trap(cIllegal, l["Lf2"], bitsOf(t, "csrrs t0,fcsr,zero"), mppM),
				trap(cIllegal, l["Lf3"], bitsOf(t, "fld ft0,0(s10)"), mppM),
				[]uint64{uxl64 | sum | mxr | sIE, mppM | mIE},
				[]uint64{1, 0, 8<<60 | 0x80010},
				// RV64 (MXL 2) with A, C, D, F, I, M, S and U.
				[]uint64{2<<62 | 1<<0 | 1<<2 | 1<<3 | 1<<5 | 1<<8 | 1<<12 | 1<<18 | 1<<20},
				trap(cIllegal, l["Lf4"], rmFadd(5), mppM),
				trap(cIllegal, l["Lf5"], rmFadd(6), mppM),
				trap(cIllegal, l["Lf6"], bitsOf(t, "fadd.d ft0,ft0,ft0"), mppM),
				trap(cIllegal, l["Lf7"], bitsOf(t, "fadd.d ft0,ft0,ft0"), mppM),
			)
		},
		qemu: map[int]string{
			20: "QEMU without -icount does not count minstret exactly (priv 3.1.11 asks for instructions retired)",
			21: "QEMU implements Sv57, so mode 10 is a supported mode there (an implementation's choice)",
			23: "QEMU's CPU has the H extension in misa (an implementation's choice)",
		},
	}
}

// rmFadd is fadd.d ft0,ft0,ft0 with rounding mode rm (unprivileged 11.2:
// 5 and 6 are reserved).
func rmFadd(rm uint32) uint64 { return uint64(0x02000053 | rm<<12) }
