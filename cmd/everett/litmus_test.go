package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLitmusCommand(t *testing.T) {
	mp := filepath.Join("..", "..", "testdata", "litmus", "MP.litmus")
	sb := filepath.Join("..", "..", "testdata", "litmus", "SB+fence.tsos.litmus")
	runOut := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		root := newRoot()
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&errb)
		code := 0
		if err := root.Execute(); err != nil {
			code = exitUsage
			if ee, ok := err.(*exitError); ok {
				code = ee.code
			}
			errb.WriteString(err.Error())
		}
		return out.String(), errb.String(), code
	}
	t.Run("prints litmus7-style results and exits 0 when the verdicts hold", func(t *testing.T) {
		out, _, code := runOut("litmus", "--runs", "500", "--check", mp, sb)
		if code != 0 || !strings.Contains(out, "Observation MP Never 0 500\n") || !strings.Contains(out, "Test SB+fence.tsos Allowed\n") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})
	t.Run("the same seed prints the same bytes whatever --jobs is", func(t *testing.T) {
		a, _, _ := runOut("litmus", "--runs", "700", "--seed", "9", "--jobs", "1", mp)
		b, _, _ := runOut("litmus", "--runs", "700", "--seed", "9", "--jobs", "2", mp)
		if a != b || a == "" {
			t.Errorf("outputs differ:\n%s\n---\n%s", a, b)
		}
	})
	t.Run("rvwmo shows MP's reordering and keeps the verdicts", func(t *testing.T) {
		out, msg, code := runOut("litmus", "--model", "rvwmo", "--runs", "2000", "--check", mp, sb)
		if code != 0 || !strings.Contains(out, "Observation MP Sometimes ") || !strings.Contains(out, "Observation SB+fence.tsos Sometimes ") {
			t.Errorf("exit %d: %s\n%s", code, msg, out)
		}
	})
	t.Run("an unknown model fails with one line", func(t *testing.T) {
		_, msg, code := runOut("litmus", "--model", "tso", mp)
		if code != exitUsage || !strings.Contains(msg, "tso") || strings.Contains(msg, "\n") {
			t.Errorf("exit %d: %q", code, msg)
		}
	})
	t.Run("a bad file is reported as FILE:LINE and skipped while the others run", func(t *testing.T) {
		dir := t.TempDir()
		bad := filepath.Join(dir, "bad.litmus")
		os.WriteFile(bad, []byte("RISCV B\n{ 0:x6=x; }\n P0 ;\n lw x5,0(x66) ;\nexists (0:x5=1)\n"), 0o644)
		missing := filepath.Join(dir, "missing.litmus")
		out, msg, code := runOut("litmus", "--runs", "100", mp, bad, missing, sb)
		if code != exitSkipped {
			t.Errorf("exit %d, want %d", code, exitSkipped)
		}
		if !strings.Contains(out, "Observation MP Never 0 100\n") || !strings.Contains(out, "Observation SB+fence.tsos ") {
			t.Errorf("the good files did not run:\n%s", out)
		}
		lines := strings.Split(strings.TrimSuffix(msg, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], bad+":4: ") || !strings.HasSuffix(lines[0], "(skipped)") ||
			!strings.Contains(lines[1], missing) || lines[2] != "everett: litmus: 2 of 4 files skipped" {
			t.Errorf("stderr:\n%s", msg)
		}
	})
	t.Run("a test whose runs cannot finish is reported and skipped", func(t *testing.T) {
		loop := filepath.Join(t.TempDir(), "loop.litmus")
		os.WriteFile(loop, []byte("RISCV L\n{ 0:x6=x; }\n P0 ;\n LC00: ;\n j LC00 ;\nexists (x=1)\n"), 0o644)
		out, msg, code := runOut("litmus", "--runs", "3", loop, mp)
		if code != exitSkipped || !strings.HasPrefix(msg, loop+":5: run 0 ") || !strings.Contains(msg, "did not finish") || !strings.Contains(out, "Observation MP ") {
			t.Errorf("exit %d, stderr:\n%s\nstdout:\n%s", code, msg, out)
		}
	})
	t.Run("--check still fails on a wrong verdict when files were skipped", func(t *testing.T) {
		dir := t.TempDir()
		lie := filepath.Join(dir, "lie.litmus")
		src, _ := os.ReadFile(mp)
		os.WriteFile(lie, bytes.Replace(src, []byte("sc:Forbidden"), []byte("sc:Allowed"), 1), 0o644)
		bad := filepath.Join(dir, "bad.litmus")
		os.WriteFile(bad, []byte("RISCV B\n"), 0o644)
		_, msg, code := runOut("litmus", "--runs", "200", "--check", bad, lie)
		if code != 1 || !strings.Contains(msg, "contradict") || !strings.Contains(msg, "1 of 2 files skipped") {
			t.Errorf("exit %d: %q", code, msg)
		}
	})
	t.Run("--help documents the skipped exit code", func(t *testing.T) {
		out, _, _ := runOut("litmus", "--help")
		if !strings.Contains(out, "4 when some files were skipped") {
			t.Errorf("help:\n%s", out)
		}
	})
	t.Run("--check fails on a test with no verdict for the model", func(t *testing.T) {
		dir := t.TempDir()
		src, _ := os.ReadFile(mp)
		for _, c := range []struct{ name, from, to string }{
			{"none", "Verdict=rvwmo:Allowed sc:Forbidden\n", ""},
			{"sc only", "rvwmo:Allowed ", ""},
			{"another model's only", "rvwmo:Allowed sc:Forbidden", "tso:Allowed"},
		} {
			f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".litmus")
			b := bytes.Replace(src, []byte(c.from), []byte(c.to), 1)
			if bytes.Equal(b, src) {
				t.Fatalf("%s: MP.litmus has no %q", c.name, c.from)
			}
			os.WriteFile(f, b, 0o644)
			_, msg, code := runOut("litmus", "--model", "rvwmo", "--runs", "200", "--check", f)
			if code != 1 || !strings.Contains(msg, "gives no Verdict= for rvwmo") || !strings.Contains(msg, "1 of 1 tests give no verdict for rvwmo") {
				t.Errorf("%s: exit %d: %q", c.name, code, msg)
			}
		}
		// Without --check a file without a verdict runs as any other.
		f := filepath.Join(dir, "none.litmus")
		if out, msg, code := runOut("litmus", "--model", "rvwmo", "--runs", "200", f); code != 0 || !strings.Contains(out, "Observation MP ") {
			t.Errorf("without --check: exit %d: %q", code, msg)
		}
	})
	t.Run("a contradicted verdict exits 1", func(t *testing.T) {
		lie := filepath.Join(t.TempDir(), "lie.litmus")
		src, _ := os.ReadFile(mp)
		os.WriteFile(lie, bytes.Replace(src, []byte("sc:Forbidden"), []byte("sc:Allowed"), 1), 0o644)
		_, msg, code := runOut("litmus", "--runs", "200", "--check", lie)
		if code != 1 || !strings.Contains(msg, "contradict") {
			t.Errorf("exit %d: %q", code, msg)
		}
	})
}
