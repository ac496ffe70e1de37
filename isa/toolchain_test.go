package isa

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The GNU RISC-V toolchain is the reference for Disasm. These helpers run
// Debian bookworm's riscv64-unknown-elf-as and -objdump (binutils 2.40).

const (
	asTool      = "riscv64-unknown-elf-as"
	objdumpTool = "riscv64-unknown-elf-objdump"
)

// needTool fails the test if a toolchain program is missing. It does not
// skip: a silently skipped reference test is a test that never runs.
func needTool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found on PATH: `make test` installs it (Debian packages binutils-riscv64-unknown-elf and gcc-riscv64-unknown-elf)", name)
	}
	return path
}

// objLine is one instruction line of objdump -d output.
type objLine struct {
	addr uint64
	hex  string // the word as objdump prints it: 4 or 8 hex digits
	text string // the instruction column, without " <symbol>" and "# comment"
}

var (
	objLineRE = regexp.MustCompile(`^\s*([0-9a-f]+):\t([0-9a-f]+)\s+\t(.*)$`)
	symbolRE  = regexp.MustCompile(` <[^>]*>$`)
	commentRE = regexp.MustCompile(`\s+# .*$`)
)

// objdumpWords assembles the given instruction words (16-bit ones have
// raw&3 != 3) with ".insn" into one object, in order, and returns what
// objdump -d prints for each. The object records only the rv64gc ISA, so
// objdump decodes no other extension, and no privileged-spec version, so
// CSR names follow priv 1.12. Extra objdump options (-M no-aliases) go in
// opts.
func objdumpWords(t testing.TB, words []uint32, opts ...string) []objLine {
	t.Helper()
	return objdumpObject(t, assembleWords(t, words), len(words), opts...)
}

// assembleWords writes words as ".insn" directives, assembles them with
// -march=rv64gc and returns the object's path (in a test temporary
// directory).
func assembleWords(t testing.TB, words []uint32) string {
	t.Helper()
	as := needTool(t, asTool)
	dir := t.TempDir()
	var src bytes.Buffer
	src.WriteString("\t.text\n")
	for _, w := range words {
		if w&3 == 3 {
			fmt.Fprintf(&src, "\t.insn 0x%08x\n", w)
		} else {
			fmt.Fprintf(&src, "\t.insn 0x%04x\n", w&0xffff)
		}
	}
	srcPath, objPath := filepath.Join(dir, "w.s"), filepath.Join(dir, "w.o")
	if err := os.WriteFile(srcPath, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "-march=rv64gc", "-o", objPath, srcPath).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", asTool, err, out)
	}
	return objPath
}

// objdumpObject disassembles an object holding n instructions.
func objdumpObject(t testing.TB, objPath string, n int, opts ...string) []objLine {
	t.Helper()
	return startObjdump(t, objPath, opts...).lines(t, n)
}

// objdumpRun is an objdump process started by startObjdump. Starting
// several before collecting any runs them in parallel without goroutines.
type objdumpRun struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	args []string
}

func startObjdump(t testing.TB, objPath string, opts ...string) *objdumpRun {
	t.Helper()
	objdump := needTool(t, objdumpTool)
	r := &objdumpRun{args: append(append([]string{"-d", "-z"}, opts...), objPath)}
	r.cmd = exec.Command(objdump, r.args...)
	r.cmd.Stdout = &r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("%s %v: %v", objdumpTool, r.args, err)
	}
	return r
}

// lines waits for objdump and parses the n instruction lines it printed.
func (r *objdumpRun) lines(t testing.TB, n int) []objLine {
	t.Helper()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("%s %v: %v", objdumpTool, r.args, err)
	}
	lines := make([]objLine, 0, n)
	sc := bufio.NewScanner(&r.out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := objLineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		text := commentRE.ReplaceAllString(m[3], "")
		text = symbolRE.ReplaceAllString(text, "")
		lines = append(lines, objLine{addr: addr, hex: m[2], text: strings.TrimRight(text, " ")})
	}
	if len(lines) != n {
		t.Fatalf("objdump %v printed %d instructions for %d words", r.args, len(lines), n)
	}
	return lines
}

// hexWord formats a word as objdump prints it in its hex column.
func hexWord(w uint32) string {
	if w&3 == 3 {
		return fmt.Sprintf("%08x", w)
	}
	return fmt.Sprintf("%04x", w&0xffff)
}
