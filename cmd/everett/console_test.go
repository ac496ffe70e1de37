package main

import (
	"strings"
	"testing"
)

// countingWriter records each write it gets.
type countingWriter struct{ writes []string }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func TestTheConsoleIsWrittenALineAtATimeAndFlushedAtTheEnd(t *testing.T) {
	var c countingWriter
	lw := &lineWriter{w: &c}
	for _, b := range []byte("Linux version 6.1\nbooting\nlogin: ") {
		lw.Write([]byte{b}) // as the UART hands it over: one byte at a time
	}
	if want := []string{"Linux version 6.1\n", "booting\n"}; strings.Join(c.writes, "|") != strings.Join(want, "|") {
		t.Fatalf("writes before the flush: %q, want %q", c.writes, want)
	}
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := c.writes[len(c.writes)-1]; len(c.writes) != 3 || got != "login: " {
		t.Fatalf("the flush wrote %q (%d writes in all), want the unfinished line", got, len(c.writes))
	}
	long := strings.Repeat("x", lineWriterMax+10)
	lw.Write([]byte(long))
	if len(c.writes) != 4 || len(c.writes[3]) != len(long) {
		t.Fatalf("a line longer than the buffer was not written at once: %d writes", len(c.writes))
	}
}
