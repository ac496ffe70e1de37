package main

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"everett/guest-images/sdk/go/everett"
)

// Timing of the replication protocol.
const (
	heartbeatInterval = 50 * time.Millisecond  // primary to backups
	failoverTimeout   = 300 * time.Millisecond // backup silence before a view change
	tickInterval      = 10 * time.Millisecond  // how often timers are checked
	port              = 7000                   // UDP, on every node
)

// server is one replica. Views number the primary's reigns: the primary of
// view v is node (v-1) mod n; view 0 means the node has not joined yet.
// The primary orders writes into a log and applies them to its map; the
// backups apply the same log. See README.md for the protocol.
type server struct {
	id, n int
	conn  *net.UDPConn
	addrs []*net.UDPAddr // of every node, by id
	say   func(format string, args ...any)

	mu      sync.Mutex
	view    uint64
	log     []entry
	data    map[string]string
	lastSeq map[uint32]uint64 // per client: the highest request applied

	// As primary: per node, the log length the node acknowledged, and when.
	acked         []uint64
	ackedAt       []time.Time
	lastHeartbeat time.Time

	// As backup: the view whose primary sent us its log from the start,
	// and when the primary of our view was last heard.
	synced  uint64
	heardAt time.Time

	// Before joining: peers that answered our hello without a view.
	idle      []bool
	lastHello time.Time

	buf []byte

	// kv.safe=1: acknowledge only what a majority has (safe.go).
	safe bool
	sf   safeState
}

func newServer(id, n int, conn *net.UDPConn, addrs []*net.UDPAddr, say func(string, ...any)) *server {
	return &server{
		id: id, n: n, conn: conn, addrs: addrs, say: say,
		data:    map[string]string{},
		lastSeq: map[uint32]uint64{},
		acked:   make([]uint64, n),
		ackedAt: make([]time.Time, n),
		idle:    make([]bool, n),
		buf:     make([]byte, maxDatagram+1),
	}
}

func (s *server) primaryOf(v uint64) int { return int((v - 1) % uint64(s.n)) }

func (s *server) isPrimary() bool { return s.view != 0 && s.primaryOf(s.view) == s.id }

// serve handles datagrams and timers until the connection is closed (on
// a node: never).
func (s *server) serve() {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(tickInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				s.mu.Lock()
				s.tick(now)
				s.mu.Unlock()
			}
		}
	}()
	s.mu.Lock()
	s.tick(time.Now())
	s.mu.Unlock()
	for {
		n, from, err := s.conn.ReadFromUDP(s.buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil || n > maxDatagram {
			continue
		}
		m, err := decode(s.buf[:n])
		if err != nil {
			continue
		}
		s.mu.Lock()
		s.handle(m, from, time.Now())
		s.mu.Unlock()
	}
}

func (s *server) send(to *net.UDPAddr, m message) {
	m.From = uint32(s.id)
	if m.View == 0 {
		m.View = s.view
	}
	if s.safe && m.Type >= msgHello {
		m.Seq = s.sf.commit
	}
	s.conn.WriteToUDP(m.encode(), to) // a lost datagram is the protocol's problem
}

func (s *server) broadcast(m message) {
	for i, a := range s.addrs {
		if i != s.id {
			s.send(a, m)
		}
	}
}

// tick runs the timers: hellos before joining, heartbeats as primary,
// failure detection as backup.
func (s *server) tick(now time.Time) {
	if s.safe {
		s.tickSafe(now)
		return
	}
	switch {
	case s.view == 0:
		if now.Sub(s.lastHello) >= heartbeatInterval {
			s.lastHello = now
			s.broadcast(message{Type: msgHello})
		}
		s.maybeForm(now)
	case s.isPrimary():
		if now.Sub(s.lastHeartbeat) >= heartbeatInterval {
			s.heartbeat(now)
		}
	case now.Sub(s.heardAt) > failoverTimeout:
		s.say("view %d: no heartbeat from node %d for %v", s.view, s.primaryOf(s.view), failoverTimeout)
		s.enter(s.view+1, now)
		s.broadcast(message{Type: msgStartView})
	}
}

// maybeForm starts the first view when node 0 has heard from a majority of
// the nodes (itself included) and none of them has joined a view: the
// cluster is booting. Nodes that come up later join through their hellos.
func (s *server) maybeForm(now time.Time) {
	if s.id != 0 || s.view != 0 {
		return
	}
	up := 1
	for i := range s.idle {
		if i != s.id && s.idle[i] {
			up++
		}
	}
	if up < s.n/2+1 {
		return
	}
	s.say("%d of %d nodes are up: forming the cluster", up, s.n)
	if s.safe {
		s.sf.formed = true // a fresh cluster: view 1 needs no votes
	}
	s.enter(1, now)
}

// enter moves to view v.
func (s *server) enter(v uint64, now time.Time) {
	s.view = v
	s.heardAt = now
	if s.safe {
		s.enterSafe(v, now)
		return
	}
	if !s.isPrimary() {
		s.say("view %d: backup of node %d", v, s.primaryOf(v))
		return
	}
	s.say("view %d: primary, with %d log entries", v, len(s.log))
	if v > 1 {
		everett.Reachable("a backup took over as primary")
	}
	// Every backup starts from index 0 and replaces its state with ours.
	for i := range s.acked {
		s.acked[i], s.ackedAt[i] = 0, time.Time{}
	}
	s.heartbeat(now)
}

// adopt moves to a higher view v learned from a peer.
func (s *server) adopt(v uint64, now time.Time) {
	if s.view == 0 && s.primaryOf(v) == s.id {
		// We are (re)starting without state but would be the primary
		// of the peers' view: the old reign is over, start the next.
		s.say("view %d: restarted without state, starting view %d", v, v+1)
		s.enter(v+1, now)
		s.broadcast(message{Type: msgStartView})
		return
	}
	s.enter(v, now)
}

func (s *server) heartbeat(now time.Time) {
	s.lastHeartbeat = now
	for i := range s.addrs {
		if i != s.id {
			s.sendAppend(i)
		}
	}
}

// sendAppend sends node i the entries after what it acknowledged (at most
// maxAppendEntries); with none, it is a plain heartbeat.
func (s *server) sendAppend(i int) {
	start := min(s.acked[i], uint64(len(s.log)))
	end := min(start+maxAppendEntries, uint64(len(s.log)))
	s.send(s.addrs[i], message{Type: msgAppend, Index: start, Entries: s.log[start:end]})
}

func (s *server) apply(e entry) {
	s.log = append(s.log, e)
	s.data[e.Key] = e.Value
	s.lastSeq[e.Client] = max(s.lastSeq[e.Client], e.Seq)
}

func (s *server) handle(m message, from *net.UDPAddr, now time.Time) {
	switch m.Type {
	case msgPut, msgGet:
		if s.safe {
			s.serveClientSafe(m, from)
			return
		}
		s.send(from, s.serveClient(m))
		return
	case msgStatus:
		s.send(from, message{Type: msgStatusReply, Seq: m.Seq, Index: uint64(len(s.log)), Status: s.inSync(now)})
		return
	case msgReply, msgStatusReply:
		return
	}
	if int(m.From) >= s.n || int(m.From) == s.id {
		return
	}
	if m.View > s.view {
		if s.safe && s.view == 0 && !s.sf.formed {
			// Booting into a running cluster (perhaps after a crash,
			// which lost our log): no vote until we have caught up.
			s.sf.recovering = true
		}
		s.adopt(m.View, now)
	}
	if s.safe {
		s.handleSafe(m, now)
		return
	}
	switch m.Type {
	case msgHello:
		s.send(s.addrs[m.From], message{Type: msgViewInfo})
	case msgViewInfo:
		if m.View == 0 && s.view == 0 {
			s.idle[m.From] = true
			s.maybeForm(now)
		}
	case msgAppend:
		s.onAppend(m, now)
	case msgAppendAck:
		s.onAppendAck(m, now)
	}
}

// serveClient answers a put or get. Only the primary serves; it applies a
// put to its log and map and answers at once.
func (s *server) serveClient(m message) message {
	r := message{Type: msgReply, Seq: m.Seq}
	switch {
	case !s.isPrimary():
		r.Status = statusNotPrimary
		if s.view != 0 {
			r.Primary = uint32(s.primaryOf(s.view))
		}
	case m.Type == msgGet:
		if v, ok := s.data[m.Key]; ok {
			r.Status, r.Value = statusOK, v
		} else {
			r.Status = statusNotFound
		}
	case m.Seq <= s.lastSeq[m.From]:
		r.Status = statusOK // a retry of a write already in the log
	case len(s.log) >= maxEntries:
		r.Status = statusFull
	default:
		s.apply(entry{Key: m.Key, Value: m.Value, Client: m.From, Seq: m.Seq})
		r.Status = statusOK
	}
	return r
}

// inSync counts the backups that acknowledged the whole log recently.
func (s *server) inSync(now time.Time) uint8 {
	if !s.isPrimary() || (s.safe && !s.sf.active) {
		return 0
	}
	n := uint8(0)
	for i := range s.acked {
		if i != s.id && s.acked[i] == uint64(len(s.log)) && now.Sub(s.ackedAt[i]) < failoverTimeout {
			n++
		}
	}
	return n
}

func (s *server) onAppend(m message, now time.Time) {
	ack := func() {
		s.send(s.addrs[m.From], message{Type: msgAppendAck, Index: uint64(len(s.log))})
	}
	if m.View < s.view || s.isPrimary() || int(m.From) != s.primaryOf(s.view) {
		ack() // tells a deposed primary about our view
		return
	}
	s.heardAt = now
	if s.synced != s.view {
		if m.Index != 0 {
			s.send(s.addrs[m.From], message{Type: msgAppendAck, Index: 0})
			return
		}
		// The first append of a new primary: its log replaces ours.
		s.log, s.data, s.lastSeq = s.log[:0], map[string]string{}, map[uint32]uint64{}
		s.synced = s.view
	}
	if m.Index <= uint64(len(s.log)) {
		for i, e := range m.Entries {
			if m.Index+uint64(i) == uint64(len(s.log)) && len(s.log) < maxEntries {
				s.apply(e)
			}
		}
	}
	ack()
}

func (s *server) onAppendAck(m message, now time.Time) {
	if m.View != s.view || !s.isPrimary() {
		return
	}
	i := int(m.From)
	s.acked[i] = min(m.Index, uint64(len(s.log)))
	s.ackedAt[i] = now
	if uint64(len(s.log))-s.acked[i] >= maxAppendEntries {
		s.sendAppend(i) // catching up after a view change: no need to wait
	}
}

// String describes the server's state, for the console.
func (s *server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("view %d, %d log entries, %d keys", s.view, len(s.log), len(s.data))
}
