// Package clint implements the Core-Local Interruptor of the SiFive/QEMU
// virt platform (the ACLINT MSWI and MTIMER devices at one base address):
// msip per hart at 0x0000, mtimecmp per hart at 0x4000, mtime at 0xbff8.
// mtime is virtual time, a function of retired instructions.
package clint

import "everett/hw"

// Register layout (ACLINT spec §2 "MTIMER", §3 "MSWI", in the SiFive CLINT
// arrangement).
const (
	msipBase     = 0x0000
	mtimecmpBase = 0x4000
	mtimeOff     = 0xbff8
	// Size is the size of the register window.
	Size = 0x10000
)

// Timebase is what the CLINT needs from the machine's clock.
type Timebase interface {
	hw.Clock
	MTime() uint64                   // current mtime
	SetMTime(v uint64)               // mtime is v from now on
	TicksToTime(ticks uint64) uint64 // virtual time at which mtime reaches ticks
}

// Hart is one hart's pair of interrupt lines.
type Hart struct {
	MSIP hw.IRQLine
	MTIP hw.IRQLine
}

// CLINT is the device.
type CLINT struct {
	clock    Timebase
	harts    []Hart
	msip     []bool
	mtimecmp []uint64
	pending  []uint64 // scheduled event id per hart (0: none)
}

// New returns a CLINT driving the given harts' lines.
func New(clock Timebase, harts []Hart) *CLINT {
	c := &CLINT{
		clock:    clock,
		harts:    harts,
		msip:     make([]bool, len(harts)),
		mtimecmp: make([]uint64, len(harts)),
		pending:  make([]uint64, len(harts)),
	}
	for i := range c.mtimecmp {
		c.mtimecmp[i] = ^uint64(0)
	}
	return c
}

func (c *CLINT) mtime() uint64 { return c.clock.MTime() }

// Read implements hw.Device.
func (c *CLINT) Read(off uint64, size int) (uint64, bool) {
	switch {
	case off < msipBase+4*uint64(len(c.harts)):
		if size != 4 || off%4 != 0 {
			return 0, false
		}
		if c.msip[off/4] {
			return 1, true
		}
		return 0, true
	case off >= mtimecmpBase && off < mtimecmpBase+8*uint64(len(c.harts)):
		return sub(c.mtimecmp[(off-mtimecmpBase)/8], off%8, size)
	case off >= mtimeOff && off < mtimeOff+8:
		return sub(c.mtime(), off-mtimeOff, size)
	}
	return 0, true // unimplemented registers read as zero
}

// Write implements hw.Device.
func (c *CLINT) Write(off uint64, size int, v uint64) bool {
	switch {
	case off < msipBase+4*uint64(len(c.harts)):
		if size != 4 || off%4 != 0 {
			return false
		}
		i := off / 4
		c.msip[i] = v&1 != 0
		c.harts[i].MSIP.SetLevel(c.msip[i])
	case off >= mtimecmpBase && off < mtimecmpBase+8*uint64(len(c.harts)):
		i := int((off - mtimecmpBase) / 8)
		nv, ok := merge(c.mtimecmp[i], off%8, size, v)
		if !ok {
			return false
		}
		c.mtimecmp[i] = nv
		c.update(i)
	case off >= mtimeOff && off < mtimeOff+8:
		nv, ok := merge(c.mtime(), off-mtimeOff, size, v)
		if !ok {
			return false
		}
		c.clock.SetMTime(nv)
		for i := range c.harts {
			c.update(i)
		}
	}
	return true
}

// SetSkew sets mtime to the machine's timebase plus skew ticks (clock skew
// between the nodes of a cluster). Call it before the machine runs.
func (c *CLINT) SetSkew(skew uint64) {
	c.clock.SetMTime(c.clock.MTime() + skew)
	for i := range c.harts {
		c.update(i)
	}
}

// update recomputes hart i's MTIP level and schedules the event that raises
// it when mtime reaches mtimecmp.
func (c *CLINT) update(i int) {
	if c.pending[i] != 0 {
		c.clock.Cancel(c.pending[i])
		c.pending[i] = 0
	}
	now := c.mtime()
	if now >= c.mtimecmp[i] {
		c.harts[i].MTIP.SetLevel(true)
		return
	}
	c.harts[i].MTIP.SetLevel(false)
	at := c.clock.TicksToTime(c.mtimecmp[i])
	if at == ^uint64(0) {
		return // beyond the end of virtual time: it never fires
	}
	c.pending[i] = c.clock.Schedule(at, c, uint64(i))
}

// Fire implements hw.EventTarget: hart tag's timer deadline.
func (c *CLINT) Fire(now uint64, tag uint64) {
	i := int(tag)
	if i >= len(c.harts) {
		return
	}
	c.pending[i] = 0
	c.update(i)
}

// sub extracts an aligned 4- or 8-byte access from a 64-bit register.
func sub(reg, off uint64, size int) (uint64, bool) {
	switch {
	case size == 8 && off == 0:
		return reg, true
	case size == 4 && off == 0:
		return reg & 0xffffffff, true
	case size == 4 && off == 4:
		return reg >> 32, true
	}
	return 0, false
}

// merge applies an aligned 4- or 8-byte write to a 64-bit register.
func merge(reg, off uint64, size int, v uint64) (uint64, bool) {
	switch {
	case size == 8 && off == 0:
		return v, true
	case size == 4 && off == 0:
		return reg&^0xffffffff | v&0xffffffff, true
	case size == 4 && off == 4:
		return reg&0xffffffff | v<<32, true
	}
	return 0, false
}

// Save implements hw.Persist.
func (c *CLINT) Save(e *hw.Encoder) {
	e.Tag("clint")
	e.U64(uint64(len(c.harts)))
	for i := range c.harts {
		e.Bool(c.msip[i])
		e.U64(c.mtimecmp[i])
		e.U64(c.pending[i])
	}
}

// Restore implements hw.Persist. Interrupt lines are part of the harts'
// state (mip) and are restored there.
func (c *CLINT) Restore(d *hw.Decoder) error {
	d.Tag("clint")
	if n := d.Len(1 << 16); d.Err() == nil && n != len(c.harts) {
		d.Fail("clint: %d harts saved, machine has %d", n, len(c.harts))
	}
	for i := range c.harts {
		c.msip[i] = d.Bool()
		c.mtimecmp[i] = d.U64()
		c.pending[i] = d.U64()
	}
	return d.Err()
}
