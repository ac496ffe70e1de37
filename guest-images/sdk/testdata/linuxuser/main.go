// Command linuxuser is the init (PID 1) of the guest SDK's Linux test
// (guest-images/sdk/sdk_test.go): it calls every function of the Go SDK
// package from user mode and ends the run with everett.Exit(3). When the
// SDK is disabled (EVERETT_SDK=off on the kernel command line, which the
// kernel passes to init as an environment variable) it only exercises the
// fallback and powers the machine off.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"everett/guest-images/sdk/go/everett"
)

func mount(source, target, fstype string) {
	if err := syscall.Mount(source, target, fstype, 0, ""); err != nil {
		fmt.Printf("sdktest: mount %s: %v\n", target, err)
	}
}

func main() {
	mount("proc", "/proc", "proc")
	mount("sysfs", "/sys", "sysfs")
	mount("devtmpfs", "/dev", "devtmpfs")
	fmt.Printf("sdktest: enabled %v\n", everett.Enabled())

	everett.Always(true, "linux: always true")
	everett.Always(false, "linux: always false")
	everett.Sometimes(true, "linux: sometimes true")
	everett.Sometimes(false, "linux: sometimes false")
	everett.Reachable("linux: reachable")
	everett.Unreachable("linux: unreachable")
	// A message on the heap, built at run time, and one longer than the
	// host reads.
	everett.Always(false, fmt.Sprintf("linux: heap message %d", len(os.Args)+41))
	everett.Always(false, strings.Repeat("0123456789", 30))
	everett.Always(false, "")
	r1, r2 := everett.Random(), everett.Random()
	everett.SetupComplete()
	everett.Progress(123)

	// From another OS thread (perhaps another hart).
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		everett.Always(false, "linux: from another thread")
	}()
	wg.Wait()
	runtime.GC()

	if !everett.Enabled() {
		fmt.Println("sdktest: fallback done")
		syscall.Sync()
		syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	}
	fmt.Printf("sdktest: random %016x %016x\n", r1, r2)
	everett.Exit(3)
}
