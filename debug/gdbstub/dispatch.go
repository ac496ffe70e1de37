package gdbstub

// The packets that do not move the target (Remote Protocol, "Packets",
// "General Query Packets"). Each handler returns the reply; an empty reply
// tells gdb the packet is not supported.

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Replies with a fixed text.
const (
	replyOK          = "OK"
	replyError       = "E01" // any failure: malformed packet, refused request, target error
	replyBadAnnex    = "E00" // qXfer: an annex the server does not have
	replyUnsupported = ""
)

// supported is the qSupported reply: the server's features.
var supported = fmt.Sprintf("PacketSize=%x;qXfer:features:read+;QStartNoAckMode+;"+
	"ReverseStep+;ReverseContinue+;swbreak+;hwbreak+;vContSupported+", packetBytesMax)

// dispatch answers one packet. end says the session is over (D, k, vKill).
func (s *session) dispatch(data []byte) (end bool, err error) {
	if len(data) == 0 {
		return false, s.reply(replyUnsupported)
	}
	pkt := string(data)
	switch pkt[0] {
	case 'c', 'C', 's', 'S', 'b':
		return s.resumePacket(pkt)
	case 'v':
		return s.vPacket(pkt)
	case 'k':
		// Kill has no reply (Remote Protocol, "Packets", ‘k’): the session
		// ends and the caller closes the connection.
		return true, nil
	case 'D':
		return true, s.reply(replyOK)
	case '?':
		st := s.t.Stopped()
		return false, s.reply(s.stopReply(st, s.stopTid))
	case 'Q':
		if pkt == "QStartNoAckMode" {
			// gdb still acknowledges this reply; a ‘+’ arriving after the
			// switch is ignored like any stray one.
			err := s.reply(replyOK)
			s.noAck = true
			return false, err
		}
		return false, s.reply(replyUnsupported)
	case 'X':
		// X carries binary data: it is the one packet that reads its data
		// unescaped.
		return false, s.reply(s.writeMemBinary(data[1:]))
	}
	return false, s.reply(s.answer(pkt))
}

// answer is the reply to a packet that neither moves the target nor ends
// the session.
func (s *session) answer(pkt string) string {
	switch pkt[0] {
	case 'q':
		return s.query(pkt)
	case 'H':
		return s.setThread(pkt[1:])
	case 'T':
		tid, ok := parseThread(pkt[1:])
		if !ok || !s.alive(tid) {
			return replyError
		}
		return replyOK
	case 'g':
		if len(pkt) != 1 {
			return replyError
		}
		return s.readRegs()
	case 'G':
		return s.writeRegs(pkt[1:])
	case 'p':
		return s.readReg(pkt[1:])
	case 'P':
		return s.writeReg(pkt[1:])
	case 'm':
		return s.readMem(pkt[1:])
	case 'M':
		return s.writeMem(pkt[1:])
	case 'Z', 'z':
		return s.breakpoint(pkt[0] == 'Z', pkt[1:])
	}
	return replyUnsupported
}

// query answers the q packets.
func (s *session) query(pkt string) string {
	name, args, _ := strings.Cut(pkt, ":")
	if n, a, found := strings.Cut(pkt, ","); found && !strings.Contains(n, ":") {
		name, args = n, a // qThreadExtraInfo,ID and qRcmd,HEX
	}
	switch name {
	case "qSupported":
		// gdb's own features (swbreak+ and the rest) change nothing here.
		return supported
	case "qAttached":
		// "Attached to an existing process": gdb detaches on quit rather
		// than kill the machine.
		return "1"
	case "qC":
		return fmt.Sprintf("QC%x", s.stopTid)
	case "qfThreadInfo":
		s.threadNext = 0
		return s.threadInfo()
	case "qsThreadInfo":
		return s.threadInfo()
	case "qThreadExtraInfo":
		tid, ok := parseThread(args)
		if !ok || !s.alive(tid) {
			return replyError
		}
		info := s.t.ThreadInfo(tid)
		return hexString([]byte(info[:min(len(info), packetBytesMax/2)]))
	case "qXfer":
		return s.xfer(args)
	case "qRcmd":
		return s.monitor(args)
	case "qOffsets":
		// The machine runs its images where they were linked.
		return "Text=0;Data=0;Bss=0"
	case "qSymbol":
		return replyOK
	}
	return replyUnsupported
}

// threadInfo is one reply of the qfThreadInfo/qsThreadInfo sequence: as
// many thread ids as fit, after the ones sent already, or "l" at the end.
func (s *session) threadInfo() string {
	tids := s.t.Threads()
	if s.threadNext >= len(tids) {
		return "l"
	}
	b := []byte{'m'}
	for ; s.threadNext < len(tids); s.threadNext++ {
		id := strconv.FormatInt(int64(tids[s.threadNext]), 16)
		if len(b)+1+len(id) > packetBytesMax {
			break
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, id...)
	}
	return string(b)
}

// xfer answers qXfer:features:read:ANNEX:OFFSET,LENGTH (Remote Protocol,
// "General Query Packets", qXfer) from the one document there is,
// target.xml. The reply is ‘m’ and a part of it, or ‘l’ and the last part.
func (s *session) xfer(args string) string {
	object, rest, _ := strings.Cut(args, ":")
	op, rest, _ := strings.Cut(rest, ":")
	if object != "features" || op != "read" {
		return replyUnsupported
	}
	annex, rest, _ := strings.Cut(rest, ":")
	off, n, ok := parseAddrLen(rest)
	if !ok || n == 0 {
		return replyError
	}
	if annex != "target.xml" {
		return replyBadAnnex
	}
	if off >= uint64(len(targetXML)) {
		return "l"
	}
	room := int(min(n, packetBytesMax-1))
	doc := targetXML[off:]
	end := 0
	for used := 0; end < len(doc); end++ {
		w := 1
		if needsEscape(doc[end]) {
			w = 2
		}
		if used+w > room {
			break
		}
		used += w
	}
	if end == len(doc) {
		return "l" + string(doc)
	}
	return "m" + string(doc[:end])
}

// monitor runs qRcmd,HEX: the output goes to gdb's console as O packets
// and the reply is OK; a failure's message goes there too, then E01.
func (s *session) monitor(args string) string {
	cmd, err := hex.DecodeString(args)
	if err != nil {
		return replyError
	}
	out, err := s.t.Monitor(string(cmd))
	// A console write that fails fails the reply after it too: the
	// session ends there.
	if err != nil {
		_ = s.console(err.Error() + "\n")
		return replyError
	}
	if s.console(out) != nil {
		return replyError
	}
	return replyOK
}

// setThread answers Hg and Hc.
func (s *session) setThread(args string) string {
	if len(args) < 2 {
		return replyError
	}
	tid, ok := parseThread(args[1:])
	if !ok || (tid > 0 && !s.alive(tid)) {
		return replyError
	}
	switch args[0] {
	case 'g':
		s.gTid = tid
	case 'c':
		s.cTid = tid
	default:
		return replyError
	}
	return replyOK
}

// alive reports whether tid is one of the target's threads.
func (s *session) alive(tid int) bool {
	return tid > 0 && slices.Contains(s.t.Threads(), tid)
}

// regThread is the thread of g, p, m and the rest: Hg's, or the stop's for
// "any" and "all".
func (s *session) regThread() int {
	if s.gTid > 0 {
		return s.gTid
	}
	return s.stopTid
}

// readRegs answers g: the cpu feature's registers.
func (s *session) readRegs() string {
	var b strings.Builder
	tid := s.regThread()
	for _, r := range regTable[:gRegCount] {
		if v, ok := s.t.ReadReg(tid, r.reg); ok {
			b.WriteString(regHex(v))
		} else {
			b.WriteString(unavailableReg)
		}
	}
	return b.String()
}

// writeRegs answers G, which must carry every register g does.
func (s *session) writeRegs(args string) string {
	if len(args) != gRegCount*2*regBytes {
		return replyError
	}
	vals := make([]uint64, gRegCount)
	for i := range vals {
		v, ok := parseRegHex(args[i*2*regBytes : (i+1)*2*regBytes])
		if !ok {
			return replyError
		}
		vals[i] = v
	}
	tid := s.regThread()
	for i, v := range vals {
		if s.t.WriteReg(tid, regTable[i].reg, v) != nil {
			return replyError
		}
	}
	return replyOK
}

// regNumber reads a register number of p or P.
func regNumber(s string) (regInfo, bool) {
	n, ok := parseHex(s)
	if !ok || n >= uint64(len(regTable)) {
		return regInfo{}, false
	}
	return regTable[n], true
}

// readReg answers p N.
func (s *session) readReg(args string) string {
	r, ok := regNumber(args)
	if !ok {
		return replyError
	}
	v, ok := s.t.ReadReg(s.regThread(), r.reg)
	if !ok {
		return unavailableReg
	}
	return regHex(v)
}

// writeReg answers P N=V.
func (s *session) writeReg(args string) string {
	n, val, _ := strings.Cut(args, "=")
	r, ok := regNumber(n)
	v, ok2 := parseRegHex(val)
	if !ok || !ok2 || s.t.WriteReg(s.regThread(), r.reg, v) != nil {
		return replyError
	}
	return replyOK
}

// readMem answers m ADDR,LENGTH with the bytes the target could read, fewer
// than asked if it read only part (or if they would not fit a packet).
func (s *session) readMem(args string) string {
	addr, n, ok := parseAddrLen(args)
	if !ok || n == 0 {
		return replyError
	}
	b := make([]byte, min(n, packetBytesMax/2))
	got, err := s.t.ReadMem(s.regThread(), addr, b)
	got = max(0, min(got, len(b)))
	if got == 0 && err != nil {
		return replyError
	}
	return hexString(b[:got])
}

// writeMem answers M ADDR,LENGTH:XX….
func (s *session) writeMem(args string) string {
	al, data, found := strings.Cut(args, ":")
	addr, n, ok := parseAddrLen(al)
	if !found || !ok || uint64(len(data)) != 2*n {
		return replyError
	}
	b, err := hex.DecodeString(data)
	if err != nil {
		return replyError
	}
	return s.store(addr, b)
}

// writeMemBinary answers X ADDR,LENGTH:BINARY. gdb probes for X with a
// zero length, which succeeds.
func (s *session) writeMemBinary(args []byte) string {
	i := slices.Index(args, ':')
	if i < 0 {
		return replyError
	}
	addr, n, ok := parseAddrLen(string(args[:i]))
	if !ok {
		return replyError
	}
	b, ok := unescape(args[i+1:])
	if !ok || uint64(len(b)) != n {
		return replyError
	}
	return s.store(addr, b)
}

// store writes memory for M and X.
func (s *session) store(addr uint64, b []byte) string {
	if len(b) == 0 {
		return replyOK
	}
	if s.t.WriteMem(s.regThread(), addr, b) != nil {
		return replyError
	}
	return replyOK
}

// breakpoint answers Z and z: TYPE,ADDR,KIND, where KIND is the
// breakpoint's instruction length or the watched length.
func (s *session) breakpoint(insert bool, args string) string {
	typ, al, found := strings.Cut(args, ",")
	addr, size, ok := parseAddrLen(al)
	if !found || !ok || len(typ) != 1 {
		return replyError
	}
	kind := BreakKind(typ[0] - '0')
	if typ[0] < '0' || kind > WatchAccess {
		return replyUnsupported
	}
	err := s.t.Breakpoint(kind, addr, size, insert)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return replyUnsupported
	case err != nil:
		return replyError
	}
	return replyOK
}
