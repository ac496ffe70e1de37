package litmus

import "testing"

// The shapes issue 29 asked our own tests to cover, each with the verdict
// worked out by hand from the manual (testdata/litmus/README.md names the
// rule). TestLitmusOracleAgreesWithEveryHandWrittenVerdict checks every
// file's verdicts with the oracle under both models,
// TestLitmusSCNeverShowsAForbiddenOutcome and
// TestLitmusRVWMOAgreesWithEveryVerdict with runs; this test keeps the
// shapes from going missing and their verdicts from drifting.
func TestLitmusOurTestsCoverTheCoherenceShapesThePPORules3_12And13AndPPOCA(t *testing.T) {
	for _, c := range []struct {
		name  string
		rvwmo Verdict
		why   string
	}{
		{"CoWW", Forbidden, "rule 1: two stores to one address keep their order"},
		{"CoWR", Forbidden, "Load Value Axiom: a load sees its own hart's earlier store or a later one"},
		{"CoRW", Forbidden, "rule 1: a store after a load of its address follows what the load read"},
		{"CoRR", Forbidden, "rule 2: two loads of one address do not go back in time"},
		{"SB+amoswap-rfi-addrs", Forbidden, "rule 3: a load reading an AMO's store is ordered after it"},
		{"SB+rfi-addrs", Allowed, "rule 3 does not apply to a plain store"},
		{"PPOAA", Forbidden, "rule 12: a load reading a store with an address dependency"},
		{"PPOCA", Allowed, "rule 12 does not apply through a control dependency"},
		{"LB+addrpo+fence.rw.rw", Forbidden, "rule 13: a store after an address dependency"},
	} {
		tt := loadTest(t, c.name)
		if got := tt.Verdict(ModelRVWMO); got != c.rvwmo {
			t.Errorf("%s (%s): rvwmo verdict %v, want %v", c.name, c.why, got, c.rvwmo)
		}
		// Every condition here is a non-SC outcome.
		if got := tt.Verdict(ModelSC); got != Forbidden {
			t.Errorf("%s: sc verdict %v, want Forbidden", c.name, got)
		}
		for _, model := range []string{ModelSC, ModelRVWMO} {
			r, err := Reachable(tt, model)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, model, err)
			}
			if got := r.Verdict(tt.Quant); got != tt.Verdict(model) {
				t.Errorf("%s under %s: the oracle says %v, the file %v", c.name, model, got, tt.Verdict(model))
			}
		}
	}
}
