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
	code       []*codeLeaf // decoded blocks, for the machines that restore it (a cache; see freezeCode)
}

// ErrSnapshotMismatch says a snapshot does not fit the machine it is
// restored into.
var ErrSnapshotMismatch = errors.New("snapshot does not match the machine")

// Snapshot freezes the machine's current state. The machine keeps running
// afterwards on copy-on-write pages.
func (m *Machine) Snapshot() *Snapshot {
	var e hw.Encoder
	e.Grow(m.stateBytes + m.stateBytes/8) // states grow slowly between snapshots
	m.SaveState(&e)
	m.stateBytes = len(e.Bytes())
	s := &Snapshot{
		Config: m.cfg,
		ICount: m.icount,
		State:  e.Bytes(),
		leaves: m.RAM.freeze(),
		code:   m.freezeCode(),
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
	for _, w := range m.watches {
		m.RAM.setFlag(w.pn, pfWatch)
	}
	m.cfg.Quantum = s.Config.Quantum
	m.cfg.InsnsPerTick = s.Config.InsnsPerTick
	m.stateBytes = len(s.State)
	if err := m.RestoreState(hw.NewDecoder(s.State)); err != nil {
		return err
	}
	m.inheritCode(s.code) // after RestoreState, which drops every cache
	m.brk.passed = false
	return nil
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
	r.pagesCopied, r.leavesCopied = 0, 0
}

// flushStoreTLBs empties the hart's store TLBs.
func (h *Hart) flushStoreTLBs() {
	for p := range h.tlbs() {
		s := &h.c.tlbs[p].store
		for i := range s {
			s[i].tag = tlbNone
		}
	}
	if h.c != nil {
		h.c.where[1].reset(h.ram.Pages())
	}
}

// PageBytes is the size of a RAM page in snapshots.
const PageBytes = pageSize

// Page is one RAM page of a snapshot: its page number (offset from the
// start of RAM divided by PageBytes) and contents.
type Page struct {
	N    uint64
	Data *[PageBytes]byte
}

// Pages calls fn for every page of the snapshot that has ever been written,
// in increasing page order. Pages never written read as zero. fn must not
// modify Data.
func (s *Snapshot) Pages(fn func(p Page)) {
	for li, l := range s.leaves {
		if l == nil {
			continue
		}
		for i, p := range l.pages {
			if p != nil {
				fn(Page{N: uint64(li)<<leafShift | uint64(i), Data: (*[PageBytes]byte)(p)})
			}
		}
	}
}

// ChangedPages calls fn for every page of s that is not the very same page
// as in parent (a snapshot of an ancestor of the same machine), in
// increasing page order: what an incremental snapshot must store. Pages of
// parent that s no longer has cannot happen (RAM pages are never freed).
func (s *Snapshot) ChangedPages(parent *Snapshot, fn func(p Page)) {
	for li, l := range s.leaves {
		if l == nil {
			continue
		}
		var pl *leaf
		if li < len(parent.leaves) {
			pl = parent.leaves[li]
		}
		if pl == l {
			continue
		}
		for i, p := range l.pages {
			if p != nil && (pl == nil || pl.pages[i] != p) {
				fn(Page{N: uint64(li)<<leafShift | uint64(i), Data: (*[PageBytes]byte)(p)})
			}
		}
	}
}

// SamePage reports whether the RAM page holding physical address pa is the
// very same page in s and o (two snapshots of one machine's history): if it
// is, nothing wrote it between them. A page outside RAM is never the same.
func (s *Snapshot) SamePage(o *Snapshot, pa uint64) bool {
	if s.Config.RAMBase != o.Config.RAMBase || pa < s.Config.RAMBase || pa-s.Config.RAMBase >= s.Config.RAMBytes {
		return false
	}
	pn := (pa - s.Config.RAMBase) >> pageShift
	return leafPage(s.leaves, pn) == leafPage(o.leaves, pn)
}

func leafPage(leaves []*leaf, pn uint64) *page {
	li := pn >> leafShift
	if li >= uint64(len(leaves)) || leaves[li] == nil {
		return nil
	}
	return leaves[li].pages[pn&(1<<leafShift-1)]
}

// NewSnapshot assembles a snapshot from its parts (as read from a file):
// base (nil, or the parent snapshot whose pages the new one starts from)
// and pages that replace or add to base's. Pages must be in increasing
// order and inside RAM.
func NewSnapshot(cfg Config, components []string, icount uint64, state []byte, base *Snapshot, pages []Page) (*Snapshot, error) {
	if cfg.RAMBytes == 0 || cfg.RAMBytes%pageSize != 0 || cfg.RAMBytes > 1<<40 {
		return nil, fmt.Errorf("%w: RAM size %d", ErrSnapshotMismatch, cfg.RAMBytes)
	}
	npages := cfg.RAMBytes >> pageShift
	leaves := make([]*leaf, (npages+leafPages-1)>>leafShift)
	if base != nil {
		if base.Config.RAMBytes != cfg.RAMBytes {
			return nil, fmt.Errorf("%w: parent has %d bytes of RAM, child %d", ErrSnapshotMismatch, base.Config.RAMBytes, cfg.RAMBytes)
		}
		copy(leaves, base.leaves)
	}
	owner := newOwnerID() // owned by no machine: every machine copies on write
	prev := int64(-1)
	for _, p := range pages {
		if p.N >= npages || int64(p.N) <= prev {
			return nil, fmt.Errorf("%w: page %d out of order or outside %d pages of RAM", ErrSnapshotMismatch, p.N, npages)
		}
		prev = int64(p.N)
		li := p.N >> leafShift
		l := leaves[li]
		if l == nil || l.owner != owner {
			nl := &leaf{owner: owner}
			if l != nil {
				nl.pages, nl.owners = l.pages, l.owners
			}
			leaves[li] = nl
			l = nl
		}
		l.pages[p.N&(leafPages-1)] = (*page)(p.Data)
		l.owners[p.N&(leafPages-1)] = owner
	}
	return &Snapshot{Config: cfg, Components: components, ICount: icount, State: state, leaves: leaves}, nil
}

// Equal reports whether two snapshots hold the same state and RAM contents.
func (s *Snapshot) Equal(o *Snapshot) bool {
	if s.Config != o.Config || s.ICount != o.ICount || string(s.State) != string(o.State) {
		return false
	}
	return ramHash(s.leaves) == ramHash(o.leaves)
}

// RAMHash is the hash of the snapshot's RAM contents, as StateHash uses.
func (s *Snapshot) RAMHash() uint64 { return ramHash(s.leaves) }
