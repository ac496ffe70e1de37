package snapshot

import (
	"io"
	"path/filepath"
	"sync"
	"testing"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/guestimg"
)

// Linux guest tests and benchmarks: OpenSBI and Linux 6.1 on the virt
// board (guest-images/linux), booting to everett's smoke init and powering
// off after about 68M instructions on 2 harts.

const (
	linuxBudget = 3_000_000_000
	linuxAppend = "console=ttyS0"
)

var (
	imagesMu sync.Mutex
	images   = map[string]*board.Image{}
)

// image reads and hashes a file once per test binary; specs share the
// result (images are never written).
func image(t testing.TB, path string) *board.Image {
	t.Helper()
	imagesMu.Lock()
	defer imagesMu.Unlock()
	if im, ok := images[path]; ok {
		return im
	}
	im, err := board.NewImage(path)
	if err != nil {
		t.Fatal(err)
	}
	images[path] = im
	return im
}

func linuxSpec(t testing.TB, harts int, ramBytes, seed uint64) *board.Spec {
	t.Helper()
	im := guestimg.Linux(t)
	guestimg.BIOS(t) // fails t with a hint if OpenSBI is missing
	return &board.Spec{
		Board: board.BoardVirt, Harts: harts, RAMBytes: ramBytes, Seed: seed, Append: linuxAppend,
		BIOS:   image(t, board.DefaultBIOS),
		Kernel: image(t, im.Kernel),
		Initrd: image(t, im.Initrd),
		Disk:   image(t, im.Disk),
	}
}

func TestLinuxSMPBootThroughFilesRestoresToTheStraightRun(t *testing.T) {
	spec := linuxSpec(t, 2, 256<<20, 5)
	straight, err := board.Build(spec, board.BuildOptions{Console: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if r := straight.Run(linuxBudget); r != emu.StopPowerOff {
		t.Fatalf("straight boot stopped with %v", r)
	}
	want, n := straight.StateHash(), straight.ICount()

	dir := t.TempDir()
	parent, err := board.Build(spec, board.BuildOptions{Console: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var prev *File // the previous file of this run: incremental files extend it
	for i, k := range []uint64{n / 9, n / 3, n / 2, 2 * n / 3, n - 1000} {
		if r := parent.Run(k); r != emu.StopLimit {
			t.Fatalf("parent stopped with %v before %d", r, k)
		}
		snap := parent.Snapshot()
		full, err := Write(filepath.Join(dir, "full-"+itoa(i)+".snap"), spec, snap, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths := []string{full.Path}
		if prev != nil {
			inc, err := Write(filepath.Join(dir, "inc-"+itoa(i)+".snap"), spec, snap, prev)
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, inc.Path)
			prev = inc
		} else {
			prev = full
		}
		for _, p := range paths {
			f, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Snap.Equal(snap) {
				t.Fatalf("k=%d %s: the loaded snapshot differs from the one saved", k, filepath.Base(p))
			}
			child, err := f.Restore(board.BuildOptions{Console: io.Discard}, false, 0)
			if err != nil {
				t.Fatal(err)
			}
			if r := child.Run(linuxBudget); r != emu.StopPowerOff {
				t.Fatalf("k=%d %s: child stopped with %v", k, filepath.Base(p), r)
			}
			if child.StateHash() != want || child.ICount() != n {
				t.Fatalf("k=%d %s: child ends with %x after %d instructions; straight run %x after %d",
					k, filepath.Base(p), child.StateHash(), child.ICount(), want, n)
			}
			t.Logf("k=%d %s: %d bytes, %d pages with data, %d zero; chain depth %d",
				k, filepath.Base(p), f.Bytes, f.DataPages, f.ZeroPages, depth(f))
		}
	}
}

func depth(f *File) int {
	d := 0
	for ; f.Parent != nil; f = f.Parent {
		d++
	}
	return d
}

func itoa(i int) string { return string(rune('0' + i)) }
