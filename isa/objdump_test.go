package isa

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// knownDifference explains the words on which Decode/Disasm and objdump
// 2.40 deliberately disagree, or returns "" if they must agree.
func knownDifference(w uint32, ours, theirs string) string {
	if w&3 != 3 {
		w &= 0xffff // objdump sees only the low half of a compressed word
	}
	switch {
	case w == 0x0000000b && ours == "hypercall":
		// everett's own custom-0 instruction, unknown to objdump.
		return "hypercall"
	case w == 0x6101 && theirs == "add\tsp,sp,0":
		// c.addi16sp with nzimm = 0 is reserved (Unprivileged §16.5,
		// "C.ADDI16SP ... the code point with nzimm=0 is reserved");
		// objdump 2.40 decodes it anyway.
		return "reserved c.addi16sp"
	case w == 0x00200073 && theirs == "uret",
		w&^(0x1f<<15) == 0x10400073 && strings.HasPrefix(theirs, "sfence.vm") && !strings.HasPrefix(theirs, "sfence.vma"),
		w == 0x20200073 && theirs == "hret":
		// uret (the N extension) and sfence.vm and hret (privileged
		// 1.9.1) were withdrawn before the specifications everett
		// implements; objdump still knows them.
		return "withdrawn privileged instruction"
	case isZalasr(Decode(w).Op) && strings.HasPrefix(theirs, ".4byte"):
		// Zalasr (load-acquire, store-release) was ratified after
		// binutils 2.40.
		return "Zalasr"
	case w == 0x7b200073 && theirs == "dret":
		// dret exists only in debug mode (Debug Specification 0.13.2
		// §4.7), which everett does not have; elsewhere it is illegal.
		return "debug-mode dret"
	}
	return ""
}

// isZalasr reports whether op is a Zalasr load-acquire or store-release.
func isZalasr(op Op) bool { return op >= LB_AQ && op <= SD_RL }

// sweepWords returns every 16-bit instruction word and a structured and
// random sample of 32-bit ones: every major opcode × funct3 × funct7 with
// varied register fields, every rs2 value where rs2 selects an operation
// (OP-FP, SYSTEM, AMO, the shifts), every CSR number with every CSR op,
// every FENCE fm/pred/succ, and uniformly random words.
func sweepWords(rng *rand.Rand) []uint32 {
	var words []uint32
	for w := uint32(0); w < 1<<16; w++ {
		if w&3 != 3 {
			words = append(words, w)
		}
	}
	// reg returns a register number, x0 a quarter of the time, since many
	// encodings require zero fields.
	reg := func() uint32 {
		if rng.IntN(4) == 0 {
			return 0
		}
		return rng.Uint32N(32)
	}
	for opc := uint32(3); opc < 128; opc += 4 {
		if opc>>2&7 == 7 {
			continue // 48-bit and longer encodings (§1.5)
		}
		selectsByRs2 := opc == opcOpFP || opc == opcSystem || opc == opcAMO || opc == opcOpImm || opc == opcOpImm32
		for funct3 := uint32(0); funct3 < 8; funct3++ {
			for funct7 := uint32(0); funct7 < 128; funct7++ {
				base := funct7<<25 | funct3<<12 | opc
				for range 4 {
					words = append(words, base|reg()<<20|reg()<<15|reg()<<7)
				}
				if selectsByRs2 {
					for rs2 := uint32(0); rs2 < 32; rs2++ {
						words = append(words, base|rs2<<20|reg()<<15|reg()<<7)
					}
				}
			}
		}
	}
	for csr := uint32(0); csr < 4096; csr++ {
		for _, funct3 := range []uint32{1, 2, 3, 5, 6, 7} {
			words = append(words, csr<<20|reg()<<15|funct3<<12|reg()<<7|opcSystem)
		}
	}
	for imm := uint32(0); imm < 4096; imm++ {
		// Every fm/pred/succ of FENCE and imm of FENCE.I, and every
		// funct12 of the SYSTEM instructions with rd = rs1 = x0 and with
		// rs1 = a0 (ecall, mret, wfi and the withdrawn ones need zeros).
		words = append(words, imm<<20|opcMiscMem, imm<<20|1<<12|opcMiscMem,
			imm<<20|opcSystem, imm<<20|10<<15|opcSystem)
	}
	// A few words the structured sweep may miss: exact SYSTEM encodings,
	// hypercall, fence.tso, and the reserved c.addi16sp.
	words = append(words, 0x0000000b, 0x00000073, 0x00100073, 0x30200073,
		0x10200073, 0x10500073, 0x12000073, 0x8330000f, 0x0ff0000f, 0x0000100f,
		0xc0001073, 0x6101)
	for range 60000 {
		w := rng.Uint32()
		if w&3 == 3 && w>>2&7 == 7 {
			w &^= 1 << 4
		}
		words = append(words, w)
	}
	return words
}

// TestDisasmAgreesWithObjdump disassembles a few hundred thousand words
// with objdump once and requires Decode+Disasm to print the same text for
// every one, which also means agreeing on which words are valid.
func TestDisasmAgreesWithObjdump(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 1))
	words := sweepWords(rng)
	obj := assembleWords(t, words)
	aliased, plain := startObjdump(t, obj), startObjdump(t, obj, "-M", "no-aliases")
	lines, canonical := aliased.lines(t, len(words)), plain.lines(t, len(words))
	type diff struct {
		w            uint32
		ours, theirs string
	}
	var diffs []diff
	known := map[string]int{}
	for i, l := range lines {
		w := words[i]
		if l.hex != hexWord(w) {
			t.Fatalf("line %d: objdump shows word %s, want %s", i, l.hex, hexWord(w))
		}
		in := Decode(w)
		ours := Disasm(in, l.addr)
		if name, _, _ := strings.Cut(canonical[i].text, "\t"); ours == l.text && canonicalName(in) != stripAqRl(name) {
			ours = "op " + canonicalName(in)
			l.text = "op " + name
		}
		if ours == l.text {
			continue
		}
		if why := knownDifference(w, ours, l.text); why != "" {
			known[why]++
			continue
		}
		diffs = append(diffs, diff{w, ours, l.text})
	}
	t.Logf("%d words compared; known differences: %v", len(words), known)
	if len(diffs) == 0 {
		return
	}
	// Group by opcode/funct3 so one mistake does not flood the log.
	groups := map[string][]diff{}
	for _, d := range diffs {
		key := fmt.Sprintf("opcode %#02x funct3 %d", d.w&0x7f, d.w>>12&7)
		if d.w&3 != 3 {
			key = fmt.Sprintf("quadrant %d funct3 %d", d.w&3, d.w>>13&7)
		}
		groups[key] = append(groups[key], d)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&b, "%s: %d differences, e.g.\n", k, len(g))
		for _, d := range g[:min(len(g), 4)] {
			fmt.Fprintf(&b, "    %s  ours %-32q objdump %q\n", hexWord(d.w), d.ours, d.theirs)
		}
	}
	t.Errorf("Disasm differs from objdump on %d of %d words:\n%s", len(diffs), len(words), b.String())
}

// canonicalName is the mnemonic objdump -M no-aliases prints for a decoded
// instruction: the op's name, or the compressed form's, or the directive
// for a word it does not know.
func canonicalName(in Inst) string {
	switch {
	case in.Op == ILLEGAL && in.Len == 2 && in.Raw == 0:
		return "c.unimp"
	case in.Op == ILLEGAL || in.Op == HYPERCALL || objdumpUnknown(in):
		name, _, _ := strings.Cut(rawWord(in.Raw, in.Len), "\t")
		return name
	case in.C != CNone && in.Imm == 0 && (in.C == C_SLLI || in.C == C_SRLI || in.C == C_SRAI):
		return in.C.String() + "64" // the RV128 shift-by-64 spelling of the HINT
	case in.C == C_NOP:
		return "c.addi" // objdump names c.nop only as an alias
	case in.C != CNone:
		return in.C.String()
	case in.Op == FENCE && in.Imm == 0x833:
		return "fence.tso" // an instruction of its own to objdump (§2.7)
	case in.Op == CSRRW && in.Rd == 0 && in.Rs1 == 0 && in.CSR == CSRCycle:
		return "unimp" // objdump prints its unimp alias even with no-aliases
	}
	return in.Op.String()
}

// stripAqRl removes an LR/SC/AMO ordering suffix from a mnemonic.
func stripAqRl(name string) string {
	for _, suf := range []string{".aqrl", ".aq", ".rl"} {
		if s, ok := strings.CutSuffix(name, suf); ok {
			return s
		}
	}
	return name
}
