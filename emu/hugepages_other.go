//go:build !linux

package emu

// hugePages hands out RAM pages; only Linux hosts have huge pages for them
// (hugepages_linux.go): elsewhere they come from the heap.
type hugePages struct{}

func (hp *hugePages) page() *page { return new(page) }
