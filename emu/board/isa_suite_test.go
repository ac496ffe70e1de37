package board_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/isa"
)

// The user-level ISA suite (isa_rv64*_test.go): for each instruction of
// RV64IMAFDC a table of operand values with the edge cases the
// specification names, run as one program under everett's interpreter,
// everett's JIT and qemu-riscv64-static; the three must store the same
// results and the same fflags. A case may also carry the values the
// specification requires (want), checked on everett whatever QEMU says;
// where QEMU disagrees with the specification the case says so (qemu) and
// only want is checked.
//
// The programs reuse the user-mode fuzz harness (userfuzz_test.go,
// testdata/progs/userfuzz): the same code, registers and scratch bytes at
// the same addresses under everett (U-mode on the bare-metal board) and
// under QEMU (a static Linux program), dumped the same way.
//
// Each case is its own decoded block: it starts after a CSR write (which
// ends a block) that clears fflags, so the instruction under test comes
// before anything the JIT leaves to the interpreter. The program runs its
// cases isaRounds times in a loop, so the JIT translates them, and the
// results left in the dump are those of the last round.

// isaRounds is how many times a program runs its cases: enough for the
// JIT to find every block hot (emu/jit.go: jitHot runs counted over the
// machines of the process, and the code chunk sealed within jitSealEvery
// more) and run it as host code the remaining rounds.
const isaRounds = 400

// isaCase is one case of the suite: registers set before the lines run,
// the lines (isa.Parse syntax; "{+N}" is replaced by the address N bytes
// after the line's own), and the registers stored after them ("fflags"
// stores the accrued flags). Names read as sentences in failures.
type isaCase struct {
	name  string
	set   []isaReg // registers set first (x: li; f: li t0 + fmv.d.x)
	lines []string
	outs  []string // registers whose values are compared, in order
	frm   int      // fcsr.frm while the lines run (for dyn rounding)
	want  []uint64 // if set: what the specification requires, per out
	qemu  string   // if set: why QEMU is not compared (cites the spec); no case needs it as of 2026-12-04
}

// isaReg is a register and the value a case gives it.
type isaReg struct {
	reg string
	val uint64
}

// isaBatch is one program: the cases and where each stored its outs.
type isaBatch struct {
	cases []isaCase
	slots [][]int // per case, per out: the byte offset in the scratch dump
	code  []byte
	c     fuzzCase
}

// Layout of a batch's scratch: isaDataBytes of data the cases load,
// store and AMO (a0 points there when a case starts), then results.
const (
	isaDataBytes = 256
	isaCodeMax   = fuzzSlotBytes - 64 // leave room for the loop's end
)

// li returns lines that load v into register rd (at most 8 instructions).
func li(rd string, v uint64) []string {
	s := int64(v)
	if s >= -2048 && s < 2048 {
		return []string{fmt.Sprintf("addi %s,zero,%d", rd, s)}
	}
	lo := int64(v<<52) >> 52
	if s >= -1<<31 && s < 1<<31 {
		hi := uint64(s-lo) >> 12 & 0xfffff
		out := []string{fmt.Sprintf("lui %s,0x%x", rd, hi)}
		if lo != 0 {
			out = append(out, fmt.Sprintf("addiw %s,%s,%d", rd, rd, lo))
		}
		return out
	}
	rest := uint64(s - lo)
	sh := bits.TrailingZeros64(rest)
	out := append(li(rd, uint64(int64(rest)>>sh)), fmt.Sprintf("slli %s,%s,%d", rd, rd, sh))
	if lo != 0 {
		out = append(out, fmt.Sprintf("addi %s,%s,%d", rd, rd, lo))
	}
	return out
}

// isFReg reports whether name is an FP register.
func isFReg(name string) bool {
	return strings.HasPrefix(name, "f") && name != "fflags" && name != "fp"
}

// caseLines is the whole text of case c: clear fflags (a block ends
// here), set frm and the registers, point a0 at the data bytes unless c
// sets a0, run the lines, store the outs at slots (offsets from s0).
func caseLines(c *isaCase, slots []int) []string {
	out := []string{"csrrwi zero,fflags,0", fmt.Sprintf("csrrwi zero,frm,%d", c.frm)}
	out = append(out, fmt.Sprintf("addi a0,s0,%d", -s0Off))
	for _, r := range c.set {
		if isFReg(r.reg) {
			out = append(out, li("t0", r.val)...)
			out = append(out, "fmv.d.x "+r.reg+",t0")
		} else {
			out = append(out, li(r.reg, r.val)...)
		}
	}
	out = append(out, c.lines...)
	for i, o := range c.outs {
		switch {
		case o == "fflags":
			out = append(out, "csrrs t0,fflags,zero", fmt.Sprintf("sd t0,%d(s0)", slots[i]-s0Off))
		case isFReg(o):
			out = append(out, fmt.Sprintf("fsd %s,%d(s0)", o, slots[i]-s0Off))
		default:
			out = append(out, fmt.Sprintf("sd %s,%d(s0)", o, slots[i]-s0Off))
		}
	}
	return out
}

// assembleAt encodes lines from pc, replacing "{+N}" by the hex address
// pc+N of the line's own pc.
func assembleAt(pc uint64, lines []string) ([]byte, error) {
	var code []byte
	for _, l := range lines {
		for {
			i := strings.Index(l, "{+")
			if i < 0 {
				break
			}
			j := strings.Index(l[i:], "}")
			n, err := strconv.Atoi(l[i+2 : i+j])
			if err != nil {
				return nil, fmt.Errorf("%q: %w", l, err)
			}
			l = l[:i] + strconv.FormatUint(pc+uint64(n), 16) + l[i+j+1:]
		}
		in, err := isa.Parse(l, pc)
		if err != nil {
			return nil, err
		}
		w, err := isa.Encode(in)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", l, err)
		}
		if in.Len == 2 {
			code = binary.LittleEndian.AppendUint16(code, uint16(w))
		} else {
			code = binary.LittleEndian.AppendUint32(code, w)
		}
		pc += uint64(in.Len)
	}
	return code, nil
}

// batches packs cases into programs for harness h: each program holds as
// many cases as its code slot and scratch bytes take.
func isaBatches(t *testing.T, h *fuzzHarness, cases []isaCase) []*isaBatch {
	t.Helper()
	var out []*isaBatch
	b := &isaBatch{}
	next := isaDataBytes
	for i := 0; i < len(cases); i++ {
		c := cases[i]
		if c.want != nil && len(c.want) != len(c.outs) {
			t.Fatalf("case %q: %d wanted values for %d outs", c.name, len(c.want), len(c.outs))
		}
		var slots []int
		for range c.outs {
			slots = append(slots, next)
			next += 8
		}
		code, err := assembleAt(h.codeAddr+uint64(len(b.code)), caseLines(&c, slots))
		if err != nil {
			t.Fatalf("case %q: %v", c.name, err)
		}
		if next > scratchBytes || len(b.code)+len(code) > isaCodeMax {
			if len(b.cases) == 0 {
				t.Fatalf("case %q does not fit in a program", c.name)
			}
			out = append(out, b)
			b, next = &isaBatch{}, isaDataBytes
			i-- // again, in a new program
			continue
		}
		b.cases = append(b.cases, c)
		b.slots = append(b.slots, slots)
		b.code = append(b.code, code...)
	}
	if len(b.cases) > 0 {
		out = append(out, b)
	}
	for _, b := range out {
		// The loop: x31 counts the rounds down (set in fuzz_init).
		pc := h.codeAddr + uint64(len(b.code))
		end, err := assembleAt(pc, []string{"addi t6,t6,-1", "beq t6,zero,{+8}",
			fmt.Sprintf("jal zero,%x", h.codeAddr)})
		if err != nil {
			t.Fatal(err)
		}
		b.code = append(b.code, end...)
		if len(b.code)%4 != 0 {
			b.code = binary.LittleEndian.AppendUint16(b.code, 0x0001) // c.nop
		}
		b.c.code = b.code
		b.c.regs[31] = isaRounds
	}
	return out
}

// isaResult is one engine's dump of a batch.
type isaResult struct {
	engine string
	dump   []byte
	err    error
}

// word is the doubleword at scratch offset off of the dump.
func (r *isaResult) word(off int) uint64 {
	base := outWords * 8
	if r.dump == nil || base+off+8 > len(r.dump) {
		return 0xdeaddeaddeaddead
	}
	return binary.LittleEndian.Uint64(r.dump[base+off:])
}

// everettEngine runs the batch on everett's bare-metal board under engine
// e; for the JIT it also returns how many instructions ran as host code.
func (fr *fuzzRunner) everettEngine(c *fuzzCase, e emu.Engine) ([]byte, uint64, error) {
	prog, err := emu.ParseELF(fr.bare.patch(c))
	if err != nil {
		return nil, 0, err
	}
	var out bytes.Buffer
	m, err := board.NewBareMetal(board.BareMetal{Harts: 1, RAMBytes: 16 << 20, Console: &out}, prog)
	if err != nil {
		return nil, 0, err
	}
	if err := m.SetEngine(e); err != nil {
		return nil, 0, err
	}
	reason := m.Run(200_000_000)
	if reason != emu.StopPowerOff || m.ExitCode() != 0 {
		return out.Bytes(), 0, fmt.Errorf("everett (%v) stopped with %v, exit code %d (a TRAP dump: %q)",
			e, reason, m.ExitCode(), trimTo(out.Bytes(), 40))
	}
	return out.Bytes(), m.JITStats().Insns, nil
}

// isaProgs numbers the suite's programs.
var isaProgs atomic.Uint64

// runISASuite runs cases under the interpreter, the JIT (where the host
// has one) and QEMU, and fails with one line per value that differs.
func runISASuite(t *testing.T, cases []isaCase) {
	t.Helper()
	diffs, hostInsns, programs := checkISACases(t, cases)
	for i, d := range diffs {
		if i == 40 {
			t.Errorf("... and %d more", len(diffs)-40)
			break
		}
		t.Error(d)
	}
	n := 0
	for _, c := range cases {
		n += len(c.outs)
	}
	if emu.JITSupported() && hostInsns < uint64(len(cases))*(isaRounds/4) {
		t.Errorf("the JIT ran %d instructions as host code for %d cases of %d rounds: too few to have run each case's instruction", hostInsns, len(cases), isaRounds)
	}
	t.Logf("%d cases (%d values compared) in %d programs; the JIT ran %d instructions as host code", len(cases), n, programs, hostInsns)
}

// checkISACases runs cases and returns a line for each value that differs
// between the engines, from QEMU's (unless the case excuses QEMU) or from
// the case's want; a program that does not run to its end fails t.
func checkISACases(t *testing.T, cases []isaCase) (diffs []string, hostInsns uint64, programs int) {
	t.Helper()
	fr := newFuzzRunner(t)
	batches := isaBatches(t, fr.bare, cases)
	for bi, b := range batches {
		b.c.seed = 0x15a0000 + isaProgs.Add(1) // names QEMU's file: unique across parallel tests
		var runs []isaResult
		// QEMU runs one round: every round leaves the same results, and
		// only the JIT needs the others.
		once := b.c
		once.regs[31] = 1
		q, err := fr.qemu(&once)
		runs = append(runs, isaResult{engine: "qemu", dump: q, err: err})
		d, _, err := fr.everettEngine(&b.c, emu.EngineInterp)
		runs = append(runs, isaResult{engine: "interp", dump: d, err: err})
		if emu.JITSupported() {
			d, n, err := fr.everettEngine(&b.c, emu.EngineJIT)
			runs = append(runs, isaResult{engine: "jit", dump: d, err: err})
			hostInsns += n
		}
		for _, r := range runs {
			if r.err != nil {
				t.Fatalf("program %d of %d (cases %q to %q): %s: %v", bi+1, len(batches),
					b.cases[0].name, b.cases[len(b.cases)-1].name, r.engine, r.err)
			}
		}
		for ci, c := range b.cases {
			for oi, o := range c.outs {
				off := b.slots[ci][oi]
				var got []string
				differ := false
				for _, r := range runs[1:] {
					if r.word(off) != runs[1].word(off) {
						differ = true
					}
				}
				if c.want != nil && runs[1].word(off) != c.want[oi] {
					differ = true
				}
				if c.qemu == "" && runs[0].word(off) != runs[1].word(off) {
					differ = true
				}
				if !differ {
					continue
				}
				for _, r := range runs {
					got = append(got, fmt.Sprintf("%s %#x", r.engine, r.word(off)))
				}
				if c.want != nil {
					got = append(got, fmt.Sprintf("spec %#x", c.want[oi]))
				}
				diffs = append(diffs, fmt.Sprintf("%s: %s: %s\n    %s", c.name, o, strings.Join(got, ", "), strings.Join(c.lines, "; ")))
			}
		}
		// Everything but the scratch results must agree too: registers
		// and fcsr at the end, and the data bytes.
		for _, r := range runs[1:] {
			if !bytes.Equal(r.dump[:outWords*8+isaDataBytes], runs[1].dump[:outWords*8+isaDataBytes]) {
				diffs = append(diffs, fmt.Sprintf("program %d: the %s dump's registers or data bytes differ from the interpreter's", bi+1, r.engine))
			}
		}
	}
	return diffs, hostInsns, len(batches)
}

// TestTheISASuiteNamesTheCaseWhoseValueIsNotTheSpecs is the suite's test
// of itself: of two cases, the one whose wanted value is wrong (division
// by zero gives all ones, not zero) is reported, by name and with every
// engine's value, and the right one is not.
func TestTheISASuiteNamesTheCaseWhoseValueIsNotTheSpecs(t *testing.T) {
	t.Parallel()
	wrong := withWant(rr("div", 5, 0), 0)
	right := withWant(rr("add", 1, 2), 3)
	diffs, _, _ := checkISACases(t, []isaCase{right, wrong})
	if len(diffs) != 1 {
		t.Fatalf("%d differences, want 1: %q", len(diffs), diffs)
	}
	for _, s := range []string{wrong.name, "qemu 0xffffffffffffffff", "interp 0xffffffffffffffff", "spec 0x0"} {
		if !strings.Contains(diffs[0], s) {
			t.Errorf("the report %q does not say %q", diffs[0], s)
		}
	}
}

// missingMnemonics lists the instructions of want (space-separated
// mnemonics) that no line of cases uses: what a table claims to cover
// and does not.
func missingMnemonics(cases []isaCase, want string) []string {
	used := map[string]bool{}
	for _, c := range cases {
		for _, l := range c.lines {
			used[strings.Fields(l)[0]] = true
		}
	}
	var missing []string
	for _, m := range strings.Fields(want) {
		if !used[m] {
			missing = append(missing, m)
		}
	}
	return missing
}
