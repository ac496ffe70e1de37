// Package hw defines the small interfaces that the machine (package emu) and
// the devices (package devices/...) share. It is a leaf: it imports nothing of
// everett, and every other package that needs these shapes imports it rather
// than declaring its own.
package hw

// Device is a memory-mapped device. The bus calls it with the offset of the
// access from the device's base and the access size in bytes (1, 2, 4 or 8).
// A device answers ok=false for an access it does not decode; the hart then
// takes an access fault (Privileged ISA §3.7.1, "physical memory attributes").
// Device methods run on the universe's goroutine and must not block.
type Device interface {
	Read(off uint64, size int) (val uint64, ok bool)
	Write(off uint64, size int, val uint64) (ok bool)
}

// IRQLine is one interrupt wire. Devices drive it; the receiver (a hart's mip
// bit or a PLIC source) sees the level.
type IRQLine interface {
	SetLevel(high bool)
}

// Clock is the machine's virtual clock as devices see it. Time is counted in
// instruction slots (see RATIONALE.md, "Why is time counted in
// instructions?"); Now is the current hart's local time.
type Clock interface {
	// Now returns the virtual time of the access being performed.
	Now() uint64
	// Schedule asks for t.Fire(now, tag) to be called at virtual time at, or
	// at the end of the current scheduling slice if at falls inside it.
	// Events fire in (time, scheduling order). The returned id cancels it.
	// Events are plain data (a target and a tag), never closures, so that the
	// event queue can be saved in a snapshot.
	Schedule(at uint64, t EventTarget, tag uint64) (id uint64)
	// Cancel forgets a scheduled event; unknown ids are ignored.
	Cancel(id uint64)
}

// EventTarget receives scheduled events. tag is the value given to Schedule.
type EventTarget interface {
	Fire(now uint64, tag uint64)
}

// Memory gives devices access to guest physical memory (DMA). Addresses
// outside RAM are an error, never a panic: a guest may hand a device any
// address.
type Memory interface {
	ReadPhys(pa uint64, b []byte) error
	// WritePhys writes guest memory and invalidates any decoded code there.
	WritePhys(pa uint64, b []byte) error
}

// Power ends or restarts the machine; devices such as HTIF and syscon drive it.
type Power interface {
	// PowerOff stops the machine after the current instruction with the
	// given exit code (0 = success).
	PowerOff(code int)
	// Reset asks for a reboot; the run ends with ErrReset.
	Reset()
}

// StoreWatcher is told after a hart stores to a physical page it watches
// (used by HTIF, whose tohost word lives in RAM). The call happens at the
// instruction boundary after the store.
type StoreWatcher interface {
	Stored(pa uint64, size int)
}
