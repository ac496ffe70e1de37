package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// etcdModule is the etcd example's Go module (guest-images/examples/etcd):
// a module of its own, which pins the release of etcd's client it is built
// with, so the repository's `go test ./...` does not reach its tests.
const etcdModule = "everett/guest-images/examples/etcd"

// The etcd example's checkers (workload: the linearizability check, the
// watch check, the HashKV comparison) and its client's flags are tested in
// that module, on hand-written histories, without a network or a guest:
// this runs them in the repository's `go test ./...`. Its dependencies
// come from the Go module proxy the first time; without it the test fails
// saying so.
func TestTheEtcdExamplesOwnModulePassesItsTests(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("module %s: the go command is not in PATH: %v", etcdModule, err)
	}
	// The directories of the packages built from this tree: the module's
	// own and the SDK's it imports (replace everett => ../../..).
	list := exec.Command(gobin, "list", "-deps", "-test", "-f",
		`{{with .Module}}{{if or .Main (eq .Path "everett")}}{{$.Dir}}{{end}}{{end}}`, "./...")
	list.Dir = "etcd"
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("module %s: cannot be loaded (its dependencies come from the Go module proxy): %s", etcdModule, reason(out, err))
	}
	readSources(t, strings.Fields(string(out)))
	test := exec.Command(gobin, "test", "./...")
	test.Dir = "etcd"
	out, err = test.CombinedOutput()
	if err != nil {
		t.Fatalf("go test ./... in module %s: %v\n%s", etcdModule, err, out)
	}
	if !strings.Contains(string(out), "ok  \t"+etcdModule+"/workload") {
		t.Fatalf("go test ./... in module %s did not run the workload's tests:\n%s", etcdModule, out)
	}
	t.Logf("%s", out)
}

// readSources reads every file of dirs and the go.mod and go.sum files the
// module's build list comes from: `go test` caches this test's result
// keyed on the files it read, and the go command it runs reads these.
func readSources(t *testing.T, dirs []string) {
	t.Helper()
	files := []string{"etcd/go.mod", "etcd/go.sum", "../../go.mod", "../../go.sum"}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("module %s: %v", etcdModule, err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatalf("module %s: %v", etcdModule, err)
		}
	}
}

// reason is the first line of a go command's output that is not progress
// ("go: downloading ..."), or its error when there is none.
func reason(out []byte, err error) string {
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "go: downloading ") {
			return line
		}
	}
	return err.Error()
}
