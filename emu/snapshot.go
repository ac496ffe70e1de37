package emu

import (
	"errors"
	"fmt"

	"everett/hw"
)

// Snapshot is a frozen machine: its complete state except RAM as bytes
// (SaveState), and its RAM as a frozen radix of copy-on-write pages. Taking
// one costs O(RAM leaves) and copies no page. A snapshot is immutable: any
// number of machines, on any goroutines, may restore from it at once; each
// copies a page only when it first writes it.
type Snapshot struct {
	Config     Config
	Components []string // names of the registered components, in order
	ICount     uint64   // instruction slots used when it was taken
	State      []byte   // the output of SaveState
	leaves     []*leaf
}

// ErrSnapshotMismatch says a snapshot does not fit the machine it is
// restored into.
var ErrSnapshotMismatch = errors.New("snapshot does not match the machine")

// Snapshot freezes the machine's current state. The machine keeps running
// afterwards on copy-on-write pages.
func (m *Machine) Snapshot() *Snapshot {
	var e hw.Encoder
	m.SaveState(&e)
	s := &Snapshot{
		Config: m.cfg,
		ICount: m.icount,
		State:  e.Bytes(),
		leaves: m.RAM.freeze(),
	}
	for _, c := range m.components {
		s.Components = append(s.Components, c.name)
	}
	// Every page is shared now: no store may hit a page through the TLB.
	for _, h := range m.harts {
		h.flushStoreTLBs()
	}
	return s
}

// RestoreSnapshot makes m's state s's. m must have been built with the same
// configuration and the same devices (typically by the same board
// constructor); its RAM becomes a copy-on-write view of the snapshot's.
func (m *Machine) RestoreSnapshot(s *Snapshot) error {
	if s.Config.RAMBase != m.cfg.RAMBase || s.Config.RAMBytes != m.cfg.RAMBytes || s.Config.Harts != m.cfg.Harts {
		return fmt.Errorf("%w: snapshot has %d harts and %d bytes of RAM at %#x; machine has %d harts and %d bytes at %#x",
			ErrSnapshotMismatch, s.Config.Harts, s.Config.RAMBytes, s.Config.RAMBase, m.cfg.Harts, m.cfg.RAMBytes, m.cfg.RAMBase)
	}
	if len(s.Components) != len(m.components) {
		return fmt.Errorf("%w: snapshot has %d devices, machine has %d", ErrSnapshotMismatch, len(s.Components), len(m.components))
	}
	for i, c := range m.components {
		if s.Components[i] != c.name {
			return fmt.Errorf("%w: device %d is %q in the snapshot, %q in the machine", ErrSnapshotMismatch, i, s.Components[i], c.name)
		}
	}
	m.RAM.adopt(s.leaves)
	for i := range m.codePages {
		m.codePages[i] = nil
	}
	for _, w := range m.watches {
		m.RAM.flags[w.pn] |= pfWatch
	}
	m.cfg.Quantum = s.Config.Quantum
	m.cfg.InsnsPerTick = s.Config.InsnsPerTick
	return m.RestoreState(hw.NewDecoder(s.State))
}

// freeze makes every page and leaf shared: after it, the first write to any
// page copies it. It returns the frozen top array, which no one will write.
func (r *RAM) freeze() []*leaf {
	top := make([]*leaf, len(r.leaves))
	copy(top, r.leaves)
	r.id = newOwnerID()
	return top
}

// adopt makes r a copy-on-write view of frozen leaves.
func (r *RAM) adopt(top []*leaf) {
	copy(r.leaves, top)
	r.id = newOwnerID()
	clear(r.flags)
}

// flushStoreTLBs empties the hart's store TLBs.
func (h *Hart) flushStoreTLBs() {
	for p := range h.tlbs {
		s := &h.tlbs[p].store
		for i := range s {
			s[i].tag = tlbNone
		}
	}
}
