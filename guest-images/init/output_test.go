package main

import (
	"bytes"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

func TestTheTailKeepsTheLast20Lines(t *testing.T) {
	var tl tail
	var want strings.Builder
	for i := 1; i <= 25; i++ {
		tl.add([]byte(fmt.Sprintf("line %d", i)))
		if i > 5 {
			fmt.Fprintf(&want, "line %d\n", i)
		}
	}
	if got := tl.String(); got != want.String() {
		t.Errorf("tail = %q; want %q", got, want.String())
	}
}

func TestTheTailKeepsAtMost2048Bytes(t *testing.T) {
	var tl tail
	for i := range 10 {
		tl.add(bytes.Repeat([]byte{byte('a' + i)}, 300))
	}
	got := tl.String()
	// 301 bytes a line with its newline: 6 fit in 2048, 7 do not.
	if len(got) != 6*301 || !strings.HasPrefix(got, strings.Repeat("e", 300)) {
		t.Errorf("tail of %d bytes starting %q", len(got), got[:10])
	}
	tl.add(bytes.Repeat([]byte("x"), 5000))
	got = tl.String()
	if len(got) != tailBytesMax || got != strings.Repeat("x", tailBytesMax-1)+"\n" {
		t.Errorf("after a 5000-byte line the tail has %d bytes", len(got))
	}
}

func TestOutputIsCopiedLineByLineAndALongLineInPieces(t *testing.T) {
	var out bytes.Buffer
	con := newConsole(&out)
	var tl tail
	long := strings.Repeat("y", lineBytesMax+10)
	in := "first\nsecond\r\n" + long + "\nno newline at the end"
	if err := copyLines(strings.NewReader(in), con, &tl); err != nil {
		t.Fatal(err)
	}
	con.flush()
	want := "first\nsecond\r\n" + long[:lineBytesMax] + "\n" + long[lineBytesMax:] + "\nno newline at the end\n"
	if out.String() != want {
		t.Errorf("console got %q", out.String())
	}
	if !strings.HasSuffix(tl.String(), "yyyyyyyyyy\nno newline at the end\n") {
		t.Errorf("tail %q", tl.String())
	}
}

func TestTruncateCutsOnARuneBoundaryAndMarksTheCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 8, "abcde…"},
		{"ééééé", 8, "éé…"}, // é is 2 bytes: 5 bytes left for text, cut back to 4
	} {
		if got := truncate(c.s, c.n); got != c.want || len(got) > max(c.n, len(c.s)) {
			t.Errorf("truncate(%q, %d) = %q; want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestSignalsAreNamedAsLinuxNamesThem(t *testing.T) {
	for sig, want := range map[syscall.Signal]string{
		syscall.SIGSEGV: "SIGSEGV", syscall.SIGKILL: "SIGKILL", 31: "SIGSYS",
		35: "SIGRTMIN+1", 0: "signal 0", 99: "signal 99",
	} {
		if got := signalName(sig); got != want {
			t.Errorf("signalName(%d) = %q; want %q", int(sig), got, want)
		}
	}
}

func TestArgvIsQuotedForAPersonOnlyWhereAShellWouldNeedIt(t *testing.T) {
	got := shellQuote([]string{"/usr/bin/server", "--port=2379", "echo hi; exit 3", "", "it's"})
	want := `/usr/bin/server --port=2379 'echo hi; exit 3' '' 'it'\''s'`
	if got != want {
		t.Errorf("shellQuote = %s; want %s", got, want)
	}
}
