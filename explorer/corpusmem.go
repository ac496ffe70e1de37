package explorer

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"everett/emu"
)

// DefaultMemoryLimit is a search's memory target when neither the options
// nor the spec give one: 1.5 GiB, so that a search fits a 2-core CI
// runner (CircleCI's medium has 4 GB, GitHub's 2-core Linux runner 7 GB)
// beside the build that precedes it, what lies outside Go's heap (the
// JIT's code arena, the binary) included. The etcd example's 5-minute
// search on 2 workers peaked at 1,663 MiB resident with it, 1,981-2,458
// MiB before (2026-12-04; docs/rationale/explorer.md, "Why evict corpus
// entries to their fork paths?").
const DefaultMemoryLimit = 1536 << 20

// NoMemoryLimit, as Options.MemoryLimit, bounds nothing.
const NoMemoryLimit = math.MaxUint64

// ParseMemoryLimit parses a memory target: a size of at least 1 MiB
// (1048576, 512MiB, 2GiB) or "none" (NoMemoryLimit).
func ParseMemoryLimit(s string) (uint64, error) {
	if strings.TrimSpace(s) == "none" {
		return NoMemoryLimit, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("%v, or none", err)
	}
	if n < 1<<20 {
		return 0, fmt.Errorf("%q is less than 1 MiB", s)
	}
	return n, nil
}

// memoryLimit returns a search's memory target in bytes (NoMemoryLimit:
// none) and the corpus's share of it.
func memoryLimit(spec *Spec, o Options) (target, corpus uint64) {
	target = o.MemoryLimit
	if target == 0 && spec.Budgets.Memory != "" {
		target, _ = ParseMemoryLimit(spec.Budgets.Memory) // validated with the spec
	}
	if target == 0 {
		target = DefaultMemoryLimit
	}
	if target == NoMemoryLimit {
		return target, 0
	}
	return target, max(target/corpusShare, 1)
}

// corpusShare: the corpus may hold 1/corpusShare of the memory target
// beyond the boot snapshot; the rest is for the images, the boot snapshot,
// the running universes, decoded code and the garbage collector's
// headroom. The etcd example (three 512 MiB nodes, 2 workers) keeps about
// 650 MB live without its corpus (2026-12-04): with a quarter of 1.5 GiB
// for the corpus, the live heap stays under two thirds of the target
// (four fifths of Go's limit, the target less 256 MiB), so the collector
// keeps some headroom even with the corpus full.
const corpusShare = 4

// The corpus's memory: what its entries hold beyond the boot snapshot (the
// copy-on-write pages their universes wrote, the radix leaves and decoded
// code of those pages, and each entry's saved device state: disk overlays
// included), counted once however many entries share an object. When it
// passes its share of the memory target (memoryLimit), the search evicts
// entries, least recently added or picked first, each down to its fork path (a placeholder like a shared
// search's entry from another worker, share.go); an evicted entry that is
// picked again is rebuilt from its fork path, exactly, by the worker that
// runs the fork. Eviction never changes a result: the corpus keeps its
// order and its size, and a rebuilt entry is the same snapshot.
// (docs/rationale/explorer.md, "Why evict corpus entries to their fork
// paths?")

// corpusMem counts what the corpus holds and decides evictions. It lives on
// the search's goroutine. What it counts is host bookkeeping: a code
// page's size depends on what the universes sharing it ran first, so it is
// not a function of the seed, and neither are the evictions; the results
// never depend on either.
type corpusMem struct {
	limit uint64          // bytes the corpus may hold (0: no limit)
	base  []*emu.Snapshot // the boot snapshot's machines, by node (nil: none)
	refs  map[emu.MemRef]heldRef
	held  uint64 // bytes: the refs' and the counted snapshots' states
	peak  uint64
	// counted: the snapshots whose objects are in refs (entries, and
	// the snapshots placeholders were rebuilt into).
	counted map[*UniverseSnapshot]bool
	// lastUse: when each corpus entry (or placeholder) was last added or
	// picked, on a clock of those events.
	lastUse map[*UniverseSnapshot]int
	clock   int
	// ours: the placeholders of entries this search evicted.
	ours             map[*UniverseSnapshot]bool
	evicted, rebuilt int
}

// heldRef is one object the corpus holds: how many counted snapshots hold
// it, and its size when first counted.
type heldRef struct {
	n     int
	bytes uint64
}

func newCorpusMem(limit uint64, boot *UniverseSnapshot) *corpusMem {
	m := &corpusMem{limit: limit, refs: map[emu.MemRef]heldRef{}, counted: map[*UniverseSnapshot]bool{},
		lastUse: map[*UniverseSnapshot]int{}, ours: map[*UniverseSnapshot]bool{}}
	if boot != nil {
		for _, ns := range boot.nodes {
			m.base = append(m.base, ns.snap)
		}
	}
	return m
}

// machines calls fn for every machine snapshot of s with its base: the
// boot's machine of the same node.
func (m *corpusMem) machines(s *UniverseSnapshot, fn func(snap, base *emu.Snapshot)) {
	for i, ns := range s.nodes {
		if ns.snap == nil {
			continue
		}
		var base *emu.Snapshot
		if i < len(m.base) {
			base = m.base[i]
		}
		fn(ns.snap, base)
	}
}

// count counts what snapshot s holds.
func (m *corpusMem) count(s *UniverseSnapshot) {
	if s == nil || m.counted[s] {
		return
	}
	m.counted[s] = true
	m.machines(s, func(snap, base *emu.Snapshot) {
		m.held += uint64(len(snap.State))
		snap.Held(base, func(r emu.MemRef, bytes uint64) {
			h := m.refs[r]
			if h.n == 0 {
				h.bytes = bytes
				m.held += bytes
			}
			h.n++
			m.refs[r] = h
		})
	})
	m.peak = max(m.peak, m.held)
}

// uncount stops counting s: what only s held is no longer the corpus's.
func (m *corpusMem) uncount(s *UniverseSnapshot) {
	if s == nil || !m.counted[s] {
		return
	}
	delete(m.counted, s)
	m.machines(s, func(snap, base *emu.Snapshot) {
		m.held -= uint64(len(snap.State))
		snap.Held(base, func(r emu.MemRef, _ uint64) {
			h := m.refs[r]
			h.n--
			if h.n == 0 {
				m.held -= h.bytes
				delete(m.refs, r)
				return
			}
			m.refs[r] = h
		})
	})
}

// added counts corpus entry e, new.
func (m *corpusMem) added(e *UniverseSnapshot) {
	m.clock++
	m.lastUse[e] = m.clock
	m.count(heldSnap(e))
}

// dropped stops counting corpus entry e, gone from the corpus.
func (m *corpusMem) dropped(e *UniverseSnapshot) {
	delete(m.lastUse, e)
	delete(m.ours, e)
	m.uncount(heldSnap(e))
}

// picked records that the search picked entry e to fork from.
func (m *corpusMem) picked(e *UniverseSnapshot) {
	m.clock++
	m.lastUse[e] = m.clock
}

// heldSnap returns the snapshot of corpus entry e that holds memory: e
// itself, the snapshot a placeholder was rebuilt into, or nil.
func heldSnap(e *UniverseSnapshot) *UniverseSnapshot {
	if e.lazy == nil {
		return e
	}
	if e.lazy.done.Load() {
		return e.lazy.snap
	}
	return nil
}

// balance counts the snapshots placeholders were rebuilt into since the
// last call, then, with evict, while the corpus holds more than the limit,
// evicts the entry least recently added or picked that holds memory: it
// becomes a placeholder of its fork path, in its place in corpus.
func (m *corpusMem) balance(corpus []*UniverseSnapshot, boot *Boot, rejected *atomic.Int64, evict bool) {
	for _, e := range corpus {
		if hs := heldSnap(e); hs != nil && hs != e && !m.counted[hs] {
			m.count(hs)
			if m.ours[e] {
				m.rebuilt++
			}
		}
	}
	for evict && m.limit > 0 && m.held > m.limit {
		victim := -1
		for i, e := range corpus {
			if heldSnap(e) == nil {
				continue
			}
			if victim < 0 || m.lastUse[e] < m.lastUse[corpus[victim]] {
				victim = i
			}
		}
		if victim < 0 {
			return
		}
		e := corpus[victim]
		hs := heldSnap(e)
		p := &UniverseSnapshot{T: hs.T, ICount: hs.ICount, Path: hs.Path, Why: hs.Why,
			lazy: &lazyEntry{e: entryOf(hs, 0), boot: boot, rejected: rejected}}
		m.lastUse[p] = m.lastUse[e]
		m.ours[p] = true
		m.dropped(e)
		corpus[victim] = p
		m.evicted++
	}
}
