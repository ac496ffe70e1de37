package main

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The wire format: every message is one UDP datagram holding one message,
// encoded as a type byte followed by varints and length-prefixed strings
// (see encode). Datagrams stay below maxDatagram bytes, so no IP
// fragmentation happens on a 1500-byte Ethernet.

type msgType uint8

const (
	// Client to any node, and the node's answer.
	msgPut msgType = iota + 1
	msgGet
	msgReply
	msgStatus
	msgStatusReply
	// Between nodes.
	msgHello     // a node without a view asks its peers for theirs
	msgViewInfo  // the answer to a hello: the sender's view
	msgStartView // the sender moved to a new view
	msgAppend    // primary to backup: heartbeat and log entries
	msgAppendAck // backup to primary: the length of its log
	msgVote      // kv.safe: a node of a new view to its primary: how up to date its log is
)

func (t msgType) String() string {
	names := [...]string{"?", "put", "get", "reply", "status", "status-reply", "hello", "view-info", "start-view", "append", "append-ack", "vote"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Reply statuses.
const (
	statusOK         = 1
	statusNotFound   = 2 // get of a key that has no value
	statusNotPrimary = 3 // ask Primary instead (when View is not 0)
	statusFull       = 4 // the log is full
)

// Limits.
const (
	maxDatagram      = 1400
	maxKeyBytes      = 32
	maxValueBytes    = 32
	maxAppendEntries = 12 // 12 entries of the largest size fit in a datagram
	maxEntries       = 1 << 16
)

// entry is one write in the replicated log.
type entry struct {
	Key, Value string
	Client     uint32 // the writing client and its request number, so that
	Seq        uint64 // a retried request is applied once
	View       uint64 // kv.safe: the view whose primary made the entry (0 otherwise)
}

// message is every message of the protocol; each type uses some fields.
type message struct {
	Type    msgType
	From    uint32 // sending node, or client id
	View    uint64 // the sender's view (0: none yet)
	Seq     uint64 // client request number, echoed in the reply; kv.safe, between nodes: the sender's commit index
	Index   uint64 // append: index of Entries[0]; ack and status: log length; vote: log length
	Status  uint8  // reply: statusOK...; status reply: backups in sync
	Primary uint32 // reply with statusNotPrimary: the primary of View; vote: the view of the log's last entry
	Key     string
	Value   string
	Entries []entry
}

var errMalformed = errors.New("malformed message")

func (m *message) encode() []byte {
	b := make([]byte, 0, 64)
	b = append(b, byte(m.Type))
	for _, v := range []uint64{uint64(m.From), m.View, m.Seq, m.Index, uint64(m.Status), uint64(m.Primary)} {
		b = binary.AppendUvarint(b, v)
	}
	b = appendString(b, m.Key)
	b = appendString(b, m.Value)
	b = binary.AppendUvarint(b, uint64(len(m.Entries)))
	for _, e := range m.Entries {
		b = appendString(b, e.Key)
		b = appendString(b, e.Value)
		b = binary.AppendUvarint(b, uint64(e.Client))
		b = binary.AppendUvarint(b, e.Seq)
		b = binary.AppendUvarint(b, e.View)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads the fields of a datagram; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > limit {
		d.err = errMalformed
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string(limit int) string {
	n := d.uvarint(uint64(limit))
	if d.err != nil || uint64(len(d.b)) < n {
		d.err = errMalformed
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func decode(b []byte) (message, error) {
	if len(b) == 0 || len(b) > maxDatagram {
		return message{}, errMalformed
	}
	m := message{Type: msgType(b[0])}
	if m.Type < msgPut || m.Type > msgVote {
		return message{}, errMalformed
	}
	d := &decoder{b: b[1:]}
	m.From = uint32(d.uvarint(1<<32 - 1))
	m.View = d.uvarint(1<<63 - 1)
	m.Seq = d.uvarint(1<<63 - 1)
	m.Index = d.uvarint(maxEntries)
	m.Status = uint8(d.uvarint(255))
	m.Primary = uint32(d.uvarint(1<<32 - 1))
	m.Key = d.string(maxKeyBytes)
	m.Value = d.string(maxValueBytes)
	n := d.uvarint(maxAppendEntries)
	for i := uint64(0); i < n && d.err == nil; i++ {
		var e entry
		e.Key = d.string(maxKeyBytes)
		e.Value = d.string(maxValueBytes)
		e.Client = uint32(d.uvarint(1<<32 - 1))
		e.Seq = d.uvarint(1<<63 - 1)
		e.View = d.uvarint(1<<63 - 1)
		m.Entries = append(m.Entries, e)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errMalformed
	}
	return m, d.err
}
