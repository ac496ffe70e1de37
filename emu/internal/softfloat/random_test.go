package softfloat

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
)

var (
	longFlag = flag.Bool("long", false, "run the long random sweeps (minutes, not seconds)")
	seedFlag = flag.Uint64("seed", 1, "seed of the random sweeps; every failure prints the seed to reproduce it")
)

// sweepCount returns how many cases a sweep runs: short in -short mode,
// long with -long.
func sweepCount(normal int) int {
	switch {
	case *longFlag:
		return normal * 50
	case testing.Short():
		return normal / 20
	}
	return normal
}

// rngFor returns the random source of one named sweep.
func rngFor(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(*seedFlag, h.Sum64()))
}

// describe formats one case for a failure message.
func describe(op testOp, a, b, c uint64, rm uint8) string {
	w := int(op.f.width() / 4)
	hex := func(v uint64) string { return fmt.Sprintf("0x%0*x", w, v) }
	return fmt.Sprintf("%s rm=%d a=%s b=%s c=%s", op.name, rm, hex(a), hex(b), hex(c))
}

// checkOp runs n random cases of op against want, reporting the first few
// mismatches.
func checkOp(t *testing.T, op testOp, sweep string, n int, want fn3) {
	t.Helper()
	r := rngFor(sweep + op.name)
	fails := 0
	for i := 0; i < n; i++ {
		a, b, c := op.gen(r)
		var rm uint8
		if op.usesRM {
			rm = uint8(r.IntN(5))
		}
		got, gotFlags := op.lib(a, b, c, rm)
		exp, expFlags := want(a, b, c, rm)
		if got != exp || gotFlags != expFlags {
			t.Errorf("%s: got %#x %v, want %#x %v", describe(op, a, b, c, rm), got, gotFlags, exp, expFlags)
			if fails++; fails >= 10 {
				break
			}
		}
	}
	if t.Failed() {
		t.Logf("reproduce with: go test ./emu/internal/softfloat -run '%s' -seed %d", t.Name(), *seedFlag)
	}
}

// TestRandomOperandsAgainstBigOracle compares every operation, in every
// rounding mode, with the math/big oracle on biased random operands.
func TestRandomOperandsAgainstBigOracle(t *testing.T) {
	for _, op := range allOps() {
		n := sweepCount(300_000)
		if !op.usesRM {
			n /= 4
		}
		t.Run(strings.ReplaceAll(op.name, ".", "_")+" matches the oracle", func(t *testing.T) {
			t.Parallel()
			checkOp(t, op, "oracle", n, op.oracle)
		})
	}
}
