//go:build linux

package codearena

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// protections returns the protection ("rw-p", "r-xp", "---p") of each page
// of [a.Base()+off, +n), from /proc/self/maps.
func protections(t *testing.T, a *Arena, off, n uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps to read protections from: %v", err)
	}
	defer f.Close()
	type area struct {
		lo, hi uintptr
		perm   string
	}
	var areas []area
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var lo, hi uintptr
		var perm string
		if _, err := fmt.Sscanf(sc.Text(), "%x-%x %s", &lo, &hi, &perm); err == nil {
			areas = append(areas, area{lo, hi, perm})
		}
	}
	var out []string
	for p := a.Base() + off; p < a.Base()+off+n; p += a.page {
		perm := "unmapped"
		for _, ar := range areas {
			if p >= ar.lo && p < ar.hi {
				perm = ar.perm
			}
		}
		out = append(out, perm)
	}
	return out
}

func TestAChunkIsWritableWhileOpenAndExecutableOnceSealedNeverBoth(t *testing.T) {
	a, err := Reserve(1<<20, 4*os.Getpagesize())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	page := uintptr(os.Getpagesize())
	if got := protections(t, a, 0, 4*page); strings.Join(got, " ") != "---p ---p ---p ---p" {
		t.Fatalf("a reserved range is %v, want no access", got)
	}
	if err := a.Open(10); err != nil {
		t.Fatal(err)
	}
	code := make([]byte, page+10) // spills into a second page
	if off, ok := a.Place(code); !ok || off != 0 {
		t.Fatalf("Place = %d, %v; want offset 0", off, ok)
	}
	if got := protections(t, a, 0, 5*page); strings.Join(got, " ") != "rw-p rw-p rw-p rw-p ---p" {
		t.Fatalf("an open chunk is %v, want its 4 pages read-write and nothing beyond", got)
	}
	if err := a.Seal(); err != nil {
		t.Fatal(err)
	}
	if got := protections(t, a, 0, 5*page); strings.Join(got, " ") != "r-xp r-xp ---p ---p ---p" {
		t.Fatalf("a sealed chunk is %v, want its 2 used pages read-execute and the rest no access", got)
	}
	if a.Used() != 2*page {
		t.Errorf("Used = %d after one sealed chunk of two pages, want %d", a.Used(), 2*page)
	}
	// The next chunk starts on the next page, after the sealed code.
	if err := a.Open(1); err != nil {
		t.Fatal(err)
	}
	if off, ok := a.Place([]byte{0xc3}); !ok || off != 2*page {
		t.Fatalf("Place = %d, %v; want offset %d", off, ok, 2*page)
	}
	if got := protections(t, a, 0, 3*page); strings.Join(got, " ") != "r-xp r-xp rw-p" {
		t.Fatalf("after opening a second chunk: %v, want the sealed code unchanged", got)
	}
}

func TestPlaceNeedsAnOpenChunkWithRoom(t *testing.T) {
	a, err := Reserve(1<<20, os.Getpagesize())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if _, ok := a.Place([]byte{1}); ok || a.Fits(1) {
		t.Fatal("code was placed with no chunk open")
	}
	if err := a.Open(0); err != nil {
		t.Fatal(err)
	}
	if !a.Fits(os.Getpagesize()) || a.Fits(os.Getpagesize()+1) {
		t.Fatal("Fits does not match the chunk's size")
	}
	if _, ok := a.Place(make([]byte, os.Getpagesize()+1)); ok {
		t.Fatal("code larger than the open chunk was placed")
	}
	if err := a.Seal(); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Place([]byte{1}); ok {
		t.Fatal("code was placed into a sealed chunk")
	}
}

func TestTheArenaIsBoundedByItsRange(t *testing.T) {
	page := os.Getpagesize()
	a, err := Reserve(8*page, 2*page)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	for i := 0; i < 4; i++ {
		if err := a.Open(0); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if _, ok := a.Place(make([]byte, 2*page)); !ok {
			t.Fatalf("chunk %d: a chunk's worth of code does not fit", i)
		}
	}
	if err := a.Open(0); !errors.Is(err, ErrFull) {
		t.Fatalf("a fifth chunk in a range of four: %v, want ErrFull", err)
	}
}

func TestOpenMakesAChunkBigEnoughForLargeCode(t *testing.T) {
	page := os.Getpagesize()
	a, err := Reserve(16*page, page)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if err := a.Open(3*page + 1); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Place(make([]byte, 3*page+1)); !ok {
		t.Fatal("code larger than a chunk does not fit the chunk opened for it")
	}
	if err := a.Open(16 * page); !errors.Is(err, ErrFull) {
		t.Fatalf("opening more than the range has left: %v, want ErrFull", err)
	}
}

func TestReserveRejectsSizesThatCannotWork(t *testing.T) {
	for _, c := range [][2]int{{0, 1}, {4096, 0}, {4096, 8192}, {-1, 1}} {
		if a, err := Reserve(c[0], c[1]); err == nil {
			a.Release()
			t.Errorf("Reserve(%d, %d) succeeded", c[0], c[1])
		}
	}
}
