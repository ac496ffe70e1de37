package main

import (
	"bufio"
	"bytes"
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
	// A Go program's crash report (a panic, a fatal error such as "all
	// goroutines are asleep - deadlock!", the goroutine dump SIGQUIT
	// asks for) is kept from its first line: the tail of a dump of many
	// goroutines would lose the line that says what went wrong.
	crashLinesMax = 400
	crashBytesMax = 10 << 10
)

// goCrashStarts are the first lines of the Go runtime's crash reports
// (runtime/panic.go, runtime/signal_unix.go as of Go 1.26): a panic, a
// fatal error, and the report of a signal the runtime dies of (SIGQUIT's
// is the goroutine dump).
var goCrashStarts = []string{
	"panic: ", "fatal error: ", "SIGQUIT: quit", "SIGABRT: abort",
	"SIGSEGV: segmentation violation", "SIGBUS: bus error", "SIGILL: illegal instruction",
	"SIGFPE: floating-point exception", "SIGTRAP: trace trap",
}

// isGoCrashStart reports whether line opens a Go crash report.
func isGoCrashStart(line []byte) bool {
	for _, p := range goCrashStarts {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// console writes whole lines to /dev/console: the processes' output, raw,
// and the init's own lines, which start with "everett-init: ". One
// goroutine writes them in the order they were queued, each line in one
// write so that lines never mix; queueing returns at once unless
// consoleQueueMax lines wait, so that a slow console (a serial line) holds
// up the supervisor only when it falls far behind.
type console struct {
	q chan consoleItem
}

// consoleQueueMax is how many lines may wait for the console.
const consoleQueueMax = 1024

// consoleItem is a line to write, or a flush request (line nil).
type consoleItem struct {
	line    []byte
	flushed chan struct{}
}

// newConsole starts the goroutine that writes to w.
func newConsole(w io.Writer) *console {
	c := &console{q: make(chan consoleItem, consoleQueueMax)}
	go c.write(w)
	return c
}

func (c *console) write(w io.Writer) {
	for it := range c.q {
		if it.flushed != nil {
			close(it.flushed)
			continue
		}
		func() {
			defer func() { recover() }() // a failing writer must not take the init down
			w.Write(it.line)             // nowhere to report a console that fails
		}()
	}
}

// line queues b and a newline.
func (c *console) line(b []byte) {
	buf := make([]byte, 0, len(b)+1)
	buf = append(append(buf, b...), '\n')
	c.q <- consoleItem{line: buf}
}

// say queues a line of the init's own.
func (c *console) say(format string, args ...any) {
	c.line([]byte("everett-init: " + fmt.Sprintf(format, args...)))
}

// flush waits until every line queued so far has been written.
func (c *console) flush() {
	done := make(chan struct{})
	c.q <- consoleItem{flushed: done}
	<-done
}

// tail keeps the last lines of a process's output: at most tailLinesMax
// lines and tailBytesMax bytes (newlines included), for its exit event;
// and, from the first line that opens a Go crash report on, the first
// crashLinesMax lines and crashBytesMax bytes of that report.
type tail struct {
	mu    sync.Mutex
	lines []string
	bytes int

	crash      strings.Builder
	crashLines int
	crashFull  bool // a line did not fit: the report was cut
}

// add keeps line (without its newline), dropping the oldest lines beyond
// the limits; of a line longer than tailBytesMax only its end is kept.
func (t *tail) add(line []byte) {
	if len(line) >= tailBytesMax {
		line = line[len(line)-(tailBytesMax-1):]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.addCrash(line)
	t.lines = append(t.lines, string(line))
	t.bytes += len(line) + 1
	for len(t.lines) > tailLinesMax || t.bytes > tailBytesMax {
		t.bytes -= len(t.lines[0]) + 1
		t.lines = t.lines[1:]
	}
}

// addCrash keeps line if a crash report has begun (or begins with it) and
// there is room.
func (t *tail) addCrash(line []byte) {
	if t.crashFull || (t.crashLines == 0 && !isGoCrashStart(line)) {
		return
	}
	if t.crashLines == crashLinesMax || t.crash.Len()+len(line)+1 > crashBytesMax {
		t.crashFull = true
		return
	}
	t.crash.Write(line)
	t.crash.WriteByte('\n')
	t.crashLines++
}

// crashReport is the Go crash report kept, each line ended by a newline
// and a cut report by "…\n"; "" when the output had none.
func (t *tail) crashReport() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.crashFull {
		return t.crash.String() + "…\n"
	}
	return t.crash.String()
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
