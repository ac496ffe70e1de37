package litmus

import (
	"reflect"
	"slices"
	"testing"
)

func TestLitmusAThirdOfWeakRunsKeepALaggardThatStartsFirstAndNoScRunDoes(t *testing.T) {
	const runs = 900
	lags := 0
	for i := range runs {
		for _, threads := range []int{2, 3, 4} {
			seed := runSeed(1, i)
			sc := drawPlan(seed, threads, 6, false, false)
			weak := drawPlan(seed, threads, 6, false, true)
			if sc.lag != -1 {
				t.Fatalf("run %d: an sc plan with a laggard: %+v", i, sc)
			}
			if weak.lag < 0 {
				if !reflect.DeepEqual(weak, sc) {
					t.Fatalf("run %d, %d threads: a weak plan without a laggard %+v, the sc plan %+v", i, threads, weak, sc)
				}
				continue
			}
			if threads == 3 {
				lags++
			}
			if weak.delay[weak.lag] != 0 || !slices.Contains(lagQuantumMax[:], weak.sched.QuantumMax) {
				t.Fatalf("run %d: the laggard %d starts %d late, quanta up to %d", i, weak.lag, weak.delay[weak.lag], weak.sched.QuantumMax)
			}
			d := slices.Sorted(slices.Values(weak.delay))
			g := d[1]
			for k, v := range d {
				if v != k*g || v > MaxDelay || g < MaxDelay/(2*(threads-1)) {
					t.Fatalf("run %d, %d threads: delays %v are not a gap of at least %d apart within %d", i, threads, weak.delay, MaxDelay/(2*(threads-1)), MaxDelay)
				}
			}
		}
	}
	if lags < runs/lagOdds*3/4 || lags > runs/lagOdds*5/4 {
		t.Errorf("%d of %d three-thread runs keep a laggard, want about one in %d", lags, runs, lagOdds)
	}
}

func TestLitmusATestWithLRSCKeepsLongQuantaWithALaggard(t *testing.T) {
	for i := range 300 {
		if p := drawPlan(runSeed(1, i), 3, 6, true, true); p.sched.QuantumMax < lrscQuantumMin {
			t.Fatalf("run %d: quanta up to %d with LR/SC, want at least %d", i, p.sched.QuantumMax, lrscQuantumMin)
		}
	}
}
