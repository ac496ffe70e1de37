package emu

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePages hands out zeroed RAM pages carved from 2 MiB-aligned anonymous
// mappings that the kernel may back with huge pages (MADV_HUGEPAGE), as
// QEMU backs guest RAM: a booting Linux touches tens of megabytes, and a
// host page fault and a heap allocation for every 4 KiB of them are a few
// percent of the boot. Its pages are never freed, so only a RAM that lives
// as long as the process takes pages from it (RAM.UseHugePages).
type hugePages struct {
	rest []byte // the unused part of the current mapping
}

const hugeBytes = 2 << 20

// page returns a zeroed page: from a huge page if it can, else from the heap.
func (hp *hugePages) page() *page {
	if len(hp.rest) < pageSize {
		mem, err := unix.Mmap(-1, 0, 2*hugeBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
		if err != nil {
			return new(page)
		}
		off := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugeBytes - 1))
		// Keep the aligned 2 MiB, give the rest back.
		if off > 0 {
			_ = unix.Munmap(mem[:off])
		}
		_ = unix.Munmap(mem[off+hugeBytes:])
		hp.rest = mem[off : off+hugeBytes : off+hugeBytes]
		_ = unix.Madvise(hp.rest, unix.MADV_HUGEPAGE) // only a hint
	}
	p := (*page)(unsafe.Pointer(&hp.rest[0]))
	hp.rest = hp.rest[pageSize:]
	return p
}
