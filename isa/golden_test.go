package isa

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// goldenPath is the golden disassembly file; goldenPC is the address every
// line is disassembled at (it fixes the branch and jump targets).
const (
	goldenPath = "../testdata/isa/golden.txt"
	goldenPC   = 0x80000000
)

// goldenLine is one "disassembly // hex" line of the golden file.
type goldenLine struct {
	line    int    // line number in the file
	chapter string // the "# ..." header the line is under
	text    string // the disassembly
	hex     string // the word as objdump prints it
	word    uint32
}

// name is a subtest name that reads as a sentence.
func (g goldenLine) name(verb string) string {
	return fmt.Sprintf("line %d: %s %s %q", g.line, g.hex, verb, g.text)
}

func readGolden(t *testing.T) []goldenLine {
	t.Helper()
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("read golden file: %v", err)
	}
	var lines []goldenLine
	chapter := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.TrimSpace(l) == "":
			continue
		case strings.HasPrefix(l, "#"):
			chapter = strings.TrimSpace(strings.TrimPrefix(l, "#"))
			continue
		}
		text, hex, ok := strings.Cut(l, " // ")
		if !ok || (len(hex) != 4 && len(hex) != 8) {
			t.Fatalf("%s:%d: want \"disassembly // hex\" with 4 or 8 hex digits, got %q", goldenPath, n, l)
		}
		w, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			t.Fatalf("%s:%d: bad hex %q: %v", goldenPath, n, hex, err)
		}
		if (len(hex) == 4) != (w&3 != 3) {
			t.Fatalf("%s:%d: %s has the wrong length for its low bits (Unprivileged §1.5)", goldenPath, n, hex)
		}
		lines = append(lines, goldenLine{n, chapter, text, hex, uint32(w)})
	}
	if len(lines) == 0 {
		t.Fatal("golden file has no instructions")
	}
	return lines
}

// TestGoldenDecodeDisasm checks hex -> Decode -> Disasm for every golden
// line, and that the golden file covers every op and compressed form.
func TestGoldenDecodeDisasm(t *testing.T) {
	lines := readGolden(t)
	var seenOp [NumOps]bool
	var seenC [NumCOps]bool
	for _, g := range lines {
		in := Decode(g.word)
		seenOp[in.Op] = true
		seenC[in.C] = true
		t.Run(g.name("disassembles as"), func(t *testing.T) {
			if want := uint8(len(g.hex) / 2); in.Len != want {
				t.Errorf("Decode(%s).Len = %d, want %d", g.hex, in.Len, want)
			}
			if got := Disasm(in, goldenPC); got != g.text {
				t.Errorf("Disasm(Decode(%s)) = %q, want %q (decoded %+v)", g.hex, got, g.text, in)
			}
		})
	}
	for op := Op(0); op < NumOps; op++ {
		if !seenOp[op] {
			t.Errorf("the golden file has no %v instruction", op)
		}
	}
	for c := COp(0); c < NumCOps; c++ {
		if !seenC[c] {
			t.Errorf("the golden file has no %v instruction", c)
		}
	}
}

// TestGoldenParseEncode checks text -> Parse -> Encode for every golden
// line. objdump's text does not say whether an instruction was compressed,
// so for a 16-bit line the parsed instruction is compressed with Compress,
// or, where objdump's spelling is also a 32-bit instruction with no
// compressed form (mv a0,a1 is addi a0,a1,0 but c.mv is add a0,x0,a1;
// unimp), parsed again with the c. mnemonic.
func TestGoldenParseEncode(t *testing.T) {
	for _, g := range readGolden(t) {
		t.Run(g.name("is assembled from"), func(t *testing.T) {
			in, err := Parse(g.text, goldenPC)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(g.hex) == 4 && in.Len == 4 {
				c, ok := Compress(in)
				if !ok {
					if c, err = Parse("c."+g.text, goldenPC); err != nil {
						t.Fatalf("%v has no compressed form, and with a c. mnemonic: %v", in, err)
					}
				}
				in = c
			}
			w, err := Encode(in)
			if err != nil {
				t.Fatalf("Encode(%+v): %v", in, err)
			}
			if got := hexWord(w); got != g.hex {
				t.Errorf("Encode(Parse(%q)) = %s, want %s (parsed %+v)", g.text, got, g.hex, in)
			}
		})
	}
}

// TestGoldenMatchesObjdump disassembles every golden word with objdump at
// pc 0x80000000 (each word in its own section, with --adjust-vma) and
// requires objdump's instruction column to be the golden text.
func TestGoldenMatchesObjdump(t *testing.T) {
	lines := readGolden(t)
	as := needTool(t, asTool)
	var src bytes.Buffer
	for i, g := range lines {
		fmt.Fprintf(&src, "\t.section .text.g%d,\"ax\",@progbits\n\t.insn 0x%s\n", i, g.hex)
	}
	dir := t.TempDir()
	srcPath, objPath := filepath.Join(dir, "golden.s"), filepath.Join(dir, "golden.o")
	if err := os.WriteFile(srcPath, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "-march=rv64gc", "-o", objPath, srcPath).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", asTool, err, out)
	}
	got := objdumpObject(t, objPath, len(lines), fmt.Sprintf("--adjust-vma=%#x", goldenPC))
	for i, g := range lines {
		o := got[i]
		if o.addr != goldenPC || o.hex != g.hex {
			t.Fatalf("objdump line %d is %x: %s, want %x: %s", i, o.addr, o.hex, goldenPC, g.hex)
		}
		if o.text != g.text && knownDifference(g.word, g.text, o.text) == "" {
			t.Errorf("%s:%d: golden text %q, objdump prints %q", goldenPath, g.line, g.text, o.text)
		}
	}
}
