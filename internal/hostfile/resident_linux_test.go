package hostfile

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages counts the pages of b that are mapped (mincore): call it
// before anything reads b, as a read maps the shared zero page. ok is
// false where that cannot be told.
func residentPages(b []byte) (n int, ok bool) {
	if len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%4096 != 0 {
		return 0, false
	}
	vec := make([]byte, (len(b)+4095)/4096)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, false
	}
	for _, v := range vec {
		n += int(v & 1)
	}
	return n, true
}
