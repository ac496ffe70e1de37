package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/emu"
	"everett/internal/guestbuild"
)

// countTo4096 counts to 4096 in a loop and passes (tohost = 1): a few
// thousand blocks, for the engines to agree on.
var countTo4096 = []string{
	"addi t0,zero,0",
	"lui t3,0x1",
	"addi t0,t0,1", // 80000008
	"bne t0,t3,80000008",
	"addi t1,zero,1",
	"slli t1,t1,31",
	"lui t2,0x1",
	"add t1,t1,t2", // t1 = tohost
	"addi t0,zero,1",
	"sd t0,0(t1)",
	"j 80000028",
}

func TestAnUnknownEngineIsAUsageErrorNamingTheFlagAndTheEngines(t *testing.T) {
	for _, args := range [][]string{
		{"run", "x.elf"}, {"restore", "x.snap"}, {"fork", "x.snap", "--seeds", "1"},
		{"explore", "--elf", "x.elf"}, {"sweep", "--elf", "x.elf", "--seeds", "1..2"},
		{"replay", "r.json"}, {"bisect", "r.json"}, {"shrink", "r.json"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, _, errs := runCLI(t, append(args, "--engine", "fast")...)
			if code != exitUsage || !strings.Contains(errs, `"--engine"`) || !strings.Contains(errs, "want interp or jit") {
				t.Fatalf("exit code %d, stderr %q; want %d naming --engine and interp or jit", code, errs, exitUsage)
			}
		})
	}
}

func TestStatsSayWhichEngineRan(t *testing.T) {
	prog := program(t, countTo4096...)
	engines := []string{"interp"}
	if emu.JITSupported() {
		engines = append(engines, "jit")
	}
	for _, e := range engines {
		code, _, errs := runCLI(t, "run", "--stats", "--engine", e, prog)
		if code != 0 || !strings.Contains(errs, "everett: engine "+e) {
			t.Fatalf("--engine %s: exit code %d, stderr %q", e, code, errs)
		}
		if e == "jit" && !strings.Contains(errs, "run as host code") {
			t.Fatalf("--engine jit --stats does not say what ran as host code: %q", errs)
		}
	}
	code, _, errs := runCLI(t, "run", "--stats", prog)
	if code != 0 || !strings.Contains(errs, "everett: engine "+emu.DefaultEngine.String()) {
		t.Fatalf("without --engine: exit code %d, stderr %q; want the default, %v", code, errs, emu.DefaultEngine)
	}
}

func TestCheckEnginesRunsBothEnginesAndSaysTheyAgree(t *testing.T) {
	prog := program(t, countTo4096...)
	if !emu.JITSupported() {
		code, _, errs := runCLI(t, "run", "--check-engines", prog)
		if code != exitUsage || !strings.Contains(errs, "--check-engines") {
			t.Fatalf("no JIT here: exit code %d, stderr %q; want a usage error", code, errs)
		}
		return
	}
	for _, smp := range []string{"1", "2"} {
		code, _, errs := runCLI(t, "run", "--smp", smp, "--check-engines", "--check-every", "100", "--stats", prog)
		if code != 0 || !strings.Contains(errs, "engine check passed: interp and jit agree") {
			t.Fatalf("--smp %s: exit code %d, stderr %q", smp, code, errs)
		}
		if !strings.Contains(errs, "everett: engine interp") || !strings.Contains(errs, "everett: engine jit:") {
			t.Fatalf("--smp %s: --stats names not both engines: %q", smp, errs)
		}
	}
	for _, bad := range [][]string{
		{"--check-determinism"}, {"--check-every", "0"}, {"--snapshot-at", "10", "--snapshot-out", filepath.Join(t.TempDir(), "s")},
	} {
		code, _, errs := runCLI(t, append(append([]string{"run", "--check-engines"}, bad...), prog)...)
		if code != exitUsage {
			t.Fatalf("--check-engines %v: exit code %d, stderr %q; want a usage error", bad, code, errs)
		}
	}
}

// racyProg builds the explorer's racy test program.
func racyProg(t *testing.T) string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "explorer", "testdata"))
	return guestbuild.BuildSpec(t, guestbuild.Spec{
		Name:         "explorer-racy",
		Dirs:         []string{filepath.Join(dir, "crt"), filepath.Join(dir, "racy")},
		LinkerScript: filepath.Join(dir, "crt", "link.ld"),
	})
}

func TestTheExploreSummaryNamesTheEngine(t *testing.T) {
	prog := racyProg(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "explore", "--elf", prog, "--smp", "2", "--universes", "8", "--engine", "interp", "--out", out)
	if code != 0 && code != 1 {
		t.Fatalf("exit code %d; stderr %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "universes/s, engine interp)") || !strings.Contains(stderr, "everett: engine interp") {
		t.Fatalf("the summary lines do not name the engine:\n%s\n%s", stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Engine string `json:"engine"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.Engine != "interp" {
		t.Fatalf("summary.json engine %q (%v), want interp:\n%s", sum.Engine, err, b)
	}
}

func TestTheSweepNamesTheEngineOnItsLinesAndInItsHostRecord(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "sweep.json")
	code, stdout, stderr := runCLI(t, "sweep", "--elf", racyProg(t), "--smp", "2", "--seeds", "1..4", "--engine", "interp", "--out", dir, "--json", js)
	if code != 0 && code != 1 {
		t.Fatalf("exit code %d; stderr %s\n%s", code, stderr, stdout)
	}
	if strings.Count(stdout, "engine interp") != 2 {
		t.Fatalf("the first and the summary line should name the engine:\n%s", stdout)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Host []struct {
			Engine string `json:"engine"`
		} `json:"host"`
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.Host) != 1 || f.Host[0].Engine != "interp" {
		t.Fatalf("host records %+v (%v), want one with engine interp", f.Host, err)
	}
	if strings.Contains(stdout, "--engine") {
		t.Fatalf("a rerun command names the engine (a host setting):\n%s", stdout)
	}
}
