package main

import (
	"os"
	"syscall"

	"everett/guest-images/sdk/go/everett"
)

// asInit ends a run in which the program is the kernel's init, as
// spec.yaml boots it: init must not exit (the kernel panics), so on
// everett it ends the run with an SDK exit, and elsewhere it powers the
// machine off. Run as an ordinary program (everett explore --linux), the
// program never gets here: everett's own init is PID 1 and does this.
func asInit(code int) {
	everett.Exit(code)
	syscall.Sync()
	_ = syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	os.Exit(code)
}
