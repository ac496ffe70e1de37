package gdbstub

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// ackResendsMax bounds how often the server sends one reply again when gdb
// answers ‘-’; after that it goes on as if gdb had received it.
const ackResendsMax = 8

// eventQueueLen bounds the events the reader hands on ahead of the server.
const eventQueueLen = 16

// Serve speaks RSP with one gdb over conn until gdb detaches or kills (or
// the connection closes), and returns nil then. Malformed or hostile input
// never panics: it gets an error reply (E01-style) or is ignored as the
// protocol says. Serve returns an error when writing to conn fails or
// Target.Resume fails.
//
// Serve reads conn in a goroutine of its own, so that a Ctrl-C reaches
// Target.Interrupt while Resume runs. That goroutine ends when a read
// returns an error: the caller closes conn after Serve returns.
func Serve(conn io.ReadWriter, t Target, o Options) error {
	s := &session{
		conn:   conn,
		t:      t,
		log:    &logger{w: o.Log},
		events: make(chan event, eventQueueLen),
		done:   make(chan struct{}),
		intr:   &interrupter{t: t},
	}
	defer close(s.done)
	go s.read(conn)
	s.stopTid = t.Stopped().Thread
	if tids := t.Threads(); s.stopTid < 1 && len(tids) > 0 {
		s.stopTid = tids[0]
	}
	return s.run()
}

// session is the server's state for one gdb.
type session struct {
	conn   io.Writer
	t      Target
	log    *logger
	events chan event
	done   chan struct{} // closed when Serve returns: the reader stops handing on events
	intr   *interrupter

	noAck   bool   // QStartNoAckMode is in effect
	pending *event // an event that came while a reply waited for its ack
	seq     uint64 // the number of packets taken so far (the reader's count, see interrupter)
	out     []byte // the frame buffer, reused

	stopTid    int // the thread of the current stop
	gTid       int // Hg: the thread of g, p, m and the rest; 0 or -1 mean stopTid
	cTid       int // Hc: the thread to resume; 0 or -1 mean gTid's thread
	threadNext int // where qsThreadInfo goes on in Threads()
}

// read hands gdb's bytes on as events until the connection fails. A Ctrl-C
// goes straight to the interrupter, since the session may be waiting in
// Resume; read counts the packets, as the session does, so that the
// interrupter knows which packet a Ctrl-C came after.
func (s *session) read(r io.Reader) {
	var f framer
	var seq uint64
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			ev, ok := f.feed(b)
			if !ok {
				continue
			}
			switch ev.kind {
			case evInterrupt:
				s.log.line("<- ", []byte{interruptByte})
				s.intr.interrupt(seq)
				continue
			case evPacket, evBadChecksum, evTooLong:
				seq++
			}
			if !s.hand(ev) {
				return
			}
		}
		if err != nil {
			s.hand(event{kind: evClosed, err: err})
			return
		}
	}
}

// hand gives ev to the session, unless Serve has returned.
func (s *session) hand(ev event) bool {
	select {
	case s.events <- ev:
		return true
	case <-s.done:
		return false
	}
}

// next is the next event from gdb.
func (s *session) next() event {
	if ev := s.pending; ev != nil {
		s.pending = nil
		return *ev
	}
	return <-s.events
}

// run answers packets until the session ends.
func (s *session) run() error {
	for {
		ev := s.next()
		switch ev.kind {
		case evClosed:
			if errors.Is(ev.err, io.EOF) || errors.Is(ev.err, net.ErrClosed) || errors.Is(ev.err, io.ErrClosedPipe) {
				return nil
			}
			return fmt.Errorf("gdbstub: read from gdb: %w", ev.err)
		case evAck, evNack:
			// An acknowledgment nothing waits for.
		case evBadChecksum:
			s.seq++
			s.log.line("<- ", []byte("(bad checksum)"))
			if !s.noAck {
				if err := s.write([]byte{'-'}); err != nil {
					return err
				}
			}
		case evTooLong:
			s.seq++
			s.log.line("<- ", []byte("(packet too long)"))
			if err := s.ack(); err != nil {
				return err
			}
			if err := s.reply("E01"); err != nil {
				return err
			}
		case evPacket:
			s.seq++
			s.log.line("<- ", ev.data)
			if err := s.ack(); err != nil {
				return err
			}
			end, err := s.dispatch(ev.data)
			if err != nil || end {
				return err
			}
		}
	}
}

// ack acknowledges a packet, unless acknowledgments are off.
func (s *session) ack() error {
	if s.noAck {
		return nil
	}
	return s.write([]byte{'+'})
}

// reply sends one packet and, with acknowledgments on, waits for gdb's ‘+’,
// sending it again on ‘-’. A packet from gdb instead of the ‘+’ acknowledges
// it too (gdb only sends one after reading the reply); it is kept for run.
func (s *session) reply(data string) error {
	return s.replyBytes([]byte(data))
}

// replyBytes is reply for binary data.
func (s *session) replyBytes(data []byte) error {
	s.log.line("-> ", data)
	s.out = frame(s.out[:0], data)
	if err := s.write(s.out); err != nil {
		return err
	}
	for resends := 0; !s.noAck; {
		ev := s.next()
		switch ev.kind {
		case evAck:
			return nil
		case evNack:
			if resends++; resends > ackResendsMax {
				return nil
			}
			if err := s.write(s.out); err != nil {
				return err
			}
		default:
			s.pending = &ev
			return nil
		}
	}
	return nil
}

// write sends raw bytes to gdb.
func (s *session) write(b []byte) error {
	if _, err := s.conn.Write(b); err != nil {
		return fmt.Errorf("gdbstub: write to gdb: %w", err)
	}
	return nil
}

// console prints text on gdb's console as O packets (Remote Protocol,
// "Stop Reply Packets", ‘O XX…’), split to fit the packet size.
func (s *session) console(text string) error {
	const chunkBytes = (packetBytesMax - 1) / 2
	for len(text) > 0 {
		n := min(len(text), chunkBytes)
		if err := s.reply("O" + hexString([]byte(text[:n]))); err != nil {
			return err
		}
		text = text[n:]
	}
	return nil
}

// interrupter delivers gdb's Ctrl-C to the target. The reader calls
// interrupt, the session brackets each Resume with begin and end.
//
// A Ctrl-C can come before the session has started the Resume it is meant
// for: gdb sends ‘c’ and the user presses Ctrl-C at once. The interrupter
// then remembers the number of the last packet read before the Ctrl-C, and
// begin, called for that same packet, reports it pending. A Ctrl-C followed
// by another packet belongs to no resume and is dropped, as the protocol
// lets a stub do while the target is stopped.
type interrupter struct {
	t        Target
	mu       sync.Mutex
	resuming bool
	after    uint64 // the packet a pending Ctrl-C came after
	pending  bool
}

// interrupt is the reader's report of a Ctrl-C read after packet seq.
func (in *interrupter) interrupt(seq uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.resuming {
		in.t.Interrupt()
		return
	}
	in.after, in.pending = seq, true
}

// begin starts a resume for packet seq and reports whether a Ctrl-C came
// for it already.
func (in *interrupter) begin(seq uint64) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.resuming = true
	was := in.pending && in.after == seq
	in.pending = false
	return was
}

// end says that Resume returned.
func (in *interrupter) end() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.resuming = false
}

// logger writes the packet log of Options.Log. The reader and the session
// both write to it.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

// line logs one packet after its direction, with bytes that are not
// printable ASCII (and the backslash) as \xNN so that each packet stays on one line.
func (l *logger) line(dir string, data []byte) {
	if l.w == nil {
		return
	}
	b := []byte(dir)
	for _, c := range data {
		if c >= ' ' && c < 0x7f && c != '\\' {
			b = append(b, c)
			continue
		}
		b = fmt.Appendf(b, "\\x%02x", c)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(b) //nolint:errcheck // the log is best effort
}
