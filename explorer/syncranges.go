package explorer

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"slices"
	"strings"

	"everett/emu"
)

// Synchronization points of a workload (emu's SchedConfig.SyncPoints): the
// LRs and AMOs of the program's own code, and of the functions that code
// calls directly (a pthread_mutex_lock, whose return address is in the
// program). A C program's own code is what its debugging information
// describes (libc's archives carry none); a Go program's is every package
// but the runtime's: the Go runtime's own atomics (its scheduler, its
// allocator) run by the thousand and would take every preemption before
// the program's first lock, while a sync.Mutex's compare-and-swap is
// inlined into the function that locks it. These ranges are computed from
// the spec's program files, an input of every universe like the programs
// themselves.

// maxSyncRanges bounds the ranges of one node (emu.MaxSyncRanges).
const maxSyncRanges = 1 << 14

// syncRangesOf returns the pc ranges of program file p's own code, sorted
// and merged, or ok = false when p says nothing usable about them (no
// debugging information: then every user-mode LR and AMO is a point).
func syncRangesOf(p string) (ranges [][2]uint64, ok bool, err error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", p, err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, false, nil // stripped, or unreadable debugging information
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, false, nil
		}
		if e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit {
			name, _ := e.Val(dwarf.AttrName).(string)
			if !runtimeUnit(name) {
				rs, err := d.Ranges(e)
				if err != nil {
					return nil, false, nil
				}
				for _, x := range rs {
					if x[1] > x[0] {
						ranges = append(ranges, x)
					}
				}
			}
		}
		r.SkipChildren()
	}
	if len(ranges) == 0 {
		return nil, false, nil
	}
	return mergeRanges(ranges), true, nil
}

// runtimeUnit reports whether a compile unit is a Go runtime's (its name
// is a package path).
func runtimeUnit(name string) bool {
	return name == "runtime" || name == "syscall" ||
		strings.HasPrefix(name, "runtime/") || strings.HasPrefix(name, "internal/")
}

// mergeRanges sorts ranges and merges those that overlap or touch.
func mergeRanges(rs [][2]uint64) [][2]uint64 {
	slices.SortFunc(rs, func(a, b [2]uint64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// nodeSyncRanges returns the ranges of a node whose workload runs the
// program files progs: their union, or nil (every point) when one of them
// says nothing of its own code or the union is too long.
func nodeSyncRanges(progs []string) ([][2]uint64, error) {
	var all [][2]uint64
	for _, p := range progs {
		rs, ok, err := syncRangesOf(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
		all = append(all, rs...)
	}
	all = mergeRanges(all)
	if len(all) > maxSyncRanges {
		return nil, nil
	}
	return all, nil
}

// syncRangesOf returns node i's ranges for schedule sc (nil unless it
// has synchronization points).
func (s *Spec) syncRangesOf(i int, sc emu.SchedConfig) [][2]uint64 {
	if !sc.SyncPoints || i >= len(s.syncRanges) {
		return nil
	}
	return s.syncRanges[i]
}
