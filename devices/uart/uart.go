// Package uart implements a 16550A-compatible UART as QEMU's virt machine
// has it ("ns16550a", reg-shift 0, reg-io-width 1): eight byte-wide
// registers at offsets 0..7 of a 0x100-byte window.
//
//	off  DLAB=0 read  DLAB=0 write  DLAB=1
//	0    RBR          THR           DLL
//	1    IER          IER           DLM
//	2    IIR          FCR           (IIR/FCR)
//	3    LCR          LCR
//	4    MCR          MCR
//	5    LSR          (ignored)
//	6    MSR          (ignored)
//	7    SCR          SCR
//
// The model follows the register descriptions of the 16550 datasheets (TI
// PC16550D, "Register Description" and the interrupt control table), with
// these choices and simplifications:
//
//   - Transmission is instantaneous: a byte written to THR goes straight to
//     the console writer, and LSR.THRE and LSR.TEMT are always set. Since the
//     THR empties at once, the THR-empty interrupt, cleared by the THR write,
//     is raised again at once (the datasheet's "set" condition is "THR
//     empty"). It is also raised when ETBEI goes from 0 to 1, and cleared by
//     reading IIR while it is the reported source, or by clearing ETBEI.
//   - The receiver FIFO holds FIFOBytes bytes with FIFOs enabled and one byte
//     (the RBR) without. Input never overruns: bytes wait until there is
//     room. A byte looped back (MCR.LOOP) into a full receiver sets LSR.OE
//     and is lost (FIFO mode) or replaces the held byte (16450 mode).
//   - The received-data interrupt is reported as "data available" (IIR 0x4)
//     when the FIFO holds at least the trigger level, and as "character
//     timeout" (IIR 0xC) at once when it holds fewer: the timeout is zero
//     character times. Without FIFOs it is "data available" whenever LSR.DR
//     is set.
//   - No parity, framing or break errors happen; the divisor latch and LCR
//     are stored but do not change timing. Console input arrives at the
//     times given to SetInput.
//   - Modem lines: outside loopback, CTS, DSR and DCD are asserted and RI is
//     not (MSR = 0xB0, a null-modem cable to a present peer). In loopback the
//     modem inputs follow MCR (DTR→DSR, RTS→CTS, OUT1→RI, OUT2→DCD), with
//     the delta bits and the modem-status interrupt; transmitted bytes go to
//     the receiver, not to the console, and console input waits.
//   - OUT2 does not gate the interrupt line (as on QEMU's virt, unlike a PC).
//   - Registers are byte-wide: an access of any size selects the register at
//     its offset, writes use the low byte and reads return it zero-extended.
//     Offsets 8 and above read as zero and ignore writes.
package uart

import (
	"io"

	"everett/hw"
)

// Size is the size of the register window.
const Size = 0x100

// FIFOBytes is the depth of the receiver FIFO, as on the 16550A.
const FIFOBytes = 16

// Register offsets.
const (
	regRBR = 0 // RBR (read), THR (write), DLL (DLAB)
	regIER = 1 // IER, DLM (DLAB)
	regIIR = 2 // IIR (read), FCR (write)
	regLCR = 3
	regMCR = 4
	regLSR = 5
	regMSR = 6
	regSCR = 7
)

// Register bits.
const (
	ierERBFI = 1 << 0 // received data available
	ierETBEI = 1 << 1 // transmitter holding register empty
	ierELSI  = 1 << 2 // receiver line status
	ierEDSSI = 1 << 3 // modem status
	ierMask  = 0x0f

	iirNone    = 0x01 // no interrupt pending
	iirMSR     = 0x00 // modem status
	iirTHRE    = 0x02 // transmitter holding register empty
	iirRDA     = 0x04 // received data available
	iirRLS     = 0x06 // receiver line status
	iirTimeout = 0x0c // character timeout
	iirFIFOs   = 0xc0 // FIFOs enabled

	fcrEnable  = 1 << 0
	fcrRxReset = 1 << 1

	lcrDLAB = 1 << 7

	mcrDTR  = 1 << 0
	mcrRTS  = 1 << 1
	mcrOUT1 = 1 << 2
	mcrOUT2 = 1 << 3
	mcrLoop = 1 << 4
	mcrMask = 0x1f

	lsrDR   = 1 << 0
	lsrOE   = 1 << 1
	lsrTHRE = 1 << 5
	lsrTEMT = 1 << 6

	msrDCTS  = 1 << 0
	msrDDSR  = 1 << 1
	msrTERI  = 1 << 2
	msrDDCD  = 1 << 3
	msrCTS   = 1 << 4
	msrDSR   = 1 << 5
	msrRI    = 1 << 6
	msrDCD   = 1 << 7
	msrDelta = 0x0f

	// msrIdle is MSR's status half outside loopback: CTS, DSR and DCD.
	msrIdle = msrCTS | msrDSR | msrDCD
)

// triggerBytes is the receiver FIFO trigger level selected by FCR bits 7:6.
var triggerBytes = [4]int{1, 4, 8, 14}

// Input delivery states.
const (
	inIdle      = iota // no input left
	inScheduled        // an event tagged gen is in the clock's queue
	inBlocked          // the receiver is full (or looped back); waiting for room
)

var (
	_ hw.Device      = (*UART)(nil)
	_ hw.Persist     = (*UART)(nil)
	_ hw.EventTarget = (*UART)(nil)
)

// UART is the device. It is the hw.EventTarget of its own input events.
type UART struct {
	clock   hw.Clock
	irq     hw.IRQLine
	console io.Writer
	outBuf  [1]byte

	ier, lcr, mcr, scr, dll, dlm uint8
	fifos                        bool  // FCR bit 0
	trig                         uint8 // FCR bits 7:6
	lsrErr                       uint8 // sticky LSR error bits (OE)
	thri                         bool  // THR-empty interrupt latched
	msrDelta                     uint8 // MSR bits 3:0
	rx                           [FIFOBytes]byte
	rxHead, rxLen                int

	input   []byte // console bytes not yet delivered
	gap     uint64 // virtual time between input bytes
	inState uint8
	gen     uint64 // tag of the current input event

	level bool // the level last driven on irq
}

// New returns a UART whose interrupt output drives irq (nil: not connected),
// writing transmitted bytes to console (nil: discarded). clock schedules
// console input (see SetInput); it may be nil if SetInput is never called.
// Write errors of the console are ignored: the guest cannot see them.
func New(clock hw.Clock, irq hw.IRQLine, console io.Writer) *UART {
	if console == nil {
		console = io.Discard
	}
	return &UART{clock: clock, irq: irq, console: console}
}

// SetInput makes data the console input still to come, replacing any input
// not yet delivered: the first byte is offered to the receiver at virtual
// time startAt and each next one gap later (a gap of 0 counts as 1). A byte
// that finds the receiver full waits, and is offered again gap after the
// guest makes room; input is never dropped. The UART keeps its own copy of
// data.
func (u *UART) SetInput(data []byte, startAt, gap uint64) {
	u.input = append([]byte(nil), data...)
	u.gap = max(gap, 1)
	u.gen++
	u.inState = inIdle
	if len(u.input) > 0 {
		u.inState = inScheduled
		u.clock.Schedule(startAt, u, u.gen)
	}
}

// InputPending returns the number of console input bytes not yet delivered
// to the receiver.
func (u *UART) InputPending() int { return len(u.input) }

// Fire implements hw.EventTarget: the next input byte is due.
func (u *UART) Fire(now uint64, tag uint64) {
	if tag != u.gen || u.inState != inScheduled {
		return // an event of an input replaced by SetInput
	}
	if len(u.input) == 0 { // cannot happen: Restore checks the state
		u.inState = inIdle
		return
	}
	if !u.canAccept() {
		u.inState = inBlocked
		return
	}
	u.push(u.input[0])
	u.input = u.input[1:]
	u.inState = inIdle
	if len(u.input) > 0 {
		u.schedule(now)
	}
	u.update()
}

func (u *UART) schedule(now uint64) {
	at := now + u.gap
	if at < now {
		at = ^uint64(0)
	}
	u.inState = inScheduled
	u.clock.Schedule(at, u, u.gen)
}

// roomMade is called when the receiver may have room again.
func (u *UART) roomMade() {
	if u.inState == inBlocked && u.canAccept() {
		u.schedule(u.clock.Now())
	}
}

func (u *UART) capacity() int {
	if u.fifos {
		return FIFOBytes
	}
	return 1
}

// canAccept reports whether console input can enter the receiver: in
// loopback the receiver is connected to the transmitter instead.
func (u *UART) canAccept() bool { return u.mcr&mcrLoop == 0 && u.rxLen < u.capacity() }

// push stores a received byte; the caller has checked for room.
func (u *UART) push(b byte) {
	u.rx[(u.rxHead+u.rxLen)%FIFOBytes] = b
	u.rxLen++
}

// loopback receives a transmitted byte in loopback mode.
func (u *UART) loopback(b byte) {
	switch {
	case u.rxLen < u.capacity():
		u.push(b)
	case u.fifos:
		u.lsrErr |= lsrOE // the byte in the shift register is lost
	default:
		u.lsrErr |= lsrOE // the held character is destroyed
		u.rx[u.rxHead] = b
	}
}

func (u *UART) clearRx() {
	u.rxHead, u.rxLen = 0, 0
}

// msrStatus is MSR bits 7:4.
func (u *UART) msrStatus() uint8 {
	if u.mcr&mcrLoop == 0 {
		return msrIdle
	}
	m := u.mcr
	var s uint8
	if m&mcrRTS != 0 {
		s |= msrCTS
	}
	if m&mcrDTR != 0 {
		s |= msrDSR
	}
	if m&mcrOUT1 != 0 {
		s |= msrRI
	}
	if m&mcrOUT2 != 0 {
		s |= msrDCD
	}
	return s
}

// interrupt returns the IIR identification of the highest-priority pending
// interrupt (datasheet "Interrupt Identification Register"), or iirNone.
func (u *UART) interrupt() uint8 {
	switch {
	case u.ier&ierELSI != 0 && u.lsrErr != 0:
		return iirRLS
	case u.ier&ierERBFI != 0 && u.rxLen > 0:
		if u.fifos && u.rxLen < triggerBytes[u.trig] {
			return iirTimeout
		}
		return iirRDA
	case u.ier&ierETBEI != 0 && u.thri:
		return iirTHRE
	case u.ier&ierEDSSI != 0 && u.msrDelta != 0:
		return iirMSR
	}
	return iirNone
}

// update drives the interrupt line to the level of the highest pending
// interrupt.
func (u *UART) update() {
	v := u.interrupt() != iirNone
	if v != u.level {
		u.level = v
		if u.irq != nil {
			u.irq.SetLevel(v)
		}
	}
}

// Read implements hw.Device.
func (u *UART) Read(off uint64, size int) (uint64, bool) {
	if off >= 8 {
		return 0, true
	}
	dlab := u.lcr&lcrDLAB != 0
	var v uint8
	switch off {
	case regRBR:
		if dlab {
			v = u.dll
			break
		}
		if u.rxLen > 0 {
			v = u.rx[u.rxHead]
			u.rxHead = (u.rxHead + 1) % FIFOBytes
			u.rxLen--
			u.roomMade()
		}
	case regIER:
		if dlab {
			v = u.dlm
		} else {
			v = u.ier
		}
	case regIIR:
		id := u.interrupt()
		if id == iirTHRE {
			u.thri = false // reading IIR clears THRE when it is the source
		}
		v = id
		if u.fifos {
			v |= iirFIFOs
		}
	case regLCR:
		v = u.lcr
	case regMCR:
		v = u.mcr
	case regLSR:
		v = u.lsrErr | lsrTHRE | lsrTEMT
		if u.rxLen > 0 {
			v |= lsrDR
		}
		u.lsrErr = 0
	case regMSR:
		v = u.msrStatus() | u.msrDelta
		u.msrDelta = 0
	case regSCR:
		v = u.scr
	}
	u.update()
	return uint64(v), true
}

// Write implements hw.Device.
func (u *UART) Write(off uint64, size int, val uint64) bool {
	if off >= 8 {
		return true
	}
	v := uint8(val)
	dlab := u.lcr&lcrDLAB != 0
	switch off {
	case regRBR:
		if dlab {
			u.dll = v
			break
		}
		u.thri = false
		if u.mcr&mcrLoop != 0 {
			u.loopback(v)
		} else {
			u.outBuf[0] = v
			_, _ = u.console.Write(u.outBuf[:])
		}
		// The transmitter empties the THR at once.
		u.thri = u.ier&ierETBEI != 0
	case regIER:
		if dlab {
			u.dlm = v
			break
		}
		old := u.ier
		u.ier = v & ierMask
		switch {
		case u.ier&ierETBEI == 0:
			u.thri = false
		case old&ierETBEI == 0:
			u.thri = true // the THR is empty when ETBEI is enabled
		}
	case regIIR:
		u.writeFCR(v)
	case regLCR:
		u.lcr = v
	case regMCR:
		before := u.msrStatus()
		wasLoop := u.mcr&mcrLoop != 0
		u.mcr = v & mcrMask
		after := u.msrStatus()
		changed := before ^ after
		if changed&msrCTS != 0 {
			u.msrDelta |= msrDCTS
		}
		if changed&msrDSR != 0 {
			u.msrDelta |= msrDDSR
		}
		if before&msrRI != 0 && after&msrRI == 0 {
			u.msrDelta |= msrTERI // trailing edge of RI
		}
		if changed&msrDCD != 0 {
			u.msrDelta |= msrDDCD
		}
		if wasLoop && u.mcr&mcrLoop == 0 {
			u.roomMade()
		}
	case regSCR:
		u.scr = v
	}
	// LSR and MSR are read-only here (writing them is a factory test).
	u.update()
	return true
}

// writeFCR programs the FIFO control register (datasheet "FIFO Control
// Register"): bit 0 must be set for the other bits to be programmed, and
// changing it clears the FIFOs.
func (u *UART) writeFCR(v uint8) {
	on := v&fcrEnable != 0
	if on != u.fifos {
		u.fifos = on
		u.clearRx()
	}
	if on {
		if v&fcrRxReset != 0 {
			u.clearRx()
		}
		u.trig = v >> 6
	}
	u.roomMade()
}
