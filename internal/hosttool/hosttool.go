// Package hosttool finds, for tests, the host commands that
// scripts/deps.sh installs. `make test` runs deps.sh first, so on a machine
// it prepared such a command is never missing: a test that needs one fails
// when it is absent, naming the command and its Debian package, instead
// of skipping and passing a check it never made. Under go test -short it
// skips, as the slow tests do.
package hosttool

import (
	"fmt"
	"os/exec"
	"sort"
	"testing"
)

// Packages maps each command tests look for to the Debian package
// scripts/deps.sh installs it from (hosttool_test.go checks that deps.sh
// does).
var Packages = map[string]string{
	"chromium":              "chromium",
	"cpio":                  "cpio",
	"dtc":                   "device-tree-compiler",
	"gdb-multiarch":         "gdb-multiarch",
	"qemu-riscv64-static":   "qemu-user-static",
	"riscv64-linux-gnu-gcc": "gcc-riscv64-linux-gnu",
	// binutils-riscv64-linux-gnu comes with gcc-riscv64-linux-gnu.
	"riscv64-linux-gnu-strip": "gcc-riscv64-linux-gnu",
	// A Python module, not a command: see Missing.
	"python3-junitparser": "python3-junitparser",
}

// Need returns the path of command (a key of Packages), or ends the test
// as Missing does.
func Need(t testing.TB, command string) string {
	t.Helper()
	p, err := exec.LookPath(command)
	if err != nil {
		Missing(t, command, err)
	}
	return p
}

// Missing ends the test for want (a key of Packages), which the host
// lacks: t.Fatal, or t.Skip under -short. why says what was tried.
func Missing(t testing.TB, want string, why error) {
	t.Helper()
	pkg, ok := Packages[want]
	if !ok {
		t.Fatalf("hosttool: %s is not a tool scripts/deps.sh installs (known: %v)", want, known())
	}
	msg := fmt.Sprintf("%s is missing (%v): run `make deps` (scripts/deps.sh installs Debian's %s)", want, why, pkg)
	if testing.Short() {
		t.Skip(msg + "; skipped under -short")
	}
	t.Fatal(msg + "; go test -short skips this test instead")
}

func known() []string {
	var k []string
	for c := range Packages {
		k = append(k, c)
	}
	sort.Strings(k)
	return k
}
