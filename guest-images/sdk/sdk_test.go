// Tests of the guest SDK: the C header from a bare-metal program in M, S
// and U mode on two harts (run with `everett run`, as a user would), and
// the Go package from a Linux user process (PID 1 of an initramfs) booted
// on the virt board with a recording sink.
package sdk_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"everett/devices/sdk"
	"everett/emu"
	"everett/emu/board"
	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/guestbuild"
	"everett/internal/guestimg"
)

// moduleRoot returns the folder of go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	progs, err := guestbuild.ProgsDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(progs))
}

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
	cliDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cliDir != "" {
		os.RemoveAll(cliDir)
	}
	os.Exit(code)
}

// goCmd returns a `go` command with env added to the environment.
func goCmd(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH")
	}
	cmd := exec.Command(gobin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// everettCLI builds cmd/everett once and returns the binary's path.
func everettCLI(t *testing.T) string {
	t.Helper()
	root := moduleRoot(t)
	cliOnce.Do(func() {
		if cliDir, cliErr = os.MkdirTemp("", "everett-sdk-test-"); cliErr != nil {
			return
		}
		cliPath = filepath.Join(cliDir, "everett")
		out, err := goCmd(t, root, nil, "build", "-o", cliPath, "./cmd/everett").CombinedOutput()
		if err != nil {
			cliErr = fmt.Errorf("go build ./cmd/everett: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// bareMetalProgram builds testdata/baremetal with the test runtime of
// testdata/progs/rt and everett.h.
func bareMetalProgram(t *testing.T) string {
	t.Helper()
	root := moduleRoot(t)
	rt := filepath.Join(root, "testdata", "progs", "rt")
	return guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:         "sdktest",
		Dirs:         []string{filepath.Join(root, "guest-images", "sdk", "testdata", "baremetal"), rt, filepath.Join(root, "guest-images", "sdk")},
		LinkerScript: filepath.Join(rt, "link.ld"),
		Libs:         []string{"-lgcc"},
	})
}

// runCLI runs `everett args...` and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(everettCLI(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("everett %s: %v", strings.Join(args, " "), err)
	return 0, "", ""
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

func TestTheCHeaderReportsFromMSAndUModeOnTwoHarts(t *testing.T) {
	prog := bareMetalProgram(t)
	code, stdout, stderr := runCLI(t, "run", "--smp", "2", "--seed", "1", prog)
	if code != 42 {
		t.Fatalf("exit code %d, want 42 (everett_exit from U mode)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	long := ""
	for i := 0; i < sdk.MaxMessage; i++ {
		long += string(rune('a' + i%26))
	}
	const p = "everett: sdk: "
	want := lines(strings.Join([]string{
		p + "always assertion failed on hart 0: m: always false",
		p + "sometimes assertion hit on hart 0: m: sometimes true",
		p + "reachable assertion hit on hart 0: m: reachable",
		p + "unreachable assertion failed on hart 0: m: unreachable",
		p + "always assertion failed on hart 0: m: stack message 7",
		p + "always assertion failed on hart 0: " + long,
		p + "always assertion failed on hart 0: s: always false",
		p + "reachable assertion hit on hart 0: s: reachable",
		p + "always assertion failed on hart 0: u: always false",
		p + "always assertion failed on hart 1: hart 1: always false",
	}, "\n"))
	if got := lines(stderr); !slices.Equal(got, want) {
		t.Errorf("stderr:\n%s\nwant (in any order):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"random ", "urandom "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
}

func TestRandomIsAFunctionOfTheSeed(t *testing.T) {
	prog := bareMetalProgram(t)
	randoms := func(seed string) string {
		_, stdout, _ := runCLI(t, "run", "--smp", "2", "--seed", seed, prog)
		var keep []string
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(l, "random ") || strings.HasPrefix(l, "urandom ") {
				keep = append(keep, l)
			}
		}
		if len(keep) != 2 {
			t.Fatalf("seed %s: no random lines in:\n%s", seed, stdout)
		}
		return strings.Join(keep, "\n")
	}
	a, b, c := randoms("5"), randoms("5"), randoms("6")
	if a != b {
		t.Errorf("seed 5 twice gave\n%s\nand\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 5 and 6 gave the same values:\n%s", a)
	}
}

// event is one hypercall seen by recorder, with the privilege mode of the
// hart that made it.
type event struct {
	kind sdk.Kind
	cond bool
	msg  string
	priv uint8
}

// recorder is an sdk.Sink that records every call.
type recorder struct {
	vm       *board.VirtMachine
	events   []event
	randoms  []uint64
	setup    []uint8
	progress []uint64
	exit     int
	exited   bool
}

func (r *recorder) priv(hart int) uint8 { return r.vm.Hart(hart).Priv() }

func (r *recorder) Assert(kind sdk.Kind, cond bool, msg string, hart int) {
	r.events = append(r.events, event{kind, cond, msg, r.priv(hart)})
}

func (r *recorder) Random() uint64 {
	v := 0xe7e7_0000_0000_0000 + uint64(len(r.randoms)+1)
	r.randoms = append(r.randoms, v)
	return v
}

func (r *recorder) SetupComplete(hart int) { r.setup = append(r.setup, r.priv(hart)) }

func (r *recorder) Progress(v uint64, hart int) {
	if r.priv(hart) == 0 {
		r.progress = append(r.progress, v)
	}
}

func (r *recorder) Event([]byte, int)        {}
func (r *recorder) KillNext(int, int) uint64 { return 0 }

func (r *recorder) Exit(code int, hart int) {
	r.exit, r.exited = code, r.priv(hart) == 0
	r.vm.PowerOff(code)
}

// linuxUserInitramfs cross-compiles testdata/linuxuser and packs it as
// /init of an uncompressed initramfs.
func linuxUserInitramfs(t *testing.T) []byte {
	t.Helper()
	root := moduleRoot(t)
	bin := filepath.Join(t.TempDir(), "init")
	cmd := goCmd(t, root, []string{"GOOS=linux", "GOARCH=riscv64", "CGO_ENABLED=0"},
		"build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./guest-images/sdk/testdata/linuxuser")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cross-compiling the Linux test program: %v\n%s", err, out)
	}
	prog, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := initramfs.Write(&buf, initramfs.Init(prog)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const linuxBudget = 1_000_000_000 // instructions; the run takes about 45M

func bootLinuxUser(t *testing.T, appendArgs string) (*recorder, emu.StopReason, string) {
	t.Helper()
	initrd := linuxUserInitramfs(t)
	kernel, err := os.ReadFile(guestimg.Linux(t).Kernel)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	var console bytes.Buffer
	vm, err := board.NewVirt(board.Virt{
		Harts: 2, RAMBytes: 256 << 20, Seed: 1,
		BIOS: guestimg.BIOS(t), Kernel: kernel, Initrd: initrd,
		Append: appendArgs, Console: &console, SDK: rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec.vm = vm
	reason := vm.Run(linuxBudget)
	return rec, reason, console.String()
}

func TestTheGoPackageReportsFromALinuxUserProcess(t *testing.T) {
	rec, reason, console := bootLinuxUser(t, "console=ttyS0")
	if reason != emu.StopPowerOff || rec.exit != 3 || !rec.exited {
		t.Fatalf("stopped with %v, exit %d (from U mode: %v); want everett.Exit(3) from U mode\n%s", reason, rec.exit, rec.exited, console)
	}
	long := strings.Repeat("0123456789", 30)[:sdk.MaxMessage]
	want := []event{
		{sdk.Always, true, "linux: always true", 0},
		{sdk.Always, false, "linux: always false", 0},
		{sdk.Sometimes, true, "linux: sometimes true", 0},
		{sdk.Sometimes, false, "linux: sometimes false", 0},
		{sdk.Reachable, true, "linux: reachable", 0},
		{sdk.Unreachable, true, "linux: unreachable", 0},
		{sdk.Always, false, "linux: heap message 42", 0},
		{sdk.Always, false, long, 0},
		{sdk.Always, false, "", 0},
		{sdk.Always, false, "linux: from another thread", 0},
	}
	if !slices.Equal(rec.events, want) {
		t.Errorf("assertions:\n%v\nwant:\n%v", rec.events, want)
	}
	if !slices.Equal(rec.setup, []uint8{0}) || !slices.Equal(rec.progress, []uint64{123}) {
		t.Errorf("setup_complete from modes %v, progress %v; want one of each from U mode (value 123)", rec.setup, rec.progress)
	}
	if wantLine := fmt.Sprintf("sdktest: random %016x %016x", rec.randoms[0], rec.randoms[1]); len(rec.randoms) != 2 || !strings.Contains(console, wantLine) {
		t.Errorf("random values %x; console lacks %q:\n%s", rec.randoms, wantLine, console)
	}
	if !strings.Contains(console, "sdktest: enabled true") {
		t.Errorf("the package did not detect everett:\n%s", console)
	}
}

func TestTheGoPackageFallsBackWhenDisabled(t *testing.T) {
	// The kernel passes KEY=VALUE words of its command line to init as
	// environment variables.
	rec, reason, console := bootLinuxUser(t, "console=ttyS0 EVERETT_SDK=off")
	if reason != emu.StopPowerOff || len(rec.events) != 0 || len(rec.randoms) != 0 {
		t.Fatalf("stopped with %v after %d hypercalls; want a power-off and none\n%s", reason, len(rec.events)+len(rec.randoms), console)
	}
	for _, w := range []string{
		"sdktest: enabled false",
		"everett: always assertion failed: linux: always false",
		"everett: unreachable assertion reached: linux: unreachable",
		"sdktest: fallback done",
	} {
		if !strings.Contains(console, w) {
			t.Errorf("console lacks %q:\n%s", w, console)
		}
	}
}
