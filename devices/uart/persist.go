package uart

import (
	"fmt"

	"everett/hw"
)

// The saved state (hw.Encoder encoding, little-endian):
//
//	tag      "uart/1"
//	u8 × 6   IER, LCR, MCR, SCR, DLL, DLM     IER ≤ 0x0f, MCR ≤ 0x1f
//	bool     FIFOs enabled
//	u8       FCR trigger bits 7:6, as 0..3
//	u8       sticky LSR error bits             only OE
//	bool     THR-empty interrupt latched       only with IER.ETBEI
//	u8       MSR delta bits                    ≤ 0x0f
//	bytes    receiver contents, oldest first   ≤ FIFOBytes (1 without FIFOs)
//	bytes    console input not yet delivered
//	u64      gap between input bytes           ≥ 1 while input remains
//	u8       input state: 0 idle, 1 scheduled, 2 waiting for room
//	                                           idle exactly when no input
//	u64      generation (the tag of the scheduled input event)
//
// The scheduled input event itself lives in the machine's event queue (as
// target and tag), which the machine saves; Restore schedules nothing. The
// interrupt line level is not saved: it is a function of the rest.

const saveTag = "uart/1"

// Save implements hw.Persist.
func (u *UART) Save(e *hw.Encoder) {
	e.Tag(saveTag)
	for _, v := range []uint8{u.ier, u.lcr, u.mcr, u.scr, u.dll, u.dlm} {
		e.U8(v)
	}
	e.Bool(u.fifos)
	e.U8(u.trig)
	e.U8(u.lsrErr)
	e.Bool(u.thri)
	e.U8(u.msrDelta)
	var rx [FIFOBytes]byte
	for i := 0; i < u.rxLen; i++ {
		rx[i] = u.rx[(u.rxHead+i)%FIFOBytes]
	}
	e.ByteSlice(rx[:u.rxLen])
	e.ByteSlice(u.input)
	e.U64(u.gap)
	e.U8(u.inState)
	e.U64(u.gen)
}

// Restore implements hw.Persist. On success the interrupt line is driven to
// the restored level; on error the UART is unchanged.
func (u *UART) Restore(d *hw.Decoder) error {
	d.Tag(saveTag)
	q := UART{clock: u.clock, irq: u.irq, console: u.console}
	q.ier, q.lcr, q.mcr, q.scr, q.dll, q.dlm = d.U8(), d.U8(), d.U8(), d.U8(), d.U8(), d.U8()
	q.fifos = d.Bool()
	q.trig = d.U8()
	q.lsrErr = d.U8()
	q.thri = d.Bool()
	q.msrDelta = d.U8()
	rx := d.ByteSlice(FIFOBytes)
	q.input = d.ByteSlice(hw.MaxSliceLen)
	q.gap = d.U64()
	q.inState = d.U8()
	q.gen = d.U64()
	if err := d.Err(); err != nil {
		return fmt.Errorf("uart: %w", err)
	}
	copy(q.rx[:], rx)
	q.rxLen = len(rx)
	if err := q.check(); err != nil {
		return fmt.Errorf("%w: uart: %v", hw.ErrCorrupt, err)
	}
	q.level = q.interrupt() != iirNone
	*u = q
	if u.irq != nil {
		u.irq.SetLevel(u.level)
	}
	return nil
}

// check returns an error if the state breaks an invariant. Restore uses it
// on untrusted input; tests use it after every step.
func (u *UART) check() error {
	switch {
	case u.ier&^ierMask != 0:
		return fmt.Errorf("IER %#x has reserved bits", u.ier)
	case u.mcr&^mcrMask != 0:
		return fmt.Errorf("MCR %#x has reserved bits", u.mcr)
	case u.trig > 3:
		return fmt.Errorf("FIFO trigger %d", u.trig)
	case u.lsrErr&^lsrOE != 0:
		return fmt.Errorf("LSR error bits %#x", u.lsrErr)
	case u.thri && u.ier&ierETBEI == 0:
		return fmt.Errorf("THR-empty interrupt latched with ETBEI clear")
	case u.msrDelta&^msrDelta != 0:
		return fmt.Errorf("MSR delta bits %#x", u.msrDelta)
	case u.rxLen < 0 || u.rxLen > u.capacity():
		return fmt.Errorf("%d received bytes, capacity %d", u.rxLen, u.capacity())
	case u.rxHead < 0 || u.rxHead >= FIFOBytes:
		return fmt.Errorf("receiver head %d", u.rxHead)
	case u.inState > inBlocked:
		return fmt.Errorf("input state %d", u.inState)
	case (u.inState == inIdle) != (len(u.input) == 0):
		return fmt.Errorf("input state %d with %d bytes to come", u.inState, len(u.input))
	case len(u.input) > 0 && u.gap == 0:
		return fmt.Errorf("input gap 0")
	case u.inState == inBlocked && u.canAccept():
		return fmt.Errorf("input waits for room, but the receiver has room")
	}
	return nil
}
