// Package htif implements the Host-Target Interface that bare-metal RISC-V
// test programs (riscv-tests, and programs built for Spike) use to print and
// to exit: two 64-bit words in RAM, tohost and fromhost, located through the
// program's ELF symbols of those names.
//
// A word written to tohost is a command: device (bits 63:56), command (bits
// 55:48) and payload (bits 47:0).
//   - device 0, command 0, payload odd: exit with code payload>>1 (1 = pass).
//   - device 0, command 0, payload even: payload is the address of a
//     "magic memory" block of eight 64-bit words {syscall number, args...};
//     write (64) to fd 1 or 2 prints, exit (93) ends the run; the return
//     value is stored in word 0, and fromhost is set to 1.
//   - device 1, command 1: print the byte in the payload; fromhost is set to
//     (1<<56 | 1<<48) as the acknowledgement.
//
// The device clears tohost once it has taken the command.
package htif

import (
	"encoding/binary"
	"io"

	"everett/hw"
)

// Syscall numbers of the magic-memory protocol (the Linux/RISC-V numbers).
const (
	sysWrite = 64
	sysExit  = 93
	// maxWrite bounds one write syscall so that a guest cannot make the host
	// buffer unbounded output in one command.
	maxWrite = 1 << 20
	enosys   = 38
)

// HTIF watches tohost and answers through fromhost.
type HTIF struct {
	mem      hw.Memory
	power    hw.Power
	console  io.Writer
	tohost   uint64
	fromhost uint64
	hasFrom  bool
}

// New returns an HTIF device for the words at tohost and fromhost (fromhost 0:
// the program has none). Output goes to console.
func New(mem hw.Memory, power hw.Power, console io.Writer, tohost, fromhost uint64) *HTIF {
	return &HTIF{mem: mem, power: power, console: console, tohost: tohost, fromhost: fromhost, hasFrom: fromhost != 0}
}

// Stored implements hw.StoreWatcher.
func (d *HTIF) Stored(pa uint64, size int) {
	if pa+uint64(size) <= d.tohost || pa >= d.tohost+8 {
		return
	}
	var b [8]byte
	if d.mem.ReadPhys(d.tohost, b[:]) != nil {
		return
	}
	v := binary.LittleEndian.Uint64(b[:])
	if v == 0 {
		return
	}
	d.write(d.tohost, 0)
	dev, cmd, payload := v>>56, v>>48&0xff, v&(1<<48-1)
	switch {
	case dev == 0 && cmd == 0 && payload&1 == 1:
		d.power.PowerOff(int(payload >> 1))
	case dev == 0 && cmd == 0:
		d.syscall(payload)
	case dev == 1 && cmd == 1:
		_, _ = d.console.Write([]byte{byte(payload)})
		d.respond(1<<56 | 1<<48)
	}
}

func (d *HTIF) syscall(addr uint64) {
	var mm [64]byte
	if d.mem.ReadPhys(addr, mm[:]) != nil {
		return
	}
	le := binary.LittleEndian
	num, a0, a1, a2 := le.Uint64(mm[0:]), le.Uint64(mm[8:]), le.Uint64(mm[16:]), le.Uint64(mm[24:])
	ret := uint64(-enosys & 0xffffffffffffffff)
	switch num {
	case sysWrite:
		n := min(a2, maxWrite)
		buf := make([]byte, n)
		if (a0 == 1 || a0 == 2) && d.mem.ReadPhys(a1, buf) == nil {
			_, _ = d.console.Write(buf)
			ret = n
		}
	case sysExit:
		d.power.PowerOff(int(a0))
		ret = 0
	}
	d.write(addr, ret)
	d.respond(1)
}

func (d *HTIF) respond(v uint64) {
	if d.hasFrom {
		d.write(d.fromhost, v)
	}
}

func (d *HTIF) write(pa, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	_ = d.mem.WritePhys(pa, b[:])
}

// Save implements hw.Persist. HTIF keeps no state of its own: tohost and
// fromhost live in guest RAM.
func (d *HTIF) Save(e *hw.Encoder) { e.Tag("htif") }

// Restore implements hw.Persist.
func (d *HTIF) Restore(dec *hw.Decoder) error {
	dec.Tag("htif")
	return dec.Err()
}
