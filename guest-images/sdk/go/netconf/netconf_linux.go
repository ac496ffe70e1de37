// Package netconf configures a Linux guest's network interfaces the way a
// minimal init needs: an IPv4 address and netmask, and up, through the
// classic socket ioctls (netdevice(7)), with no netlink, DHCP or IPv6, and
// drains the console before a power-off.
package netconf

import (
	"fmt"
	"syscall"
	"unsafe"
)

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

// Addr is an IPv4 address and netmask.
type Addr struct {
	IP, Mask [4]byte
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// Up sets the address of interface name (when addr is not nil) and brings
// it up. The kernel adds the route to the subnet itself.
func Up(name string, addr *Addr) error {
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
			{syscall.SIOCSIFADDR, "address", addr.IP},
			{syscall.SIOCSIFNETMASK, "netmask", addr.Mask},
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

// DrainConsole waits until the console has sent what was written to it
// (tcdrain(3): ioctl TCSBRK with argument 1), so that the last lines are
// not lost when the machine powers off.
func DrainConsole() {
	const tcsbrk = 0x5409 // include/uapi/asm-generic/ioctls.h
	syscall.Syscall(syscall.SYS_IOCTL, 1, tcsbrk, 1)
}
