package explorer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"everett/emu/board"
	"everett/internal/buildinfo"
	"everett/internal/pool"
)

// A sweep runs the root universe of every seed in a range (design.md §5,
// "Beyond one machine"): no forking, so that each seed's outcome is a
// function of the spec and the seed alone, and a sweep can be cut into
// shards that run anywhere and merge into exactly the unsharded result.
//
// Seeds are dealt to shards round-robin: of the seeds A..B, seed s belongs
// to shard (s − A) mod N, shards numbered 0..N−1 (the numbering of a
// Kubernetes Indexed Job's completion index). Round-robin rather than
// contiguous blocks so that every shard gets the same number of seeds (±1)
// and a stretch of slow seeds is spread over all shards.

// SweepFormat names the sweep file format and its version.
const SweepFormat = "everett-sweep/1"

// Sweep limits.
const (
	// MaxSweepSeeds bounds the seeds of one sweep (and of a merged file):
	// a sweep file holds one outcome per seed.
	MaxSweepSeeds = 1_000_000
	// MaxShards bounds the shard count.
	MaxShards = 10_000
	// MaxSweepWorkers bounds the goroutines running seeds.
	MaxSweepWorkers = 1024
	// MaxSweepAssertions bounds the assertions a sweep file tracks (the
	// first ones seen, in seed order).
	MaxSweepAssertions = MaxAssertions
	// MaxSweepFileBytes bounds a sweep file read by LoadSweep.
	MaxSweepFileBytes = 1 << 30
	// ConfidenceZ is the normal quantile of the confidence intervals: 95 %.
	ConfidenceZ = 1.959963984540054
)

// ErrSweep is wrapped by errors about sweep arguments and sweep files.
var ErrSweep = errors.New("invalid sweep")

// SeedRange is an inclusive range of seeds.
type SeedRange struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// Count returns the number of seeds in the range.
func (r SeedRange) Count() uint64 { return r.To - r.From + 1 }

// valid reports whether the range is not empty and within MaxSweepSeeds.
func (r SeedRange) valid() bool { return r.To >= r.From && r.To-r.From < MaxSweepSeeds }

// String formats the range as A..B.
func (r SeedRange) String() string { return fmt.Sprintf("%d..%d", r.From, r.To) }

// ParseSeedRange parses "A..B" (both ends included, A ≤ B) or a single
// seed "A".
func ParseSeedRange(s string) (SeedRange, error) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		b = a
	}
	from, err1 := strconv.ParseUint(strings.TrimSpace(a), 0, 64)
	to, err2 := strconv.ParseUint(strings.TrimSpace(b), 0, 64)
	if err1 != nil || err2 != nil {
		return SeedRange{}, fmt.Errorf("%w: seeds %q: want A..B (both included), e.g. 1..1000", ErrSweep, s)
	}
	if to < from {
		return SeedRange{}, fmt.Errorf("%w: seeds %q: the range is empty (%d > %d)", ErrSweep, s, from, to)
	}
	r := SeedRange{from, to}
	if to-from >= MaxSweepSeeds {
		return SeedRange{}, fmt.Errorf("%w: seeds %q: more than %d seeds; split the range into several sweeps", ErrSweep, s, MaxSweepSeeds)
	}
	return r, nil
}

// Shard is one of Count shards, numbered from 0.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String formats the shard as I/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard parses "I/N": shard I (0 ≤ I < N) of N. The index is 0-based,
// as a Kubernetes Indexed Job's JOB_COMPLETION_INDEX.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%w: shard %q: want I/N, e.g. 0/4 (I counts from 0)", ErrSweep, s)
	}
	if n < 1 || n > MaxShards {
		return Shard{}, fmt.Errorf("%w: shard %q: %d shards (want 1..%d)", ErrSweep, s, n, MaxShards)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%w: shard %q: index %d out of 0..%d (shards count from 0)", ErrSweep, s, i, n-1)
	}
	return Shard{i, n}, nil
}

// Owns reports whether seed s of range r belongs to the shard.
func (s Shard) Owns(r SeedRange, seed uint64) bool {
	return seed >= r.From && seed <= r.To && (seed-r.From)%uint64(s.Count) == uint64(s.Index)
}

// Seeds returns the shard's seeds of r, in order.
func (s Shard) Seeds(r SeedRange) []uint64 {
	var out []uint64
	for seed := r.From + uint64(s.Index); seed >= r.From && seed <= r.To; seed += uint64(s.Count) {
		out = append(out, seed)
	}
	return out
}

// SweepFile is the result of a sweep or of a merge of shards: what
// `everett sweep --json` writes and `everett report` reads. Everything but
// Host is a function of the spec and the seeds: the same whatever the
// number of workers, and a merge of shards equals the unsharded sweep.
type SweepFile struct {
	Format     string          `json:"format"`
	Everett    string          `json:"everett"` // the build that ran it
	Spec       SweepSpec       `json:"spec"`
	Seeds      SeedRange       `json:"seeds"`
	Shard      Shard           `json:"shard"` // 0/1 for an unsharded or merged sweep
	Totals     SweepTotals     `json:"totals"`
	Outcomes   []SweepOutcome  `json:"outcomes"` // one per seed, by seed
	Failures   []FailureGroup  `json:"failures"` // one per signature, by first seed
	Assertions []AssertionRate `json:"assertions"`
	// AssertionsTruncated says that more than MaxSweepAssertions distinct
	// assertions were seen; the first ones in seed order are kept.
	AssertionsTruncated bool `json:"assertions_truncated,omitempty"`
	// Coverage is cumulative distinct edges against seeds run, in seed
	// order: one point at each seed that covered a new edge.
	Coverage []CoveragePoint `json:"coverage"`
	// EdgesFirstSeen maps each covered edge (bitmap index) to the first
	// seed that covered it, as [edge, seed] pairs by edge: what makes
	// coverage curves of shards mergeable.
	EdgesFirstSeen [][2]uint64 `json:"edges_first_seen"`
	Host           []HostRun   `json:"host"` // how the shards ran (not deterministic)
}

// SweepSpec identifies the spec of a sweep.
type SweepSpec struct {
	Name string `json:"name"`
	// Args are the command-line arguments that select the spec and its
	// overrides ("specs/kv.yaml" or "--elf prog.elf --smp 2", then e.g.
	// "--max-insns 5000000"): `everett sweep ARGS --seeds S..S` reruns
	// seed S.
	Args []string `json:"args"`
	// Hash is the SHA-256 of the settings and the images' contents (not
	// their paths): shards of one sweep must agree on it.
	Hash     string        `json:"hash"`
	Settings Spec          `json:"settings"`
	Boards   []*board.Spec `json:"boards"`
}

// SweepTotals counts a sweep's outcomes.
type SweepTotals struct {
	Seeds        int    `json:"seeds"`
	Passed       int    `json:"passed"`
	Failed       int    `json:"failed"`
	FailureRate  Rate   `json:"failure_rate"`
	Signatures   int    `json:"signatures"`
	Instructions uint64 `json:"instructions"`
	Edges        int    `json:"edges"`
}

// SweepOutcome is one seed's outcome.
type SweepOutcome struct {
	Seed          uint64   `json:"seed"`
	Outcome       string   `json:"outcome"` // "pass" or "fail"
	Signature     string   `json:"signature,omitempty"`
	Instructions  uint64   `json:"instructions"`
	StateHash     string   `json:"state_hash"`
	VirtualTimeNs uint64   `json:"virtual_time_ns"`
	Failure       *Failure `json:"failure,omitempty"`
	Reason        string   `json:"reason,omitempty"` // why a passing universe ended
	Edges         int      `json:"edges"`            // edges this seed covered
}

// FailureGroup is every failing seed of one signature.
type FailureGroup struct {
	Signature string `json:"signature"`
	Kind      string `json:"kind"`
	Message   string `json:"message"`
	Seeds     int    `json:"seeds"` // failing seeds
	Rate      Rate   `json:"rate"`  // of all seeds of the sweep
	FirstSeed uint64 `json:"first_seed"`
	// Report is the path of the first seed's report, as the sweep that
	// found it wrote it; Replay is its replay command.
	Report string `json:"report,omitempty"`
	Replay string `json:"replay,omitempty"`
}

// AssertionRate is one SDK assertion over the seeds of a sweep. Each seed
// is one trial: for always and unreachable, Rate is the fraction of seeds
// in which the assertion failed; for sometimes and reachable, the fraction
// in which it held (was reached) at least once.
type AssertionRate struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	FirstSeed    uint64 `json:"first_seed"`
	Seeds        int    `json:"seeds"` // seeds that evaluated it
	SeedsFailed  int    `json:"seeds_failed"`
	SeedsReached int    `json:"seeds_reached"`
	Hits         uint64 `json:"hits"`
	True         uint64 `json:"true"`
	Rate         Rate   `json:"rate"`
}

// Failing reports whether the assertion failed in some seed, or (sometimes
// and reachable) never held in any.
func (a *AssertionRate) Failing() bool {
	if a.Kind == "sometimes" || a.Kind == "reachable" {
		return a.SeedsReached == 0
	}
	return a.SeedsFailed > 0
}

// Rate is K successes of N trials with a 95 % Wilson score interval.
type Rate struct {
	K    int     `json:"k"`
	N    int     `json:"n"`
	P    float64 `json:"p"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// NewRate returns k of n with its Wilson score interval at ConfidenceZ.
//
// The Wilson interval (Wilson 1927) inverts the normal approximation to the
// binomial test instead of using the observed proportion's standard error
// (the Wald interval), so it stays inside [0, 1] and does not collapse to
// a width of zero when k = 0 or k = n — the common cases of a sweep: a bug
// seen in none or a few of many seeds. With p = k/n:
//
//	centre = (p + z²/2n) / (1 + z²/n)
//	half   = z/(1 + z²/n) · sqrt(p(1−p)/n + z²/4n²)
func NewRate(k, n int) Rate {
	r := Rate{K: k, N: n}
	if n <= 0 {
		r.High = 1
		return r
	}
	p := float64(k) / float64(n)
	z := ConfidenceZ
	nf := float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z / d * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	r.P = round6(p)
	r.Low = round6(max(0, c-h))
	r.High = round6(min(1, c+h))
	if k == 0 {
		r.Low = 0
	}
	if k == n {
		r.High = 1
	}
	return r
}

// round6 rounds to 6 decimals, so that rates print the same everywhere.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// CoveragePoint says that after the first Seeds seeds (in seed order, up to
// and including Seed), Edges distinct edges were covered.
type CoveragePoint struct {
	Seeds int    `json:"seeds"`
	Seed  uint64 `json:"seed"`
	Edges int    `json:"edges"`
}

// HostRun is how one shard ran: the only part of a sweep file that
// depends on the host.
type HostRun struct {
	Shard          Shard   `json:"shard"`
	Hostname       string  `json:"hostname,omitempty"`
	Workers        int     `json:"workers"`
	Started        string  `json:"started"` // RFC 3339
	ElapsedSeconds float64 `json:"elapsed_s"`
	// Boot says whether the shard's root universes started from a boot
	// snapshot (see BootOnce).
	Boot string `json:"boot,omitempty"`
	// Engine ran the shard's machines (interp or jit; see Spec.SetEngine):
	// a host setting, like the rest of HostRun.
	Engine string `json:"engine,omitempty"`
}

// SweepOptions direct a sweep.
type SweepOptions struct {
	Seeds   SeedRange
	Shard   Shard // zero value: the whole range
	Workers int   // 0: every host core
	// Args select the spec on a command line (see SweepSpec.Args).
	Args []string
	// OnOutcome is called on the caller's goroutine for every seed, in
	// seed order. The outcome's Report (a failure's full report) is
	// dropped when it returns. newSignature says the seed is the first
	// with its failure's signature: the callback may then write the report
	// and return its path, which the failure group records.
	OnOutcome func(o *SeedOutcome, newSignature bool) (reportPath string, err error)
}

// SpecHash returns the identity of a spec for sweeps: the SHA-256 of its
// settings and of its machines with images named by content hash, not by
// path (shards on machines that keep the same images elsewhere agree), nor
// by the spec's name.
func SpecHash(s *Spec) string {
	set := *s
	set.Name = ""
	set.Nodes = append([]NodeSpec(nil), s.Nodes...)
	for i := range set.Nodes {
		n := &set.Nodes[i]
		n.ELF, n.Kernel, n.Initrd, n.BIOS, n.Disk = "", "", "", "", ""
	}
	strip := func(im *board.Image) *board.Image {
		if im == nil {
			return nil
		}
		return &board.Image{SHA256: im.SHA256}
	}
	var boards []board.Spec
	for _, b := range s.nodes {
		c := *b
		c.ELF, c.BIOS, c.Kernel, c.Initrd, c.Disk, c.ConsoleInput =
			strip(b.ELF), strip(b.BIOS), strip(b.Kernel), strip(b.Initrd), strip(b.Disk), strip(b.ConsoleInput)
		boards = append(boards, c)
	}
	b, err := json.Marshal(struct {
		Settings Spec         `json:"settings"`
		Boards   []board.Spec `json:"boards"`
	}{set, boards})
	if err != nil {
		panic(fmt.Sprintf("spec hash: %v", err)) // plain data: cannot fail
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RunSweep runs the shard's seeds, Workers at a time, and aggregates the
// outcomes in seed order: the result does not depend on the number of
// workers. A host error (an image that cannot be read) ends the sweep.
func RunSweep(spec *Spec, o SweepOptions) (*SweepFile, error) {
	start := time.Now()
	shard := o.Shard
	if shard.Count == 0 {
		shard = Shard{0, 1}
	}
	if !o.Seeds.valid() {
		return nil, fmt.Errorf("%w: seeds %s (want 1..%d seeds)", ErrSweep, o.Seeds, MaxSweepSeeds)
	}
	if shard.Count < 1 || shard.Count > MaxShards || shard.Index < 0 || shard.Index >= shard.Count {
		return nil, fmt.Errorf("%w: shard %s", ErrSweep, shard)
	}
	seeds := shard.Seeds(o.Seeds)
	workers := min(pool.Workers(o.Workers, len(seeds)), MaxSweepWorkers)
	agg := newSweepAgg(seeds)
	// Boot once per shard: every seed's root universe starts from it.
	boot, err := BootOnce(spec, nil)
	if err != nil {
		return nil, err
	}

	// Seeds run on the pool and are aggregated in seed order; the pool
	// keeps a fast worker from running ahead of a slow seed without bound.
	err = pool.Run(context.Background(), workers, len(seeds), func(_ context.Context, i int) (*SeedOutcome, error) {
		return RunSeedFrom(spec, boot, seeds[i])
	}, func(i int, so *SeedOutcome, err error) error {
		if pe := (*pool.PanicError)(nil); errors.As(err, &pe) {
			// A bug in everett: an error that says how to reproduce it.
			return &SeedPanic{Seed: seeds[i], Value: pe.Value, Stack: string(pe.Stack)}
		}
		if err != nil {
			return err
		}
		return agg.add(so, o.OnOutcome)
	})
	if err != nil {
		return nil, err
	}

	f := agg.file()
	f.Format = SweepFormat
	f.Everett = buildinfo.Version()
	f.Spec = SweepSpec{Name: spec.Name, Args: o.Args, Hash: SpecHash(spec), Settings: *spec, Boards: spec.nodes}
	f.Seeds = o.Seeds
	f.Shard = shard
	host, _ := os.Hostname()
	f.Host = []HostRun{{Shard: shard, Hostname: host, Workers: workers,
		Started: start.UTC().Format(time.RFC3339), ElapsedSeconds: math.Round(time.Since(start).Seconds()*1000) / 1000,
		Boot: boot.String(), Engine: spec.engine.String()}}
	return f, nil
}

// SeedPanic is a bug in everett met while running a seed.
type SeedPanic struct {
	Seed  uint64
	Value any
	Stack string
}

// Error implements error.
func (p *SeedPanic) Error() string {
	return fmt.Sprintf("internal error in seed %d: %v\n%s", p.Seed, p.Value, p.Stack)
}

// sweepAgg aggregates outcomes in seed order.
type sweepAgg struct {
	seeds     []uint64
	out       []SweepOutcome
	groups    map[string]*FailureGroup
	order     []string // signatures by first seed
	asserts   map[string]*AssertionRate
	aorder    []string
	truncated bool
	first     map[uint32]uint64 // edge -> first seed
}

func newSweepAgg(seeds []uint64) *sweepAgg {
	return &sweepAgg{seeds: seeds, groups: map[string]*FailureGroup{}, asserts: map[string]*AssertionRate{}, first: map[uint32]uint64{}}
}

func (a *sweepAgg) add(o *SeedOutcome, cb func(*SeedOutcome, bool) (string, error)) error {
	so := SweepOutcome{Seed: o.Seed, Outcome: o.Outcome, Signature: o.Signature, Instructions: o.ICount,
		StateHash: o.StateHash, VirtualTimeNs: o.Time, Failure: o.Failure, Reason: o.Reason, Edges: len(o.Edges)}
	a.out = append(a.out, so)
	isNew := false
	if o.Outcome == "fail" {
		g := a.groups[o.Signature]
		if g == nil {
			isNew = true
			g = &FailureGroup{Signature: o.Signature, FirstSeed: o.Seed}
			if o.Failure != nil {
				g.Kind, g.Message = o.Failure.Kind, o.Failure.Message
			}
			a.groups[o.Signature] = g
			a.order = append(a.order, o.Signature)
		}
		g.Seeds++
	}
	if cb != nil {
		p, err := cb(o, isNew)
		if err != nil {
			return fmt.Errorf("seed %d: %w", o.Seed, err)
		}
		if isNew && p != "" {
			g := a.groups[o.Signature]
			g.Report = p
			g.Replay = "everett replay " + p
		}
	}
	o.Report = nil
	for _, st := range o.Assertions {
		k := st.Kind + "\x00" + st.Message
		ar := a.asserts[k]
		if ar == nil {
			if len(a.asserts) >= MaxSweepAssertions {
				a.truncated = true
				continue
			}
			ar = &AssertionRate{Kind: st.Kind, Message: st.Message, FirstSeed: o.Seed}
			a.asserts[k] = ar
			a.aorder = append(a.aorder, k)
		}
		addAssertion(ar, st)
	}
	for _, e := range o.Edges {
		if _, ok := a.first[e]; !ok {
			a.first[e] = o.Seed
		}
	}
	return nil
}

// addAssertion adds one seed's state of an assertion.
func addAssertion(ar *AssertionRate, st AssertionState) {
	if st.Hits > 0 || st.Failed || st.Reached {
		ar.Seeds++
	}
	if st.Failed {
		ar.SeedsFailed++
	}
	if st.Reached {
		ar.SeedsReached++
	}
	ar.Hits += st.Hits
	ar.True += st.True
}

func (a *sweepAgg) file() *SweepFile {
	f := &SweepFile{Outcomes: a.out, AssertionsTruncated: a.truncated}
	for _, s := range a.order {
		f.Failures = append(f.Failures, *a.groups[s])
	}
	for _, k := range a.aorder {
		f.Assertions = append(f.Assertions, *a.asserts[k])
	}
	for e, s := range a.first {
		f.EdgesFirstSeen = append(f.EdgesFirstSeen, [2]uint64{uint64(e), s})
	}
	f.finish()
	return f
}

// finish sorts a file's lists and derives its totals, rates and coverage
// curve from its outcomes, failure groups, assertions and edges.
func (f *SweepFile) finish() {
	if f.Outcomes == nil {
		f.Outcomes = []SweepOutcome{}
	}
	sort.Slice(f.Outcomes, func(i, j int) bool { return f.Outcomes[i].Seed < f.Outcomes[j].Seed })
	n := len(f.Outcomes)
	t := SweepTotals{Seeds: n}
	for _, o := range f.Outcomes {
		t.Instructions += o.Instructions
		if o.Outcome == "fail" {
			t.Failed++
		} else {
			t.Passed++
		}
	}
	t.FailureRate = NewRate(t.Failed, n)
	t.Signatures = len(f.Failures)
	t.Edges = len(f.EdgesFirstSeen)
	f.Totals = t
	if f.Failures == nil {
		f.Failures = []FailureGroup{}
	}
	sort.Slice(f.Failures, func(i, j int) bool {
		a, b := f.Failures[i], f.Failures[j]
		if a.FirstSeed != b.FirstSeed {
			return a.FirstSeed < b.FirstSeed
		}
		return a.Signature < b.Signature
	})
	for i := range f.Failures {
		f.Failures[i].Rate = NewRate(f.Failures[i].Seeds, n)
	}
	if f.Assertions == nil {
		f.Assertions = []AssertionRate{}
	}
	sort.Slice(f.Assertions, func(i, j int) bool {
		a, b := f.Assertions[i], f.Assertions[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Message < b.Message
	})
	for i := range f.Assertions {
		a := &f.Assertions[i]
		k := a.SeedsFailed
		if a.Kind == "sometimes" || a.Kind == "reachable" {
			k = a.SeedsReached
		}
		a.Rate = NewRate(k, n)
	}
	if f.EdgesFirstSeen == nil {
		f.EdgesFirstSeen = [][2]uint64{}
	}
	sort.Slice(f.EdgesFirstSeen, func(i, j int) bool { return f.EdgesFirstSeen[i][0] < f.EdgesFirstSeen[j][0] })
	f.Coverage = coverageCurve(f.Outcomes, f.EdgesFirstSeen)
}

// coverageCurve returns cumulative distinct edges against seeds run.
func coverageCurve(outs []SweepOutcome, first [][2]uint64) []CoveragePoint {
	newAt := map[uint64]int{}
	for _, p := range first {
		newAt[p[1]]++
	}
	pts := []CoveragePoint{}
	edges := 0
	for i, o := range outs {
		if k := newAt[o.Seed]; k > 0 || i == len(outs)-1 {
			edges += k
			pts = append(pts, CoveragePoint{Seeds: i + 1, Seed: o.Seed, Edges: edges})
		}
	}
	return pts
}
