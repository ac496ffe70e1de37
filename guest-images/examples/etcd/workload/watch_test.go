package workload

import (
	"testing"
)

// Hand-written watches and HashKV answers for checkWatch and
// compareHashes, each failure beside the passing case nearest to it.

// watchHistory is a workload that started after revision 1 and wrote
// revisions 2 to 5: put k0=a, put k1=b, a CAS of k1 from b to c, delete k0;
// a failed CAS and a read between them wrote nothing.
func watchHistory() []*record {
	return []*record{
		initially("k0", "", 1), initially("k1", "", 1),
		put(0, "k0", "a", 10, 20, 2),
		put(1, "k1", "b", 30, 40, 3),
		cas(2, "k1", "zz", "q", false, 45, 48, 3),
		get(0, "k1", "b", 46, 49),
		cas(2, "k1", "b", "c", true, 50, 60, 4),
		del(0, "k0", 1, 70, 80, 5),
	}
}

// allEvents are the events a watch from revision 2 must report for
// watchHistory.
func allEvents() []event {
	return []event{
		{rev: 2, key: "k0", value: "a"},
		{rev: 3, key: "k1", value: "b"},
		{rev: 4, key: "k1", value: "c"},
		{rev: 5, key: "k0", del: true},
	}
}

func TestCheckWatchCatchesWhatItMustAndPassesTheCompleteWatch(t *testing.T) {
	for _, c := range []struct {
		name    string
		history []*record
		events  func([]event) []event
		want    string
	}{
		{
			"a watch that reports every write once, in order, passes",
			watchHistory(), func(e []event) []event { return e }, "",
		},
		{
			"a watch that skips a revision fails naming the write it missed",
			watchHistory(), func(e []event) []event { return append(e[:2:2], e[3:]...) },
			"no event for the write acknowledged at revision 4: worker 2 cas k1 \"b\"->\"c\" called 0.050000 s, returned 0.060000 s: swapped=true (revision 4, member 0)",
		},
		{
			"a watch that skips a delete fails",
			watchHistory(), func(e []event) []event { return e[:3] },
			"no event for the write acknowledged at revision 5: worker 0 delete k0 called 0.070000 s, returned 0.080000 s (revision 5, member 0)",
		},
		{
			"a watch may skip a write whose outcome is unknown",
			append(watchHistory(), unknown(put(1, "k2", "d", 90, 0, 0))), func(e []event) []event { return e }, "",
		},
		{
			"a watch may report a write whose outcome is unknown",
			append(watchHistory(), unknown(put(1, "k2", "d", 90, 0, 0))),
			func(e []event) []event { return append(e, event{rev: 6, key: "k2", value: "d"}) }, "",
		},
		{
			"a watch need not report the revisions before the workload",
			append(watchHistory(), put(1, "k2", "old", 0, 0, 1)), func(e []event) []event { return e }, "",
		},
		{
			"a watch that reports a revision twice fails",
			watchHistory(), func(e []event) []event { return append(e[:3:3], e[2], e[3]) },
			"event 3 (revision 4, k1) came after revision 4: reordered or duplicated",
		},
		{
			"a watch that reports revisions out of order fails",
			watchHistory(), func(e []event) []event { return []event{e[0], e[2], e[1], e[3]} },
			"event 2 (revision 3, k1) came after revision 4: reordered or duplicated",
		},
		{
			"a watch that reports a value nobody wrote fails",
			watchHistory(), func(e []event) []event { e[1].value = "nobody"; return e },
			`event at revision 3 puts k1="nobody", which no operation wrote`,
		},
		{
			"a watch that reports another write's value at an acknowledged revision fails",
			watchHistory(), func(e []event) []event { e[2].value = "b"; return e },
			"event at revision 4 (k1 \"b\", delete false) is not the write acknowledged at that revision: worker 2 cas k1 \"b\"->\"c\" called 0.050000 s, returned 0.060000 s: swapped=true (revision 4, member 0)",
		},
		{
			"a watch that reports a put where a delete was acknowledged fails",
			watchHistory(), func(e []event) []event { e[3] = event{rev: 5, key: "k0", value: "a"}; return e },
			"event at revision 5 (k0 \"a\", delete false) is not the write acknowledged at that revision: worker 0 delete k0 called 0.070000 s, returned 0.080000 s (revision 5, member 0)",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &watchLog{events: c.events(allEvents())}
			if got := checkWatch(w, c.history); got != c.want {
				t.Fatalf("checkWatch: %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestCompareHashesWantsAtLeastTwoAnswersThatAgree(t *testing.T) {
	eps := []string{"http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://10.0.0.3:2379"}
	for _, c := range []struct {
		name   string
		hashes map[string]uint32
		want   string
	}{
		{"every member answering with the same hash passes",
			map[string]uint32{eps[0]: 0xabcd, eps[1]: 0xabcd, eps[2]: 0xabcd}, ""},
		{"two members answering with the same hash pass, the third cut off",
			map[string]uint32{eps[0]: 0xabcd, eps[2]: 0xabcd}, ""},
		{"a member with another hash fails, named with the first member that answered",
			map[string]uint32{eps[0]: 0xabcd, eps[1]: 0xabcd, eps[2]: 0x1234},
			"HashKV at revision 7: http://10.0.0.1:2379 has 0000abcd, http://10.0.0.3:2379 has 00001234"},
		{"two members that answered and disagree fail",
			map[string]uint32{eps[1]: 0xabcd, eps[2]: 0x1234},
			"HashKV at revision 7: http://10.0.0.2:2379 has 0000abcd, http://10.0.0.3:2379 has 00001234"},
		{"one answer is too few to compare",
			map[string]uint32{eps[1]: 0xabcd},
			"HashKV at revision 7: 1 of 3 members answered within 5s, too few to compare (want at least 2)"},
		{"no answer is too few to compare",
			map[string]uint32{},
			"HashKV at revision 7: 0 of 3 members answered within 5s, too few to compare (want at least 2)"},
		{"an answer from no member of the cluster does not count",
			map[string]uint32{eps[1]: 0xabcd, "http://10.9.9.9:2379": 0xabcd},
			"HashKV at revision 7: 1 of 3 members answered within 5s, too few to compare (want at least 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := compareHashes(eps, c.hashes, 7); got != c.want {
				t.Fatalf("compareHashes: %q\nwant %q", got, c.want)
			}
		})
	}
}
