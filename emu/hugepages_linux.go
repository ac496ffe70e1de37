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

// hugeSlab hands out memory for objects that live as long as the process
// (the decoded blocks of the only machine, see Machine.OnlyMachine) from
// 2 MiB-aligned anonymous mappings the kernel may back with huge pages:
// a Linux boot decodes some 46,000 blocks, and growing the Go heap for
// them costs a host page fault per 4 KiB, each dear on a virtual machine.
// What it hands out is never freed, and the garbage collector never looks
// into it: it may hold pointers only to objects kept alive elsewhere.
// Its total is bounded (maxSlabBytes); past it, alloc returns nil.
type hugeSlab struct {
	rest  []byte
	total int
}

// hugeSlabs says that hugeSlab has memory to hand out on this host.
const hugeSlabs = true

// maxSlabBytes bounds a slab: a guest that keeps rewriting its code could
// otherwise have the only machine keep every block it ever decoded.
const maxSlabBytes = 256 << 20

// alloc returns n zeroed bytes aligned to 8, or nil.
func (s *hugeSlab) alloc(n int) unsafe.Pointer {
	n = (n + 7) &^ 7
	if n > hugeBytes {
		return nil
	}
	if len(s.rest) < n {
		if s.total+hugeBytes > maxSlabBytes {
			return nil
		}
		mem, err := unix.Mmap(-1, 0, 2*hugeBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
		if err != nil {
			return nil
		}
		off := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugeBytes - 1))
		if off > 0 {
			_ = unix.Munmap(mem[:off])
		}
		_ = unix.Munmap(mem[off+hugeBytes:])
		s.rest = mem[off : off+hugeBytes : off+hugeBytes]
		s.total += hugeBytes
		_ = unix.Madvise(s.rest, unix.MADV_HUGEPAGE) // only a hint
	}
	p := unsafe.Pointer(&s.rest[0])
	s.rest = s.rest[n:]
	return p
}
