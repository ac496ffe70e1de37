package gdbstub

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// fuzzInputBytesMax bounds one input, and so one session.
const fuzzInputBytesMax = 1 << 16

// FuzzServe feeds arbitrary bytes to a session as gdb's side. Serve must
// not panic, must return once the bytes run out, and must send only
// acknowledgments and well-formed packets.
func FuzzServe(f *testing.F) {
	seed := func(pkts ...string) []byte {
		var b []byte
		for _, p := range pkts {
			if p == "+" || p == "-" || p == "\x03" {
				b = append(b, p...)
				continue
			}
			b = frame(b, []byte(p))
		}
		return b
	}
	f.Add(seed("qSupported:swbreak+", "+", "?", "+", "qXfer:features:read:target.xml:0,ffb", "+", "g", "+"))
	f.Add(seed("QStartNoAckMode", "+", "Hg2", "p20", "P20=0000008000000000", "m80001000,8", "M80001000,1:ff", "qfThreadInfo", "qsThreadInfo"))
	f.Add(seed("QStartNoAckMode", "+", "Z0,80000020,4", "vCont;c", "\x03", "bs", "bc", "vCont;s:2;c", "z0,80000020,4"))
	f.Add(seed("qRcmd,69636f756e74", "+", "+", "X80001000,3:a#$", "-", "-", "D"))
	f.Add([]byte("$g#00$m80000000,4#zz+-\x03$$$#"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > fuzzInputBytesMax {
			return
		}
		var out bytes.Buffer
		conn := struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(in), &out}
		done := make(chan error, 1)
		go func() { done <- Serve(conn, newFake(3), Options{}) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Serve did not return after the input ran out")
		}
		if err := wellFormed(out.Bytes()); err != nil {
			t.Fatalf("the server sent %q: %v", out.Bytes(), err)
		}
	})
}

// wellFormed checks that b is acknowledgments and packets with good
// checksums, each no longer than the advertised packet size.
func wellFormed(b []byte) error {
	for i := 0; i < len(b); {
		switch b[i] {
		case '+', '-':
			i++
			continue
		case '$':
		default:
			return fmt.Errorf("byte %d is %q, outside a packet", i, b[i])
		}
		var sum byte
		j := i + 1
		for ; j < len(b) && b[j] != '#'; j++ {
			switch b[j] {
			case '$':
				return fmt.Errorf("an unescaped $ at byte %d", j)
			case '}':
				if j+1 >= len(b) || b[j+1] == '#' {
					return fmt.Errorf("an escape with nothing to escape at byte %d", j)
				}
			}
			sum += b[j]
		}
		if j+3 > len(b) {
			return fmt.Errorf("the packet at byte %d has no end", i)
		}
		if got, want := string(b[j+1:j+3]), fmt.Sprintf("%02x", sum); got != want {
			return fmt.Errorf("the packet at byte %d has checksum %s, want %s", i, got, want)
		}
		if n := j - i - 1; n > packetBytesMax {
			return fmt.Errorf("the packet at byte %d has %d bytes, more than %d", i, n, packetBytesMax)
		}
		i = j + 3
	}
	return nil
}
