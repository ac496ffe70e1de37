package emu

import (
	"os"
	"testing"

	"everett/internal/guestimg"
)

// BenchmarkDecodeKernelText measures block decoding alone: every block of
// 256 pages of the guest kernel's text, decoded by a fresh machine (ns per
// block).
func BenchmarkDecodeKernelText(b *testing.B) {
	im := guestimg.Linux(b)
	kernel, err := os.ReadFile(im.Kernel)
	if err != nil {
		b.Fatal(err)
	}
	const pages = 256
	newMachine := func() (*Machine, uint64) {
		m, err := New(Config{RAMBytes: 64 << 20, Harts: 1})
		if err != nil {
			b.Fatal(err)
		}
		m.only = true // decode, rather than take other machines' blocks (sharedCode)
		base := m.RAM.Base + 2<<20
		if err := m.LoadImage(base, kernel); err != nil {
			b.Fatal(err)
		}
		return m, base + 64<<10 // Linux's text starts after its head
	}
	blocks := 0
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		m, text := newMachine()
		b.StartTimer()
		for pa := text; pa < text+pages*pageSize; pa += pageSize {
			for off := uint64(0); off < pageSize; {
				bl := m.blockAt(pa + off)
				if bl == nil {
					break
				}
				blocks++
				off += bl.size
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(blocks), "ns/block")
}
