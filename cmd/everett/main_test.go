package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/internal/testelf"
)

const base = 0x8000_0000

// program writes an ELF of the given assembly lines (at 0x8000_0000, with
// tohost at 0x8000_1000) and returns its path.
func program(t *testing.T, lines ...string) string {
	t.Helper()
	code, err := testelf.Assemble(base, lines...)
	if err != nil {
		t.Fatal(err)
	}
	b := testelf.Build(base, code, 0x2000,
		testelf.Symbol{Name: "tohost", Value: base + 0x1000},
		testelf.Symbol{Name: "fromhost", Value: base + 0x1040})
	p := filepath.Join(t.TempDir(), "prog.elf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// exitWith is a program that writes value to tohost and spins.
func exitWith(value int) []string {
	return []string{
		"addi t1,zero,1",
		"slli t1,t1,31",
		"lui t2,0x1",
		"add t1,t1,t2", // t1 = tohost
		"addi t0,zero," + itoa(value),
		"sd t0,0(t1)",
		"j 80000018",
	}
}

func itoa(v int) string {
	var b []byte
	if v == 0 {
		return "0"
	}
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// runCLI runs the CLI with args and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	oldOut, oldErr := os.Stdout, os.Stderr
	ro, wo, _ := os.Pipe()
	re, we, _ := os.Pipe()
	os.Stdout, os.Stderr = wo, we
	outc, errc := make(chan string), make(chan string)
	go func() { b, _ := io.ReadAll(ro); outc <- string(b) }()
	go func() { b, _ := io.ReadAll(re); errc <- string(b) }()
	code := run(args)
	wo.Close()
	we.Close()
	os.Stdout, os.Stderr = oldOut, oldErr
	return code, <-outc, <-errc
}

func TestRunExitCodeIsTheGuests(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value int
		want  int
	}{
		{"tohost=1 passes with exit code 0", 1, 0},
		{"tohost=(3<<1)|1 fails with exit code 3", 7, 3},
		{"tohost=(100<<1)|1 fails with exit code 100", 201, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "run", program(t, exitWith(tc.value)...))
			if code != tc.want {
				t.Fatalf("exit code %d, want %d (stderr %q)", code, tc.want, stderr)
			}
		})
	}
}

func TestRunMaxInsnsStopsWithExitCode124(t *testing.T) {
	p := program(t, "j 80000000")
	code, _, stderr := runCLI(t, "run", "--max-insns", "1000", p)
	if code != 124 || !strings.Contains(stderr, "1000 instructions") {
		t.Fatalf("exit code %d, stderr %q; want 124 and a message", code, stderr)
	}
}

func TestRunReportsAHangWhenEveryHartWaitsForever(t *testing.T) {
	p := program(t, "wfi", "j 80000000")
	code, _, stderr := runCLI(t, "run", "--smp", "2", p)
	if code != exitHang || !strings.Contains(stderr, "hangs") {
		t.Fatalf("exit code %d, stderr %q; want %d", code, stderr, exitHang)
	}
}

func TestRunStatsPrintsInstructionsAndMIPS(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--stats", program(t, exitWith(1)...))
	if code != 0 || !strings.Contains(stderr, "6 instructions retired") || !strings.Contains(stderr, "MIPS") {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
}

func TestRunTracePrintsOneLinePerInstructionAndIsRepeatable(t *testing.T) {
	p := program(t, exitWith(1)...)
	_, _, first := runCLI(t, "run", "--trace", p)
	_, _, second := runCLI(t, "run", "--trace", p)
	lines := strings.Split(strings.TrimSpace(first), "\n")
	if len(lines) != 6 {
		t.Fatalf("got %d trace lines, want 6:\n%s", len(lines), first)
	}
	for i, want := range []string{
		"1 0 0000000080000000 00100313 li\tt1,1",
		"6 0 0000000080000014 00533023 sd\tt0,0(t1)",
	} {
		got := lines[[]int{0, 5}[i]]
		if got != want {
			t.Errorf("trace line %q, want %q", got, want)
		}
	}
	if first != second {
		t.Fatal("two runs gave different traces")
	}
}

func TestBadInputGetsAOneLineErrorAndExitCode2(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("just some text\n"), 0o644)
	trunc := filepath.Join(dir, "trunc.elf")
	full, _ := os.ReadFile(program(t, exitWith(1)...))
	os.WriteFile(trunc, full[:100], 0o644)
	outside := filepath.Join(dir, "outside.elf")
	code, _ := testelf.Assemble(0x1000, "j 1000")
	os.WriteFile(outside, testelf.Build(0x1000, code, 4), 0o644)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a missing file", []string{"run", filepath.Join(dir, "nope.elf")}, "no such file"},
		{"a text file", []string{"run", text}, "not an ELF file"},
		{"a truncated ELF", []string{"run", trunc}, "truncated"},
		{"a segment outside RAM", []string{"run", outside}, "outside RAM"},
		{"zero harts", []string{"run", "--smp", "0", text}, "--smp"},
		{"a bad memory size", []string{"run", "--mem", "lots", text}, "--mem"},
		{"no program", []string{"run"}, "nothing to run"},
		{"a program and a kernel", []string{"run", "--kernel", text, text}, "not both"},
		{"a missing kernel", []string{"run", "--kernel", filepath.Join(dir, "nope")}, "--kernel"},
		{"a kernel with a missing firmware", []string{"run", "--kernel", text, "--bios", filepath.Join(dir, "nope")}, "--bios"},
		{"a disk that is not whole sectors", []string{"run", "--kernel", text, "--bios", text, "--disk", text}, "multiple of 512"},
		{"nine harts on virt", []string{"run", "--kernel", text, "--smp", "9"}, "1..8"},
		{"a bare-metal program with a disk", []string{"run", "--disk", text, text}, "needs --kernel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || strings.Contains(stderr, "goroutine") {
				t.Errorf("want a one-line error, got %q", stderr)
			}
		})
	}
}

func TestParseSizeAcceptsUnits(t *testing.T) {
	for in, want := range map[string]uint64{"4096": 4096, "64K": 64 << 10, "256MiB": 256 << 20, "1G": 1 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "12", "-1M", "2TiB", "lots"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) succeeded", in)
		}
	}
}

func TestTheSDKHypercallWorksFromMModeAndExitsWithItsCode(t *testing.T) {
	p := program(t,
		"addi a0,zero,5", // random
		"hypercall",
		"addi a0,zero,4", // unreachable, no message
		"hypercall",
		"addi a0,zero,8", // exit 9
		"addi a1,zero,9",
		"hypercall",
		"j 8000001c",
	)
	code, _, stderr := runCLI(t, "run", p)
	if code != 9 {
		t.Fatalf("exit code %d, want 9 (stderr %q)", code, stderr)
	}
	if !strings.Contains(stderr, "unreachable assertion failed on hart 0") {
		t.Fatalf("stderr %q does not report the unreachable assertion", stderr)
	}
}
