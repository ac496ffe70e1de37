package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Interface configuration through the classic socket ioctls (netdevice(7)),
// which is all the guest kernel needs: no netlink, no DHCP, no IPv6.

// ifreqAddr is struct ifreq with an IPv4 address in its union.
type ifreqAddr struct {
	name [syscall.IFNAMSIZ]byte
	addr syscall.RawSockaddrInet4
	_    [8]byte
}

// ifreqFlags is struct ifreq with the interface flags in its union.
type ifreqFlags struct {
	name  [syscall.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

// ifAddr is an IPv4 address and netmask.
type ifAddr struct {
	ip, mask [4]byte
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// ifUp sets the address of interface name (when addr is not nil) and
// brings it up. The kernel adds the route to the subnet itself.
func ifUp(name string, addr *ifAddr) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer syscall.Close(fd)
	if addr != nil {
		for _, s := range []struct {
			req  uint
			what string
			ip   [4]byte
		}{
			{syscall.SIOCSIFADDR, "address", addr.ip},
			{syscall.SIOCSIFNETMASK, "netmask", addr.mask},
		} {
			r := ifreqAddr{addr: syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: s.ip}}
			copy(r.name[:], name)
			if err := ioctl(fd, s.req, unsafe.Pointer(&r)); err != nil {
				return fmt.Errorf("set %s: %w", s.what, err)
			}
		}
	}
	var f ifreqFlags
	copy(f.name[:], name)
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, unsafe.Pointer(&f)); err != nil {
		return fmt.Errorf("get flags: %w", err)
	}
	f.flags |= syscall.IFF_UP
	if err := ioctl(fd, syscall.SIOCSIFFLAGS, unsafe.Pointer(&f)); err != nil {
		return fmt.Errorf("set flags: %w", err)
	}
	return nil
}

// drainConsole waits until the console has sent what was written to it
// (tcdrain(3): ioctl TCSBRK with argument 1), so that the last lines are
// not lost when the machine powers off.
func drainConsole() {
	const tcsbrk = 0x5409 // include/uapi/asm-generic/ioctls.h
	syscall.Syscall(syscall.SYS_IOCTL, 1, tcsbrk, 1)
}
