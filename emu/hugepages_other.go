//go:build !linux

package emu

import "unsafe"

// hugePages hands out RAM pages; only Linux hosts have huge pages for them
// (hugepages_linux.go): elsewhere they come from the heap.
type hugePages struct{}

func (hp *hugePages) page() *page { return new(page) }

// hugeSlab hands out long-lived memory; elsewhere than on Linux it has
// none, and its objects come from the heap.
type hugeSlab struct {
	rest  []byte
	total int
}

const (
	hugeSlabs    = false
	hugeBytes    = 2 << 20
	maxSlabBytes = 0
)

func (s *hugeSlab) alloc(int) unsafe.Pointer { return nil }
