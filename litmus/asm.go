package litmus

import (
	"fmt"
	"strconv"
	"strings"

	"everett/isa"
)

// Assemble encodes thread th of t as RV64 code placed at pc: one 32-bit
// word per instruction (li with an immediate beyond 12 bits becomes lui
// and addiw). Labels are resolved in two passes: the first places every
// line, the second encodes with isa.Parse and isa.Encode, branch and jump
// targets replaced by their addresses. Errors are *Error and name the line.
func Assemble(t *Test, th int, pc uint64) ([]uint32, error) {
	col, err := assemble(t, th, pc)
	return col.words, err
}

// column is one thread's assembled code.
type column struct {
	words  []uint32
	lines  []int             // the file line of each word
	labels map[string]uint64 // label -> address (looked up only, never iterated)
}

// assemble is Assemble that also returns the line of every word and the
// address of every label of the thread.
func assemble(t *Test, th int, pc uint64) (column, error) {
	lines := t.Threads[th].Lines
	type item struct {
		src   SrcLine
		texts []string
		pc    uint64
	}
	var items []item
	labels := map[string]uint64{} // looked up only, never iterated
	labelLine := map[string]int{}
	at := pc
	for _, l := range lines {
		if l.Label != "" {
			if first, dup := labelLine[l.Label]; dup {
				return column{}, &Error{File: t.File, Line: l.Line, Msg: fmt.Sprintf("P%d: label %s is defined twice (first on line %d)", th, l.Label, first)}
			}
			labels[l.Label], labelLine[l.Label] = at, l.Line
		}
		if l.Text == "" {
			continue
		}
		texts, err := expand(l.Text)
		if err != nil {
			return column{}, &Error{File: t.File, Line: l.Line, Msg: fmt.Sprintf("P%d: %s: %v", th, l.Text, err)}
		}
		items = append(items, item{l, texts, at})
		at += 4 * uint64(len(texts))
	}
	var out []uint32
	var outLines []int
	for _, it := range items {
		pc := it.pc
		for _, text := range it.texts {
			text, err := resolveLabels(text, labels)
			if err != nil {
				return column{}, &Error{File: t.File, Line: it.src.Line, Msg: fmt.Sprintf("P%d: %s: %v", th, it.src.Text, err)}
			}
			in, err := isa.Parse(text, pc)
			if err != nil {
				return column{}, &Error{File: t.File, Line: it.src.Line, Msg: fmt.Sprintf("P%d: %v", th, err)}
			}
			w, err := isa.Encode(in)
			if err != nil || in.Len != 4 {
				return column{}, &Error{File: t.File, Line: it.src.Line, Msg: fmt.Sprintf("P%d: %s: cannot encode as one 32-bit instruction: %v", th, it.src.Text, err)}
			}
			out = append(out, w)
			outLines = append(outLines, it.src.Line)
			pc += 4
		}
	}
	return column{out, outLines, labels}, nil
}

// expand normalises one instruction's spelling for isa.Parse and expands
// the pseudo-instructions isa.Parse does not take whole.
func expand(text string) ([]string, error) {
	mnem, ops := splitInst(text)
	mnem = strings.ToLower(mnem)
	if strings.HasPrefix(mnem, "c.") {
		return nil, fmt.Errorf("compressed instructions are not supported in litmus tests")
	}
	// herd spells acquire-release ".aq.rl".
	if base, ok := strings.CutSuffix(mnem, ".aq.rl"); ok {
		mnem = base + ".aqrl"
	}
	if mnem == "li" && len(ops) == 2 {
		v, err := strconv.ParseInt(ops[1], 0, 64)
		if err != nil {
			return nil, fmt.Errorf("li: %q is not an integer", ops[1])
		}
		if v >= -2048 && v < 2048 {
			return []string{"addi " + ops[0] + ",zero," + strconv.FormatInt(v, 10)}, nil
		}
		if v != int64(int32(v)) {
			return nil, fmt.Errorf("li: %d does not fit in 32 bits", v)
		}
		lo := (v << 52) >> 52 // the sign-extended low 12 bits
		hi := (v - lo) >> 12 & 0xfffff
		return []string{
			fmt.Sprintf("lui %s,%#x", ops[0], hi),
			fmt.Sprintf("addiw %s,%s,%d", ops[0], ops[0], lo),
		}, nil
	}
	if len(ops) == 0 {
		return []string{mnem}, nil
	}
	return []string{mnem + " " + strings.Join(ops, ",")}, nil
}

// splitInst splits "mnem a, b, c" into the mnemonic and trimmed operands.
func splitInst(text string) (string, []string) {
	text = strings.TrimSpace(text)
	i := strings.IndexAny(text, " \t")
	if i < 0 {
		return text, nil
	}
	mnem, rest := text[:i], strings.TrimSpace(text[i:])
	if rest == "" {
		return mnem, nil
	}
	ops := strings.Split(rest, ",")
	for j := range ops {
		ops[j] = strings.TrimSpace(ops[j])
	}
	return mnem, ops
}

// resolveLabels replaces operands that name a label by the label's
// address in hex, as isa.Parse wants branch and jump targets. A branch or
// jump whose target is a name no label has is an error.
func resolveLabels(text string, labels map[string]uint64) (string, error) {
	mnem, ops := splitInst(text)
	changed := false
	for i, o := range ops {
		if a, ok := labels[o]; ok {
			ops[i] = strconv.FormatUint(a, 16)
			changed = true
		}
	}
	if len(ops) > 0 && targetOps[strings.ToLower(mnem)] {
		if o := ops[len(ops)-1]; isLabel(o) && !isHex(o) {
			if _, ok := labels[o]; !ok {
				return "", fmt.Errorf("label %s is not defined in this thread", o)
			}
		}
	}
	if !changed {
		return text, nil
	}
	return mnem + " " + strings.Join(ops, ","), nil
}

// targetOps are the mnemonics whose last operand is a branch or jump
// target.
var targetOps = map[string]bool{
	"beq": true, "bne": true, "blt": true, "bge": true, "bltu": true, "bgeu": true,
	"bgt": true, "ble": true, "bgtu": true, "bleu": true,
	"beqz": true, "bnez": true, "bltz": true, "bgez": true, "blez": true, "bgtz": true,
	"j": true, "jal": true,
}

// isHex reports whether s is a hex number (with or without 0x), which
// isa.Parse reads as an absolute target.
func isHex(s string) bool {
	s = strings.TrimPrefix(strings.ToLower(s), "0x")
	_, err := strconv.ParseUint(s, 16, 64)
	return err == nil
}
