package explorer

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"everett/emu"
)

// LoadSweep reads a sweep file (`everett sweep --json` or `everett report
// merge --out`) and checks that it is consistent: its format, its shard,
// one outcome per seed of the shard, failure groups that match the
// outcomes.
func LoadSweep(path string) (*SweepFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxSweepFileBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrSweep, path, st.Size(), MaxSweepFileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSweep(b, path)
}

// ParseSweep decodes and checks a sweep file's bytes; name names it in
// errors.
func ParseSweep(b []byte, name string) (*SweepFile, error) {
	if len(b) > MaxSweepFileBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrSweep, name, len(b), MaxSweepFileBytes)
	}
	f := &SweepFile{}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSweep, name, err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSweep, name, err)
	}
	return f, nil
}

// check validates a decoded sweep file.
func (f *SweepFile) check() error {
	if f.Format != SweepFormat {
		return fmt.Errorf("format %q, want %q", f.Format, SweepFormat)
	}
	if !f.Seeds.valid() {
		return fmt.Errorf("seed range %s", f.Seeds)
	}
	if f.Shard.Count < 1 || f.Shard.Count > MaxShards || f.Shard.Index < 0 || f.Shard.Index >= f.Shard.Count {
		return fmt.Errorf("shard %s", f.Shard)
	}
	if f.Spec.Hash == "" {
		return fmt.Errorf("no spec hash")
	}
	want := f.Shard.Seeds(f.Seeds)
	if len(f.Outcomes) != len(want) {
		return fmt.Errorf("%d outcomes for the %d seeds of shard %s of %s", len(f.Outcomes), len(want), f.Shard, f.Seeds)
	}
	sigs := map[string]int{}
	for i, o := range f.Outcomes {
		if o.Seed != want[i] {
			return fmt.Errorf("outcome %d is seed %d, want seed %d (shard %s of %s, by seed)", i, o.Seed, want[i], f.Shard, f.Seeds)
		}
		switch o.Outcome {
		case "pass":
		case "fail":
			if o.Signature == "" {
				return fmt.Errorf("seed %d failed without a signature", o.Seed)
			}
			sigs[o.Signature]++
		default:
			return fmt.Errorf("seed %d: outcome %q (want pass or fail)", o.Seed, o.Outcome)
		}
	}
	if len(f.Failures) != len(sigs) {
		return fmt.Errorf("%d failure groups for %d signatures in the outcomes", len(f.Failures), len(sigs))
	}
	for _, g := range f.Failures {
		if sigs[g.Signature] != g.Seeds {
			return fmt.Errorf("failure group %q counts %d seeds, the outcomes %d", g.Signature, g.Seeds, sigs[g.Signature])
		}
	}
	if len(f.Assertions) > MaxSweepAssertions {
		return fmt.Errorf("%d assertions (limit %d)", len(f.Assertions), MaxSweepAssertions)
	}
	if len(f.EdgesFirstSeen) > emu.MaxEdgeSlots {
		return fmt.Errorf("%d edges (limit %d)", len(f.EdgesFirstSeen), emu.MaxEdgeSlots)
	}
	return nil
}

// MergeSweeps combines the files of the shards of one sweep into the file
// of the whole sweep: exactly the outcomes, failure groups, assertion rates
// and coverage curve the unsharded sweep has. The files must name the same
// spec (hash), seed range and everett build, and together hold every seed
// of the range once: a seed given twice (overlapping shards) or missing (a
// shard not given or cut short) is an error that names it. names label
// the files in errors.
func MergeSweeps(files []*SweepFile, names []string) (*SweepFile, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no sweep files to merge", ErrSweep)
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("file %d", i+1)
	}
	if err := checkOneSweep(files, name); err != nil {
		return nil, err
	}
	outs, err := mergeOutcomes(files, name)
	if err != nil {
		return nil, err
	}
	f0 := files[0]
	m := &SweepFile{Format: SweepFormat, Everett: f0.Everett, Spec: f0.Spec, Seeds: f0.Seeds, Shard: Shard{0, 1}, Outcomes: outs}
	m.Failures = mergeFailureGroups(files)
	m.Assertions, m.AssertionsTruncated = mergeAssertions(files)
	m.EdgesFirstSeen = mergeEdges(files)
	for _, f := range files {
		m.Host = append(m.Host, f.Host...)
	}
	sort.SliceStable(m.Host, func(i, j int) bool { return m.Host[i].Shard.Index < m.Host[j].Shard.Index })
	m.finish()
	return m, nil
}

// checkOneSweep returns an error unless the files are of one sweep: the
// same spec (hash), seed range and everett build.
func checkOneSweep(files []*SweepFile, name func(int) string) error {
	f0 := files[0]
	for i, f := range files[1:] {
		switch {
		case f.Spec.Hash != f0.Spec.Hash:
			return fmt.Errorf("%w: %s and %s are sweeps of different specs (hash %.12s vs %.12s)", ErrSweep, name(0), name(i+1), f0.Spec.Hash, f.Spec.Hash)
		case f.Seeds != f0.Seeds:
			return fmt.Errorf("%w: %s sweeps seeds %s, %s seeds %s", ErrSweep, name(0), f0.Seeds, name(i+1), f.Seeds)
		case f.Everett != f0.Everett:
			return fmt.Errorf("%w: %s was run by everett %q, %s by %q: shards must come from one build", ErrSweep, name(0), f0.Everett, name(i+1), f.Everett)
		}
	}
	return nil
}

// mergeOutcomes returns the outcomes of every file, checking that they
// hold every seed of the range exactly once.
func mergeOutcomes(files []*SweepFile, name func(int) string) ([]SweepOutcome, error) {
	f0 := files[0]
	owner := make(map[uint64]int, f0.Seeds.Count())
	var outs []SweepOutcome
	for i, f := range files {
		for _, o := range f.Outcomes {
			if j, dup := owner[o.Seed]; dup {
				return nil, fmt.Errorf("%w: seed %d is in both %s (shard %s) and %s (shard %s): overlapping shards", ErrSweep, o.Seed, name(j), files[j].Shard, name(i), f.Shard)
			}
			owner[o.Seed] = i
			outs = append(outs, o)
		}
	}
	if missing := f0.Seeds.Count() - uint64(len(owner)); missing > 0 {
		return nil, missingSeeds(f0, owner, missing)
	}
	return outs, nil
}

// missingSeeds is the error that names the first seeds of f's range that
// no file holds (owner maps the seeds held), and their shards.
func missingSeeds(f *SweepFile, owner map[uint64]int, missing uint64) error {
	var list []string
	var shards []string
	seenShard := map[int]bool{}
	for i := uint64(0); i < f.Seeds.Count(); i++ {
		s := f.Seeds.From + i
		if _, ok := owner[s]; ok {
			continue
		}
		if len(list) < 10 {
			list = append(list, fmt.Sprint(s))
		}
		if f.Shard.Count > 1 {
			k := int((s - f.Seeds.From) % uint64(f.Shard.Count))
			if !seenShard[k] && len(shards) < 10 {
				seenShard[k] = true
				shards = append(shards, fmt.Sprintf("%d/%d", k, f.Shard.Count))
			}
		}
	}
	more := ""
	if missing > uint64(len(list)) {
		more = ", …"
	}
	hint := ""
	if len(shards) > 0 {
		sort.Strings(shards)
		hint = fmt.Sprintf(" (of shard %s)", strings.Join(shards, ", "))
	}
	return fmt.Errorf("%w: %d seed(s) of %s missing%s: %s%s", ErrSweep, missing, f.Seeds, hint, strings.Join(list, ", "), more)
}

// mergeFailureGroups merges the files' failure groups: counts add up; the
// first seed and its report come from the file with the smallest first
// seed (the one whose report the unsharded sweep would have written). The
// groups are in no order (SweepFile.finish sorts them).
func mergeFailureGroups(files []*SweepFile) []FailureGroup {
	groups := map[string]*FailureGroup{}
	for _, f := range files {
		for _, g := range f.Failures {
			d := groups[g.Signature]
			if d == nil {
				c := g
				groups[g.Signature] = &c
				continue
			}
			d.Seeds += g.Seeds
			if g.FirstSeed < d.FirstSeed {
				d.FirstSeed, d.Report, d.Replay = g.FirstSeed, g.Report, g.Replay
			}
		}
	}
	var out []FailureGroup
	for _, g := range groups {
		out = append(out, *g)
	}
	return out
}

// mergeAssertions merges the files' assertion rates: counts add up; the
// first MaxSweepAssertions in order of first seed are kept, as the
// unsharded sweep keeps them, and truncated says some were dropped or a
// file had dropped some (then the merged counts are a lower bound). The
// rates are in no order (SweepFile.finish sorts them).
func mergeAssertions(files []*SweepFile) (out []AssertionRate, truncated bool) {
	asserts := map[string]*AssertionRate{}
	for _, f := range files {
		truncated = truncated || f.AssertionsTruncated
		for _, a := range f.Assertions {
			k := a.Kind + "\x00" + a.Message
			d := asserts[k]
			if d == nil {
				c := a
				asserts[k] = &c
				continue
			}
			d.FirstSeed = min(d.FirstSeed, a.FirstSeed)
			d.Seeds += a.Seeds
			d.SeedsFailed += a.SeedsFailed
			d.SeedsReached += a.SeedsReached
			d.Hits += a.Hits
			d.True += a.True
		}
	}
	for _, a := range asserts {
		out = append(out, *a)
	}
	if len(out) > MaxSweepAssertions {
		sort.Slice(out, func(i, j int) bool {
			a, b := out[i], out[j]
			if a.FirstSeed != b.FirstSeed {
				return a.FirstSeed < b.FirstSeed
			}
			if a.Kind != b.Kind {
				return a.Kind < b.Kind
			}
			return a.Message < b.Message
		})
		out = out[:MaxSweepAssertions]
		truncated = true
	}
	return out, truncated
}

// mergeEdges merges the files' first seeds of edges: an edge's first seed
// is the smallest over the files. The pairs are in no order
// (SweepFile.finish sorts them).
func mergeEdges(files []*SweepFile) [][2]uint64 {
	first := map[uint64]uint64{}
	for _, f := range files {
		for _, p := range f.EdgesFirstSeen {
			if s, ok := first[p[0]]; !ok || p[1] < s {
				first[p[0]] = p[1]
			}
		}
	}
	var out [][2]uint64
	for e, s := range first {
		out = append(out, [2]uint64{e, s})
	}
	return out
}

// Comparison is what changed between two sweeps, by failure signature.
type Comparison struct {
	New       []SignatureChange `json:"new"`       // in NEW, not in OLD
	Fixed     []SignatureChange `json:"fixed"`     // in OLD, not in NEW
	Unchanged []SignatureChange `json:"unchanged"` // in both
	// Notes say when the two sweeps are not like for like (another spec,
	// another seed range, another build).
	Notes []string `json:"notes,omitempty"`
}

// SignatureChange is one signature in two sweeps.
type SignatureChange struct {
	Signature string `json:"signature"`
	Old       *Rate  `json:"old,omitempty"`
	New       *Rate  `json:"new,omitempty"`
	FirstSeed uint64 `json:"first_seed"` // in NEW when there, else in OLD
	Replay    string `json:"replay,omitempty"`
}

// CompareSweeps lists new, fixed and unchanged failure signatures between
// an older and a newer sweep, each list sorted by signature.
func CompareSweeps(oldF, newF *SweepFile) *Comparison {
	c := &Comparison{New: []SignatureChange{}, Fixed: []SignatureChange{}, Unchanged: []SignatureChange{}}
	if oldF.Spec.Hash != newF.Spec.Hash {
		c.Notes = append(c.Notes, fmt.Sprintf("the specs differ (hash %.12s → %.12s)", oldF.Spec.Hash, newF.Spec.Hash))
	}
	if oldF.Seeds != newF.Seeds {
		c.Notes = append(c.Notes, fmt.Sprintf("the seed ranges differ (%s → %s)", oldF.Seeds, newF.Seeds))
	}
	if oldF.Everett != newF.Everett {
		c.Notes = append(c.Notes, fmt.Sprintf("the everett builds differ (%s → %s)", oldF.Everett, newF.Everett))
	}
	olds := map[string]FailureGroup{}
	for _, g := range oldF.Failures {
		olds[g.Signature] = g
	}
	news := map[string]bool{}
	for _, g := range newF.Failures {
		news[g.Signature] = true
		ch := SignatureChange{Signature: g.Signature, FirstSeed: g.FirstSeed, Replay: g.Replay}
		r := g.Rate
		ch.New = &r
		if o, ok := olds[g.Signature]; ok {
			r := o.Rate
			ch.Old = &r
			c.Unchanged = append(c.Unchanged, ch)
		} else {
			c.New = append(c.New, ch)
		}
	}
	for _, g := range oldF.Failures {
		if !news[g.Signature] {
			r := g.Rate
			c.Fixed = append(c.Fixed, SignatureChange{Signature: g.Signature, Old: &r, FirstSeed: g.FirstSeed, Replay: g.Replay})
		}
	}
	for _, l := range [][]SignatureChange{c.New, c.Fixed, c.Unchanged} {
		sort.Slice(l, func(i, j int) bool { return l[i].Signature < l[j].Signature })
	}
	return c
}

// WriteJSON writes v as indented JSON to path atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}
