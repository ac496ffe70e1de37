package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/emu"
	"everett/internal/guestimg"
)

// bootArgs returns the run arguments that boot the Linux guest with a
// private copy of the disk image.
func bootArgs(t *testing.T, extra ...string) (args []string, disk string, orig []byte) {
	t.Helper()
	im := guestimg.Linux(t)
	orig, err := os.ReadFile(im.Disk)
	if err != nil {
		t.Fatal(err)
	}
	disk = filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(disk, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"run", "--kernel", im.Kernel, "--initrd", im.Initrd, "--disk", disk}, extra...)
	return args, disk, orig
}

func TestBootPowersOffWithExitCode0AndLeavesTheDiskAlone(t *testing.T) {
	args, disk, orig := bootArgs(t, "--state-hash")
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stdout, "EVERETT-SMOKE-OK") {
		t.Fatalf("exit code %d; stderr %q; console tail %q", code, stderr, tail(stdout))
	}
	if !strings.Contains(stderr, "state-hash: ") {
		t.Errorf("no state hash in %q", stderr)
	}
	now, _ := os.ReadFile(disk)
	if !bytes.Equal(now, orig) {
		t.Fatal("the disk image changed without --disk-persist")
	}
}

func TestDiskPersistWritesTheGuestsChangesBack(t *testing.T) {
	args, disk, orig := bootArgs(t, "--disk-persist")
	if code, stdout, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("exit code %d; stderr %q; console tail %q", code, stderr, tail(stdout))
	}
	now, _ := os.ReadFile(disk)
	if bytes.Equal(now, orig) {
		t.Fatal("the guest wrote a file on ext4, but the image is unchanged after --disk-persist")
	}
	if len(now) != len(orig) {
		t.Fatalf("the image changed size from %d to %d", len(orig), len(now))
	}
}

func TestConsoleGoesToTheFileGivenByConsole(t *testing.T) {
	out := filepath.Join(t.TempDir(), "console.txt")
	args, _, _ := bootArgs(t, "--console", out)
	code, stdout, _ := runCLI(t, args...)
	b, _ := os.ReadFile(out)
	if code != 0 || !strings.Contains(string(b), "EVERETT-SMOKE-OK") || strings.Contains(stdout, "EVERETT-SMOKE-OK") {
		t.Fatalf("exit %d; console file has the marker: %v; stdout has it: %v", code,
			strings.Contains(string(b), "EVERETT-SMOKE-OK"), strings.Contains(stdout, "EVERETT-SMOKE-OK"))
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

func TestCheckEnginesAgreesOnAnSMPLinuxBootToPowerOff(t *testing.T) {
	if !emu.JITSupported() {
		t.Skip("no JIT on this host")
	}
	args, _, _ := bootArgs(t, "--smp", "2", "--check-engines", "--check-every", "5000000")
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stdout, "EVERETT-SMOKE-OK") || !strings.Contains(stderr, "engine check passed") {
		t.Fatalf("exit code %d; stderr %q; console tail %q", code, stderr, tail(stdout))
	}
}
