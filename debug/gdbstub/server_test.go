package gdbstub

import (
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFramerFindsPacketsAcksAndInterruptsInTheByteStream(t *testing.T) {
	long := "$" + strings.Repeat("a", packetBytesMax+1) + "#" + fmt.Sprintf("%02x", 'a'*(packetBytesMax+1)%256)
	for _, tc := range []struct {
		name, in string
		want     []string // one per event: kind, and data for packets
	}{
		{"a packet with its checksum is a packet", "$g#67", []string{"packet g"}},
		{"checksum digits may be upper case", "$qC#B4", []string{"packet qC"}},
		{"a wrong checksum is a bad checksum", "$g#68", []string{"bad"}},
		{"a checksum that is not hex is a bad checksum", "$g#6z", []string{"bad"}},
		{"acks, nacks and Ctrl-C come between packets", "+-\x03", []string{"ack", "nack", "interrupt"}},
		{"noise between packets is ignored", "xyz\n$g#67", []string{"packet g"}},
		{"a $ inside a packet starts it again", "$qfoo$g#67", []string{"packet g"}},
		{"0x03 inside a packet is data", "$\x03#03", []string{"packet \x03"}},
		{"a star in a command is data, not run-length encoding", "$0* #7a", []string{"packet 0* "}},
		{"a packet longer than the limit is refused whole", long + "$g#67", []string{"too long", "packet g"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f framer
			var got []string
			for _, b := range []byte(tc.in) {
				ev, ok := f.feed(b)
				if !ok {
					continue
				}
				got = append(got, map[eventKind]string{
					evPacket: "packet " + string(ev.data), evBadChecksum: "bad", evTooLong: "too long",
					evAck: "ack", evNack: "nack", evInterrupt: "interrupt",
				}[ev.kind])
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFrameEscapesWhatWouldBreakFramingAndUnescapeUndoesIt(t *testing.T) {
	data := []byte("a$b#c}d*e\x03")
	p := frame(nil, data)
	if got, want := string(p), "$a}\x04b}\x03c}]d}\ne\x03#"; !strings.HasPrefix(got, want) {
		t.Fatalf("frame = %q, want prefix %q", got, want)
	}
	var f framer
	var ev event
	for _, b := range p {
		if e, ok := f.feed(b); ok {
			ev = e
		}
	}
	if ev.kind != evPacket {
		t.Fatalf("the framer did not take the server's own packet: %v", ev.kind)
	}
	back, ok := unescape(ev.data)
	if !ok || string(back) != string(data) {
		t.Errorf("unescape = %q, %v; want %q", back, ok, data)
	}
	if escapedLen(data) != len(ev.data) {
		t.Errorf("escapedLen = %d, want %d", escapedLen(data), len(ev.data))
	}
	if _, ok := unescape([]byte("ab}")); ok {
		t.Errorf("unescape accepted a trailing escape")
	}
}

func TestTargetXMLIsWellFormedAndNumbersEveryRegister(t *testing.T) {
	var doc struct {
		Arch     string `xml:"architecture"`
		Features []struct {
			Name string `xml:"name,attr"`
			Regs []struct {
				Name    string `xml:"name,attr"`
				Regnum  int    `xml:"regnum,attr"`
				Bitsize int    `xml:"bitsize,attr"`
			} `xml:"reg"`
		} `xml:"feature"`
	}
	if err := xml.Unmarshal(targetXML, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Arch != "riscv:rv64" {
		t.Errorf("architecture %q", doc.Arch)
	}
	var names []string
	n := 0
	for _, f := range doc.Features {
		names = append(names, f.Name)
		for _, r := range f.Regs {
			if r.Regnum != n || r.Name != regTable[n].name || r.Bitsize != 64 {
				t.Errorf("register %d is %+v, want %s", n, r, regTable[n].name)
			}
			n++
		}
	}
	if want := "[org.gnu.gdb.riscv.cpu org.gnu.gdb.riscv.fpu org.gnu.gdb.riscv.virtual org.gnu.gdb.riscv.csr]"; fmt.Sprint(names) != want {
		t.Errorf("features %v, want %s", names, want)
	}
	for _, c := range []struct {
		n    int
		name string
	}{{0, "zero"}, {8, "fp"}, {32, "pc"}, {33, "ft0"}, {64, "ft11"}, {65, "fflags"}, {67, "fcsr"}, {68, "priv"}, {69, "sstatus"}} {
		if regTable[c.n].name != c.name {
			t.Errorf("register %d is %s, want %s", c.n, regTable[c.n].name, c.name)
		}
	}
}

func TestQueriesAnswerAsTheManualSays(t *testing.T) {
	c := serve(t, newFake(3))
	if got := c.ask("qSupported:multiprocess+;swbreak+;hwbreak+"); !strings.HasPrefix(got, "PacketSize=1000;") ||
		!strings.Contains(got, "ReverseContinue+") || !strings.Contains(got, "qXfer:features:read+") {
		t.Errorf("qSupported = %q", got)
	}
	for _, tc := range []struct{ pkt, want string }{
		{"?", "T05thread:1;"},
		{"qAttached", "1"},
		{"qAttached:1", "1"},
		{"qC", "QC1"},
		{"qfThreadInfo", "m1,2,3"},
		{"qsThreadInfo", "l"},
		{"qThreadExtraInfo,2", hex.EncodeToString([]byte("hart 1, S-mode"))},
		{"qThreadExtraInfo,9", "E01"},
		{"qThreadExtraInfo,zz", "E01"},
		{"qOffsets", "Text=0;Data=0;Bss=0"},
		{"qSymbol::", "OK"},
		{"qTStatus", ""},
		{"vMustReplyEmpty", ""},
		{"vCont?", "vCont;c;C;s;S"},
		{"vFile:setfs:0", ""},
		{"!", ""},
		{"T2", "OK"},
		{"T9", "E01"},
		{"T-1", "E01"},
		{"Tp1.1", "E01"},
		{"qXfer:threads:read::0,100", ""},
		{"qXfer:features:read:other.xml:0,100", "E00"},
		{"qXfer:features:read:target.xml:0,0", "E01"},
		{"qXfer:features:read:target.xml:zz", "E01"},
		{fmt.Sprintf("qXfer:features:read:target.xml:%x,10", len(targetXML)), "l"},
	} {
		c.expect(tc.pkt, tc.want)
	}
}

func TestTargetXMLArrivesWholeInPiecesOfTheLengthAsked(t *testing.T) {
	c := serve(t, newFake(1))
	var doc []byte
	for range 1000 {
		got := c.ask(fmt.Sprintf("qXfer:features:read:target.xml:%x,200", len(doc)))
		if len(got) == 0 || got[0] != 'm' && got[0] != 'l' || len(got)-1 > 0x200 {
			t.Fatalf("qXfer reply %q", got)
		}
		part, ok := unescape([]byte(got[1:]))
		if !ok {
			t.Fatalf("qXfer reply %q is badly escaped", got)
		}
		doc = append(doc, part...)
		if got[0] == 'l' {
			break
		}
	}
	if string(doc) != string(targetXML) {
		t.Errorf("reassembled target.xml differs:\n%s", doc)
	}
}

func TestThreadListsLongerThanAPacketComeInSeveralReplies(t *testing.T) {
	f := newFake(1)
	for tid := 2; tid <= 2000; tid++ {
		f.ids = append(f.ids, tid)
	}
	c := serve(t, f)
	var ids []string
	for reply := c.ask("qfThreadInfo"); reply != "l"; reply = c.ask("qsThreadInfo") {
		if reply[0] != 'm' || len(reply) > packetBytesMax {
			t.Fatalf("thread info reply %.20q… of %d bytes", reply, len(reply))
		}
		ids = append(ids, strings.Split(reply[1:], ",")...)
	}
	if len(ids) != 2000 || ids[0] != "1" || ids[1999] != fmt.Sprintf("%x", 2000) {
		t.Errorf("%d thread ids, from %s to %s", len(ids), ids[0], ids[len(ids)-1])
	}
}

func TestHSelectsTheThreadOfRegistersAndMemory(t *testing.T) {
	c := serve(t, newFake(3))
	pc := func(tid int) string { return regHex(fakeBase + 16*uint64(tid-1)) }
	c.expect("p20", pc(1))
	c.expect("Hg2", "OK")
	c.expect("p20", pc(2))
	c.expect("Hg0", "OK") // any: the stop's thread
	c.expect("p20", pc(1))
	c.expect("Hg3", "OK")
	c.expect("Hg-1", "OK") // all: the stop's thread
	c.expect("p20", pc(1))
	for _, bad := range []string{"Hg9", "Hgzz", "Hg", "Hx1", "Hgp1.2"} {
		c.expect(bad, "E01")
	}
	c.expect("Hc3", "OK")
	c.expect("Hc-1", "OK")
}

func TestRegistersReadAndWriteThroughGGpAndP(t *testing.T) {
	f := newFake(2)
	c := serve(t, f)
	g := c.ask("g")
	if len(g) != gRegCount*16 {
		t.Fatalf("g reply has %d hex digits, want %d", len(g), gRegCount*16)
	}
	if g[:16] != regHex(0) || g[16:32] != regHex(0x101) || g[32*16:] != regHex(fakeBase) {
		t.Errorf("g = %s", g)
	}
	// G writes back every register; x1 changes.
	c.expect("G"+g[:16]+regHex(0x1234)+g[32:], "OK")
	c.expect("p1", regHex(0x1234))
	for _, tc := range []struct {
		n    int
		want string
	}{
		{33 + 1, regHex(0x3ff0_0000_0000_0000)}, // ft1
		{65, regHex(0)},                         // fflags
		{68, regHex(3)},                         // priv
		{69, unavailableReg},                    // sstatus: the fake has none
		{69 + 10, regHex(0xa_0000_0080)},        // mstatus
	} {
		c.expect(fmt.Sprintf("p%x", tc.n), tc.want)
	}
	c.expect(fmt.Sprintf("p%x", len(regTable)), "E01")
	c.expect("p", "E01")
	c.expect("P20="+regHex(fakeBase+8), "OK")
	c.expect("p20", regHex(fakeBase+8))
	c.expect("P45="+regHex(1), "E01") // sstatus: the target refuses
	c.expect("P20=12", "E01")
	c.expect("P20", "E01")
	c.expect("G00", "E01")
	c.expect("G"+strings.Repeat("zz", gRegCount*8), "E01")
	c.expect("gx", "E01")
	c.expect("Hg2", "OK")
	c.expect("p44", regHex(1)) // priv of thread 2
}

func TestMemoryReadsAndWritesWithMMAndX(t *testing.T) {
	f := newFake(1)
	c := serve(t, f)
	c.expect("m80001000,8", "0100000000000000")
	c.expect(fmt.Sprintf("m%x,8", fakeBase+fakeMemSize-4), "00000000") // a partial read
	c.expect("m1000,4", "E01")
	c.expect("m80001000,0", "E01")
	c.expect("m80001000", "E01")
	c.expect("m80001000,zz", "E01")
	if got := c.ask("m80000000,100000"); len(got) != packetBytesMax {
		t.Errorf("a read longer than a packet gave %d hex digits, want %d", len(got), packetBytesMax)
	}
	c.expect("M80001000,2:abcd", "OK")
	c.expect("m80001000,2", "abcd")
	c.expect("M80001000,2:abc", "E01")
	c.expect("M80001000,2:zzzz", "E01")
	c.expect("M1000,1:00", "E01")
	c.expect("X80001000,0:", "OK") // gdb's probe for X
	// Binary data with every byte that needs an escape.
	c.expect("X80001000,5:}\x03}\x04}]}\na", "OK")
	c.expect("m80001000,5", hex.EncodeToString([]byte("#$}*a")))
	c.expect("X80001000,5:abc", "E01")
	c.expect("X80001000,1:}", "E01")
	c.expect("X80001000,1", "E01")
	c.expect("X1000,1:a", "E01")
}

func TestBreakpointsAndWatchpointsGoToTheTarget(t *testing.T) {
	f := newFake(1)
	c := serve(t, f)
	for _, tc := range []struct{ pkt, want string }{
		{"Z0,80000020,4", "OK"},
		{"Z1,80000024,2", "OK"},
		{"Z2,80001000,8", "OK"},
		{"Z3,80001000,8", ""}, // the fake does not do read watchpoints
		{"Z4,80001008,4", "OK"},
		{"Z5,0,4", ""},
		{"Z0,80000020", "E01"},
		{"Z0,80000020,4;X1,0", "E01"},
		{"Z,1,1", "E01"},
		{"z2,80001000,8", "OK"},
	} {
		c.expect(tc.pkt, tc.want)
	}
	f.mu.Lock()
	got := fmt.Sprint(f.bps)
	f.mu.Unlock()
	if want := "map[{0 2147483680}:4 {1 2147483684}:2 {4 2147487752}:4]"; got != want {
		t.Errorf("breakpoints %s, want %s", got, want)
	}
}

func TestResumePacketsBecomeTheResumesTheyMean(t *testing.T) {
	f := newFake(3)
	for range 20 {
		f.script = append(f.script, Stop{Kind: StopStep}) // the resumed thread stops
	}
	c := serve(t, f)
	steps := []struct {
		pkts []string // packets before the resume (H), then the resume
		want Resume
	}{
		{[]string{"s"}, Resume{Step: true, Thread: 1}},
		{[]string{"c"}, Resume{Thread: 1}},
		{[]string{"S05"}, Resume{Step: true, Thread: 1}},
		{[]string{"C02"}, Resume{Thread: 1}},
		{[]string{"vCont;s:2;c"}, Resume{Step: true, Thread: 2}},
		{[]string{"vCont;c"}, Resume{Thread: 2}}, // the stop's thread is now 2
		{[]string{"vCont;c:3"}, Resume{Thread: 3, Only: true}},
		{[]string{"vCont;S05:1;c"}, Resume{Step: true, Thread: 1}},
		{[]string{"vCont;s:2"}, Resume{Step: true, Thread: 2, Only: true}},
		{[]string{"vCont;c:1;c:3"}, Resume{Thread: 1}},
		{[]string{"vCont;s"}, Resume{Step: true, Thread: 1}},
		{[]string{"bs"}, Resume{Step: true, Reverse: true, Thread: 1}},
		{[]string{"bc"}, Resume{Reverse: true, Thread: 1}},
		// Hc chooses the thread; "any" leaves the choice to Hg, as gdb 13
		// expects when it sends Hc0 before bs.
		{[]string{"Hc3", "bs"}, Resume{Step: true, Reverse: true, Thread: 3, Only: true}},
		{[]string{"Hg2", "c"}, Resume{Thread: 3, Only: true}},
		{[]string{"Hc0", "Hg2", "bc"}, Resume{Reverse: true, Thread: 2}},
		{[]string{"Hc-1", "Hg1", "s"}, Resume{Step: true, Thread: 1}},
	}
	for _, s := range steps {
		pkt := s.pkts[len(s.pkts)-1]
		for _, h := range s.pkts[:len(s.pkts)-1] {
			c.expect(h, "OK")
		}
		if got := c.ask(pkt); !strings.HasPrefix(got, "T05thread:") {
			t.Errorf("%s: reply %q", pkt, got)
		}
		if got := f.received(); got[len(got)-1] != s.want {
			t.Errorf("%s resumed %+v, want %+v", s.pkts, got[len(got)-1], s.want)
		}
	}
	// Refused before the target hears of them.
	for _, pkt := range []string{"c80000000", "s80000000", "C05;80000000", "S5", "vCont;", "vCont;x", "vCont;c:9", "vCont;cc", "vCont;t:1", "vCont;s:p1.1"} {
		c.expect(pkt, "E01")
	}
	c.expect("bx", "")
	if n := len(f.received()); n != len(steps) {
		t.Errorf("the target got %d resumes, want %d", n, len(steps))
	}
}

func TestStopRepliesNameTheThreadAndTheReason(t *testing.T) {
	stops := []struct {
		stop Stop
		want string
	}{
		{Stop{Kind: StopStep, Thread: 2}, "T05thread:2;"},
		{Stop{Kind: StopBreak, Thread: 1}, "T05thread:1;swbreak:;"},
		{Stop{Kind: StopHWBreak, Thread: 1}, "T05thread:1;hwbreak:;"},
		{Stop{Kind: StopWatch, Thread: 1, Addr: 0x80001000}, "T05thread:1;watch:80001000;"},
		{Stop{Kind: StopRWatch, Thread: 1, Addr: 0x10}, "T05thread:1;rwatch:10;"},
		{Stop{Kind: StopAWatch, Thread: 1, Addr: 0x10}, "T05thread:1;awatch:10;"},
		{Stop{Kind: StopInterrupt, Thread: 3}, "T02thread:3;"},
		{Stop{Kind: StopHistoryBegin, Thread: 1}, "T05thread:1;replaylog:begin;"},
		{Stop{Kind: StopHistoryEnd, Thread: 1}, "T05thread:1;replaylog:end;"},
		{Stop{Kind: StopStep, Thread: 0}, "T05thread:1;"}, // no thread: the one that was resumed
		{Stop{Kind: StopStep, Thread: 1, Signal: 11}, "T0bthread:1;"},
		{Stop{Kind: StopStep, Thread: 1, Signal: 1000}, "T05thread:1;"},
		{Stop{Kind: StopExited, ExitCode: 3}, "W03"},
	}
	f := newFake(3)
	for _, s := range stops {
		f.script = append(f.script, s.stop)
	}
	c := serve(t, f)
	for _, s := range stops {
		c.expect("c", s.want)
	}
	c.expect("?", "W03")
}

func TestAStopsMessageReachesTheConsoleBeforeTheStopReply(t *testing.T) {
	f := newFake(1)
	long := strings.Repeat("x", packetBytesMax)
	f.script = []Stop{{Kind: StopHistoryEnd, Thread: 1, Message: "assertion failed\n"}, {Kind: StopStep, Thread: 1, Message: long}}
	c := serve(t, f)
	c.send("c")
	if got, want := c.recv(), "O"+hex.EncodeToString([]byte("assertion failed\n")); got != want {
		t.Errorf("console packet %q, want %q", got, want)
	}
	if got := c.recv(); got != "T05thread:1;replaylog:end;" {
		t.Errorf("stop reply %q", got)
	}
	c.send("c")
	var text []byte
	for {
		got := c.recv()
		if got[0] != 'O' {
			break
		}
		if len(got) > packetBytesMax {
			t.Errorf("a console packet of %d bytes", len(got))
		}
		b, _ := hex.DecodeString(got[1:])
		text = append(text, b...)
	}
	if string(text) != long {
		t.Errorf("the long message arrived as %d bytes", len(text))
	}
}

func TestMonitorCommandsPrintTheirOutputThenAnswerOK(t *testing.T) {
	c := serve(t, newFake(1))
	c.send("qRcmd," + hex.EncodeToString([]byte("icount")))
	if got, want := c.recv(), "O"+hex.EncodeToString([]byte("icount=42\n")); got != want {
		t.Errorf("monitor output %q, want %q", got, want)
	}
	if got := c.recv(); got != "OK" {
		t.Errorf("monitor reply %q", got)
	}
	c.send("qRcmd," + hex.EncodeToString([]byte("bogus")))
	if got := c.recv(); !strings.HasPrefix(got, "O") {
		t.Errorf("a failing monitor command printed %q", got)
	}
	if got := c.recv(); got != "E01" {
		t.Errorf("a failing monitor command replied %q", got)
	}
	c.expect("qRcmd,", "OK")
	c.expect("qRcmd,zz", "E01")
	c.expect("qRcmd,616", "E01")
}

func TestCtrlCDuringResumeInterruptsTheTarget(t *testing.T) {
	f := newFake(2)
	f.block = true
	c := serve(t, f)
	c.send("vCont;c")
	c.writeRaw("\x03")
	if got := c.recv(); got != "T02thread:1;" {
		t.Errorf("stop reply after Ctrl-C %q", got)
	}
	// A Ctrl-C while the target is stopped is dropped.
	c.writeRaw("\x03")
	c.expect("qC", "QC1")
}

func TestACtrlCBeforeTheResumeStartsIsKeptForIt(t *testing.T) {
	in := &interrupter{t: newFake(1)}
	in.interrupt(4)
	if in.begin(5) {
		t.Errorf("a Ctrl-C before packet 5 was kept for packet 5's resume")
	}
	in.end()
	in.interrupt(6)
	if !in.begin(6) {
		t.Errorf("a Ctrl-C after packet 6 was not kept for its resume")
	}
	in.end()
	if in.begin(6) {
		t.Errorf("a Ctrl-C was delivered twice")
	}
}

func TestNoAckModeStopsAcknowledgmentsBothWays(t *testing.T) {
	c := serve(t, newFake(1))
	c.expect("QStartNoAckMode", "OK")
	c.noAck = true
	c.expect("qC", "QC1")
	c.writeRaw("$qC#00") // a bad checksum gets no ‘-’ now: the next reply comes straight
	c.expect("qAttached", "1")
	c.expect("QNonStop:1", "")
}

func TestABadChecksumIsNackedAndTheResendAnswered(t *testing.T) {
	c := serve(t, newFake(1))
	c.writeRaw("$qC#00")
	if b := c.readByte(); b != '-' {
		t.Fatalf("a bad checksum got %q, want -", b)
	}
	c.expect("qC", "QC1")
}

func TestTheServerResendsAReplyGdbNacks(t *testing.T) {
	c := serve(t, newFake(1))
	c.send("qC")
	first := c.recvRaw()
	c.writeRaw("-")
	if again := c.recv(); again != first {
		t.Errorf("resent %q, first sent %q", again, first)
	}
	c.expect("qAttached", "1")
}

func TestAPacketLargerThanPacketSizeIsRefused(t *testing.T) {
	c := serve(t, newFake(1))
	c.expect("M80001000,1000:"+strings.Repeat("00", 0x1000), "E01")
	c.expect("qC", "QC1")
}

func TestDetachAndKillEndTheSession(t *testing.T) {
	for _, tc := range []struct{ pkt, reply string }{{"D", "OK"}, {"D;1", "OK"}, {"vKill;1", "OK"}, {"k", ""}} {
		t.Run(tc.pkt, func(t *testing.T) {
			c := serve(t, newFake(1))
			c.send(tc.pkt)
			if tc.reply != "" {
				if got := c.recv(); got != tc.reply {
					t.Errorf("reply %q, want %q", got, tc.reply)
				}
			}
			if err := c.ended(); err != nil {
				t.Errorf("Serve returned %v", err)
			}
		})
	}
}

func TestAClosedConnectionEndsTheSessionWithoutError(t *testing.T) {
	c := serve(t, newFake(1))
	c.expect("qC", "QC1")
	c.conn.Close()
	if err := c.ended(); err != nil {
		t.Errorf("Serve returned %v", err)
	}
}

// failingTarget fails every Resume.
type failingTarget struct{ *fakeTarget }

var errFail = errors.New("the machine is gone")

func (failingTarget) Resume(Resume) (Stop, error) { return Stop{}, errFail }

func TestAResumeErrorEndsTheSessionWithAnErrorReply(t *testing.T) {
	c := serve(t, failingTarget{newFake(1)})
	c.expect("c", "E01")
	if err := c.ended(); !errors.Is(err, errFail) {
		t.Errorf("Serve returned %v, want %v", err, errFail)
	}
}

func TestTheLogHasEveryPacketOnALine(t *testing.T) {
	c := serve(t, newFake(1))
	c.expect("qC", "QC1")
	c.expect("X80001000,1:\n", "OK")
	c.send("D")
	c.recv()
	c.ended()
	want := "<- qC\n-> QC1\n<- X80001000,1:\\x0a\n-> OK\n<- D\n-> OK\n"
	if got := c.log.String(); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}
