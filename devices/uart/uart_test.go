package uart

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"everett/hw"
)

// clock is a virtual clock with an event queue ordered by (time, sequence).
type clock struct {
	now uint64
	seq uint64
	evs []event
}

type event struct {
	at, seq uint64
	t       hw.EventTarget
	tag     uint64
}

func (c *clock) Now() uint64 { return c.now }

func (c *clock) Schedule(at uint64, t hw.EventTarget, tag uint64) uint64 {
	at = max(at, c.now)
	c.seq++
	c.evs = append(c.evs, event{at: at, seq: c.seq, t: t, tag: tag})
	return c.seq
}

func (c *clock) Cancel(id uint64) {
	for i, e := range c.evs {
		if e.seq == id {
			c.evs = append(c.evs[:i], c.evs[i+1:]...)
			return
		}
	}
}

// advance fires every event due up to time to, in order, and sets the time.
func (c *clock) advance(to uint64) {
	for {
		best := -1
		for i, e := range c.evs {
			if e.at <= to && (best < 0 || e.at < c.evs[best].at || e.at == c.evs[best].at && e.seq < c.evs[best].seq) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		e := c.evs[best]
		c.evs = append(c.evs[:best], c.evs[best+1:]...)
		c.now = e.at
		e.t.Fire(e.at, e.tag)
	}
	c.now = max(c.now, to)
}

// retarget returns a copy of the clock whose events for from go to to.
func (c *clock) retarget(from, to hw.EventTarget) *clock {
	d := &clock{now: c.now, seq: c.seq}
	for _, e := range c.evs {
		if e.t == from {
			e.t = to
		}
		d.evs = append(d.evs, e)
	}
	return d
}

type line struct {
	high    bool
	changes int
}

func (l *line) SetLevel(high bool) {
	if high != l.high {
		l.changes++
	}
	l.high = high
}

type rig struct {
	t   testing.TB
	clk *clock
	irq *line
	out *bytes.Buffer
	u   *UART
}

func newRig(t testing.TB) *rig {
	r := &rig{t: t, clk: &clock{}, irq: &line{}, out: &bytes.Buffer{}}
	r.u = New(r.clk, r.irq, r.out)
	return r
}

func (r *rig) rd(off uint64) uint8 {
	r.t.Helper()
	v, ok := r.u.Read(off, 1)
	if !ok || v > 0xff {
		r.t.Fatalf("read %#x = %#x, %v", off, v, ok)
	}
	return uint8(v)
}

func (r *rig) wr(off uint64, v uint8) {
	r.t.Helper()
	if !r.u.Write(off, 1, uint64(v)) {
		r.t.Fatalf("write %#x: access fault", off)
	}
}

func (r *rig) mustCheck() {
	r.t.Helper()
	if err := r.u.check(); err != nil {
		r.t.Fatal(err)
	}
	want := r.u.interrupt() != iirNone
	if r.irq.high != want || r.u.level != want {
		r.t.Fatalf("line %v, recorded %v, pending interrupt %v", r.irq.high, r.u.level, want)
	}
}

func TestRegistersReadBackAsThe16550Defines(t *testing.T) {
	// Datasheet "Register Description" (summary of accessible registers).
	tests := []struct {
		name  string
		setup func(r *rig)
		off   uint64
		want  uint8
	}{
		{"IIR reports no interrupt after reset", nil, regIIR, iirNone},
		{"LSR shows an empty transmitter after reset", nil, regLSR, lsrTHRE | lsrTEMT},
		{"MSR shows CTS, DSR and DCD outside loopback", nil, regMSR, msrIdle},
		{"IER keeps only its four enable bits", func(r *rig) { r.wr(regIER, 0xff) }, regIER, 0x0f},
		{"MCR keeps only its five bits", func(r *rig) { r.wr(regMCR, 0xef) }, regMCR, 0x0f},
		{"LCR reads back all eight bits", func(r *rig) { r.wr(regLCR, 0x5b) }, regLCR, 0x5b},
		{"SCR is a plain scratch register", func(r *rig) { r.wr(regSCR, 0xa5) }, regSCR, 0xa5},
		{"DLAB selects DLL at offset 0", func(r *rig) { r.wr(regLCR, lcrDLAB); r.wr(0, 0x12) }, regRBR, 0x12},
		{"DLAB selects DLM at offset 1", func(r *rig) { r.wr(regLCR, lcrDLAB); r.wr(1, 0x34) }, regIER, 0x34},
		{"DLM writes do not reach IER", func(r *rig) { r.wr(regLCR, lcrDLAB); r.wr(1, 0x0f); r.wr(regLCR, 0) }, regIER, 0},
		{"DLL writes do not transmit", func(r *rig) { r.wr(regLCR, lcrDLAB); r.wr(0, 'x'); r.wr(regLCR, 0) }, regSCR, 0},
		{"IIR shows 0xC0 when the FIFOs are enabled", func(r *rig) { r.wr(regIIR, fcrEnable) }, regIIR, iirFIFOs | iirNone},
		{"FCR is ignored unless bit 0 is set", func(r *rig) { r.wr(regIIR, 0xc6) }, regIIR, iirNone},
		{"LSR writes are ignored", func(r *rig) { r.wr(regLSR, 0xff) }, regLSR, lsrTHRE | lsrTEMT},
		{"MSR writes are ignored", func(r *rig) { r.wr(regMSR, 0x0f) }, regMSR, msrIdle},
		{"offsets above the registers read zero", func(r *rig) { r.wr(0x80, 0xff) }, 0x80, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			if tc.setup != nil {
				tc.setup(r)
			}
			if got := r.rd(tc.off); got != tc.want {
				t.Errorf("read %d = %#x, want %#x", tc.off, got, tc.want)
			}
			if tc.name == "DLL writes do not transmit" && r.out.Len() != 0 {
				t.Errorf("console got %q", r.out.Bytes())
			}
			r.mustCheck()
		})
	}
}

func TestWideAccessesSelectOneByteRegister(t *testing.T) {
	r := newRig(t)
	if !r.u.Write(regSCR, 8, 0x1122334455667788) {
		t.Fatal("wide write faulted")
	}
	for _, size := range []int{1, 2, 4, 8} {
		if v, ok := r.u.Read(regSCR, size); !ok || v != 0x88 {
			t.Errorf("read SCR size %d = %#x, %v", size, v, ok)
		}
	}
}

func TestTransmitIsInstantaneous(t *testing.T) {
	// Datasheet "Line Status Register": THRE and TEMT; transmission takes
	// no virtual time here.
	r := newRig(t)
	for _, b := range []byte("hi\n") {
		r.wr(regRBR, b)
		if got := r.rd(regLSR); got&(lsrTHRE|lsrTEMT) != lsrTHRE|lsrTEMT {
			t.Fatalf("LSR = %#x after a THR write", got)
		}
	}
	if got := r.out.String(); got != "hi\n" {
		t.Errorf("console = %q", got)
	}
}

func TestTHREmptyInterrupt(t *testing.T) {
	// Datasheet "Interrupt Control Functions": THRE is set when the THR is
	// empty and reset by reading IIR (if it is the source) or writing THR.
	tests := []struct {
		name     string
		run      func(r *rig)
		wantLine bool
		wantIIR  uint8
	}{
		{"enabling ETBEI raises it at once", func(r *rig) {
			r.wr(regIER, ierETBEI)
		}, true, iirTHRE},
		{"reading IIR while it is the source clears it", func(r *rig) {
			r.wr(regIER, ierETBEI)
			r.rd(regIIR)
		}, false, iirNone},
		{"writing THR raises it again once the THR empties", func(r *rig) {
			r.wr(regIER, ierETBEI)
			r.rd(regIIR)
			r.wr(regRBR, 'a')
		}, true, iirTHRE},
		{"rewriting IER with ETBEI still set does not raise it again", func(r *rig) {
			r.wr(regIER, ierETBEI)
			r.rd(regIIR)
			r.wr(regIER, ierETBEI|ierEDSSI)
		}, false, iirNone},
		{"clearing ETBEI clears it", func(r *rig) {
			r.wr(regIER, ierETBEI)
			r.wr(regIER, 0)
		}, false, iirNone},
		{"writing THR with ETBEI clear raises nothing", func(r *rig) {
			r.wr(regRBR, 'a')
		}, false, iirNone},
		{"reading IIR while a higher interrupt is reported keeps it", func(r *rig) {
			r.wr(regMCR, mcrLoop)
			r.wr(regIER, ierERBFI)
			r.wr(regRBR, 'x') // looped back: data available
			r.wr(regIER, ierERBFI|ierETBEI)
			if got := r.rd(regIIR); got != iirRDA {
				r.t.Fatalf("IIR = %#x, want data available", got)
			}
			r.rd(regRBR)
		}, true, iirTHRE},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			tc.run(r)
			r.mustCheck()
			if r.irq.high != tc.wantLine {
				t.Errorf("line = %v, want %v", r.irq.high, tc.wantLine)
			}
			if got := r.rd(regIIR); got != tc.wantIIR {
				t.Errorf("IIR = %#x, want %#x", got, tc.wantIIR)
			}
		})
	}
}

func TestInterruptPriorities(t *testing.T) {
	// Datasheet "Interrupt Identification Register" table: line status,
	// then received data, then THR empty, then modem status.
	r := newRig(t)
	r.wr(regIIR, fcrEnable)         // FIFOs, trigger 1
	r.wr(regMCR, mcrLoop|mcrRTS)    // MSR deltas
	r.wr(regIER, ierETBEI|ierEDSSI) // THRE and modem status
	for i := 0; i <= FIFOBytes; i++ {
		r.wr(regRBR, byte('a'+i)) // one more than fits: overrun
	}
	r.wr(regIER, 0x0f)
	for _, want := range []uint8{iirRLS, iirRDA, iirTHRE, iirMSR, iirNone} {
		got := r.rd(regIIR) &^ iirFIFOs
		if got != want {
			t.Fatalf("IIR = %#x, want %#x", got, want)
		}
		switch want {
		case iirRLS:
			if lsr := r.rd(regLSR); lsr&lsrOE == 0 {
				t.Fatalf("LSR = %#x, want OE", lsr)
			}
		case iirRDA:
			for r.rd(regLSR)&lsrDR != 0 {
				r.rd(regRBR)
			}
		case iirMSR:
			r.rd(regMSR)
		}
		r.mustCheck()
	}
	if r.irq.high {
		t.Error("line high with nothing pending")
	}
}

func TestReceiverFIFO(t *testing.T) {
	// Datasheet "FIFO Control Register" and "Line Status Register".
	t.Run("the trigger level separates data available from character timeout", func(t *testing.T) {
		for _, tc := range []struct {
			fcr   uint8
			bytes int
			want  uint8
		}{
			{0x01, 1, iirRDA},
			{0x41, 3, iirTimeout},
			{0x41, 4, iirRDA},
			{0x81, 7, iirTimeout},
			{0x81, 8, iirRDA},
			{0xc1, 13, iirTimeout},
			{0xc1, 14, iirRDA},
			{0x00, 1, iirRDA}, // no FIFOs: data available whenever DR
		} {
			r := newRig(t)
			r.wr(regIIR, tc.fcr)
			r.wr(regMCR, mcrLoop)
			r.wr(regIER, ierERBFI)
			for i := 0; i < tc.bytes; i++ {
				r.wr(regRBR, byte(i))
			}
			if got := r.rd(regIIR) &^ iirFIFOs; got != tc.want {
				t.Errorf("FCR %#x, %d bytes: IIR = %#x, want %#x", tc.fcr, tc.bytes, got, tc.want)
			}
			r.mustCheck()
		}
	})
	t.Run("RX reset empties the receiver", func(t *testing.T) {
		r := newRig(t)
		r.wr(regIIR, fcrEnable)
		r.wr(regMCR, mcrLoop)
		r.wr(regRBR, 1)
		r.wr(regIIR, fcrEnable|fcrRxReset)
		if r.rd(regLSR)&lsrDR != 0 {
			t.Error("DR still set")
		}
	})
	t.Run("changing the FIFO enable empties the receiver", func(t *testing.T) {
		r := newRig(t)
		r.wr(regIIR, fcrEnable)
		r.wr(regMCR, mcrLoop)
		r.wr(regRBR, 1)
		r.wr(regIIR, 0)
		if r.rd(regLSR)&lsrDR != 0 {
			t.Error("DR still set")
		}
	})
	t.Run("without FIFOs a looped-back byte overruns the held one", func(t *testing.T) {
		r := newRig(t)
		r.wr(regMCR, mcrLoop)
		r.wr(regRBR, 'a')
		r.wr(regRBR, 'b')
		if lsr := r.rd(regLSR); lsr&(lsrOE|lsrDR) != lsrOE|lsrDR {
			t.Errorf("LSR = %#x, want OE and DR", lsr)
		}
		if lsr := r.rd(regLSR); lsr&lsrOE != 0 {
			t.Error("reading LSR must clear OE")
		}
		if b := r.rd(regRBR); b != 'b' {
			t.Errorf("RBR = %q, want the newer byte", b)
		}
	})
	t.Run("with FIFOs the byte that overruns is lost", func(t *testing.T) {
		r := newRig(t)
		r.wr(regIIR, fcrEnable)
		r.wr(regMCR, mcrLoop)
		for i := 0; i <= FIFOBytes; i++ {
			r.wr(regRBR, byte(i))
		}
		if r.rd(regLSR)&lsrOE == 0 {
			t.Error("no overrun")
		}
		for i := 0; i < FIFOBytes; i++ {
			if b := r.rd(regRBR); b != byte(i) {
				t.Fatalf("byte %d = %d", i, b)
			}
		}
		if r.rd(regLSR)&lsrDR != 0 {
			t.Error("the overrunning byte was kept")
		}
	})
	t.Run("reading an empty RBR returns zero", func(t *testing.T) {
		r := newRig(t)
		if b := r.rd(regRBR); b != 0 {
			t.Errorf("RBR = %#x", b)
		}
	})
}

func TestConsoleInputArrivesAtFixedTimesAndIsNeverDropped(t *testing.T) {
	r := newRig(t)
	r.wr(regIIR, fcrEnable)
	r.wr(regIER, ierERBFI)
	msg := []byte("the quick brown fox jumps over the lazy dog")
	r.u.SetInput(msg, 1000, 10)
	r.clk.advance(999)
	if r.rd(regLSR)&lsrDR != 0 || r.irq.high {
		t.Fatal("input arrived before its time")
	}
	r.clk.advance(1000)
	if r.rd(regLSR)&lsrDR == 0 || !r.irq.high {
		t.Fatal("the first byte did not arrive at its time")
	}
	// Let the FIFO fill up and stay full for a long time.
	r.clk.advance(1_000_000)
	if got := r.u.InputPending(); got != len(msg)-FIFOBytes {
		t.Fatalf("%d bytes pending, want %d", got, len(msg)-FIFOBytes)
	}
	var got []byte
	for i := 0; i < 10*len(msg) && len(got) < len(msg); i++ {
		for r.rd(regLSR)&lsrDR != 0 {
			got = append(got, r.rd(regRBR))
		}
		r.mustCheck()
		r.clk.advance(r.clk.now + 7)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("received %q, want %q", got, msg)
	}
	if r.irq.high {
		t.Error("line high after the FIFO drained")
	}
}

func TestConsoleInputWaitsWithoutFIFOsAndInLoopback(t *testing.T) {
	r := newRig(t)
	r.u.SetInput([]byte("ab"), 0, 5)
	r.clk.advance(100)
	if got := r.u.InputPending(); got != 1 {
		t.Fatalf("%d pending, want 1: the RBR holds one byte", got)
	}
	r.wr(regMCR, mcrLoop)
	if b := r.rd(regRBR); b != 'a' {
		t.Fatalf("RBR = %q", b)
	}
	r.clk.advance(200)
	if got := r.u.InputPending(); got != 1 {
		t.Fatal("input entered the receiver in loopback")
	}
	r.wr(regMCR, 0)
	r.clk.advance(204)
	if got := r.u.InputPending(); got != 1 {
		t.Fatal("input after leaving loopback came before the gap")
	}
	r.clk.advance(205)
	if b := r.rd(regRBR); b != 'b' || r.u.InputPending() != 0 {
		t.Fatalf("RBR = %q, %d pending", b, r.u.InputPending())
	}
}

func TestSetInputReplacesUndeliveredInput(t *testing.T) {
	r := newRig(t)
	r.wr(regIIR, fcrEnable)
	r.u.SetInput([]byte("old"), 10, 10)
	r.u.SetInput([]byte("new"), 15, 10)
	r.clk.advance(1000)
	var got []byte
	for r.rd(regLSR)&lsrDR != 0 {
		got = append(got, r.rd(regRBR))
	}
	if string(got) != "new" {
		t.Errorf("received %q", got)
	}
}

func TestModemStatus(t *testing.T) {
	// Datasheet "Modem Status Register" and "Modem Control Register"
	// (loopback connects RTS→CTS, DTR→DSR, OUT1→RI, OUT2→DCD).
	tests := []struct {
		name string
		mcrs []uint8
		want uint8
	}{
		{"loopback with all outputs off shows no lines and their changes", []uint8{mcrLoop}, msrDCTS | msrDDSR | msrDDCD},
		{"loopback maps RTS, DTR, OUT1 and OUT2", []uint8{mcrLoop | 0x0f}, msrCTS | msrDSR | msrRI | msrDCD},
		{"RI's trailing edge sets TERI", []uint8{mcrLoop | mcrOUT1 | 0x0b, mcrLoop | 0x0b}, msrCTS | msrDSR | msrDCD | msrTERI},
		{"RI's leading edge does not set TERI", []uint8{mcrLoop | 0x0b, mcrLoop | 0x0f}, msrCTS | msrDSR | msrRI | msrDCD},
		{"leaving loopback restores the idle lines", []uint8{mcrLoop, 0}, msrIdle | msrDCTS | msrDDSR | msrDDCD},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.wr(regIER, ierEDSSI)
			for i, m := range tc.mcrs {
				r.wr(regMCR, m)
				if i < len(tc.mcrs)-1 {
					r.rd(regMSR)
				}
			}
			if tc.want&msrDelta != 0 && !r.irq.high {
				t.Error("a delta bit must raise the modem-status interrupt")
			}
			if got := r.rd(regMSR); got != tc.want {
				t.Errorf("MSR = %#x, want %#x", got, tc.want)
			}
			if got := r.rd(regMSR); got&msrDelta != 0 {
				t.Errorf("reading MSR must clear the delta bits: %#x", got)
			}
			r.mustCheck()
			if r.irq.high {
				t.Error("line high after the deltas were read")
			}
		})
	}
}

func TestLoopbackDoesNotReachTheConsole(t *testing.T) {
	r := newRig(t)
	r.wr(regMCR, mcrLoop)
	r.wr(regRBR, 'z')
	if r.out.Len() != 0 {
		t.Errorf("console got %q", r.out.Bytes())
	}
	if b := r.rd(regRBR); b != 'z' {
		t.Errorf("RBR = %q", b)
	}
}

// drive performs one random guest access or clock step.
func drive(r *rig, rng *rand.Rand) {
	if rng.IntN(8) == 0 {
		r.clk.advance(r.clk.now + rng.Uint64N(50))
		return
	}
	sizes := []int{1, 2, 4, 8}
	size := sizes[rng.IntN(4)]
	off := rng.Uint64N(8)
	if rng.IntN(8) == 0 {
		off = rng.Uint64N(Size)
	}
	if rng.IntN(2) == 0 {
		r.u.Read(off, size)
		return
	}
	v := rng.Uint64()
	if off == regLCR && rng.IntN(2) == 0 {
		v &^= lcrDLAB
	}
	r.u.Write(off, size, v)
}

func TestHostileGuestCannotBreakTheUART(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 20; round++ {
		r := newRig(t)
		r.u.SetInput(bytes.Repeat([]byte("input "), 50), rng.Uint64N(100), 1+rng.Uint64N(20))
		writes := 0
		for i := 0; i < 5000; i++ {
			before := r.u.InputPending()
			drive(r, rng)
			r.mustCheck()
			if r.u.InputPending() > before {
				t.Fatal("input grew")
			}
			if v, _ := r.u.Read(regLCR, 1); v&lcrDLAB == 0 {
				writes++
			}
		}
		if r.out.Len() > writes {
			t.Fatalf("console got %d bytes from at most %d THR writes", r.out.Len(), writes)
		}
	}
}

func save(u *UART) []byte {
	var e hw.Encoder
	u.Save(&e)
	return append([]byte(nil), e.Bytes()...)
}

func TestSaveRestoreRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 20; round++ {
		a := newRig(t)
		a.u.SetInput([]byte("restore me, please"), 5, 3)
		for i := 0; i < 2000; i++ {
			drive(a, rng)
		}
		first := save(a.u)
		b := newRig(t)
		b.clk = a.clk.retarget(a.u, b.u)
		b.u.clock = b.clk
		if err := b.u.Restore(hw.NewDecoder(first)); err != nil {
			t.Fatal(err)
		}
		b.mustCheck()
		if !bytes.Equal(first, save(b.u)) {
			t.Fatal("Save after Restore differs from the saved bytes")
		}
		if a.irq.high != b.irq.high {
			t.Fatal("restored line differs")
		}
		a.out.Reset()
		seed := rng.Uint64()
		ra, rb := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
		for i := 0; i < 2000; i++ {
			drive(a, ra)
			drive(b, rb)
			if a.irq.high != b.irq.high {
				t.Fatalf("step %d: lines diverged", i)
			}
		}
		if !bytes.Equal(save(a.u), save(b.u)) || !bytes.Equal(a.out.Bytes(), b.out.Bytes()) {
			t.Fatal("restored UART diverged")
		}
	}
}

func TestRestoreRejectsBadInput(t *testing.T) {
	r := newRig(t)
	r.wr(regIIR, fcrEnable)
	r.wr(regIER, ierETBEI)
	r.u.SetInput([]byte("xyz"), 0, 1)
	r.clk.advance(1)
	good := save(r.u)
	regs := 8 + len(saveTag) // offset of IER
	corrupt := func(off int, v byte) []byte {
		b := append([]byte(nil), good...)
		b[off] = v
		return b
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"an empty input", nil},
		{"a wrong tag", corrupt(8, 'x')},
		{"reserved IER bits", corrupt(regs, 0x10|ierETBEI)},
		{"reserved MCR bits", corrupt(regs+2, 0x20)},
		{"a bad FIFO flag", corrupt(regs+6, 2)},
		{"a trigger out of range", corrupt(regs+7, 4)},
		{"LSR error bits other than OE", corrupt(regs+8, 0x04)},
		{"THRE latched without ETBEI", corrupt(regs, 0)},
		{"MSR delta bits out of range", corrupt(regs+10, 0x10)},
		{"more received bytes than the FIFO holds", corrupt(regs+11, FIFOBytes+1)},
		{"an input state out of range", corrupt(len(good)-9, 3)},
		{"an idle input state with input left", corrupt(len(good)-9, inIdle)},
		{"a waiting input state with room in the receiver", corrupt(len(good)-9, inBlocked)},
	}
	for n := 0; n < len(good); n++ {
		tests = append(tests, struct {
			name string
			in   []byte
		}{"a truncated input", good[:n]})
	}
	for _, tc := range tests {
		q := newRig(t)
		q.wr(regSCR, 0x42)
		before := save(q.u)
		err := q.u.Restore(hw.NewDecoder(tc.in))
		if !errors.Is(err, hw.ErrCorrupt) {
			t.Errorf("%s: Restore error = %v, want ErrCorrupt", tc.name, err)
		}
		if !bytes.Equal(before, save(q.u)) {
			t.Errorf("%s: a failed Restore changed the UART", tc.name)
		}
	}
}

func FuzzRestore(f *testing.F) {
	r := newRig(f)
	f.Add(save(r.u))
	r.wr(regIIR, fcrEnable)
	r.wr(regIER, 0x0f)
	r.u.SetInput([]byte("fuzz"), 0, 1)
	r.clk.advance(2)
	f.Add(save(r.u))
	f.Fuzz(func(t *testing.T, b []byte) {
		q := newRig(t)
		if err := q.u.Restore(hw.NewDecoder(b)); err != nil {
			if !errors.Is(err, hw.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		q.mustCheck()
		if again := save(q.u); !bytes.Equal(again, b[:len(again)]) {
			t.Fatal("accepted state does not save back to its input")
		}
		rng := rand.New(rand.NewPCG(1, 1))
		for i := 0; i < 200; i++ {
			drive(q, rng)
			q.mustCheck()
		}
	})
}
