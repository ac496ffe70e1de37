package hosttool

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every package tests are told to expect is one scripts/deps.sh installs:
// a test that fails for a missing tool names the cure that works.
func TestEveryToolsPackageIsOneDepsShInstalls(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "scripts", "deps.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// want COMMAND PACKAGE, or want_file PATH PACKAGE.
	installs := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^want(?:_file)? \S+ (\S+)`).FindAllStringSubmatch(string(src), -1) {
		installs[m[1]] = true
	}
	if len(installs) < 5 {
		t.Fatalf("read %d packages from deps.sh: the pattern no longer matches its lines", len(installs))
	}
	for cmd, pkg := range Packages {
		if !installs[pkg] {
			t.Errorf("%s: deps.sh does not install %s", cmd, pkg)
		}
	}
}

// A missing tool fails the test, naming the package (a fake T records the
// failure instead of suffering it).
func TestAMissingToolFailsNamingItsPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("Missing skips under -short; this checks the failure")
	}
	f := &fakeT{TB: t}
	func() {
		defer func() { recover() }()
		Missing(f, "dtc", os.ErrNotExist)
	}()
	if !f.failed || f.skipped || !strings.Contains(f.msg, "device-tree-compiler") || !strings.Contains(f.msg, "make deps") {
		t.Fatalf("failed %v, skipped %v, message %q", f.failed, f.skipped, f.msg)
	}
}

// fakeT records Fatal and Skip instead of ending the real test.
type fakeT struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatal(a ...any) {
	f.failed, f.msg = true, fmt.Sprint(a...)
	panic(f)
}

func (f *fakeT) Fatalf(format string, a ...any) { f.Fatal(fmt.Sprintf(format, a...)) }

func (f *fakeT) Skip(a ...any) {
	f.skipped, f.msg = true, fmt.Sprint(a...)
	panic(f)
}
