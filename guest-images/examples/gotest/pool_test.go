//go:build linux && riscv64

// The test is built for the guest only (build.sh): on the host, go test
// ./... would run it natively, where it may fail now and then, which no CI
// test may do.

package gotest

import (
	"sync"
	"testing"
)

// TestAHandlerAndTheHealthCheckShareOneConnection has two users of a pool's
// database connection ask for it at once: a request handler in a goroutine
// of its own, and the health check, on the test's goroutine. Both must get
// the same connection, and any other connection dialled must be closed, not
// leaked.
func TestAHandlerAndTheHealthCheckShareOneConnection(t *testing.T) {
	var mu sync.Mutex
	dialled := make([]*Conn, 0, 4)
	pool := NewPool(func(addr string) *Conn {
		c := &Conn{Addr: addr}
		mu.Lock()
		dialled = append(dialled, c)
		mu.Unlock()
		return c
	})
	// The service is up: the pool already serves the cache, to a handler
	// that came before.
	up := make(chan struct{})
	go func() {
		defer close(up)
		pool.Get("cache:6379")
	}()
	<-up

	const addr = "db:5432"
	var handler *Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		handler = pool.Get(addr)
	}()
	health := pool.Get(addr)
	<-done

	if health != handler {
		t.Errorf("the health check and the handler got different connections to %s (%p, %p)", addr, health, handler)
	}
	if health.closed {
		t.Errorf("the shared connection to %s is closed", addr)
	}
	for _, c := range dialled {
		if c.Addr == addr && c != health && !c.closed {
			t.Errorf("a second connection to %s was dialled and never closed: it leaks", addr)
		}
	}
}
