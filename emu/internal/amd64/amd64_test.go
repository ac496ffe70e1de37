package amd64

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The encoding table, testdata/encodings.txt, holds one line per case of
// encCases: the bytes, a tab, the instruction as GNU as text. It is written
// by `go test -run TestTheTableIsWhatTheGNUAssemblerProduces -update`, from
// what as assembles the text to (never from the encoder), except for the
// shortForm cases, whose bytes are the encoder's after objdump has read
// them back as the same instruction as as's.
const tablePath = "testdata/encodings.txt"

var update = flag.Bool("update", false, "rewrite "+tablePath+" from the GNU assembler's output")

// encode returns the bytes one case emits.
func encode(c encCase) []byte {
	FreeLabels()
	var a Emitter
	c.emit(&a)
	return a.Code
}

// readTable reads the encoding table: text -> bytes.
func readTable(t *testing.T) map[string][]byte {
	t.Helper()
	f, err := os.Open(tablePath)
	if err != nil {
		t.Fatalf("the encoding table: %v", err)
	}
	defer f.Close()
	table := map[string][]byte{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		h, text, ok := strings.Cut(sc.Text(), "\t")
		b, err := hex.DecodeString(h)
		if !ok || err != nil {
			t.Fatalf("%s:%d: want hex bytes, a tab and the instruction", tablePath, n)
		}
		if _, dup := table[text]; dup {
			t.Fatalf("%s:%d: %q twice", tablePath, n, text)
		}
		table[text] = b
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return table
}

func TestEveryFormEncodesToTheBytesInTheTable(t *testing.T) {
	table := readTable(t)
	cases := encCases()
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.text] = true // two calls may emit one instruction (xor ecx, ecx)
		want, ok := table[c.text]
		if !ok {
			t.Errorf("%q is not in the table (run the GNU assembler test with -update)", c.text)
			continue
		}
		if got := encode(c); !bytes.Equal(got, want) {
			t.Errorf("%s: encoded % x, want % x", c.text, got, want)
		}
	}
	if len(table) != len(seen) {
		t.Errorf("the table has %d lines for %d cases (run the GNU assembler test with -update)", len(table), len(seen))
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestTheTableIsWhatTheGNUAssemblerProduces(t *testing.T) {
	if _, err := exec.LookPath("as"); err != nil {
		t.Skip("GNU as is not installed: the table's bytes are checked against the encoder only")
	}
	// One case per text: two calls may emit one instruction (xor ecx,
	// ecx is both Zero and ALURR32); the first test compares them both.
	var cases []encCase
	seen := map[string]bool{}
	for _, c := range encCases() {
		if !seen[c.text] {
			seen[c.text] = true
			cases = append(cases, c)
		}
	}
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.text
	}
	got := assemble(t, texts)
	// The short forms: as's bytes differ from the encoder's, and objdump
	// reads both back as the same instruction.
	var short []int
	for i, c := range cases {
		if c.shortForm {
			short = append(short, i)
		}
	}
	var ours, theirs [][]byte
	for _, i := range short {
		ours = append(ours, encode(cases[i]))
		theirs = append(theirs, got[i])
		if bytes.Equal(got[i], encode(cases[i])) {
			t.Errorf("%s: marked as a short form, but as picks the encoder's % x", cases[i].text, got[i])
		}
	}
	if len(short) > 0 {
		if _, err := exec.LookPath("objdump"); err != nil {
			t.Fatal("objdump (binutils, with as) is needed to check the short forms")
		}
		da, db := disassemble(t, ours), disassemble(t, theirs)
		for k, i := range short {
			if da[k] != db[k] {
				t.Errorf("%s: the encoder's % x reads back as %q, as's % x as %q", cases[i].text, ours[k], da[k], theirs[k], db[k])
			}
			got[i] = ours[k]
		}
	}
	if *update {
		var b bytes.Buffer
		for i, c := range cases {
			fmt.Fprintf(&b, "%x\t%s\n", got[i], c.text)
		}
		if err := os.WriteFile(tablePath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d lines to %s", len(cases), tablePath)
		return
	}
	table := readTable(t)
	for i, c := range cases {
		if want, ok := table[c.text]; !ok || !bytes.Equal(want, got[i]) {
			t.Errorf("%s: the table has % x, GNU as % x", c.text, want, got[i])
		}
	}
}

// assemble assembles each text with GNU as and returns its bytes.
func assemble(t *testing.T, texts []string) [][]byte {
	t.Helper()
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString(".intel_syntax noprefix\n.text\n")
	for i, s := range texts {
		fmt.Fprintf(&src, "c%d:\n%s\n", i, s)
	}
	src.WriteString("cend:\n")
	in, out := filepath.Join(dir, "cases.s"), filepath.Join(dir, "cases.o")
	if err := os.WriteFile(in, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command("as", "--64", "-o", out, in).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, msg)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]uint64{}
	for _, s := range syms {
		at[s.Name] = s.Value
	}
	res := make([][]byte, len(texts))
	for i := range texts {
		lo, ok1 := at[fmt.Sprintf("c%d", i)]
		hi, ok2 := at[fmt.Sprintf("c%d", i+1)]
		if i == len(texts)-1 {
			hi, ok2 = at["cend"]
		}
		if !ok1 || !ok2 {
			t.Fatalf("case %d: no symbols in as's output", i)
		}
		res[i] = text[lo:hi]
	}
	return res
}

// objdumpLine matches an instruction line of objdump -d: address, bytes,
// text.
var objdumpLine = regexp.MustCompile(`^\s*[0-9a-f]+:\t[0-9a-f ]+\t(.*)$`)

// disassemble returns objdump's text of each instruction (one per item),
// with the "0x1" immediate written "1" as objdump writes the shift-by-one
// form's implied count.
func disassemble(t *testing.T, insns [][]byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "code.bin")
	if err := os.WriteFile(path, bytes.Join(insns, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel", path).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	var texts []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := objdumpLine.FindStringSubmatch(line); m != nil {
			s := strings.Join(strings.Fields(m[1]), " ")
			texts = append(texts, strings.TrimSuffix(s, ",0x1")+map[bool]string{true: ",1"}[strings.HasSuffix(s, ",0x1")])
		}
	}
	if len(texts) != len(insns) {
		sort.Strings(texts)
		t.Fatalf("objdump read %d instructions from %d", len(texts), len(insns))
	}
	return texts
}
