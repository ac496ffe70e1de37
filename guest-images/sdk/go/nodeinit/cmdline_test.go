package nodeinit

import "testing"

func TestTheCommandLineKeepsKeyValueWordsAndTheLastOfAKey(t *testing.T) {
	c := ParseCmdline("console=ttyS0 quiet everett.node=1 kv.ops=10 kv.ops=20 empty=")
	want := Cmdline{"console": "ttyS0", "everett.node": "1", "kv.ops": "20", "empty": ""}
	if len(c) != len(want) {
		t.Fatalf("ParseCmdline = %v, want %v", c, want)
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %q, want %q", k, c[k], v)
		}
	}
}

func TestIntTakesTheDefaultWhenAbsentAndRejectsWhatIsOutOfRange(t *testing.T) {
	c := ParseCmdline("a=5 b=x c=-1 d=10")
	for _, tc := range []struct {
		key     string
		want    int
		wantErr string
	}{
		{"a", 5, ""},
		{"absent", 7, ""},
		{"b", 7, `b="x": not a number`},
		{"c", 7, "c=-1: want 0..9"},
		{"d", 7, "d=10: want 0..9"},
	} {
		got, err := c.Int(tc.key, 7, 0, 9)
		if got != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
			t.Errorf("Int(%q) = %d, %v; want %d, %q", tc.key, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestNodeChecksTheNodeAgainstTheClustersSize(t *testing.T) {
	for _, tc := range []struct {
		cmdline     string
		node, nodes int
		wantErr     string
	}{
		{"", 0, 3, ""},
		{"everett.node=2 everett.nodes=3", 2, 3, ""},
		{"everett.nodes=5 everett.node=4", 4, 5, ""},
		{"everett.node=3", 0, 0, "everett.node=3: want 0..2"},
		{"everett.nodes=8", 0, 0, "everett.nodes=8: want 1..7"},
		{"everett.nodes=0", 0, 0, "everett.nodes=0: want 1..7"},
	} {
		node, nodes, err := ParseCmdline(tc.cmdline).Node(3, 7)
		if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
			t.Errorf("%q: error %v, want %q", tc.cmdline, err, tc.wantErr)
			continue
		}
		if err == nil && (node != tc.node || nodes != tc.nodes) {
			t.Errorf("%q: node %d of %d, want %d of %d", tc.cmdline, node, nodes, tc.node, tc.nodes)
		}
	}
}

func TestNodeIIsAtTenDotZeroDotZeroDotIPlusOne(t *testing.T) {
	if got := IP(0); got != [4]byte{10, 0, 0, 1} {
		t.Errorf("IP(0) = %v", got)
	}
	if got := IP(6); got != [4]byte{10, 0, 0, 7} {
		t.Errorf("IP(6) = %v", got)
	}
}
