package softfloat

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"everett/internal/hosttool"
)

// TestAgainstQemu runs every operation on random operands as real RISC-V
// instructions, under qemu-riscv64-static, and compares the results and
// fflags with the library: a differential test against an independent
// implementation of the same ISA. testdata/rvfp.c executes the
// instructions. The test is skipped when the cross toolchain or qemu is not
// installed (Debian: apt-get install gcc-riscv64-linux-gnu qemu-user-static).
func TestAgainstQemu(t *testing.T) {
	gcc := hosttool.Need(t, "riscv64-linux-gnu-gcc")
	qemu := hosttool.Need(t, "qemu-riscv64-static")
	bin := filepath.Join(t.TempDir(), "rvfp")
	cc := exec.Command(gcc, "-static", "-O2", "-march=rv64gc", "-o", bin, filepath.Join("testdata", "rvfp.c"))
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("compile testdata/rvfp.c: %v\n%s", err, out)
	}

	type tcase struct {
		op      testOp
		a, b, c uint64
		rm      uint8
	}
	var cases []tcase
	var in bytes.Buffer
	for _, op := range allOps() {
		r := rngFor("qemu" + op.name)
		for i, n := 0, sweepCount(6000); i < n; i++ {
			a, b, c := op.gen(r)
			rm := uint8(r.IntN(5))
			cases = append(cases, tcase{op, a, b, c, rm})
			fmt.Fprintf(&in, "%s %d %x %x %x\n", op.name, rm, a, b, c)
		}
	}
	cmd := exec.Command(qemu, bin)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run rvfp under %s: %v\n%s", qemu, err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	fails, i := 0, 0
	for ; sc.Scan() && i < len(cases); i++ {
		tc := cases[i]
		var want, wantFlags uint64
		if _, err := fmt.Sscanf(sc.Text(), "%x %x", &want, &wantFlags); err != nil {
			t.Fatalf("rvfp output line %d %q: %v", i+1, sc.Text(), err)
		}
		rm := tc.rm
		if !tc.op.usesRM {
			rm = RNE
		}
		got, gotFlags := tc.op.lib(tc.a, tc.b, tc.c, rm)
		if got != want || uint64(gotFlags) != wantFlags {
			t.Errorf("%s: got %#x %v, qemu %#x %v", describe(tc.op, tc.a, tc.b, tc.c, tc.rm), got, gotFlags, want, Flags(wantFlags))
			if fails++; fails >= 20 {
				t.FailNow()
			}
		}
	}
	if i != len(cases) {
		t.Fatalf("rvfp answered %d of %d cases", i, len(cases))
	}
	t.Logf("%d cases of %d operations agree with qemu", len(cases), len(allOps()))
}
