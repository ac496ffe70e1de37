package explorer

import (
	"bytes"
	"debug/buildinfo"
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
// describes (libc's archives carry none); a Go program's is the packages
// of its main module and the sync packages (goOwnUnit): the runtime's and
// the rest of the standard library's atomics run by the thousand and
// would take every preemption before the program's first lock, while a
// sync.Mutex's compare-and-swap is inlined into the function that locks
// it. These ranges are computed from
// the spec's program files, an input of every universe like the programs
// themselves.

// maxSyncRanges bounds the ranges of one node (emu.MaxSyncRanges).
const maxSyncRanges = emu.MaxSyncRanges

// syncRangesOf returns the pc ranges of program file p's own code, sorted
// and merged, or ok = false when p says nothing usable about them (no
// debugging information, or not an ELF file: then every user-mode LR and
// AMO is a point). Only a file that cannot be read is an error.
func syncRangesOf(p string) (ranges [][2]uint64, ok bool, err error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, false, nil // a script, say: nothing known of its code
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, false, nil // stripped, or unreadable debugging information
	}
	own := func(unit string) bool { return true } // C: the units with debugging information
	if bi, err := buildinfo.Read(bytes.NewReader(b)); err == nil {
		own = func(unit string) bool { return goOwnUnit(unit, bi.Main.Path) }
		ranges = goRuntimeSync(f)
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
			if own(name) {
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

// goOwnUnit reports whether a Go compile unit (a package path) is the
// program's own: a package of its main module, or the standard library's
// locks (sync, sync/atomic, and internal/sync where sync.Mutex's slow
// paths live). The rest of the standard library and the runtime run their
// own atomics by the thousand (the testing framework's, a sync.Map's, the
// scheduler's).
func goOwnUnit(unit, module string) bool {
	switch unit {
	case "main", "command-line-arguments", "sync", "sync/atomic", "internal/sync":
		return true
	}
	return module != "" && (unit == module || strings.HasPrefix(unit, module+"/"))
}

// goRuntimeSync returns the code of the Go runtime's functions that are
// the program's own synchronization: its channel operations, selects and
// go statements (their closures included, "runtime.newproc.func1"). A
// goroutine between a select's check and its send, or a main just past
// its go statement, stops there; the scheduler's and the allocator's
// atomics stay out.
func goRuntimeSync(f *elf.File) [][2]uint64 {
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	var rs [][2]uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		name, _, _ := strings.Cut(s.Name, ".func")
		switch name {
		case "runtime.chansend", "runtime.chansend1", "runtime.chanrecv", "runtime.chanrecv1",
			"runtime.chanrecv2", "runtime.closechan", "runtime.selectgo", "runtime.selectnbsend",
			"runtime.selectnbrecv", "runtime.selectnbrecv2", "runtime.newproc":
			rs = append(rs, [2]uint64{s.Value, s.Value + s.Size})
		}
	}
	return rs
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

// syncRangesOrNil is s.syncRanges when a node has some (reports of other
// specs stay as they were).
func syncRangesOrNil(s *Spec) [][][2]uint64 {
	for _, rs := range s.syncRanges {
		if len(rs) > 0 {
			return s.syncRanges
		}
	}
	return nil
}

// checkSyncRanges checks one node's ranges as a report gives them: few
// enough, each not empty, sorted and disjoint.
func checkSyncRanges(rs [][2]uint64) error {
	if len(rs) > maxSyncRanges {
		return fmt.Errorf("%d ranges (at most %d)", len(rs), maxSyncRanges)
	}
	for i, r := range rs {
		if r[1] <= r[0] || i > 0 && r[0] < rs[i-1][1] {
			return fmt.Errorf("range %d [%#x, %#x) is empty or out of order", i, r[0], r[1])
		}
	}
	return nil
}
