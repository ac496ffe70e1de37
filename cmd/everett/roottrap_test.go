package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"everett/internal/guestbuild"
)

func TestAFailuresRootTrapIsPrintedAndItsBisectCommandLandsOnTheFault(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "explorer", "testdata"))
	prog := guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:         "explorer-fault",
		Dirs:         []string{filepath.Join(dir, "crt"), filepath.Join(dir, "fault")},
		LinkerScript: filepath.Join(dir, "crt", "link.ld"),
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "explore", "--elf", prog, "--smp", "1", "--universes", "1", "--out", out)
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr %s\n%s", code, stderr, stdout)
	}
	m := regexp.MustCompile(`bisect it with: everett bisect (\S+) --predicate (\S+)`).FindStringSubmatch(stdout)
	if m == nil || !strings.Contains(stdout, "root trap: load-access-fault (cause 5) from M-mode") || !strings.Contains(stdout, "<read_config+") {
		t.Fatalf("no root trap in the output:\n%s", stdout)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		RootTrap struct {
			ICount uint64 `json:"icount"`
			PC     string `json:"pc"`
			Tval   string `json:"tval"`
		} `json:"root_trap"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.RootTrap.Tval != "0x10" {
		t.Fatalf("report root_trap %+v (%v)", rep.RootTrap, err)
	}
	code, stdout, stderr = runCLI(t, "bisect", m[1], "--predicate", m[2], "--window", "3")
	if code != 0 {
		t.Fatalf("bisect exit code %d; stderr %s\n%s", code, stderr, stdout)
	}
	want := fmt.Sprintf("first: icount=%d hart=0 pc=%s\n", rep.RootTrap.ICount, rep.RootTrap.PC)
	if !strings.HasPrefix(stdout, want) || !regexp.MustCompile(`instruction \d+ node 0 hart 0 pc 0x[0-9a-f]+ <read_config\+0x[0-9a-f]+>: .*\(trapped\)`).MatchString(stdout) {
		t.Fatalf("bisect printed\n%s\nwant it to begin %q", stdout, want)
	}
	code, stdout, _ = runCLI(t, "replay", m[1])
	if code != 1 || !strings.Contains(stdout, "reproduced: exit: exit code 7") || !strings.Contains(stdout, "root trap: load-access-fault") {
		t.Fatalf("replay exit code %d:\n%s", code, stdout)
	}
}
