package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	"everett/guest-images/sdk/go/everett"
	"everett/guest-images/sdk/go/netconf"
)

// The workload.
const (
	numKeys        = 16
	defaultOps     = 300
	putPercent     = 60
	thinkTime      = 5 * time.Millisecond   // between operations
	requestTimeout = 100 * time.Millisecond // per attempt
	redirectPause  = 10 * time.Millisecond  // after a "not primary" answer
	opTimeout      = 60 * time.Second       // per operation, all attempts
	formTimeout    = 60 * time.Second       // for the cluster to form
	clientIDBase   = 1000                   // client ids: clientIDBase + node
)

var errUnavailable = errors.New("no primary answered")

// client runs the workload against the cluster and checks what it sees:
// one operation at a time, so that every read must return the value of the
// last acknowledged write to its key.
type client struct {
	id    uint32
	conn  *net.UDPConn
	addrs []*net.UDPAddr
	say   func(format string, args ...any)

	seq      uint64
	target   int    // the node believed to be primary
	maxView  uint64 // highest view seen in an answer
	firstV   uint64 // the view when the workload started
	retries  int    // attempts beyond the first
	buf      []byte
	acked    map[string]string // the last acknowledged value of each key
	failures int
	// learn (kv.safe) starts from the values the store holds: an earlier
	// incarnation of this node's client (before a crash) may have written
	// them.
	learn bool
}

func newClient(id uint32, conn *net.UDPConn, addrs []*net.UDPAddr, say func(string, ...any)) *client {
	return &client{id: id, conn: conn, addrs: addrs, say: say, buf: make([]byte, maxDatagram+1), acked: map[string]string{}}
}

// await returns the first answer of type t to request seq before deadline.
func (c *client) await(t msgType, seq uint64, deadline time.Time) (message, bool) {
	for {
		if err := c.conn.SetReadDeadline(deadline); err != nil {
			return message{}, false
		}
		n, _, err := c.conn.ReadFromUDP(c.buf)
		if err != nil {
			return message{}, false // the deadline passed
		}
		m, err := decode(c.buf[:n])
		if err == nil && m.Type == t && m.Seq == seq {
			return m, true
		}
	}
}

// call sends a request to the primary, following redirects and trying the
// next node on a timeout, until a primary answers.
func (c *client) call(req message) (message, error) {
	c.seq++
	req.Seq, req.From = c.seq, c.id
	pkt := req.encode()
	giveUp := time.Now().Add(opTimeout)
	for attempt := 0; time.Now().Before(giveUp); attempt++ {
		if attempt > 0 {
			c.retries++
		}
		c.conn.WriteToUDP(pkt, c.addrs[c.target])
		r, ok := c.await(msgReply, c.seq, time.Now().Add(requestTimeout))
		if !ok {
			c.target = (c.target + 1) % len(c.addrs)
			continue
		}
		c.maxView = max(c.maxView, r.View)
		if r.Status == statusNotPrimary {
			if r.View != 0 && int(r.Primary) < len(c.addrs) && int(r.Primary) != c.target {
				c.target = int(r.Primary)
			} else {
				c.target = (c.target + 1) % len(c.addrs)
			}
			time.Sleep(redirectPause)
			continue
		}
		return r, nil
	}
	return message{}, errUnavailable
}

// waitForCluster polls every node until one is the primary of a view with a
// majority of the nodes (itself included) in sync.
func (c *client) waitForCluster() bool {
	n := len(c.addrs)
	giveUp := time.Now().Add(formTimeout)
	for time.Now().Before(giveUp) {
		for i, a := range c.addrs {
			c.seq++
			c.conn.WriteToUDP((&message{Type: msgStatus, From: c.id, Seq: c.seq}).encode(), a)
			r, ok := c.await(msgStatusReply, c.seq, time.Now().Add(requestTimeout))
			if ok && r.View != 0 && int((r.View-1)%uint64(n)) == i && int(r.Status) >= n/2 {
				c.firstV, c.maxView, c.target = r.View, r.View, i
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func key(i int) string { return fmt.Sprintf("k%02d", i) }

// check compares a read with the last acknowledged write of its key.
func (c *client) check(op int, k string, r message) {
	want, written := c.acked[k]
	ok := (r.Status == statusNotFound && !written) || (r.Status == statusOK && written && r.Value == want)
	if ok {
		everett.Always(true, "reads see the last acknowledged write")
		return
	}
	c.failures++
	got := "nothing"
	if r.Status == statusOK {
		got = strconv.Quote(r.Value)
	}
	wantS := "nothing"
	if written {
		wantS = strconv.Quote(want)
	}
	// Say what went wrong before the assertion: the explorer ends the
	// universe at a failed assertion, and its report shows the console.
	c.say("op %d: read %s from node %d (view %d): %s, want %s: an acknowledged write is lost",
		op, k, r.From, r.View, got, wantS)
	netconf.DrainConsole()
	everett.Always(false, "reads see the last acknowledged write")
}

// run runs the workload and returns the exit code: 0 when every read was
// right, 1 when one was not, 2 when the cluster was unavailable.
func (c *client) run(ops int, rng *rand.Rand) int {
	c.say("client: waiting for the cluster")
	if !c.waitForCluster() {
		c.say("client: the cluster did not form within %v", formTimeout)
		return 2
	}
	c.say("client: cluster formed in view %d; running %d operations on %d keys", c.firstV, ops, numKeys)
	everett.SetupComplete()
	if c.learn {
		for i := 0; i < numKeys; i++ {
			r, err := c.call(message{Type: msgGet, Key: key(i)})
			if err != nil {
				return c.unavailable(0)
			}
			if r.Status == statusOK {
				c.acked[key(i)] = r.Value
			}
		}
	}

	reads := 0
	seenView := c.maxView
	for op := 0; op < ops; op++ {
		k := key(rng.IntN(numKeys))
		if rng.IntN(100) < putPercent {
			v := strconv.Itoa(op)
			if _, err := c.call(message{Type: msgPut, Key: k, Value: v}); err != nil {
				return c.unavailable(op)
			}
			c.acked[k] = v
		} else {
			r, err := c.call(message{Type: msgGet, Key: k})
			if err != nil {
				return c.unavailable(op)
			}
			c.check(op, k, r)
			reads++
		}
		if c.maxView > seenView {
			// A new primary: read every key back.
			seenView = c.maxView
			c.say("client: op %d: now in view %d, primary node %d; reading every key", op, seenView, c.target)
			n, err := c.readAll(op)
			if err != nil {
				return c.unavailable(op)
			}
			reads += n
		}
		everett.Progress(uint64(op + 1))
		if (op+1)%100 == 0 {
			c.say("client: %d operations done, view %d", op+1, c.maxView)
		}
		time.Sleep(thinkTime)
	}
	n, err := c.readAll(ops)
	if err != nil {
		return c.unavailable(ops)
	}
	reads += n
	failover := c.maxView > c.firstV
	everett.Sometimes(failover, "the client saw a failover")
	everett.Reachable("the workload finished")
	c.say("client: done: %d operations, %d reads checked, %d lost writes seen, %d retries, views %d..%d",
		ops, reads, c.failures, c.retries, c.firstV, c.maxView)
	if c.failures > 0 {
		return 1
	}
	return 0
}

// readAll reads and checks every key.
func (c *client) readAll(op int) (int, error) {
	for i := 0; i < numKeys; i++ {
		k := key(i)
		r, err := c.call(message{Type: msgGet, Key: k})
		if err != nil {
			return i, err
		}
		c.check(op, k, r)
	}
	return numKeys, nil
}

func (c *client) unavailable(op int) int {
	c.say("client: op %d: no primary answered for %v; giving up", op, opTimeout)
	return 2
}
