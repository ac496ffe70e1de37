package board_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/emu/enginecheck"
	"everett/internal/testelf"
)

// FuzzEngines turns fuzz bytes into a random RV64GC bare-metal program and
// runs it under the interpreter and the JIT in lockstep
// (enginecheck.CompareEngines); any difference fails, naming the first
// differing instruction. The bytes drive the user-mode fuzz test's generator
// (userfuzz_test.go: integer, M, loads and stores to a scratch buffer, AMOs
// and LR/SC, FP in every rounding mode, compressed instructions, forward
// branches), with extras of its own: CSR reads and writes, raw words
// (mostly illegal), ecall and ebreak, accesses that fault, fence.i, wfi and
// stores into the code just ahead (self-modifying code). A prologue sets
// every register, fcsr, a trap handler that skips faulting instructions
// and counts traps, and (when the bytes say so) a timer interrupt that
// re-arms itself, so interrupts land inside blocks; one or two harts run
// the same code on the same scratch buffer.
//
//	go test -fuzz FuzzEngines -fuzzminimizetime 1x ./emu/board/
//
// (almost every input reaches new emulator code, and minimizing each one
// for the default minute would leave no time to fuzz).
func FuzzEngines(f *testing.F) {
	for seed := uint64(1); seed <= 8; seed++ {
		f.Add(seedBytes(seed, 64+int(seed)*96))
	}
	f.Add([]byte{})
	f.Add([]byte(strings.Repeat("\xff", 512)))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newFuzzProgram(data)
		if !emu.JITSupported() {
			t.Skip("the JIT needs a linux/amd64 host")
		}
		// An input may make a program that runs no host code at all (one
		// that traps in a loop): the comparison then shows only that the
		// JIT leaves it to the interpreter. TestTheEnginesAgreeOnEveryALUOp…
		// (emu) is the one that must run host code.
		_, d, err := enginecheck.CompareEngines(p.build, 997, fuzzEnginesLimit)
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			t.Fatalf("%v\nprogram (%d harts, timer every %d ticks, %d rounds):\n%s", d, p.harts, p.timer, p.reps, p.listing())
		}
	})
}

// fuzzEnginesLimit bounds every FuzzEngines run.
const fuzzEnginesLimit = 200_000

// seedBytes returns n bytes drawn from seed, for the seed corpus.
func seedBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x656e67696e6573))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// byteSource is a rand.Source that reads the fuzz bytes, then continues
// with a PCG seeded from their hash (so that every input makes a program
// of full length, and a longer input is a different program).
type byteSource struct {
	b    []byte
	more *rand.PCG
}

func newByteSource(b []byte) *byteSource {
	h := fnv.New64a()
	h.Write(b)
	return &byteSource{b: b, more: rand.NewPCG(h.Sum64(), uint64(len(b)))}
}

func (s *byteSource) Uint64() uint64 {
	if len(s.b) == 0 {
		return s.more.Uint64()
	}
	var w [8]byte
	n := copy(w[:], s.b)
	s.b = s.b[n:]
	return binary.LittleEndian.Uint64(w[:])
}

// The fuzz program's layout, as offsets from RAM base.
const (
	fzPrologue = 0x0000
	fzHandler  = 0x0400
	fzRepeat   = 0x0600
	fzExit     = 0x0700
	fzInit     = 0x0800 // x0..x31, f0..f31, fcsr: 65 words
	fzToHost   = 0x1000
	fzFromHost = 0x1040
	fzSave     = 0x1100 // 64 bytes per hart: t1, t2, t3, trap count, rounds
	fzScratch  = 0x2000 // scratchBytes of data; x2, x8, x9 point into it
	fzCode     = 0x4000
	fzMaxTraps = 2000 // the handler exits after this many traps
)

type fuzzProgram struct {
	harts int
	timer int // timer interrupt interval in ticks (0: none)
	reps  int // times the sequence runs (so that the JIT finds it hot)
	c     *fuzzCase
	elf   *emu.ELF
}

func newFuzzProgram(data []byte) *fuzzProgram {
	r := rand.New(newByteSource(data))
	p := &fuzzProgram{harts: 1 + r.IntN(2)}
	if r.IntN(3) != 0 {
		p.timer = 1 + r.IntN(60)
	}
	p.reps = 8 + r.IntN(120)
	p.c = generateFrom(r, 0, 32+r.IntN(224), func(g *gen) []genInsn { return fuzzExtra(g, p.timer != 0) })
	image := p.image()
	p.elf = mustParse(testelf.Build(board.RAMBase, image, uint64(len(image))+0x1000,
		testelf.Symbol{Name: "tohost", Value: board.RAMBase + fzToHost},
		testelf.Symbol{Name: "fromhost", Value: board.RAMBase + fzFromHost}))
	return p
}

func mustParse(b []byte) *emu.ELF {
	e, err := emu.ParseELF(b)
	if err != nil {
		panic(fmt.Sprintf("FuzzEngines built an ELF that does not parse: %v", err))
	}
	return e
}

func (p *fuzzProgram) build() (*emu.Machine, error) {
	return board.NewBareMetal(board.BareMetal{Harts: p.harts, RAMBytes: 16 << 20, Quantum: 293}, p.elf)
}

func (p *fuzzProgram) listing() string { return p.c.listing(board.RAMBase + fzCode) }

// fuzzCSRs are CSRs the extras read: counters, machine and supervisor
// CSRs, FP CSRs and some that do not exist (an illegal instruction).
var fuzzCSRs = []uint32{
	0xc00, 0xc01, 0xc02, 0xb00, 0xb02, 0x300, 0x301, 0x304, 0x305, 0x340, 0x341, 0x342,
	0x343, 0x344, 0xf11, 0xf14, 0x3a0, 0x3b0, 0x180, 0x100, 0x104, 0x144, 0x001, 0x002, 0x003,
	0x7b0, 0xc03, 0x306, 0x106,
}

// fuzzExtra is FuzzEngines' own share of the instructions (one in six).
// wfi is one of them only when a timer interrupt will wake the hart.
func fuzzExtra(g *gen, wfi bool) []genInsn {
	if g.n(6) != 0 {
		return nil
	}
	w := func(bits ...uint32) []genInsn {
		var out []genInsn
		for _, b := range bits {
			out = append(out, genInsn{bits: b, n: 4, target: -1})
		}
		return out
	}
	switch g.n(9) {
	case 0, 1: // csrrs rd, csr, x0: a read
		return w(fuzzCSRs[g.n(len(fuzzCSRs))]<<20 | 2<<12 | g.wreg()<<7 | 0x73)
	case 2: // writes that keep the harness working: fflags, frm, fcsr, mcycle, minstret
		csr := []uint32{0x001, 0x002, 0x003, 0xb00, 0xb02}[g.n(5)]
		return w(csr<<20 | g.rreg()<<15 | uint32(1+g.n(3))<<12 | g.wreg()<<7 | 0x73)
	case 3: // a raw word
		return w(g.r.Uint32())
	case 4: // ecall, ebreak, c.ebreak
		switch g.n(3) {
		case 0:
			return w(0x00000073)
		case 1:
			return w(0x00100073)
		}
		return []genInsn{{bits: 0x9002, n: 2, target: -1}}
	case 5: // a load or store below RAM (access fault) or misaligned through x8
		if g.n(2) == 0 {
			return w(itype(int32(g.n(2048)), 0, uint32(g.n(4)), g.wreg(), 0x03))
		}
		return w(stype(int32(1+2*g.n(100))-s0Off+1024, g.rreg(), 8, uint32(1+g.n(3)), 0x23))
	case 6: // fence.i, fence
		if g.n(2) == 0 {
			return w(0x0000100f)
		}
		return w(0x0ff0000f)
	case 7: // wfi (the timer wakes it), else fence
		if wfi {
			return w(0x10500073)
		}
		return w(0x0ff0000f)
	default: // auipc rd, 0; sw rs, off(rd): overwrite code just ahead
		rd := g.wreg()
		for rd == 0 {
			rd = g.wreg()
		}
		return w(rd<<7|0x17, stype(int32(8+2*g.n(24)), g.rreg(), rd, 2, 0x23))
	}
}

// image assembles the program: prologue, trap handler, the repeat stub,
// exit, the initial registers, scratch data, the sequence, a nop sled and a
// jump to the repeat stub, which runs the sequence again (registers and
// memory as the last round left them) until it has run reps times.
func (p *fuzzProgram) image() []byte {
	c := p.c
	codeEnd := fzCode + len(c.code)
	img := make([]byte, codeEnd+8*4+4)
	at := func(off int, lines ...string) {
		b, err := testelf.Assemble(board.RAMBase+uint64(off), lines...)
		if err != nil {
			panic(fmt.Sprintf("FuzzEngines harness: %v", err))
		}
		if n := copy(img[off:], b); n != len(b) {
			panic("FuzzEngines harness: a piece overlaps the next")
		}
	}
	abs := func(off int) string { return fmt.Sprintf("%x", board.RAMBase+uint64(off)) }
	// la: two instructions at pc that load RAMBase+off into r.
	la := func(pc, off int, r string) []string {
		d := off - pc
		hi := (d + 0x800) >> 12
		return []string{fmt.Sprintf("auipc %s,0x%x", r, uint32(hi)&0xfffff), fmt.Sprintf("addi %s,%s,%d", r, r, d-hi<<12)}
	}

	// Prologue (every hart).
	var pro []string
	emit := func(lines ...string) { pro = append(pro, lines...) }
	pc := func() int { return fzPrologue + 4*len(pro) }
	emit("csrr t0,mhartid", "slli t0,t0,6")
	emit(la(pc(), fzSave, "t1")...)
	emit("add t1,t1,t0", "csrw mscratch,t1")
	emit(la(pc(), fzHandler, "t1")...)
	emit("csrw mtvec,t1", "lui t1,0x6", "csrs mstatus,t1") // FS = dirty
	if p.timer != 0 {
		emit("lui t1,0x2004", "csrr t2,mhartid", "slli t2,t2,3", "add t1,t1,t2", // &mtimecmp[hart]
			"lui t3,0x200c", "ld t3,-8(t3)", // mtime
			fmt.Sprintf("addi t3,t3,%d", p.timer), "sd t3,0(t1)",
			"addi t1,zero,128", "csrs mie,t1", "csrsi mstatus,8") // MTIE, MIE
	}
	emit(la(pc(), fzInit, "t1")...)
	emit("ld t2,512(t1)", "csrw fcsr,t2")
	for i := 0; i < 32; i++ {
		emit(fmt.Sprintf("fld f%d,%d(t1)", i, 256+8*i))
	}
	for i := 1; i < 32; i++ {
		if i != 6 {
			emit(fmt.Sprintf("ld x%d,%d(t1)", i, 8*i))
		}
	}
	emit("ld t1,48(t1)", "j "+abs(fzCode))
	at(fzPrologue, pro...)

	// Trap handler: t0 swaps with mscratch (the hart's save area).
	var h []string
	hpc := func() int { return fzHandler + 4*len(h) }
	hemit := func(lines ...string) { h = append(h, lines...) }
	hemit("csrrw t0,mscratch,t0", "sd t1,0(t0)", "sd t2,8(t0)", "sd t3,16(t0)",
		"lui t1,0x20", "csrc mstatus,t1", // MPRV off: the handler's loads are physical
		"lui t1,0x2", "addi t1,t1,-2048", "csrs mstatus,t1", // MPP = M
		"ld t1,24(t0)", "addi t1,t1,1", "sd t1,24(t0)", // count
		fmt.Sprintf("addi t2,zero,%d", fzMaxTraps))
	const (
		lIRQ = iota
		lFetch
		lDone
	)
	// Branches to labels are patched once the labels are known.
	type fix struct {
		i     int
		f     string
		label int
	}
	var fixes []fix
	branch := func(f string, label int) { fixes = append(fixes, fix{len(h), f, label}); hemit("") }
	branch("bgeu t1,t2,%s", lFetch) // too many traps: leave through exit
	hemit("csrr t1,mcause")
	branch("bltz t1,%s", lIRQ)
	hemit("addi t2,zero,1")
	branch("bgeu t2,t1,%s", lFetch) // misaligned fetch, fetch access fault
	hemit("addi t2,zero,12")
	branch("beq t1,t2,%s", lFetch) // fetch page fault
	hemit("csrr t1,mepc", "lhu t2,0(t1)", "andi t2,t2,3", "addi t1,t1,2", "addi t2,t2,-3")
	hemit(fmt.Sprintf("bnez t2,%s", abs(hpc()+8)), "addi t1,t1,2")
	hemit("csrw mepc,t1")
	branch("j %s", lDone)
	labels := map[int]int{}
	labels[lIRQ] = hpc()
	hemit("csrr t1,mcause", "slli t1,t1,1", "srli t1,t1,1", "addi t2,zero,7")
	hemit(fmt.Sprintf("beq t1,t2,%s", abs(hpc()+12)))
	hemit("csrw mie,zero") // another interrupt: turn them off
	branch("j %s", lDone)
	hemit("lui t1,0x2004", "csrr t2,mhartid", "slli t2,t2,3", "add t1,t1,t2",
		"lui t3,0x200c", "ld t3,-8(t3)", fmt.Sprintf("addi t3,t3,%d", max(p.timer, 1)), "sd t3,0(t1)")
	branch("j %s", lDone)
	labels[lFetch] = hpc()
	hemit(la(hpc(), fzExit, "t1")...)
	hemit("csrw mepc,t1")
	labels[lDone] = hpc()
	hemit("ld t1,0(t0)", "ld t2,8(t0)", "ld t3,16(t0)", "csrrw t0,mscratch,t0", "mret")
	for _, f := range fixes {
		h[f.i] = fmt.Sprintf(f.f, abs(labels[f.label]))
	}
	at(fzHandler, h...)

	// Repeat stub: count rounds in the save area, like the handler, with
	// interrupts off while mscratch holds t0.
	var rp []string
	rp = append(rp, "csrci mstatus,8", "csrrw t0,mscratch,t0", "sd t1,0(t0)", "sd t2,8(t0)",
		"ld t1,32(t0)", "addi t1,t1,1", "sd t1,32(t0)", fmt.Sprintf("addi t2,zero,%d", p.reps))
	rp = append(rp, fmt.Sprintf("bgeu t1,t2,%s", abs(fzExit)), "ld t1,0(t0)", "ld t2,8(t0)", "csrrw t0,mscratch,t0")
	if p.timer != 0 {
		rp = append(rp, "csrsi mstatus,8")
	}
	rp = append(rp, "j "+abs(fzCode))
	at(fzRepeat, rp...)

	// Exit: HTIF exit code 0, then spin.
	var ex []string
	ex = append(ex, la(fzExit, fzToHost, "t1")...)
	ex = append(ex, "addi t2,zero,1", "sd t2,0(t1)", "j "+abs(fzExit+16))
	at(fzExit, ex...)

	// Initial registers (the user fuzz test's conventions for x2, x8, x9).
	regs := c.regs
	regs[0] = 0
	regs[2] = board.RAMBase + fzScratch + spOff
	regs[8] = board.RAMBase + fzScratch + s0Off
	regs[9] = board.RAMBase + fzScratch + s1Off
	for i, v := range regs {
		binary.LittleEndian.PutUint64(img[fzInit+8*i:], v)
	}
	copy(img[fzScratch:], c.scratch[:])
	copy(img[fzCode:], c.code)
	sled := make([]string, 8)
	for i := range sled {
		sled[i] = "addi zero,zero,0"
	}
	at(codeEnd, append(sled, "j "+abs(fzRepeat))...)
	return img
}

func TestTheFuzzProgramsRunTheirSequencesTakeTrapsAndExit(t *testing.T) {
	// The harness must exercise what it claims to: over the seed corpus,
	// the sequences run, traps are taken and skipped, timer interrupts
	// arrive, and most programs reach the exit.
	var inCode, traps, irqs, exits, runs int
	for seed := uint64(1); seed <= 8; seed++ {
		p := newFuzzProgram(seedBytes(seed, 64+int(seed)*96))
		m, err := p.build()
		if err != nil {
			t.Fatal(err)
		}
		code := uint64(board.RAMBase + fzCode)
		m.Tracer = func(h *emu.Hart, pc uint64, raw uint32, trapped bool) {
			if pc-code < uint64(len(p.c.code)) {
				inCode++
				if trapped {
					traps++
				}
			}
			if pc == board.RAMBase+fzHandler && h.Priv() == emu.PrivM {
				irqs++ // handler entries, exceptions and interrupts
			}
		}
		runs++
		if r := m.Run(fuzzEnginesLimit); r == emu.StopPowerOff && m.ExitCode() == 0 {
			exits++
		}
	}
	t.Logf("%d runs: %d slots in the sequences, %d trapped there, %d handler entries, %d exits", runs, inCode, traps, irqs, exits)
	if inCode < runs*32 || traps == 0 || irqs <= traps || exits < runs/2 {
		t.Fatalf("the fuzz programs do not run as designed")
	}
}
