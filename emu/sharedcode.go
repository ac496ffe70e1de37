package emu

import "sync"

// sharedCode holds blocks decoded from pages no machine writes in place
// (pages shared with a snapshot, image pages), by page, for every machine
// of the process: sibling universes run code their snapshot never ran,
// and a node the fault model crashed boots again from image pages, and
// each would decode the same blocks again (RATIONALE.md, "Why are blocks
// decoded from shared pages shared?"). A page that is not written in place
// keeps its bytes, so a block decoded from it is valid for every machine
// that holds that page, wherever it holds it. Like the translation cache,
// it is a cache: never part of a machine's state.
var sharedCode struct {
	sync.Mutex
	pages map[*page]*codePage
}

// maxSharedCodePages bounds sharedCode: when it is full it starts over,
// so that it neither grows without bound nor keeps old snapshots' pages
// alive for ever.
const maxSharedCodePages = 1 << 16

// sharedBlock returns this machine's copy of a block another machine
// decoded at offset off of shared page p, recorded as the block at pa
// (RAM page pn), or nil if there is none.
func (m *Machine) sharedBlock(pn, pa uint64, p *page) *block {
	sc := &sharedCode
	sc.Lock()
	var t *block
	if cp := sc.pages[p]; cp != nil {
		t = cp.block(pa & pageMask)
	}
	sc.Unlock()
	if t == nil {
		return nil
	}
	b := &block{ops: t.ops, pa: pa, size: t.size, valid: true}
	m.addBlock(pn, pa, p, b)
	return b
}

// OnlyMachine tells m that it is the only machine its process will run
// (as in `everett run`), so that it skips what serves other machines: it
// offers no decoded blocks to them (sharedCode), and its RAM takes its
// pages from huge pages, which are never freed (RAM.UseHugePages). A host
// setting: it never changes results.
func (m *Machine) OnlyMachine() {
	m.only = true
	m.RAM.UseHugePages()
}

// shareBlock offers b, decoded from shared page p, to the other machines.
func shareBlock(p *page, b *block) {
	t := &block{ops: b.ops, size: b.size}
	sc := &sharedCode
	sc.Lock()
	defer sc.Unlock()
	cp := sc.pages[p]
	if cp == nil {
		if sc.pages == nil || len(sc.pages) >= maxSharedCodePages {
			sc.pages = make(map[*page]*codePage)
		}
		cp = &codePage{src: p}
		sc.pages[p] = cp
	}
	if cp.block(b.pa&pageMask) == nil {
		cp.setBlock(b.pa&pageMask, t)
	}
}
