package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"everett/explorer"
)

func TestSpecPrintsEveryFieldWithItsTypeDefaultAndMeaning(t *testing.T) {
	code, out, errs := runCLI(t, "spec")
	if code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, errs)
	}
	for _, f := range explorer.SpecReference {
		head := f.Path + "  " + f.Type + ", default " + f.Default + "\n"
		if !strings.Contains(out, head) || !strings.Contains(out, strings.Fields(f.Meaning)[0]) {
			t.Errorf("no %q in:\n%s", head, out)
		}
	}
	// Sections in their order: nodes before faults before setup.
	if a, b, c := strings.Index(out, "\nnodes[]\n"), strings.Index(out, "\nfaults\n"), strings.Index(out, "\nsetup\n"); a < 0 || b < a || c < b {
		t.Fatalf("sections out of order (%d, %d, %d):\n%s", a, b, c, out)
	}
}

func TestSpecWithASectionOrFieldPrintsOnlyThat(t *testing.T) {
	for _, tc := range []struct {
		arg, want, not string
	}{
		{"faults", "faults.drop  probability", "budgets.wall"},
		{"nodes", "nodes[].harts  int, default 1", "faults."},
		{"faults.drop", "faults.drop  probability", "faults.crashes"},
	} {
		code, out, errs := runCLI(t, "spec", tc.arg)
		if code != 0 || !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
			t.Errorf("spec %s: exit code %d, stderr %s:\n%s", tc.arg, code, errs, out)
		}
	}
	if code, _, errs := runCLI(t, "spec", "bogus"); code != exitUsage || !strings.Contains(errs, `no section or field "bogus"`) {
		t.Errorf("spec bogus: exit code %d, stderr %s", code, errs)
	}
}

func TestExploreAndSweepHelpEndsWithWhereTheSpecFieldsAreListed(t *testing.T) {
	for _, c := range []string{"explore", "sweep"} {
		code, out, _ := runCLI(t, c, "--help")
		if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), "everett spec") {
			t.Errorf("%s --help: exit code %d, ends %q", c, code, out[max(0, len(out)-200):])
		}
	}
}

func TestExploreNamesAMisspeltFieldItsLineAndTheFieldMeant(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	y := "nodes:\n  - elf: " + program(t, exitWith(1)...) + "\n    hart: 2\n"
	if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "explore", spec, "--out", filepath.Join(dir, "out"))
	want := "everett: " + spec + `:3: nodes[0]: unknown field "hart" (did you mean "harts"?)` + "\n"
	if code != exitUsage || errs != want {
		t.Fatalf("exit code %d, stderr %q; want %q", code, errs, want)
	}
}
