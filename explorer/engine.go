package explorer

import "everett/emu"

// The engine is a host setting (Spec.SetEngine): it is carried by the spec
// in memory only, passed to every machine the explorer builds, and counted
// here for the summaries. Nothing in this file reaches a universe's state.

// addJIT adds b's counts to a.
func addJIT(a *emu.JITStats, b emu.JITStats) {
	a.Entries += b.Entries
	a.Insns += b.Insns
	a.Flushes += b.Flushes
	a.Switches += b.Switches
	a.Lookups += b.Lookups
	a.Stale += b.Stale
	for i := range a.Exits {
		a.Exits[i] += b.Exits[i]
	}
}

// JITStats returns what the JIT did for the universe: summed over every
// node and every incarnation of a node (crash and restart), zero under the
// interpreter. It is host bookkeeping, not state: it is in no hash or
// report.
func (u *Universe) JITStats() emu.JITStats {
	s := u.jit
	for _, n := range u.nodes {
		if n.b != nil {
			addJIT(&s, n.b.JITStats())
		}
	}
	return s
}
