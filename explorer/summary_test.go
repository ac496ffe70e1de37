package explorer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"everett/emu"
)

func TestNeverHitListsTheSometimesAndReachableAssertionsThatNeverHeldInOrder(t *testing.T) {
	as := []AssertionState{
		{Kind: "sometimes", Message: "leader elected", Reached: true},
		{Kind: "sometimes", Message: "split brain healed"},
		{Kind: "always", Message: "one leader"},
		{Kind: "reachable", Message: "restart path"},
		{Kind: "unreachable", Message: "corrupt log"},
		{Kind: "reachable", Message: "snapshot taken", Reached: true},
	}
	want := []string{"sometimes: split brain healed", "reachable: restart path"}
	if got := NeverHit(as); !reflect.DeepEqual(got, want) {
		t.Fatalf("NeverHit = %q, want %q", got, want)
	}
	if got := NeverHit(nil); got != nil {
		t.Fatalf("NeverHit(nil) = %q, want none", got)
	}
}

// The file's keys are what users' scripts and the shared search's bucket
// read: they must not change with the Go names.
func TestASummaryWrittenToADirectoryHasTheResultUnderItsFileKeys(t *testing.T) {
	res := &Result{
		Universes: 12, Cancelled: 3, Coverage: 40, CoverageFill: 0.25, Pairs: 7,
		Elapsed: 1234567 * time.Microsecond, Ended: "wall", Engine: emu.EngineInterp,
		Assertions:   []AssertionState{{Kind: "sometimes", Message: "m"}},
		Failures:     []*Report{{Signature: "sig1", Universe: 4, Replay: "everett replay r.json"}},
		FirstFailure: &FirstFailure{Universe: 4, Signature: "sig1"},
	}
	sum := NewSummary("kv.yaml", 9, res, "booted once", map[string]string{"sig1": "out/sig1.json"})
	dir := t.TempDir()
	if err := sum.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{
		"spec": "kv.yaml", "seed": 9.0, "universes": 12.0, "cancelled": 3.0,
		"coverage_edges": 40.0, "coverage_map_fill": 0.25, "interleaving_pairs": 7.0,
		"elapsed": "1.235s", "boot": "booted once", "ended_by": "wall", "engine": "interp",
		"sometimes_never_reached": []any{"sometimes: m"},
		"failures":                []any{map[string]any{"signature": "sig1", "universe": 4.0, "report": "out/sig1.json", "replay": "everett replay r.json"}},
	} {
		if !reflect.DeepEqual(got[key], want) {
			t.Errorf("%s = %#v, want %#v", key, got[key], want)
		}
	}
	if ff, ok := got["first_failure"].(map[string]any); !ok || ff["signature"] != "sig1" {
		t.Errorf("first_failure = %#v", got["first_failure"])
	}
	if _, ok := got["assertions"].([]any); !ok {
		t.Errorf("assertions = %#v", got["assertions"])
	}
}
