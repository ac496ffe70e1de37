package explorer

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
	"sync/atomic"

	"everett/emu"
)

// Boot snapshots reused. A report whose fork path starts with the boot step
// ([{0, setup seed, boot}, {setup time, seed, seed}, ...]) boots its spec's
// boot universe again on every replay: the boot is a function of the spec
// (its settings and every node's machine and images, as the report records
// them) and of the boot step's seed, and of nothing else. A replayer that
// boots keeps the universe it reached at the second step's fork time in a
// cache of this process, keyed by exactly those inputs; the next replay of
// the same boot (shrinking's many, bisection's restarts, a divergence
// search, a trace window) restores it and forks there, as the explorer's
// root universes do from the boot snapshot. Restoring a snapshot and
// running on is exact (the explorer relies on it for every root), so a
// replay from the cache ends in the state hash and failure of one that
// boots. Its edges are the boot's and those of the search's own root
// universe: a replay that boots can differ, per hart, in the edge
// into the first block after the setup point (emu's covPrev is host-side
// and not in snapshots).
//
// The cache is skipped where the boot itself must be seen: a replay that
// echoes consoles, one that stops before the setup point, a bisection of a
// predicate that could hold during the boot, the debugger (which starts at
// instruction 0), and a replay that suppresses a decision the boot made.

// bootCacheEntries bounds the boots a process keeps (each holds its nodes'
// memory, shared copy-on-write with the universes forked from it).
const bootCacheEntries = 4

// bootKey identifies a boot: a hash of its inputs.
type bootKey [sha256.Size]byte

// bootEntry is a boot universe at its setup point.
type bootEntry struct {
	snap *UniverseSnapshot
	cov  *emu.Coverage // the boot's coverage (nil: coverage off)
}

var bootCache struct {
	sync.Mutex
	keys []bootKey // oldest first
	m    map[bootKey]*bootEntry
}

// replayBoots counts the boot steps that replays in this process ran from
// the start (a cache hit does not count): tests observe it.
var replayBoots atomic.Int64

// bootKeyOf is the key of the report's boot, or false when its path does
// not start with a boot step.
func bootKeyOf(r *Report) (bootKey, bool) {
	if len(r.Path) < 2 || r.Path[0].Plan != PlanBoot {
		return bootKey{}, false
	}
	in := struct {
		Format  string     `json:"format"`
		Spec    ReportSpec `json:"spec"`
		Seed    uint64     `json:"seed"`
		Plan    string     `json:"plan"`
		ForkAtN uint64     `json:"fork_at_ns"`
	}{ReportFormat, r.Spec, r.Path[0].Seed, r.Path[0].Plan, r.Path[1].At}
	b, err := json.Marshal(in)
	if err != nil {
		return bootKey{}, false // a spec that does not marshal: boot
	}
	return sha256.Sum256(b), true
}

// cachedBoot returns the cached boot of the report's path that a replay
// suppressing suppress may start from, or nil.
func cachedBoot(r *Report, suppress map[int]bool) *bootEntry {
	k, ok := bootKeyOf(r)
	if !ok {
		return nil
	}
	bootCache.Lock()
	e := bootCache.m[k]
	bootCache.Unlock()
	if e == nil {
		if e = fromDisk(r, k); e != nil {
			remember(k, e)
		}
	}
	if e == nil || e.snap.T != r.Path[1].At || !bootUnsuppressed(suppress, e.snap.next) {
		return nil
	}
	return e
}

// bootUnsuppressed reports whether no decision before index next (the
// boot's) is suppressed.
func bootUnsuppressed(suppress map[int]bool, next int) bool {
	for k := range suppress {
		if k < next {
			return false
		}
	}
	return true
}

// keepBoot caches u, a replay of the report's boot step standing at the
// second step's fork time (before the fork), unless it is cached already
// or it suppressed one of the boot's decisions.
func keepBoot(r *Report, u *Universe) {
	k, ok := bootKeyOf(r)
	if !ok || len(u.path) != 1 || u.t != r.Path[1].At || !bootUnsuppressed(u.suppress, u.nextDecision) {
		return
	}
	bootCache.Lock()
	_, have := bootCache.m[k]
	bootCache.Unlock()
	if have {
		return
	}
	e := &bootEntry{snap: u.Snapshot("setup point (cached boot)"), cov: cloneCoverage(u.cov)}
	if remember(k, e) {
		saveBootDisk(r, k, e)
	}
}

// remember puts e in the process's cache under k unless an entry is there;
// it reports whether it did.
func remember(k bootKey, e *bootEntry) bool {
	bootCache.Lock()
	defer bootCache.Unlock()
	if bootCache.m == nil {
		bootCache.m = map[bootKey]*bootEntry{}
	}
	if _, have := bootCache.m[k]; have {
		return false
	}
	if len(bootCache.keys) >= bootCacheEntries {
		delete(bootCache.m, bootCache.keys[0])
		bootCache.keys = bootCache.keys[1:]
	}
	bootCache.keys = append(bootCache.keys, k)
	bootCache.m[k] = e
	return true
}

// forget drops the process's entry of the report's boot (one that could
// not be restored).
func forget(r *Report) {
	k, ok := bootKeyOf(r)
	if !ok {
		return
	}
	bootCache.Lock()
	defer bootCache.Unlock()
	delete(bootCache.m, k)
	for i, q := range bootCache.keys {
		if q == k {
			bootCache.keys = append(bootCache.keys[:i], bootCache.keys[i+1:]...)
			break
		}
	}
}

// fromBoot rebuilds the universe of a cached boot at its setup point, not
// yet forked, with the coverage the boot had.
func fromBoot(s *Spec, e *bootEntry, suppress map[int]bool) (*Universe, error) {
	u, err := restoreUniverse(s, e.snap, restoreOpts{suppress: suppress})
	if err != nil {
		return nil, err
	}
	if u.cov != nil && e.cov != nil && len(u.cov.Edges) == len(e.cov.Edges) && len(u.cov.Pairs) == len(e.cov.Pairs) {
		copy(u.cov.Edges, e.cov.Edges)
		copy(u.cov.Pairs, e.cov.Pairs)
		u.cov.TouchedEdges = append(u.cov.TouchedEdges[:0], e.cov.TouchedEdges...)
		u.cov.TouchedPairs = append(u.cov.TouchedPairs[:0], e.cov.TouchedPairs...)
		u.cov.NewEdges, u.cov.NewPairs = e.cov.NewEdges, e.cov.NewPairs
	}
	return u, nil
}

// cloneCoverage copies a coverage record (nil: nil).
func cloneCoverage(c *emu.Coverage) *emu.Coverage {
	if c == nil {
		return nil
	}
	return &emu.Coverage{
		Edges: append([]uint8(nil), c.Edges...), Pairs: append([]uint8(nil), c.Pairs...),
		TouchedEdges: append([]uint32(nil), c.TouchedEdges...), TouchedPairs: append([]uint32(nil), c.TouchedPairs...),
		NewEdges: c.NewEdges, NewPairs: c.NewPairs,
	}
}

// suppressSet is the set of suppressed decision indices.
func suppressSet(suppress []int) map[int]bool {
	if len(suppress) == 0 {
		return nil
	}
	m := map[int]bool{}
	for _, k := range suppress {
		m[k] = true
	}
	return m
}
