package litmus

import (
	"path/filepath"
	"strings"
	"testing"
)

// The oracle agrees with every verdict our own tests carry, which were
// worked out by hand from the manual (testdata/litmus/README.md), for
// both models.
func TestLitmusOracleAgreesWithEveryHandWrittenVerdict(t *testing.T) {
	files, _ := filepath.Glob("../testdata/litmus/*.litmus")
	if len(files) == 0 {
		t.Fatal("no tests")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".litmus")
		tt := loadTest(t, name)
		for _, model := range []string{ModelSC, ModelRVWMO} {
			want := tt.Verdict(model)
			if want == NoVerdict {
				continue
			}
			r, err := Reachable(tt, model)
			if err != nil {
				t.Errorf("%s %s: %v", name, model, err)
				continue
			}
			got := r.Verdict(tt.Quant)
			if tt.Quant == NotExists && want == Forbidden {
				got = map[Verdict]Verdict{Allowed: Allowed, Forbidden: Forbidden}[got]
			}
			if got != want {
				t.Errorf("%s under %s: the oracle says %v (%d states, %d candidates), the file %v", name, model, got, len(r.States), r.Cands, want)
			}
		}
	}
}
