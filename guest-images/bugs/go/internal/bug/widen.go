//go:build widen

package bug

// Window marks the window of a program's bug: the place where a goroutine
// must be held up for the bug to show. Built with the tag "widen" (make
// widen), it does rounds rounds of work there (a stretch the size of the
// program's other work, up to a few tens of milliseconds), so that the
// window is wide and the bug shows in most runs: a check that the bug is
// real without a scheduler that finds it. It is not inlined: a call keeps
// the compiler from moving the caller's loads and stores across the
// window.
//
//go:noinline
func Window(rounds int) { sink = Work(0, rounds) }

var sink uint64
