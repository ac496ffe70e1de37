package workload

import (
	"strings"
	"testing"
)

// Hand-written histories for checkHistory: each case that must be caught
// stands beside the nearest history that must pass, so a checker that
// passes everything and one that fails everything are both caught.

// ms is n milliseconds in the history's unit, nanoseconds: the helpers
// below take call and return times in milliseconds.
func ms(n int64) int64 { return n * 1e6 }

func initially(key, value string, rev int64) *record {
	r := &record{kind: opInit, key: key, worker: -1, call: -2, ret: -1, rev: rev}
	if value != "" {
		r.found, r.got = true, value
	}
	return r
}

func put(w int, key, value string, call, ret, rev int64) *record {
	return &record{worker: w, kind: opPut, key: key, value: value, call: ms(call), ret: ms(ret), rev: rev}
}

// get reads value ("" absent).
func get(w int, key, value string, call, ret int64) *record {
	r := &record{worker: w, kind: opGet, key: key, call: ms(call), ret: ms(ret)}
	if value != "" {
		r.found, r.got = true, value
	}
	return r
}

func cas(w int, key, expect, value string, swapped bool, call, ret, rev int64) *record {
	return &record{worker: w, kind: opCAS, key: key, expect: expect, value: value, swapped: swapped, call: ms(call), ret: ms(ret), rev: rev}
}

func del(w int, key string, deleted, call, ret, rev int64) *record {
	return &record{worker: w, kind: opDelete, key: key, deleted: deleted, call: ms(call), ret: ms(ret), rev: rev}
}

// unknown makes r an operation without a known outcome (it timed out).
func unknown(r *record) *record {
	r.ret, r.err = -1, "context deadline exceeded"
	return r
}

func TestCheckHistoryCatchesWhatItMustAndPassesTheLinearizableNeighbour(t *testing.T) {
	for _, c := range []struct {
		name    string
		history []*record
		want    string // the violation's summary, "" linearizable
	}{
		{
			"a read after a completed write that returns the value before it (a stale, serializable read) is not linearizable",
			[]*record{initially("k0", "", 1), put(0, "k0", "a", 10, 20, 2), put(1, "k0", "b", 30, 40, 3), get(2, "k0", "a", 50, 60)},
			"key k0: no order of its 4 operations agrees with every result",
		},
		{
			"a read after a completed write that returns it is linearizable",
			[]*record{initially("k0", "", 1), put(0, "k0", "a", 10, 20, 2), put(1, "k0", "b", 30, 40, 3), get(2, "k0", "b", 50, 60)},
			"",
		},
		{
			"a read concurrent with the newer write may return the older value",
			[]*record{initially("k0", "", 1), put(0, "k0", "a", 10, 20, 2), put(1, "k0", "b", 30, 55, 3), get(2, "k0", "a", 50, 60)},
			"",
		},
		{
			"a read after a completed write that finds the key absent as it was before is not linearizable",
			[]*record{initially("k0", "", 1), put(0, "k0", "a", 10, 20, 2), get(1, "k0", "", 30, 40)},
			"key k0: no order of its 3 operations agrees with every result",
		},
		{
			"two CAS from the same old value that both swap (a lost CAS) are not linearizable",
			[]*record{initially("k0", "v0", 1), cas(0, "k0", "v0", "x", true, 10, 20, 2), cas(1, "k0", "v0", "y", true, 30, 40, 3)},
			"key k0: no order of its 3 operations agrees with every result",
		},
		{
			"two concurrent CAS from the same old value that both swap are not linearizable",
			[]*record{initially("k0", "v0", 1), cas(0, "k0", "v0", "x", true, 10, 40, 2), cas(1, "k0", "v0", "y", true, 15, 35, 3)},
			"key k0: no order of its 3 operations agrees with every result",
		},
		{
			"two CAS from the same old value of which the second fails are linearizable",
			[]*record{initially("k0", "v0", 1), cas(0, "k0", "v0", "x", true, 10, 20, 2), cas(1, "k0", "v0", "y", false, 30, 40, 2)},
			"",
		},
		{
			"a CAS from absent on an absent key that fails is not linearizable",
			[]*record{initially("k0", "", 1), cas(0, "k0", "", "x", false, 10, 20, 1)},
			"key k0: no order of its 2 operations agrees with every result",
		},
		{
			"a CAS from absent after a delete swaps",
			[]*record{initially("k0", "v0", 1), del(0, "k0", 1, 10, 20, 2), cas(1, "k0", "", "x", true, 30, 40, 3), get(2, "k0", "x", 50, 60)},
			"",
		},
		{
			"a write without a known outcome may take effect after it was called, even after a later write",
			[]*record{initially("k0", "", 1), unknown(put(0, "k0", "a", 10, 0, 0)), put(1, "k0", "b", 30, 40, 3), get(2, "k0", "a", 50, 60)},
			"",
		},
		{
			"a write without a known outcome cannot take effect before it was called",
			[]*record{initially("k0", "", 1), get(2, "k0", "a", 1, 5), unknown(put(0, "k0", "a", 10, 0, 0))},
			"key k0: no order of its 3 operations agrees with every result",
		},
		{
			"a failed read says nothing",
			[]*record{initially("k0", "", 1), put(0, "k0", "a", 10, 20, 2), unknown(get(1, "k0", "zz", 30, 0))},
			"",
		},
		{
			"keys are checked apart, and the first that fails in name order is named",
			[]*record{
				initially("k0", "", 1), initially("k1", "", 1), initially("k2", "", 1),
				put(0, "k2", "c", 10, 20, 2), get(1, "k2", "", 30, 40),
				put(0, "k1", "b", 10, 20, 3), get(1, "k1", "", 30, 40),
				put(0, "k0", "a", 10, 20, 4), get(1, "k0", "a", 30, 40),
			},
			"key k1: no order of its 3 operations agrees with every result",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := checkHistory(c.history)
			switch {
			case c.want == "" && v != nil:
				t.Fatalf("violation %q, want none", v.summary)
			case c.want != "" && v == nil:
				t.Fatalf("no violation, want %q", c.want)
			case c.want != "" && v.summary != c.want:
				t.Fatalf("violation %q, want %q", v.summary, c.want)
			}
		})
	}
}

// The violation lists the key's operations by call time, as the client
// prints them under its NOT LINEARIZABLE line.
func TestAViolationListsTheKeysOperationsByCallTime(t *testing.T) {
	stale := get(2, "k0", "a", 50, 60)
	history := []*record{stale, put(1, "k0", "b", 30, 40, 3), put(0, "k0", "a", 10, 20, 2), initially("k0", "", 1), put(0, "k1", "x", 1, 2, 5)}
	v := checkHistory(history)
	if v == nil {
		t.Fatal("the stale read was not caught")
	}
	var lines []string
	for _, r := range v.ops {
		lines = append(lines, r.String())
	}
	want := []string{
		`k0 held absent before the workload (revision 1, member 0)`,
		`worker 0 put k0=a called 0.010000 s, returned 0.020000 s (revision 2, member 0)`,
		`worker 1 put k0=b called 0.030000 s, returned 0.040000 s (revision 3, member 0)`,
		`worker 2 get k0 called 0.050000 s, returned 0.060000 s: "a" (revision 0, member 0)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("operations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
