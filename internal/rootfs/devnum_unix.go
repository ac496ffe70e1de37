//go:build unix

package rootfs

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// devNumber is the device number of a host device file.
func devNumber(info fs.FileInfo) (major, minor uint32, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	rdev := uint64(st.Rdev) // Rdev is narrower on some systems
	return unix.Major(rdev), unix.Minor(rdev), true
}
