package emu

import "sync"

// sharedCode holds the code pages of pages no machine writes in place
// (pages shared with a snapshot, image pages), by page, for every machine
// of the process: sibling universes run code their snapshot never ran,
// and a node the fault model crashed boots again from image pages, and
// each would decode the same blocks again (RATIONALE.md, "Why do machines
// share the decoded blocks of shared pages?"). A page that is not written
// in place keeps its bytes, so a block decoded from it is valid for every
// machine that holds that page at that address. Like the translation
// cache, it is a cache: never part of a machine's state.
var sharedCode struct {
	sync.Mutex
	pages map[sharedCodeKey]*codePage
}

// sharedCodeKey names a shared page where a machine holds it (a block
// records its physical address).
type sharedCodeKey struct {
	p  *page
	pn uint64
}

// maxSharedCodePages bounds sharedCode: when it is full it starts over,
// so that it neither grows without bound nor keeps old snapshots' pages
// alive for ever.
const maxSharedCodePages = 1 << 16

// sharedCodePage returns the code page every machine shares for frozen
// page p at RAM page pn, made now if there is none.
func sharedCodePage(p *page, pn uint64) *codePage {
	k := sharedCodeKey{p, pn}
	sc := &sharedCode
	sc.Lock()
	defer sc.Unlock()
	cp := sc.pages[k]
	if cp == nil {
		if sc.pages == nil || len(sc.pages) >= maxSharedCodePages {
			sc.pages = make(map[sharedCodeKey]*codePage)
		}
		cp = &codePage{src: p}
		sc.pages[k] = cp
	}
	return cp
}

// OnlyMachine tells m that it is the only machine its process will run
// (as in `everett run`), so that it skips what serves other machines: it
// offers no decoded blocks to them (sharedCode), and its RAM takes its
// pages, and its decoded blocks their memory, from huge pages, which are
// never freed (RAM.UseHugePages, hugeSlab). A host setting: it never
// changes results.
func (m *Machine) OnlyMachine() {
	m.only = true
	m.RAM.UseHugePages()
	m.slab = &hugeSlab{}
}
