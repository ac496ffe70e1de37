//go:build riscv64

package everett

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// hypercall executes everett's hypercall instruction with a0 = op,
// a1 = arg, a2 = msg, a3 = n, and returns a0 (hypercall_riscv64.s). msg is
// an unsafe.Pointer, not a uintptr, so that the garbage collector keeps
// what it points to alive for the duration of the call.
//
//go:noescape
func hypercall(op, arg uint64, msg unsafe.Pointer, n uint64) uint64

// message issues an assertion hypercall. The host reads the message while
// the instruction executes, through the hart's MMU, so the pointer only has
// to stay valid until hypercall returns.
func message(op uint64, cond bool, msg string) {
	var c uint64
	if cond {
		c = 1
	}
	if len(msg) > MaxMessage {
		msg = msg[:MaxMessage]
	}
	p := unsafe.Pointer(unsafe.StringData(msg))
	hypercall(op, c, p, uint64(len(msg)))
	runtime.KeepAlive(p)
}

// The model string of everett's device tree (emu/board/virt.go).
const everettModel = "everett,"

var enabled = sync.OnceValue(detect)

// Enabled reports whether the package issues hypercalls, that is whether it
// runs on everett; when it does not, calls take the portable fallback.
//
// It is decided once, at the first call of any function of the package: the
// environment variable EVERETT_SDK=on (or 1) forces hypercalls and
// EVERETT_SDK=off (or 0) the fallback; otherwise the device tree's model,
// read from /proc/device-tree/model or /sys/firmware/devicetree/base/model,
// tells whether the machine is everett's. When neither file can be read
// (a program running as init before it mounts /proc or /sys), the package
// assumes everett. On architectures other than riscv64, Enabled is false.
func Enabled() bool { return enabled() }

func detect() bool {
	switch os.Getenv("EVERETT_SDK") {
	case "on", "1":
		return true
	case "off", "0":
		return false
	}
	for _, p := range []string{"/proc/device-tree/model", "/sys/firmware/devicetree/base/model"} {
		if b, err := os.ReadFile(p); err == nil {
			return bytes.HasPrefix(b, []byte(everettModel))
		}
	}
	return true
}
