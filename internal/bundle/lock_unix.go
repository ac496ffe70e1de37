//go:build unix

package bundle

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile holds an exclusive flock on path until unlock is called, so
// that two processes build a cached image once (the recipes' scripts take
// the same kind of lock).
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}
