package explorer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The summary of an explore: summary.json, beside the failures' reports in
// the output directory (the sweep's counterpart is SweepFile).

// SummaryFile is the name of an explore's summary in its output directory.
const SummaryFile = "summary.json"

// Summary is the summary file of a search: of one process's, or of a
// shared search's as its bucket has it (the same shape, from NewSummary).
type Summary struct {
	Spec       string           `json:"spec"`
	Seed       uint64           `json:"seed"`
	Universes  int              `json:"universes"`
	Failures   []SummaryFailure `json:"failures"`
	Assertions []AssertionState `json:"assertions"`
	// NeverHit lists the sometimes and reachable assertions that never
	// held (NeverHit).
	NeverHit []string `json:"sometimes_never_reached"`
	Coverage int      `json:"coverage_edges"`
	// CoverageFill is the fraction of the edge map's slots in use.
	CoverageFill float64 `json:"coverage_map_fill"`
	// Pairs counts the distinct interleaving pairs seen.
	Pairs   int    `json:"interleaving_pairs"`
	Elapsed string `json:"elapsed"`
	// Boot says whether root universes started from a boot snapshot.
	Boot string `json:"boot"`
	// EndedBy is what ended the search: universes, wall or failure
	// (--stop-on-failure); for a shared search, also incomplete (not
	// every universe of its bound is in a record yet).
	EndedBy string `json:"ended_by"`
	// Cancelled counts the universes planned but not counted: stopped by
	// the wall-time budget or --stop-on-failure (Result).
	Cancelled int `json:"cancelled"`
	// FirstFailure is the failure of the lowest universe index and when it
	// came; null without failures.
	FirstFailure *FirstFailure `json:"first_failure"`
	// Engine ran the universes' machines: interp or jit (a host setting:
	// the same search finds the same failures with either).
	Engine string `json:"engine"`
}

// SummaryFailure names one distinct failure and its report.
type SummaryFailure struct {
	Signature string `json:"signature"`
	Universe  int    `json:"universe"`
	Report    string `json:"report"`
	Replay    string `json:"replay"`
}

// NewSummary is the summary of a search's result: of one process's, or of
// a shared search's put together from its bucket (MergeShared). spec names
// the spec, seed is the root seed, boot describes how root universes
// started, and paths are the failures' report files by signature.
func NewSummary(spec string, seed uint64, res *Result, boot string, paths map[string]string) Summary {
	sum := Summary{Spec: spec, Seed: seed, Universes: res.Universes, Assertions: res.Assertions,
		NeverHit: NeverHit(res.Assertions), Coverage: res.Coverage, CoverageFill: res.CoverageFill, Pairs: res.Pairs,
		Elapsed: res.Elapsed.Round(time.Millisecond).String(), Boot: boot, EndedBy: res.Ended,
		Engine: res.Engine.String(), Cancelled: res.Cancelled, FirstFailure: res.FirstFailure}
	for _, r := range res.Failures {
		sum.Failures = append(sum.Failures, SummaryFailure{Signature: r.Signature, Universe: r.Universe, Report: paths[r.Signature], Replay: r.Replay})
	}
	return sum
}

// NeverHit lists, as "kind: message" in the assertions' order, the
// sometimes and reachable assertions that never held: what a search was
// asked to reach and did not.
func NeverHit(as []AssertionState) []string {
	var out []string
	for _, a := range as {
		if (a.Kind == "sometimes" || a.Kind == "reachable") && !a.Reached {
			out = append(out, a.Kind+": "+a.Message)
		}
	}
	return out
}

// JSON is the summary as summary.json holds it: indented, with a final
// newline.
func (s Summary) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	return append(b, '\n'), nil
}

// Write writes the summary to dir/summary.json.
func (s Summary) Write(dir string) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b, 0o644); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}
