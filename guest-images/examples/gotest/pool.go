// Package gotest is everett's example of a Go package whose test fails only
// under some interleavings of its goroutines: build the test binary with
// build.sh (go test -c for linux/riscv64) and run it as the workload of a
// Linux node,
//
//	everett explore --linux --smp 2 build/examples/gotest/gotest.test -test.count=5
//
// A Pool hands out one connection per backend address, dialled on first
// use. The bug is a check-then-act split across two critical sections: Get
// looks the address up under the lock, lets the lock go, dials, and stores
// the new connection under the lock again. Two goroutines that ask for the
// same address at once can both find nothing and both dial; the second
// store overwrites the first, so one caller holds a connection the pool no
// longer knows (it is never reused and never closed: a leak), and the
// backend saw two dials. The window is the few instructions between the
// two critical sections, so the test almost always passes when run
// normally.
//
// The fix (build tag "fixed", gotest-fixed.test): after dialling, look again
// under the lock and keep the connection that is already there, closing the
// new one. Holding the lock across the dial would fix it too, at the cost of
// serialising every dial behind the slowest one.
package gotest

import "sync"

// A Conn is a connection to one backend.
type Conn struct {
	Addr   string
	closed bool
}

// Close closes the connection.
func (c *Conn) Close() { c.closed = true }

// A Pool hands out one shared connection per backend address, dialled on
// first use.
type Pool struct {
	dial func(addr string) *Conn

	mu    sync.Mutex
	conns map[string]*Conn
}

// NewPool returns a pool that opens connections with dial.
func NewPool(dial func(addr string) *Conn) *Pool {
	return &Pool{dial: dial, conns: make(map[string]*Conn)}
}

// Get returns the pool's connection to addr, dialling it on first use.
func (p *Pool) Get(addr string) *Conn {
	p.mu.Lock()
	c := p.conns[addr]
	p.mu.Unlock()
	if c != nil {
		return c
	}
	// BUG (without the "fixed" tag): another goroutine may be right here
	// too, for the same address.
	c = p.dial(addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.conns[addr]; fixed && old != nil {
		c.Close()
		return old
	}
	p.conns[addr] = c
	return c
}
