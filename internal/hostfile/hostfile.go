// Package hostfile reads the host files a machine is built from (kernels,
// initrds, disk images, ELF programs) whole, before any universe starts,
// into memory that suits them: the one reader of guest inputs for the
// command line and for specs alike.
package hostfile

// Sizes from which Read and ReadOnce leave Go's heap (Linux only;
// elsewhere both are os.ReadFile).
const (
	// HugeBytes: ReadOnce reads a file of this size or more into anonymous
	// memory the kernel may back with 2 MiB pages (MADV_HUGEPAGE).
	// os.ReadFile reads into fresh heap memory one 4 KiB page fault at a
	// time (a 16 MiB disk: about 4,000 faults, a few percent of a Linux
	// boot). Read does not: a process that loads the same spec or report
	// many times (replays, a shared search) would keep every copy.
	HugeBytes = 2 << 20
	// SparseBytes: with either function, a file of this size or more (a
	// disk image) goes into
	// anonymous memory with small pages, and only its 4 KiB pages that are
	// not all zero are written: the others cost no memory, however large
	// the image (the etcd example's empty 256 MiB ext4 disk has 47 such
	// pages, 2026-12-04: 0.2 MiB resident, not 256). Huge pages would
	// defeat that: one non-zero byte would make 2 MiB resident.
	SparseBytes = 64 << 20
)
