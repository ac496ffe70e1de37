package explorer

import (
	"fmt"
	"os"
	"path/filepath"
)

// maxConsoleLog bounds one console log file.
const maxConsoleLog = 8 << 20

// consoleLog writes a node's console to a file on the host (output only;
// nothing in the universe reads it). Write errors are ignored: they must not
// change the universe.
type consoleLog struct {
	f *os.File
	n int
}

// newConsoleLog opens dir/u<universe>-n<node>.log (universe -1: the boot
// universe, boot-n<node>.log).
func newConsoleLog(dir string, universe, node int) *consoleLog {
	name := fmt.Sprintf("u%d-n%d.log", universe, node)
	if universe < 0 {
		name = fmt.Sprintf("boot-n%d.log", node)
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return &consoleLog{}
	}
	return &consoleLog{f: f}
}

func (l *consoleLog) Write(p []byte) (int, error) {
	if l.f != nil && l.n < maxConsoleLog {
		m, _ := l.f.Write(p[:min(len(p), maxConsoleLog-l.n)])
		l.n += m
	}
	return len(p), nil
}

// Close closes the file.
func (l *consoleLog) Close() {
	if l.f != nil {
		l.f.Close()
	}
}
