package emu

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// imageOwner owns the pages of images (imagePages): no RAM has its id.
const imageOwner = 0

// imagePages are the pages of the images machines were loaded with, by
// content, shared by every machine in the process that loads the same
// bytes at a page boundary: the explorer boots and reboots many nodes from
// one kernel, and a page every machine shares is one whose decoded blocks
// and translations every machine finds (jitArena.byPage). Like the
// translation cache, it is a cache, never part of a machine's state. Its
// pages are never freed, so they come from huge pages (hugePages): a
// 4 MiB kernel is two host page faults instead of a thousand.
var imagePages struct {
	sync.Mutex
	seed  maphash.Seed
	pages map[uint64][]*page
	n     int
	huge  hugePages
}

// maxImagePages bounds imagePages (1 GiB of images).
const maxImagePages = 1 << 18

// imagePage returns the shared page holding b (a page of bytes), or nil
// when the cache is full.
func imagePage(b []byte) *page {
	ip := &imagePages
	ip.Lock()
	defer ip.Unlock()
	if ip.pages == nil {
		ip.seed = maphash.MakeSeed()
		ip.pages = make(map[uint64][]*page)
	}
	k := maphash.Bytes(ip.seed, b)
	for _, p := range ip.pages[k] {
		if bytes.Equal(p[:], b) {
			return p
		}
	}
	if ip.n >= maxImagePages {
		return nil
	}
	p := ip.huge.page()
	copy(p[:], b)
	ip.pages[k] = append(ip.pages[k], p)
	ip.n++
	return p
}
