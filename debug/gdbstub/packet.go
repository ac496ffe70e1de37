package gdbstub

// Packet framing (Remote Protocol, "Overview"): a packet is
//
//	$packet-data#cc
//
// where cc is the modulo-256 sum of the data bytes in two hex digits. Each
// side answers a packet with ‘+’ (received) or ‘-’ (send it again) until
// QStartNoAckMode turns acknowledgments off. Outside a packet, the byte 0x03
// is gdb's interrupt (Ctrl-C).
//
// Binary data (the X packet's payload, qXfer replies) escapes ‘#’, ‘$’, ‘}’
// and ‘*’ as ‘}’ followed by the byte xor 0x20. Run-length encoding (‘*’)
// is allowed in responses only, so the framer never decodes it: a ‘*’ in a
// command is data. The server does not run-length encode its replies either.

import "fmt"

// packetBytesMax is the largest packet data the server accepts, and
// advertises in qSupported as PacketSize; its replies are no larger either.
const packetBytesMax = 0x1000

// interruptByte is gdb's Ctrl-C, sent outside any packet.
const interruptByte = 0x03

// eventKind says what the framer found in gdb's bytes.
type eventKind uint8

const (
	evPacket      eventKind = iota // a packet with a good checksum
	evBadChecksum                  // a packet whose checksum did not match
	evTooLong                      // a packet with a good checksum but more than packetBytesMax of data
	evAck                          // ‘+’
	evNack                         // ‘-’
	evInterrupt                    // 0x03 outside a packet
	evClosed                       // the connection ended (only the reader makes these)
)

// event is one thing gdb sent.
type event struct {
	kind eventKind
	data []byte // evPacket: the packet data, still escaped
	err  error  // evClosed: why
}

// framerState is where the framer is in a packet.
type framerState uint8

const (
	outside   framerState = iota // between packets
	inData                       // after ‘$’
	checksum1                    // after ‘#’
	checksum2                    // after the first checksum digit
)

// framer turns gdb's byte stream into events, one byte at a time. It holds
// at most packetBytesMax of data: a longer packet is read to its end and
// refused.
type framer struct {
	state   framerState
	data    []byte
	sum     byte // of the data so far
	tooLong bool
	want    byte // the checksum the packet carries
	wantOK  bool // whether its digits were hex
}

// feed takes one byte and returns the event it completes, if any.
func (f *framer) feed(b byte) (event, bool) {
	switch f.state {
	case outside:
		switch b {
		case '$':
			f.start()
		case '+':
			return event{kind: evAck}, true
		case '-':
			return event{kind: evNack}, true
		case interruptByte:
			return event{kind: evInterrupt}, true
		}
		// Anything else between packets is line noise: ignore it.
	case inData:
		switch b {
		case '#':
			f.state = checksum1
		case '$':
			// An unescaped ‘$’ cannot be data: the packet before it was cut
			// short, so drop it and start again.
			f.start()
		default:
			f.sum += b
			if len(f.data) < packetBytesMax {
				f.data = append(f.data, b)
			} else {
				f.tooLong = true
			}
		}
	case checksum1:
		v, ok := hexDigit(b)
		f.want, f.wantOK = v<<4, ok
		f.state = checksum2
	case checksum2:
		v, ok := hexDigit(b)
		f.want |= v
		f.wantOK = f.wantOK && ok
		f.state = outside
		switch {
		case !f.wantOK || f.want != f.sum:
			return event{kind: evBadChecksum}, true
		case f.tooLong:
			return event{kind: evTooLong}, true
		}
		return event{kind: evPacket, data: append([]byte(nil), f.data...)}, true
	}
	return event{}, false
}

// start begins a packet after its ‘$’.
func (f *framer) start() {
	f.state, f.data, f.sum, f.tooLong = inData, f.data[:0], 0, false
}

// hexDigit is the value of one hex digit, either case.
func hexDigit(b byte) (byte, bool) {
	switch {
	case '0' <= b && b <= '9':
		return b - '0', true
	case 'a' <= b && b <= 'f':
		return b - 'a' + 10, true
	case 'A' <= b && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}

// needsEscape reports whether b must be escaped inside a packet the server
// sends: the framing bytes, the escape itself, and the run-length marker.
func needsEscape(b byte) bool {
	return b == '$' || b == '#' || b == '}' || b == '*'
}

// frame appends data to dst as a whole packet with its checksum, escaping
// every byte that could break the framing. Text replies never hold such
// bytes, so for them this is plain framing; binary replies get the escapes
// they need.
func frame(dst, data []byte) []byte {
	dst = append(dst, '$')
	var sum byte
	for _, b := range data {
		if needsEscape(b) {
			dst = append(dst, '}')
			sum += '}'
			b ^= 0x20
		}
		dst = append(dst, b)
		sum += b
	}
	return fmt.Appendf(dst, "#%02x", sum)
}

// escapedLen is the length data takes in a packet once escaped.
func escapedLen(data []byte) int {
	n := len(data)
	for _, b := range data {
		if needsEscape(b) {
			n++
		}
	}
	return n
}

// unescape decodes binary data from a packet gdb sent. A ‘}’ as the last
// byte escapes nothing, which is malformed.
func unescape(data []byte) ([]byte, bool) {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		b := data[i]
		if b == '}' {
			i++
			if i == len(data) {
				return nil, false
			}
			b = data[i] ^ 0x20
		}
		out = append(out, b)
	}
	return out, true
}
