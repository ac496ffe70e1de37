package gdbstub

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// client plays gdb against a server over net.Pipe.
type client struct {
	t     *testing.T
	conn  net.Conn
	r     *bufio.Reader
	noAck bool
	done  chan error // Serve's result
	log   *syncBuffer
}

// syncBuffer is a strings.Builder several goroutines can write.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ioTimeout bounds every read and write of a test's client.
const ioTimeout = 5 * time.Second

// serve starts Serve on tgt and returns gdb's end.
func serve(t *testing.T, tgt Target) *client {
	t.Helper()
	srv, cli := net.Pipe()
	c := &client{t: t, conn: cli, r: bufio.NewReader(cli), done: make(chan error, 1), log: &syncBuffer{}}
	go func() {
		c.done <- Serve(srv, tgt, Options{Log: c.log})
		srv.Close()
	}()
	t.Cleanup(func() {
		cli.Close()
		select {
		case <-c.done:
		case <-time.After(ioTimeout):
			t.Errorf("Serve did not return after the connection closed")
		}
		if t.Failed() {
			t.Logf("packet log:\n%s", c.log)
		}
	})
	return c
}

// writeRaw sends bytes as they are.
func (c *client) writeRaw(b string) {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := c.conn.Write([]byte(b)); err != nil {
		c.t.Fatalf("write %q: %v", b, err)
	}
}

// readByte reads one byte from the server.
func (c *client) readByte() byte {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(ioTimeout))
	b, err := c.r.ReadByte()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return b
}

// send frames data as it is (the caller escapes binary data, as gdb does
// for X) and, with acks on, reads the server's ‘+’.
func (c *client) send(data string) {
	c.t.Helper()
	var sum byte
	for _, b := range []byte(data) {
		sum += b
	}
	c.writeRaw(fmt.Sprintf("$%s#%02x", data, sum))
	c.expectAck()
}

// expectAck reads the server's ‘+’ unless acks are off.
func (c *client) expectAck() {
	c.t.Helper()
	if c.noAck {
		return
	}
	if b := c.readByte(); b != '+' {
		c.t.Fatalf("server sent %q, want the ack +", b)
	}
}

// recvRaw reads one packet, checks its checksum and returns its data as
// sent (escapes kept), without acknowledging it.
func (c *client) recvRaw() string {
	c.t.Helper()
	for b := c.readByte(); b != '$'; b = c.readByte() {
		c.t.Fatalf("server sent %q outside a packet", b)
	}
	var data []byte
	var sum byte
	for b := c.readByte(); b != '#'; b = c.readByte() {
		if b == '$' {
			c.t.Fatalf("unescaped $ in packet %q", data)
		}
		data = append(data, b)
		sum += b
	}
	hi, lo := c.readByte(), c.readByte()
	if got := fmt.Sprintf("%c%c", hi, lo); got != fmt.Sprintf("%02x", sum) {
		c.t.Fatalf("packet %q has checksum %s, want %02x", data, got, sum)
	}
	return string(data)
}

// recv reads one packet and acknowledges it.
func (c *client) recv() string {
	c.t.Helper()
	p := c.recvRaw()
	if !c.noAck {
		c.writeRaw("+")
	}
	return p
}

// ask sends a packet and returns the reply.
func (c *client) ask(data string) string {
	c.t.Helper()
	c.send(data)
	return c.recv()
}

// expect sends a packet and checks the reply.
func (c *client) expect(data, want string) {
	c.t.Helper()
	if got := c.ask(data); got != want {
		c.t.Errorf("%s: reply %q, want %q", data, got, want)
	}
}

// ended waits for Serve to return and gives its result.
func (c *client) ended() error {
	c.t.Helper()
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		return err
	case <-time.After(ioTimeout):
		c.t.Fatal("Serve did not return")
		return nil
	}
}
