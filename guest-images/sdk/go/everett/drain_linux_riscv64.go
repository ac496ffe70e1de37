//go:build linux && riscv64

package everett

import "syscall"

// drainOutput waits until what the program wrote to standard output and
// standard error has left the machine when they are terminals: console
// writes are queued in the kernel and sent by the UART driver later, and a
// run that ends at an exit hypercall would otherwise lose its last lines.
// tcdrain(3) is ioctl(fd, TCSBRK, 1); on a non-terminal it fails with
// ENOTTY, which is ignored.
func drainOutput() {
	const tcsbrk = 0x5409 // include/uapi/asm-generic/ioctls.h
	for _, fd := range []uintptr{1, 2} {
		syscall.Syscall(syscall.SYS_IOCTL, fd, tcsbrk, 1)
	}
}
