package explorer

import (
	"container/heap"
	"fmt"

	"everett/emu"
	"everett/hw"
)

// The simulated switch: every node's virtio-net card is plugged into one
// port. A frame goes to the port owning its destination MAC, or to every
// other port for broadcast, multicast and unknown destinations. Each copy
// meets its fate (drop, duplicate, delay, reorder, partition) from the
// universe's network stream; delivery happens at a window boundary at or
// after its time. Bounded: at most maxInFlight frames wait, the rest drop.

const (
	maxInFlight = 4096
	maxFrame    = 65550
)

type packet struct {
	at, seq uint64
	dst     int
	frame   []byte
}

type packetQueue []packet

func (q packetQueue) Len() int { return len(q) }
func (q packetQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q packetQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *packetQueue) Push(x any)   { *q = append(*q, x.(packet)) }
func (q *packetQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	*q = old[:len(old)-1]
	return p
}

// Switch connects the nodes.
type Switch struct {
	u       *Universe
	macs    [][6]byte
	blocked [][]bool // blocked[src][dst]: frames from src to dst are lost
	queue   packetQueue
	seq     uint64
	Sent    uint64
	Dropped uint64
}

func newSwitch(u *Universe, macs [][6]byte) *Switch {
	s := &Switch{u: u, macs: macs}
	s.blocked = make([][]bool, len(macs))
	for i := range s.blocked {
		s.blocked[i] = make([]bool, len(macs))
	}
	return s
}

// port is the Link of one node.
type port struct {
	s    *Switch
	node int
}

// Send implements net.Link.
func (p *port) Send(frame []byte) {
	p.s.send(p.node, frame)
}

func (s *Switch) send(src int, frame []byte) {
	if len(frame) < 14 || len(frame) > maxFrame {
		return
	}
	var dst [6]byte
	copy(dst[:], frame)
	now := s.u.nodes[src].b.Now()
	flood := dst[0]&1 != 0
	found := false
	for d := range s.macs {
		if d == src {
			continue
		}
		if flood || s.macs[d] == dst {
			s.forward(src, d, frame, now)
			found = true
		}
	}
	if !found && !flood {
		for d := range s.macs {
			if d != src {
				s.forward(src, d, frame, now)
			}
		}
	}
}

func (s *Switch) forward(src, dst int, frame []byte, now uint64) {
	u := s.u
	s.Sent++
	if s.blocked[src][dst] {
		s.Dropped++
		return
	}
	plan := &u.plan
	r := u.netRNG
	copies := 1
	chaos := u.liveStart == 0 // the liveness phase loses, duplicates and delays nothing
	if chaos && plan.Drop > 0 && chance(r, plan.Drop) && u.candidate("net", fmt.Sprintf("drop frame %d->%d", src, dst)) {
		s.Dropped++
		return
	}
	if chaos && plan.Duplicate > 0 && chance(r, plan.Duplicate) && u.candidate("net", fmt.Sprintf("duplicate frame %d->%d", src, dst)) {
		copies = 2
	}
	for c := 0; c < copies; c++ {
		lat := plan.LatencyMin
		if span := plan.LatencyMax - plan.LatencyMin; span > 0 {
			lat += r.Uint64() % (span + 1)
		}
		if chaos && plan.Reorder > 0 && chance(r, plan.Reorder) {
			extra := r.Uint64() % (4*plan.LatencyMax + 1)
			if u.candidate("net", fmt.Sprintf("delay frame %d->%d by %dns", src, dst, extra)) {
				lat += extra
			}
		}
		if len(s.queue) >= maxInFlight {
			s.Dropped++
			continue
		}
		s.seq++
		heap.Push(&s.queue, packet{at: now + lat, seq: s.seq, dst: dst, frame: append([]byte(nil), frame...)})
	}
}

// deliver hands every frame due by t to its node.
func (s *Switch) deliver(t uint64) {
	for len(s.queue) > 0 && s.queue[0].at <= t {
		p := heap.Pop(&s.queue).(packet)
		n := s.u.nodes[p.dst]
		if n.down || n.b.Virt == nil {
			s.Dropped++
			continue
		}
		if !n.b.Virt.Net.Deliver(p.frame) {
			s.Dropped++
		}
	}
}

// heal removes every partition.
func (s *Switch) heal() {
	for i := range s.blocked {
		for j := range s.blocked[i] {
			s.blocked[i][j] = false
		}
	}
}

func (s *Switch) save(e *hw.Encoder) {
	e.Tag("switch")
	for i := range s.blocked {
		for j := range s.blocked[i] {
			e.Bool(s.blocked[i][j])
		}
	}
	q := append(packetQueue(nil), s.queue...)
	for i := 1; i < len(q); i++ {
		for j := i; j > 0 && q.Less(j, j-1); j-- {
			q.Swap(j, j-1)
		}
	}
	e.U64(uint64(len(q)))
	for _, p := range q {
		e.U64(p.at)
		e.U64(p.seq)
		e.Int(p.dst)
		e.ByteSlice(p.frame)
	}
	e.U64(s.seq)
	e.U64(s.Sent)
	e.U64(s.Dropped)
}

// clone returns an independent copy for u.
func (s *Switch) clone(u *Universe) *Switch {
	c := &Switch{u: u, macs: s.macs, seq: s.seq, Sent: s.Sent, Dropped: s.Dropped}
	c.blocked = make([][]bool, len(s.blocked))
	for i := range s.blocked {
		c.blocked[i] = append([]bool(nil), s.blocked[i]...)
	}
	c.queue = make(packetQueue, len(s.queue))
	for i, p := range s.queue {
		c.queue[i] = packet{at: p.at, seq: p.seq, dst: p.dst, frame: append([]byte(nil), p.frame...)}
	}
	return c
}

// chance draws an event of probability p.
func chance(r *emu.PRNG, p float64) bool {
	if p <= 0 {
		return false
	}
	return float64(r.Uint64()>>11)/(1<<53) < p
}
