package main

import (
	"net"
	"time"

	"everett/guest-images/sdk/go/everett"
)

// The fixed protocol, switched on by kv.safe=1 on the kernel command line
// (the default stays the buggy one the example is about). It is the bug's
// fix as README.md states it, in the shape of Raft:
//
//   - Every entry carries the view whose primary made it.
//   - A new primary serves only once a majority of the nodes (itself
//     included) voted for it, and a node votes only for a primary whose
//     log is at least as up to date as its own: the view of the last
//     entry, then the length. A node that booted into a running cluster
//     (a restart lost its log) does not vote until it has caught up with
//     the commit index of an active primary. The formation of the cluster
//     (view 1, see maybeForm) needs no votes.
//   - A backup keeps its log and only cuts it where it differs from the
//     primary's (the first entry whose view differs), so a view change
//     never loses entries a majority holds.
//   - The primary acknowledges a write, and answers a read, only once the
//     entry (a read is a marker entry in the log) is held by a majority
//     and an entry of its own view is committed; it starts its view with
//     an empty entry so that the earlier entries commit.

// maxPending bounds the answers a primary holds back until they commit.
const maxPending = 64

type pending struct {
	to    *net.UDPAddr
	seq   uint64
	index uint64 // the answer goes out once commit > index
	get   bool
	key   string
}

// safeState is the fixed protocol's part of a server.
type safeState struct {
	formed     bool // this node formed the cluster (view 1)
	recovering bool // booted into a running cluster; no vote until caught up
	commit     uint64

	// As primary of the view.
	active  bool     // a majority voted: serving
	votes   []bool   // by node
	match   []uint64 // by node: log length known to equal ours
	pending []pending

	// As backup of the view.
	heard    bool   // an append of the view's primary arrived
	matched  uint64 // log length known to equal the primary's
	lastVote time.Time
}

func (s *server) lastView() uint64 {
	if len(s.log) == 0 {
		return 0
	}
	return s.log[len(s.log)-1].View
}

func (s *server) majority() int { return s.n/2 + 1 }

// enterSafe is enter for the fixed protocol.
func (s *server) enterSafe(v uint64, now time.Time) {
	f := &s.sf
	f.active, f.heard, f.matched, f.pending = false, false, 0, nil
	f.votes = make([]bool, s.n)
	f.match = make([]uint64, s.n)
	for i := range s.acked {
		s.acked[i], s.ackedAt[i] = 0, time.Time{}
	}
	if !s.isPrimary() {
		s.say("view %d: backup of node %d", v, s.primaryOf(v))
		s.sendVote(now)
		return
	}
	f.votes[s.id] = !f.recovering
	if v == 1 && f.formed {
		s.activate(now)
		return
	}
	s.say("view %d: waiting for the votes of a majority", v)
	s.broadcast(message{Type: msgStartView})
	s.countVotes(now)
}

func (s *server) sendVote(now time.Time) {
	f := &s.sf
	if f.recovering || s.isPrimary() {
		return
	}
	f.lastVote = now
	s.send(s.addrs[s.primaryOf(s.view)], message{Type: msgVote, Index: uint64(len(s.log)), Primary: uint32(min(s.lastView(), 1<<32-1))})
}

func (s *server) countVotes(now time.Time) {
	n := 0
	for _, v := range s.sf.votes {
		if v {
			n++
		}
	}
	if n >= s.majority() {
		s.activate(now)
	}
}

// activate starts serving the view: an entry of its own first, so that
// what earlier views left commits with it.
func (s *server) activate(now time.Time) {
	f := &s.sf
	f.active = true
	f.recovering = false // elected by a majority that holds everything committed
	s.say("view %d: primary, with %d log entries", s.view, len(s.log))
	if s.view > 1 {
		everett.Reachable("a backup took over as primary")
	}
	if len(s.log) < maxEntries {
		s.applySafe(entry{View: s.view})
	}
	f.match[s.id] = uint64(len(s.log))
	s.advanceCommit()
	s.heartbeat(now)
}

// applySafe appends e; entries without a key (view starts, read markers)
// change no value.
func (s *server) applySafe(e entry) {
	s.log = append(s.log, e)
	if e.Key != "" {
		s.data[e.Key] = e.Value
		s.lastSeq[e.Client] = max(s.lastSeq[e.Client], e.Seq)
	}
}

// truncate cuts the log to n entries and rebuilds the map from it.
func (s *server) truncate(n uint64) {
	s.log = s.log[:n]
	s.data, s.lastSeq = map[string]string{}, map[uint32]uint64{}
	for _, e := range s.log {
		if e.Key != "" {
			s.data[e.Key] = e.Value
			s.lastSeq[e.Client] = max(s.lastSeq[e.Client], e.Seq)
		}
	}
}

func (s *server) tickSafe(now time.Time) {
	f := &s.sf
	switch {
	case s.view == 0:
		if now.Sub(s.lastHello) >= heartbeatInterval {
			s.lastHello = now
			s.broadcast(message{Type: msgHello})
		}
		s.maybeForm(now)
	case s.isPrimary() && f.active:
		if now.Sub(s.lastHeartbeat) >= heartbeatInterval {
			s.heartbeat(now)
		}
	case s.isPrimary():
		// Waiting for votes: remind the others of the view, and give up
		// after the failover timeout (the next view has another primary).
		if now.Sub(s.lastHeartbeat) >= heartbeatInterval {
			s.lastHeartbeat = now
			s.broadcast(message{Type: msgStartView})
		}
		if now.Sub(s.heardAt) > failoverTimeout {
			s.say("view %d: no majority voted within %v", s.view, failoverTimeout)
			s.enter(s.view+1, now)
			s.broadcast(message{Type: msgStartView})
		}
	case now.Sub(s.heardAt) > failoverTimeout:
		s.say("view %d: no heartbeat from node %d for %v", s.view, s.primaryOf(s.view), failoverTimeout)
		s.enter(s.view+1, now)
		s.broadcast(message{Type: msgStartView})
	case !f.heard && now.Sub(f.lastVote) >= heartbeatInterval:
		s.sendVote(now) // a vote may have been lost
	}
}

// handleSafe handles the messages between nodes (after adopting a higher
// view).
func (s *server) handleSafe(m message, now time.Time) {
	switch m.Type {
	case msgHello:
		s.send(s.addrs[m.From], message{Type: msgViewInfo})
	case msgViewInfo:
		if m.View == 0 && s.view == 0 {
			s.idle[m.From] = true
			s.maybeForm(now)
		}
	case msgVote:
		f := &s.sf
		if m.View != s.view || !s.isPrimary() || f.active {
			return
		}
		mine, theirs := s.lastView(), uint64(m.Primary)
		if theirs < mine || (theirs == mine && m.Index <= uint64(len(s.log))) {
			f.votes[m.From] = true
			s.countVotes(now)
		}
	case msgAppend:
		s.onAppendSafe(m, now)
	case msgAppendAck:
		s.onAppendAckSafe(m, now)
	}
}

func (s *server) onAppendSafe(m message, now time.Time) {
	f := &s.sf
	if m.View < s.view || s.isPrimary() || int(m.From) != s.primaryOf(s.view) {
		s.send(s.addrs[m.From], message{Type: msgAppendAck, Index: 0}) // tells a deposed primary about our view
		return
	}
	s.heardAt, f.heard = now, true
	if m.Index <= f.matched {
		for i, e := range m.Entries {
			idx := m.Index + uint64(i)
			if idx < uint64(len(s.log)) {
				if s.log[idx].View == e.View {
					continue // the same entry (one primary per view, append only)
				}
				s.truncate(idx)
			}
			if idx == uint64(len(s.log)) && len(s.log) < maxEntries {
				s.applySafe(e)
			}
		}
		f.matched = max(f.matched, min(m.Index+uint64(len(m.Entries)), uint64(len(s.log))))
		f.commit = max(f.commit, min(m.Seq, f.matched))
		// The primary's commit index counts everything committed once an
		// entry of its own view is committed.
		if f.recovering && m.Seq > 0 && f.matched >= m.Seq && s.log[m.Seq-1].View == s.view {
			f.recovering = false // we hold everything committed
			s.say("view %d: caught up with %d committed entries", s.view, m.Seq)
		}
	}
	s.send(s.addrs[m.From], message{Type: msgAppendAck, Index: f.matched})
}

func (s *server) onAppendAckSafe(m message, now time.Time) {
	f := &s.sf
	if m.View != s.view || !s.isPrimary() || !f.active {
		return
	}
	i := int(m.From)
	idx := min(m.Index, uint64(len(s.log)))
	s.acked[i], s.ackedAt[i] = idx, now
	f.match[i] = max(f.match[i], idx)
	s.advanceCommit()
	if uint64(len(s.log)) > s.acked[i] {
		s.sendAppend(i) // more to send: no need to wait for the heartbeat
	}
}

// advanceCommit moves the commit index to the longest prefix a majority
// holds that ends with an entry of this view, and sends the answers that
// waited for it.
func (s *server) advanceCommit() {
	f := &s.sf
	for n := uint64(len(s.log)); n > f.commit && s.log[n-1].View == s.view; n-- {
		votes := 0
		for i := range f.match {
			if i == s.id || f.match[i] >= n {
				votes++
			}
		}
		if votes >= s.majority() {
			f.commit = n
			break
		}
	}
	kept := f.pending[:0]
	for _, p := range f.pending {
		if p.index >= f.commit {
			kept = append(kept, p)
			continue
		}
		r := message{Type: msgReply, Seq: p.seq, Status: statusOK}
		if p.get {
			if v, ok := s.data[p.key]; ok {
				r.Value = v
			} else {
				r.Status = statusNotFound
			}
		}
		s.send(p.to, r)
	}
	f.pending = kept
}

// serveClientSafe answers a put or get once its entry commits.
func (s *server) serveClientSafe(m message, from *net.UDPAddr) {
	f := &s.sf
	if !s.isPrimary() || !f.active {
		r := message{Type: msgReply, Seq: m.Seq, Status: statusNotPrimary}
		if s.view != 0 {
			r.Primary = uint32(s.primaryOf(s.view))
		}
		s.send(from, r)
		return
	}
	p := pending{to: from, seq: m.Seq, get: m.Type == msgGet, key: m.Key}
	switch {
	case m.Type == msgPut && m.Seq <= s.lastSeq[m.From]:
		// A retry: answer when the entry it made commits.
		p.index = uint64(len(s.log))
		for i := len(s.log) - 1; i >= 0; i-- {
			if e := s.log[i]; e.Key != "" && e.Client == m.From && e.Seq == m.Seq {
				p.index = uint64(i)
				break
			}
		}
		if p.index == uint64(len(s.log)) {
			s.send(from, message{Type: msgReply, Seq: m.Seq, Status: statusOK}) // older than the last: the client moved on
			return
		}
	case len(s.log) >= maxEntries:
		s.send(from, message{Type: msgReply, Seq: m.Seq, Status: statusFull})
		return
	case m.Type == msgGet:
		p.index = uint64(len(s.log))
		s.applySafe(entry{View: s.view}) // a read marker
	default:
		p.index = uint64(len(s.log))
		s.applySafe(entry{Key: m.Key, Value: m.Value, Client: m.From, Seq: m.Seq, View: s.view})
	}
	if len(f.pending) >= maxPending {
		f.pending = f.pending[1:]
	}
	f.pending = append(f.pending, p)
	f.match[s.id] = uint64(len(s.log))
	s.advanceCommit() // a one-node cluster commits at once
	for i := range s.addrs {
		if i != s.id {
			s.sendAppend(i)
		}
	}
}
