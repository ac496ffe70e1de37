// Package syscon implements the test finisher of QEMU's virt machine
// (devicetree compatible "sifive,test1", "sifive,test0", "syscon"), which
// guests use to power off and reboot: OpenSBI drives it for SBI system
// reset, and Linux through its "syscon-poweroff" and "syscon-reboot" nodes.
//
// A write to offset 0 is a command in bits 15:0, with an exit code in bits
// 31:16 for FAIL:
//
//	0x5555  PASS    power off with exit code 0
//	0x3333  FAIL    power off with the exit code in bits 31:16
//	0x7777  RESET   reboot
//
// Writes of 2, 4 or 8 bytes at offset 0 are commands (a 2-byte write carries
// no code; an 8-byte write uses its low 32 bits). Any other write, including
// other values, other offsets and single bytes, is ignored; every read
// returns zero. The device has no state.
package syscon

import (
	"fmt"

	"everett/hw"
)

// Size is the size of the register window.
const Size = 0x1000

// Commands, in bits 15:0 of a write to offset 0.
const (
	CmdPass  = 0x5555
	CmdFail  = 0x3333
	CmdReset = 0x7777
)

var (
	_ hw.Device  = (*Syscon)(nil)
	_ hw.Persist = (*Syscon)(nil)
)

// Syscon is the device.
type Syscon struct {
	power hw.Power
}

// New returns the device; commands go to power.
func New(power hw.Power) *Syscon { return &Syscon{power: power} }

// Read implements hw.Device: every register reads as zero.
func (s *Syscon) Read(off uint64, size int) (uint64, bool) { return 0, true }

// Write implements hw.Device.
func (s *Syscon) Write(off uint64, size int, v uint64) bool {
	if off != 0 || size < 2 {
		return true
	}
	if size == 2 {
		v &= 0xffff
	}
	switch uint32(v) & 0xffff {
	case CmdPass:
		s.power.PowerOff(0)
	case CmdFail:
		s.power.PowerOff(int(uint32(v) >> 16))
	case CmdReset:
		s.power.Reset()
	}
	return true
}

const saveTag = "syscon/1"

// Save implements hw.Persist. The device has no state beyond its tag.
func (s *Syscon) Save(e *hw.Encoder) { e.Tag(saveTag) }

// Restore implements hw.Persist.
func (s *Syscon) Restore(d *hw.Decoder) error {
	d.Tag(saveTag)
	if err := d.Err(); err != nil {
		return fmt.Errorf("syscon: %w", err)
	}
	return nil
}
