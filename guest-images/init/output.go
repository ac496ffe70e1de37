package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Limits of what the init keeps and writes of a process's output.
const (
	tailLinesMax = 20   // lines of an exit event's output
	tailBytesMax = 2048 // bytes of an exit event's output
	lineBytesMax = 4096 // a longer line is written and kept in pieces
)

// console writes whole lines to /dev/console: the processes' output, raw,
// and the init's own lines, which start with "everett-init: ". Each line is
// one write, so lines from several writers never mix.
type console struct {
	mu sync.Mutex
	w  io.Writer
}

// line writes b and a newline.
func (c *console) line(b []byte) {
	buf := make([]byte, 0, len(b)+1)
	buf = append(append(buf, b...), '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.Write(buf) // nowhere to report a console that fails
}

// say writes a line of the init's own.
func (c *console) say(format string, args ...any) {
	c.line([]byte("everett-init: " + fmt.Sprintf(format, args...)))
}

// tail keeps the last lines of a process's output: at most tailLinesMax
// lines and tailBytesMax bytes (newlines included), for its exit event.
type tail struct {
	mu    sync.Mutex
	lines []string
	bytes int
}

// add keeps line (without its newline), dropping the oldest lines beyond
// the limits; of a line longer than tailBytesMax only its end is kept.
func (t *tail) add(line []byte) {
	if len(line) >= tailBytesMax {
		line = line[len(line)-(tailBytesMax-1):]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, string(line))
	t.bytes += len(line) + 1
	for len(t.lines) > tailLinesMax || t.bytes > tailBytesMax {
		t.bytes -= len(t.lines[0]) + 1
		t.lines = t.lines[1:]
	}
}

// String is the kept lines, each ended by a newline.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	for _, l := range t.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// copyLines copies r to the console line by line, keeping the tail in t,
// until r ends; a last line without a newline is written with one. A line
// longer than lineBytesMax goes out in pieces of that size.
func copyLines(r io.Reader, con *console, t *tail) error {
	br := bufio.NewReaderSize(r, lineBytesMax)
	for {
		b, err := br.ReadSlice('\n')
		line := b
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		if len(b) > 0 {
			con.line(line)
			t.add(line)
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
