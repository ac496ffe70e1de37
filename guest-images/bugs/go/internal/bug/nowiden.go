//go:build !widen

package bug

// Window marks the window of a program's bug; without the tag "widen" it
// does nothing (see widen.go).
func Window(rounds int) {}
