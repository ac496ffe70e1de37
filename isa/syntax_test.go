package isa

import (
	"fmt"
	"testing"
)

// TestEveryOpHasAFallbackSyntax checks that Disasm cannot run out of
// syntax entries: every 32-bit op has an entry without conditions, and
// every 16-bit word disassembles (the compressed entries' conditions are
// implied by their forms, so an exhaustive run is the check).
func TestEveryOpHasAFallbackSyntax(t *testing.T) {
	for op := Op(1); op < NumOps; op++ {
		found := false
		for _, i := range synByOp[op] {
			s := &syntaxTable[i]
			if s.c == CNone && s.flags&(synAsmOnly|synTieRs1|synTieRs2) == 0 && len(s.fix) == 0 {
				found = true
			}
		}
		if !found && op != FCVT_D_S && op != FCVT_D_W && op != FCVT_D_WU {
			// The three exact conversions print only with rm=0; Disasm
			// prints other rm values as raw words before it looks.
			t.Errorf("%v has no unconditional syntax entry", op)
		}
	}
	for w := uint32(0); w < 1<<16; w++ {
		if w&3 != 3 {
			_ = Disasm(Decode(w), 0)
		}
	}
}

// TestSyntaxEntriesAgreeWithTheirOps checks the syntax table against the
// op table: operand tokens name registers of the right file, and each
// entry's mnemonic is its op's name or a known alias.
func TestSyntaxEntriesAgreeWithTheirOps(t *testing.T) {
	for _, s := range syntaxTable {
		spec := &opTable[s.op]
		if s.c != CNone && cTable[s.c].op != s.op {
			t.Errorf("%s: form %v expands to %v, not %v", s.mnem, s.c, cTable[s.c].op, s.op)
		}
		for _, tok := range splitArgs(s.args) {
			var flag uint8
			switch tok {
			case "rd", "fd":
				flag = fRd
			case "rs1", "fs1", "mem", "amem":
				flag = fRs1
			case "rs2", "fs2":
				flag = fRs2
			case "fs3":
				flag = fRs3
			default:
				continue
			}
			isF := tok[0] == 'f'
			if (spec.fregs&flag != 0) != isF {
				t.Errorf("%s (%v): operand %s names the wrong register file", s.mnem, s.op, tok)
			}
		}
	}
}

func splitArgs(args string) []string {
	if args == "" {
		return nil
	}
	var toks []string
	start := 0
	for i := range len(args) + 1 {
		if i == len(args) || args[i] == ',' {
			toks = append(toks, args[start:i])
			start = i + 1
		}
	}
	return toks
}

// TestOpString checks the canonical mnemonics.
func TestOpString(t *testing.T) {
	tests := []struct {
		op   Op
		want string
	}{
		{ILLEGAL, "illegal"}, {ADDI, "addi"}, {FENCE_I, "fence.i"}, {SFENCE_VMA, "sfence.vma"},
		{FCVT_W_S, "fcvt.w.s"}, {AMOADD_W, "amoadd.w"}, {LR_D, "lr.d"}, {FMV_X_W, "fmv.x.w"},
		{FNMADD_D, "fnmadd.d"}, {HYPERCALL, "hypercall"}, {NumOps, fmt.Sprintf("op(%d)", uint8(NumOps))},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.op.String(); got != tt.want {
				t.Errorf("Op(%d).String() = %q, want %q", uint8(tt.op), got, tt.want)
			}
		})
	}
	for op := Op(1); op < NumOps; op++ {
		if opTable[op].name == "" {
			t.Errorf("Op %d has no name", uint8(op))
		}
	}
}

// TestCOpString checks the compressed form names.
func TestCOpString(t *testing.T) {
	for c, want := range map[COp]string{
		CNone: "none", C_ADDI4SPN: "c.addi4spn", C_ADDI16SP: "c.addi16sp", C_EBREAK: "c.ebreak",
		C_SDSP: "c.sdsp", NumCOps: fmt.Sprintf("cop(%d)", uint8(NumCOps)),
	} {
		t.Run(want, func(t *testing.T) {
			if got := c.String(); got != want {
				t.Errorf("COp(%d).String() = %q, want %q", uint8(c), got, want)
			}
		})
	}
	for c := COp(1); c < NumCOps; c++ {
		if cTable[c].name == "" || cTable[c].op == ILLEGAL {
			t.Errorf("COp %d has no table entry", uint8(c))
		}
	}
}
