package nodeinit

import (
	"fmt"
	"os"
	"syscall"

	"everett/guest-images/sdk/go/everett"
	"everett/guest-images/sdk/go/netconf"
)

// Say reports a line on the console; the examples prefix theirs with the
// program's name and, once known, the node's number.
type Say func(format string, args ...any)

// Start mounts /proc, /sys and /dev (devtmpfs), saying which mount failed
// and going on without it, and returns the kernel command line.
func Start(say Say) (Cmdline, error) {
	for _, m := range []struct{ src, dst, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
	} {
		if err := syscall.Mount(m.src, m.dst, m.fstype, 0, ""); err != nil {
			say("mount %s: %v", m.dst, err)
		}
	}
	b, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return nil, fmt.Errorf("read /proc/cmdline: %w", err)
	}
	return ParseCmdline(string(b)), nil
}

// Network brings up lo, and eth0 at IP(node)/24.
func Network(node int) error {
	if err := netconf.Up("lo", nil); err != nil {
		return fmt.Errorf("lo: %w", err)
	}
	if err := netconf.Up("eth0", &netconf.Addr{IP: IP(node), Mask: [4]byte{255, 255, 255, 0}}); err != nil {
		return fmt.Errorf("eth0: %w", err)
	}
	return nil
}

// Finish ends the run with code and does not return: the SDK's exit on
// everett; elsewhere it says the code, drains the console, syncs and
// powers the machine off (an init must not exit).
func Finish(say Say, code int) {
	if everett.Enabled() {
		everett.Exit(code)
	}
	say("exit code %d; powering off", code)
	netconf.DrainConsole()
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}

// Halt reports a set-up failure: it says what failed, marks msg
// unreachable (an SDK assertion, so that everett reports it as a failure)
// and finishes with code 2.
func Halt(say Say, msg, format string, args ...any) {
	say(format, args...)
	everett.Unreachable(msg)
	Finish(say, 2)
}
