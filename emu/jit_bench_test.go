//go:build linux && amd64

package emu

import (
	"os"
	"testing"

	"everett/internal/guestimg"
)

// kernelRegions forms the regions the JIT would translate from the first
// pages of the guest kernel's text: one per block that starts a
// fall-through run in a page, as many as max.
func kernelRegions(tb testing.TB, max int) (regions [][]*block, offs [][]uint64) {
	im := guestimg.Linux(tb)
	kernel, err := os.ReadFile(im.Kernel)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := New(Config{RAMBytes: 64 << 20, Harts: 1})
	if err != nil {
		tb.Fatal(err)
	}
	base := m.RAM.Base + 2<<20
	if err := m.LoadImage(base, kernel); err != nil {
		tb.Fatal(err)
	}
	// Linux's text starts after its head; skip the first 64 KiB.
	for pa := base + 64<<10; len(regions) < max && pa < base+uint64(len(kernel)); pa += pageSize {
		for off := uint64(0); off < pageSize && len(regions) < max; {
			b := m.blockAt(pa + off)
			if b == nil {
				break
			}
			if jitPrefix(b) > 0 {
				mb, mo := m.jitRegion(b, jitPrefix)
				regions, offs = append(regions, mb), append(offs, mo)
			}
			off += b.size
		}
	}
	return regions, offs
}

// BenchmarkTranslateKernelRegions measures the translator alone on
// regions of real kernel code: ns per region, and host bytes per region.
func BenchmarkTranslateKernelRegions(b *testing.B) {
	regions, offs := kernelRegions(b, 2000)
	arena.mu.Lock() // translateRegion runs under the cache's lock (its label pool)
	defer arena.mu.Unlock()
	var bytes, members, insns int
	for i, r := range regions {
		code, _ := translateRegion(r, offs[i])
		bytes += len(code)
		members += len(r)
		for _, mb := range r {
			insns += jitPrefix(mb)
		}
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		i := n % len(regions)
		translateRegion(regions[i], offs[i])
	}
	b.ReportMetric(float64(members)/float64(len(regions)), "members/region")
	b.ReportMetric(float64(insns)/float64(len(regions)), "insns/region")
	b.ReportMetric(float64(bytes)/float64(len(regions)), "bytes/region")
}
