package explorer

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"everett/emu"
)

// One search on many processes (design.md §5, "Beyond one machine";
// README, "Many machines"). A shared search hands its universes out in
// claims: the universes base..end−1 of the search's index space, each with
// the root seed it has in a search of one process (universe i: derive(seed,
// 1000+i), universe 0 the root seed itself). A worker claims a range,
// runs it as one batch, and publishes a BatchRecord: what each universe
// did, the corpus entries it found (fork path and decision prefix, never a
// snapshot), each new failure's report, the assertions and the coverage of
// the batch. Between batches it pulls the others' records: their coverage
// joins its own record of what is known (so it does not snapshot what
// another found), their failures are known and not reported again, and
// their entries join its corpus, each rebuilt from its own boot snapshot
// by replaying the fork path when the search first forks from it.
//
// Everything that crosses processes happens here, in the driver, between
// batches: no universe reads or writes the bucket, so a universe stays a
// function of its fork path and a failure's report replays on any worker.
// (The bucket's lease renewals run beside the batches, on a goroutine of
// explorer/bucket that touches no universe.)
// What a worker forks from depends on what it has pulled, so the search as
// a whole is not a function of its seed as a search of one process is.

// Share is a search shared with other processes: the coordination (claims,
// leases, the bucket) lives behind it. Explore calls it on its own
// goroutine only, between batches.
type Share interface {
	// Claim returns the next range of universes base..end−1 this worker is
	// to run. ok is false when nothing is left to claim (the search is
	// done) or stop closed while it waited for others' claims to finish
	// or expire.
	Claim(stop <-chan struct{}) (base, end int, ok bool, err error)
	// Finish publishes a claimed range's record. It returns false when the
	// claim was lost (another worker took it over and finished it first):
	// the record is dropped and its universes do not count.
	Finish(rec *BatchRecord) (bool, error)
	// Pull returns the other workers' records published since the last
	// call.
	Pull() ([]*BatchRecord, error)
	// Release gives back a claimed range that will not be run, so that
	// another worker may take it at once.
	Release(base int) error
}

// Claim and Finish run beside the batches: the explorer claims its next
// range and publishes its last range's record, each on a goroutine of its
// own, while it runs a range, so that the bucket's round trips and
// settling time (50 ms on file://, 500 ms on S3, for each claim and each
// record) overlap the universes. A Share's Claim, Finish, Release and
// Pull may therefore run at the same time, though never two Claims or two
// Finishes.

// BatchRecord is what one worker published for one claimed range of
// universes.
type BatchRecord struct {
	Base   int    `json:"base"`
	End    int    `json:"end"`
	Worker string `json:"worker"`
	// Universes are the range's universes run to their end, by index.
	Universes []UniverseRecord `json:"universes"`
	// Entries are the corpus entries the range's universes made.
	Entries []Entry `json:"entries,omitempty"`
	// Failures are the reports of the failures new to this worker when it
	// merged the range (at most one per signature).
	Failures   []*Report        `json:"failures,omitempty"`
	Assertions []AssertionState `json:"assertions,omitempty"`
	// Coverage is the range's coverage: the slots its universes reached
	// in either map and the highest bucket, compressed (see
	// encodeCoverage).
	Coverage  []byte `json:"coverage,omitempty"`
	EdgeSlots int    `json:"edge_slots"`
	ICount    uint64 `json:"instructions"`
	// Engine and Boot are the worker's (engine name; Boot.String()).
	Engine string `json:"engine"`
	Boot   string `json:"boot"`
	// FinishedUnixMs is when the worker finished the range (its clock).
	FinishedUnixMs int64 `json:"finished_unix_ms"`
	// FirstFailureUnixMs says when the first of Failures to be found
	// ended (the worker's clock), 0 without one; FirstFailureUniverse
	// is its universe.
	FirstFailureUnixMs   int64 `json:"first_failure_unix_ms,omitempty"`
	FirstFailureUniverse int   `json:"first_failure_universe,omitempty"`
}

// UniverseRecord is one universe of a batch record.
type UniverseRecord struct {
	Index     int    `json:"index"`
	Seed      uint64 `json:"seed"`
	Forks     int    `json:"forks"` // fork path length − 1
	Signature string `json:"signature,omitempty"`
	ICount    uint64 `json:"instructions"`
}

// Entry is a corpus entry as it travels between workers: the fork path of
// the universe that was snapshotted, the virtual time of the snapshot, and
// the decisions made until then (the decision prefix). A universe is a
// function of its path, so any worker rebuilds the snapshot by replaying
// the path to T; the prefix and the instruction count check that it did.
type Entry struct {
	Path      []Fork     `json:"fork_path"`
	T         uint64     `json:"t_ns"`
	ICount    uint64     `json:"instructions"`
	Why       string     `json:"why"`
	Decisions []Decision `json:"decisions"`
	Universe  int        `json:"universe"`
}

// ErrEntry is wrapped by errors about a corpus entry that cannot be
// rebuilt.
var ErrEntry = errors.New("corpus entry")

// entryOf is the entry of a snapshot taken in universe index.
func entryOf(s *UniverseSnapshot, index int) Entry {
	return Entry{Path: append([]Fork(nil), s.Path...), T: s.T, ICount: s.ICount, Why: s.Why,
		Decisions: append([]Decision(nil), s.decisions...), Universe: index}
}

// rebuildEntry replays e's fork path to its time and snapshots it there,
// starting from the boot snapshot when the path starts with its boot step.
// It checks that the replay made the entry's decisions and stands at its
// instruction count: an entry that does not rebuild exactly is an error.
// replayed is the instructions the replay ran.
func rebuildEntry(spec *Spec, boot *Boot, e Entry) (snap *UniverseSnapshot, replayed uint64, err error) {
	if len(e.Path) == 0 || e.Path[0].At != 0 || len(e.Path) > maxEntryForks {
		return nil, 0, fmt.Errorf("%w: fork path of %d steps", ErrEntry, len(e.Path))
	}
	for k, f := range e.Path {
		if !(f.Plan == "" || k == 0 && f.Plan == PlanBoot || k > 0 && f.Plan == PlanSeed) {
			return nil, 0, fmt.Errorf("%w: fork %d's plan %q", ErrEntry, k, f.Plan)
		}
	}
	for k := 1; k < len(e.Path); k++ {
		if e.Path[k].At < e.Path[k-1].At || e.Path[k].At > e.T {
			return nil, 0, fmt.Errorf("%w: fork %d at %d ns out of order (entry at %d ns)", ErrEntry, k, e.Path[k].At, e.T)
		}
	}
	var u *Universe
	var from uint64 // the instruction the replay starts at
	k := 1
	if boot != nil && boot.Snap != nil && len(e.Path) >= 2 && e.Path[0] == boot.Snap.Path[0] && e.Path[1].At == boot.Snap.T {
		u, err = restoreUniverse(spec, boot.Snap, restoreOpts{})
		if err == nil {
			from = u.ICount()
			u.forkAt(e.Path[1])
			k = 2
		}
	} else {
		u, err = newUniverseWith(spec, e.Path[0], nil, func(u *Universe) { u.maxSnaps = 0 })
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrEntry, err)
	}
	for ; k < len(e.Path); k++ {
		if u.t < e.Path[k].At {
			u.runTo(e.Path[k].At)
		}
		if u.failure != nil || u.finished || u.t != e.Path[k].At {
			return nil, 0, fmt.Errorf("%w: the replay stood at %d ns, not at fork %d (%d ns)", ErrEntry, u.t, k, e.Path[k].At)
		}
		u.forkAt(e.Path[k])
	}
	if u.t < e.T {
		u.runTo(e.T)
	}
	if u.failure != nil || u.finished || u.t != e.T {
		return nil, 0, fmt.Errorf("%w: the replay stood at %d ns, not at the entry's %d ns", ErrEntry, u.t, e.T)
	}
	if got := u.ICount(); got != e.ICount {
		return nil, 0, fmt.Errorf("%w: the replay reached %d ns at instruction %d, the entry at %d", ErrEntry, e.T, got, e.ICount)
	}
	if !slices.Equal(u.decisions, e.Decisions) {
		return nil, 0, fmt.Errorf("%w: the replay made %d decisions, not the entry's %d", ErrEntry, len(u.decisions), len(e.Decisions))
	}
	return u.Snapshot(e.Why), e.ICount - from, nil
}

// maxEntryForks bounds the fork path of an entry from another worker.
const maxEntryForks = 1024

// encodeCoverage packs the slots of edges and pairs in use (a Seen's
// buckets) as zlib-compressed varints: the edge count, each (gap, bucket),
// then the same for pairs.
func encodeCoverage(edges, pairs []uint8) []byte {
	var raw []byte
	for _, m := range [][]uint8{edges, pairs} {
		n := 0
		for _, b := range m {
			if b != 0 {
				n++
			}
		}
		raw = binary.AppendUvarint(raw, uint64(n))
		last := -1
		for i, b := range m {
			if b != 0 {
				raw = binary.AppendUvarint(raw, uint64(i-last))
				raw = append(raw, b)
				last = i
			}
		}
	}
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

// maxCoverageBytes bounds a decoded coverage record.
const maxCoverageBytes = 64 << 20

// decodeCoverage calls f for every (map, slot, bucket) of an encoded
// coverage record, map 0 the edges and 1 the pairs.
func decodeCoverage(b []byte, f func(m int, slot uint64, bucket uint8)) error {
	if len(b) == 0 {
		return nil
	}
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("coverage: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxCoverageBytes))
	if err != nil {
		return fmt.Errorf("coverage: %w", err)
	}
	rd := bytes.NewReader(raw)
	for m := 0; m < 2; m++ {
		n, err := binary.ReadUvarint(rd)
		if err != nil {
			return fmt.Errorf("coverage: map %d: %w", m, err)
		}
		slot := uint64(0)
		for k := uint64(0); k < n; k++ {
			gap, err := binary.ReadUvarint(rd)
			if err != nil {
				return fmt.Errorf("coverage: map %d slot %d: %w", m, k, err)
			}
			bucket, err := rd.ReadByte()
			if err != nil {
				return fmt.Errorf("coverage: map %d slot %d: %w", m, k, err)
			}
			slot += gap
			f(m, slot-1, bucket)
		}
	}
	return nil
}

// mergeEncoded folds an encoded coverage record into the search's record
// (slots outside its maps are ignored: another spec's record).
func (k *Seen) mergeEncoded(b []byte) error {
	return decodeCoverage(b, func(m int, slot uint64, bucket uint8) {
		dst, used := k.Edges, &k.edgesUsed
		if m == 1 {
			dst, used = k.Pairs, &k.pairsUsed
		}
		if slot >= uint64(len(dst)) {
			return
		}
		if dst[slot] == 0 && bucket > 0 {
			*used++
		}
		dst[slot] = max(dst[slot], bucket)
	})
}

// MergedSearch is a shared search put together from its batch records.
type MergedSearch struct {
	Result *Result
	// Complete says every universe of the search's range is in a record.
	Complete bool
	// Missing lists the universes of the range no record holds (bounded).
	Missing []int
	// Twice lists universes that more than one record holds (a fault of
	// the claims: never expected).
	Twice []int
	// Workers are the workers that published, by name.
	Workers []string
	// Boot is how the first record's worker started its root universes
	// (Boot.String()).
	Boot string
	// FirstFailureUnixMs is when the first failure was found and
	// LastUnixMs when the last record was finished (the workers' clocks;
	// 0: none).
	FirstFailureUnixMs int64
	LastUnixMs         int64
	// Curve is the search's coverage as its records came in, in the
	// order they were finished: one point per record.
	Curve []CurvePoint
}

// CurvePoint is the coverage of a shared search when one more record was
// finished: the universes and the distinct edges of the records so far.
type CurvePoint struct {
	UnixMs    int64 `json:"unix_ms"` // when the record was finished (its worker's clock)
	Universes int   `json:"universes"`
	Edges     int   `json:"edges"`
}

// maxMergedMissing bounds MergedSearch.Missing and Twice.
const maxMergedMissing = 1000

// MergeShared puts a shared search's records together into one Result, of
// the shape a search of one process returns: every universe of every
// record counted once, each distinct failure once (the report of its
// lowest universe), the assertions summed, the coverage the union of the
// records'. FirstFailure is the failure found first in time (its Seconds
// left to the caller, who knows when the search began): in a shared
// search that need not be the lowest failing universe. universes is the search's bound (0: none; then Complete is
// false).
func MergeShared(recs []*BatchRecord, universes int) (*MergedSearch, error) {
	recs = slices.Clone(recs)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Base < recs[j].Base })
	m := &MergedSearch{Result: &Result{}}
	res := m.Result
	var cat assertions
	count := map[int]int{}
	best := map[string]*Report{}
	workers := map[string]bool{}
	var edges, pairs slotSet
	slots := 0
	for _, r := range recs {
		workers[r.Worker] = true
		for _, u := range r.Universes {
			count[u.Index]++
		}
		res.Universes += len(r.Universes)
		res.ICount += r.ICount
		res.Corpus += len(r.Entries)
		cat.merge(r.Assertions)
		for _, f := range r.Failures {
			if b := best[f.Signature]; b == nil || f.Universe < b.Universe {
				best[f.Signature] = f
			}
		}
		if err := decodeCoverage(r.Coverage, func(mp int, slot uint64, bucket uint8) {
			if mp == 0 {
				edges.add(slot)
			} else {
				pairs.add(slot)
			}
		}); err != nil {
			return nil, fmt.Errorf("record of universes %d..%d: %w", r.Base, r.End-1, err)
		}
		slots = max(slots, r.EdgeSlots)
		if e, err := emu.ParseEngine(r.Engine); err == nil {
			res.Engine = e
		}
		if m.Boot == "" {
			m.Boot = r.Boot
		}
		if r.FirstFailureUnixMs != 0 && (m.FirstFailureUnixMs == 0 || r.FirstFailureUnixMs < m.FirstFailureUnixMs) {
			for _, f := range r.Failures {
				if f.Universe == r.FirstFailureUniverse {
					m.FirstFailureUnixMs = r.FirstFailureUnixMs
					res.FirstFailure = &FirstFailure{Universe: f.Universe, Signature: f.Signature, Instructions: f.ICount, VirtualTimeNs: f.Time}
				}
			}
		}
		m.LastUnixMs = max(m.LastUnixMs, r.FinishedUnixMs)
	}
	for _, f := range best {
		res.Failures = append(res.Failures, f)
	}
	sort.Slice(res.Failures, func(i, j int) bool { return res.Failures[i].Universe < res.Failures[j].Universe })
	res.Assertions = cat.list()
	res.Coverage, res.Pairs = edges.n, pairs.n
	if slots > 0 {
		res.CoverageFill = float64(edges.n) / float64(slots)
	}
	for i, c := range count {
		if c > 1 && len(m.Twice) < maxMergedMissing {
			m.Twice = append(m.Twice, i)
		}
	}
	sort.Ints(m.Twice)
	if universes > 0 {
		for i := 0; i < universes; i++ {
			if count[i] == 0 && len(m.Missing) < maxMergedMissing {
				m.Missing = append(m.Missing, i)
			}
		}
		m.Complete = len(m.Missing) == 0
		res.Cancelled = universes - len(count)
	}
	switch {
	case universes == 0: // no bound: the workers' wall-time budgets end it
		res.Ended, res.Limit = "wall", "the workers' --time"
	case m.Complete:
		res.Ended, res.Limit = "universes", fmt.Sprint(universes)
	default:
		res.Ended, res.Limit = "incomplete", fmt.Sprintf("%d of %d universes", len(count), universes)
	}
	for w := range workers {
		m.Workers = append(m.Workers, w)
	}
	byTime := slices.Clone(recs)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].FinishedUnixMs < byTime[j].FinishedUnixMs })
	edges.reset()
	universesSoFar := 0
	for _, r := range byTime {
		_ = decodeCoverage(r.Coverage, func(mp int, slot uint64, bucket uint8) {
			if mp == 0 {
				edges.add(slot)
			}
		})
		universesSoFar += len(r.Universes)
		m.Curve = append(m.Curve, CurvePoint{UnixMs: r.FinishedUnixMs, Universes: universesSoFar, Edges: edges.n})
	}
	sort.Strings(m.Workers)
	return m, nil
}

// slotSet is a set of coverage slots: a bitmap of the slots below
// slotSetBits, grown as slots come, and a map of those above (which only
// a damaged record, or one of another spec, holds). Merging a search's
// records into maps took 5% of a worker's CPU at the end of a 200-universe
// search of the one-node Linux spec (2026-12-05).
type slotSet struct {
	bits []uint64
	big  map[uint64]bool
	n    int // slots in the set
}

// slotSetBits bounds the bitmap of a slotSet (8 MiB).
const slotSetBits = 1 << 26

// add puts slot in the set.
func (s *slotSet) add(slot uint64) {
	if slot >= slotSetBits {
		if !s.big[slot] {
			if s.big == nil {
				s.big = map[uint64]bool{}
			}
			s.big[slot] = true
			s.n++
		}
		return
	}
	w := int(slot / 64)
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, min(max(w+1, 2*len(s.bits)), slotSetBits/64)-len(s.bits))...)
	}
	if bit := uint64(1) << (slot % 64); s.bits[w]&bit == 0 {
		s.bits[w] |= bit
		s.n++
	}
}

// reset empties the set.
func (s *slotSet) reset() {
	clear(s.bits)
	s.big = nil
	s.n = 0
}

// shared is the driver of a shared search: it claims ranges of universes
// from o.Share until none is left or the wall-time budget is spent, runs
// each as one batch, publishes its record and pulls the others'. It
// returns whether the wall-time budget was spent.
func (st *search) shared(boot *Boot, run *runner, wallFlag *atomic.Bool, spent bool, n int, wall time.Duration) (bool, error) {
	sh, res := st.o.Share, st.res
	bootCov := true // the first record carries the boot's coverage too
	// The next range is claimed while the current one runs; a range
	// claimed and not run is released when the search ends.
	quit := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		select {
		case <-run.wall.Done():
		case <-quit:
		}
		close(stop)
	}()
	var next <-chan claimed
	// A range's record is published while the next range runs too.
	var publishing <-chan published
	join := func() error {
		if publishing == nil {
			return nil
		}
		p := <-publishing
		publishing = nil
		if p.err != nil {
			return fmt.Errorf("shared search: publishing universes %d..%d: %w", p.base, p.end-1, p.err)
		}
		if !p.kept { // another worker's record of the range stands
			res.Universes -= p.universes
			res.ICount -= p.icount
			res.Lost += p.ran
		}
		return nil
	}
	defer func() {
		_ = join()
		close(quit)
		if next == nil {
			return
		}
		if c := <-next; c.ok {
			_ = sh.Release(c.base) // else its lease expires
		}
	}()
	for !spent && !wallFlag.Load() {
		if err := st.pull(boot); err != nil {
			return spent, err
		}
		// Stop on failure: on this worker's or on another's.
		if st.o.StopOnFailure && (len(res.Failures) > 0 || st.othersFailed) {
			break
		}
		if next == nil {
			next = claimAhead(sh, stop)
		}
		c := <-next
		next = nil
		if c.err != nil {
			return spent, fmt.Errorf("shared search: claim: %w", c.err)
		}
		if !c.ok {
			break
		}
		base, end := c.base, c.end
		if end <= base || end-base > MaxClaim {
			return spent, fmt.Errorf("shared search: claimed universes %d..%d (at most %d at once)", base, end-1, MaxClaim)
		}
		next = claimAhead(sh, stop)
		ctl := emu.NewPRNG(derive(derive(st.o.Seed, 99), uint64(base)))
		batch := planBatch(st.spec, st.o.Seed, base, end, ctl, st.corpus, boot.Snap)
		st.beforeBatch(batch, boot)
		// Every universe of a claim runs to its end (stop-on-failure
		// stops at the next claim, when this worker or another has
		// found a failure), so that its record is whole.
		outs, _, wspent := run.batch(batch, false)
		for _, r := range outs {
			if r.err != nil {
				return spent, fmt.Errorf("universe %d: %w", r.job.index, r.err)
			}
		}
		if wspent {
			// The claim is abandoned: another worker runs it again.
			res.Cancelled += len(outs)
			_ = sh.Release(base) // else its lease expires
			return true, nil
		}
		rec := &BatchRecord{Base: base, End: end, EdgeSlots: len(st.global.Edges), Engine: st.spec.engine.String(), Boot: boot.String()}
		bseen := newSeen(st.spec)
		if bootCov {
			bseen.merge(boot.cov)
			bootCov = false
		}
		var bcat assertions
		before := *res
		for _, r := range outs {
			u := r.u
			rep := st.take(r)
			ur := UniverseRecord{Index: r.job.index, Seed: r.job.seed}
			if r.bug != nil { // it panicked: a failure and nothing else
				ur.Forks, ur.Signature = len(r.bug.Path)-1, r.bug.Signature
			} else {
				bseen.merge(u.cov)
				bcat.merge(u.asserts.list())
				ur.Forks, ur.ICount = len(u.path)-1, u.ICount()
				if u.failure != nil {
					ur.Signature = u.failure.Signature()
				}
				for _, s := range u.snaps {
					rec.Entries = append(rec.Entries, entryOf(s, r.job.index))
				}
			}
			rec.Universes = append(rec.Universes, ur)
			rec.ICount += ur.ICount
			if rep != nil {
				rec.Failures = append(rec.Failures, rep)
				if t := r.ended.UnixMilli(); rec.FirstFailureUnixMs == 0 || t < rec.FirstFailureUnixMs {
					rec.FirstFailureUnixMs, rec.FirstFailureUniverse = t, r.job.index
				}
			}
		}
		rec.Assertions = bcat.list()
		rec.Coverage = encodeCoverage(bseen.Edges, bseen.Pairs)
		rec.FinishedUnixMs = time.Now().UnixMilli()
		if err := join(); err != nil {
			return spent, err
		}
		publishing = publishAhead(sh, rec, published{base: base, end: end, ran: len(outs),
			universes: res.Universes - before.Universes, icount: res.ICount - before.ICount})
		st.tallyRebuilds()
		st.progress(n, wall)
	}
	if err := join(); err != nil {
		return spent, err
	}
	st.tallyRebuilds()
	return spent, nil
}

// tallyRebuilds copies the counts of the other workers' entries rebuilt
// and rejected so far into the result.
func (st *search) tallyRebuilds() {
	st.res.Rejected = int(st.rejected.Load())
	st.res.Rebuilt = int(st.tally.rebuilt.Load())
	st.res.ReplayedICount = st.tally.replayed.Load()
}

// published is what publishing one range's record came to.
type published struct {
	base, end int
	ran       int // universes run
	universes int // of them, counted in the result
	icount    uint64
	kept      bool
	err       error
}

// publishAhead publishes rec on a goroutine of its own, which touches no
// universe (only the Share and rec, which nothing changes any more).
func publishAhead(sh Share, rec *BatchRecord, p published) <-chan published {
	ch := make(chan published, 1)
	go func() {
		p.kept, p.err = sh.Finish(rec)
		ch <- p
	}()
	return ch
}

// claimed is what one Claim returned.
type claimed struct {
	base, end int
	ok        bool
	err       error
}

// claimAhead claims a range on a goroutine of its own, which touches no
// universe (only the Share).
func claimAhead(sh Share, stop <-chan struct{}) <-chan claimed {
	ch := make(chan claimed, 1)
	go func() {
		base, end, ok, err := sh.Claim(stop)
		ch <- claimed{base, end, ok, err}
	}()
	return ch
}

// MaxClaim bounds the universes of one claim.
const MaxClaim = 4096

// pull takes the other workers' new records: their coverage joins the
// search's record, their failures are known, and their corpus entries
// join the corpus, to be rebuilt when first picked.
func (st *search) pull(boot *Boot) error {
	recs, err := st.o.Share.Pull()
	if err != nil {
		return fmt.Errorf("shared search: pulling: %w", err)
	}
	var pending []Entry
	for _, r := range recs {
		if err := st.global.mergeEncoded(r.Coverage); err != nil {
			continue // a damaged record teaches nothing
		}
		for _, f := range r.Failures {
			st.seen[f.Signature] = true
		}
		for _, u := range r.Universes {
			st.othersFailed = st.othersFailed || u.Signature != ""
		}
		pending = append(pending, r.Entries...)
	}
	// Entries join the corpus as placeholders: one is rebuilt (on the
	// explorer worker that runs the first universe forked from it) only
	// when the search picks it, so entries never picked cost nothing.
	for _, e := range pending {
		st.addCorpus(&UniverseSnapshot{T: e.T, ICount: e.ICount, Path: e.Path, Why: e.Why,
			lazy: &lazyEntry{e: e, boot: boot, rejected: &st.rejected, tally: &st.tally}})
		st.res.Pulled++
	}
	st.res.Corpus = len(st.corpus)
	return nil
}

// lazyEntry is another worker's corpus entry, rebuilt once, on first use.
type lazyEntry struct {
	e        Entry
	boot     *Boot
	once     sync.Once
	snap     *UniverseSnapshot // nil: not rebuilt, or did not rebuild
	done     atomic.Bool       // get has run: snap is final
	rejected *atomic.Int64     // the search's count of entries that did not rebuild
	// tally, for another worker's entry (nil for one of this worker's
	// evicted to its fork path), counts its rebuild.
	tally *rebuildTally
}

// rebuildTally counts the other workers' entries a search rebuilt and
// the instructions their replays ran (explorer workers add to it).
type rebuildTally struct {
	rebuilt  atomic.Int64
	replayed atomic.Uint64
}

// get returns the rebuilt snapshot, rebuilding it on the first call; nil
// when the entry does not rebuild exactly (or panics while rebuilding:
// another worker's entry is input, never a crash of this one).
func (l *lazyEntry) get(spec *Spec) *UniverseSnapshot {
	l.once.Do(func() {
		defer func() {
			if recover() != nil {
				l.snap = nil
			}
			if l.snap == nil {
				l.rejected.Add(1)
			}
			l.done.Store(true)
		}()
		s, replayed, err := rebuildEntry(spec, l.boot, l.e)
		if err == nil {
			l.snap = s
			if l.tally != nil {
				l.tally.rebuilt.Add(1)
				l.tally.replayed.Add(replayed)
			}
		}
	})
	return l.snap
}
