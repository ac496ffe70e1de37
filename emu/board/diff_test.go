package board_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"everett/internal/guestbuild"
)

// qemuSystem is the reference emulator of the differential test: QEMU's
// spike machine implements HTIF exit and console output and a CLINT at
// 0x0200_0000, like everett's bare-metal board.
const qemuSystem = "qemu-system-riscv64"

// qemuTimeout bounds one QEMU run; the programs take well under a second.
const qemuTimeout = 60 * time.Second

type qemuRun struct {
	out  string
	code int
}

func runQEMU(t testing.TB, elfPath string, harts int) qemuRun {
	t.Helper()
	if _, err := exec.LookPath(qemuSystem); err != nil {
		t.Fatalf("%s not installed (`make test` installs it through scripts/deps.sh): %v", qemuSystem, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), qemuTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemuSystem, "-nographic", "-M", "spike", "-m", "256M",
		"-smp", strconv.Itoa(harts), "-bios", "none", "-kernel", elfPath)
	// The console goes to a file, not a pipe: QEMU's HTIF console drops
	// the characters a full pipe refuses (seen on a loaded CI host, as
	// fields of fp's output missing digits), and a file never refuses.
	console, err := os.Create(filepath.Join(t.TempDir(), "qemu-console"))
	if err != nil {
		t.Fatal(err)
	}
	defer console.Close()
	var stderr bytes.Buffer
	cmd.Stdout = console
	cmd.Stderr = &stderr
	err = cmd.Run()
	out, rerr := os.ReadFile(console.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	stdout := bytes.NewBuffer(out)
	if ctx.Err() != nil {
		t.Fatalf("QEMU timed out after %v; output:\n%s", qemuTimeout, tail(stdout.String()))
	}
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("QEMU: %v\n%s", err, stderr.String())
	}
	return qemuRun{out: stdout.String(), code: code}
}

// dropLines removes lines with an ignored prefix.
func dropLines(out string, ignore []ignoredLine) string {
	if len(ignore) == 0 {
		return out
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		skip := false
		for _, ig := range ignore {
			if strings.HasPrefix(line, ig.prefix) {
				skip = true
			}
		}
		if !skip {
			b.WriteString(line)
		}
	}
	return b.String()
}

// firstDiff describes the first differing line of two outputs.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  qemu:    " + w + "\n  everett: " + g
		}
	}
	return "no difference"
}

// TestProgramsMatchQEMU runs every program on QEMU and on everett and
// requires the same exit code and the same console output, except what a
// program's entry in the table documents as a QEMU deviation.
func TestProgramsMatchQEMU(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name+" prints the same as on QEMU", func(t *testing.T) {
			if p.noQEMU != "" {
				t.Skip("not compared with QEMU: " + p.noQEMU)
			}
			t.Parallel()
			path := guestbuild.Build(t, p.name)
			q := runQEMU(t, path, p.harts)
			e := runEverett(t, loadProgram(t, p.name), p.harts, false)
			if q.code != e.code {
				t.Errorf("exit code: qemu %d, everett %d (everett stopped with %v)", q.code, e.code, e.reason)
			}
			qo, eo := dropLines(q.out, p.qemuIgnore), dropLines(e.out, p.qemuIgnore)
			if qo != eo {
				t.Errorf("console output differs at %s", firstDiff(qo, eo))
			}
		})
	}
}

// TestProgramsAreDeterministic runs every program twice on everett with
// tracing and requires identical output and identical traces: a run is a
// function of its inputs alone.
func TestProgramsAreDeterministic(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name+" runs identically twice", func(t *testing.T) {
			t.Parallel()
			prog := loadProgram(t, p.name)
			a := runEverett(t, prog, p.harts, true)
			b := runEverett(t, loadProgram(t, p.name), p.harts, true)
			if a.out != b.out {
				t.Errorf("outputs differ at %s", firstDiff(a.out, b.out))
			}
			if a.trace != b.trace || a.insns != b.insns {
				t.Errorf("traces differ: %s after %d slots vs %s after %d", a.trace, a.insns, b.trace, b.insns)
			}
			if a.reason != b.reason || a.code != b.code {
				t.Errorf("stops differ: %v/%d vs %v/%d", a.reason, a.code, b.reason, b.code)
			}
		})
	}
}
