package guestimages

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goSources runs go_sources (examples/gosources.sh), which the Go examples'
// recipes hash into their cache keys, for packages pkgs named from dir.
func goSources(t *testing.T, dir string, pkgs ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	script := `. "$1/guest-images/examples/gosources.sh"; root=$1; dir=$2; shift 2; GOOS=linux GOARCH=riscv64 CGO_ENABLED=0 go_sources "$root" "$dir" "$@"`
	args := append([]string{"-c", script, "sh", root, filepath.Join(root, dir)}, pkgs...)
	out, err := exec.Command("sh", args...).Output()
	if err != nil {
		t.Fatalf("go_sources %v: %v", pkgs, err)
	}
	return strings.Fields(string(out))
}

func TestTheKvRecipesKeyCoversTheSDKPackagesItImports(t *testing.T) {
	got := goSources(t, ".", "./guest-images/examples/kv")
	for _, want := range []string{
		"guest-images/examples/kv/main.go",
		"guest-images/sdk/go/everett/hypercall_riscv64.s",
		"guest-images/sdk/go/netconf/netconf_linux.go",
		"guest-images/sdk/go/nodeinit/cmdline.go",
		"guest-images/sdk/go/nodeinit/nodeinit_linux.go",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("go_sources of the kv example lacks %s: %v", want, got)
		}
	}
	for _, f := range got {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "/") {
			t.Errorf("go_sources lists %s: want the repository's non-test files only", f)
		}
	}
}

func TestTheEtcdRecipesKeyCoversItsOwnModulesPackagesAndTheSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the etcd module's dependencies (downloads them if missing)")
	}
	got := goSources(t, "guest-images/examples/etcd", "./init", "./client")
	for _, want := range []string{
		"guest-images/examples/etcd/init/main.go",
		"guest-images/examples/etcd/workload/check.go",
		"guest-images/sdk/go/nodeinit/nodeinit_linux.go",
		"guest-images/sdk/go/netconf/netconf_linux.go",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("go_sources of the etcd example lacks %s: %v", want, got)
		}
	}
}
