package clint

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"everett/hw"
)

// fakeClock is a Timebase whose time the test sets; scheduled events are
// recorded, not fired.
type fakeClock struct {
	now    uint64
	off    uint64
	events map[uint64]uint64 // id -> time
	seq    uint64
}

func newClock() *fakeClock { return &fakeClock{events: map[uint64]uint64{}} }

func (c *fakeClock) Now() uint64       { return c.now }
func (c *fakeClock) MTime() uint64     { return c.now/100 + c.off }
func (c *fakeClock) SetMTime(v uint64) { c.off = v - c.now/100 }
func (c *fakeClock) TicksToTime(t uint64) uint64 {
	if t < c.off {
		return 0
	}
	return (t - c.off) * 100
}
func (c *fakeClock) Schedule(at uint64, _ hw.EventTarget, _ uint64) uint64 {
	c.seq++
	c.events[c.seq] = at
	return c.seq
}
func (c *fakeClock) Cancel(id uint64) { delete(c.events, id) }

type line struct{ high bool }

func (l *line) SetLevel(v bool) { l.high = v }

func newCLINT(harts int) (*CLINT, *fakeClock, []*line, []*line) {
	clk := newClock()
	var hs []Hart
	var msip, mtip []*line
	for i := 0; i < harts; i++ {
		a, b := &line{}, &line{}
		msip, mtip = append(msip, a), append(mtip, b)
		hs = append(hs, Hart{MSIP: a, MTIP: b})
	}
	return New(clk, hs), clk, msip, mtip
}

func TestMSIPDrivesTheSoftwareInterruptOfItsHart(t *testing.T) {
	c, _, msip, _ := newCLINT(2)
	c.Write(4, 4, 1)
	if msip[0].high || !msip[1].high {
		t.Fatal("msip[1]=1 must raise hart 1's MSIP only")
	}
	if v, _ := c.Read(4, 4); v != 1 {
		t.Fatalf("msip[1] reads %d", v)
	}
	c.Write(4, 4, 0)
	if msip[1].high {
		t.Fatal("msip[1]=0 must lower the line")
	}
}

func TestMTIPFollowsMtimeAgainstMtimecmp(t *testing.T) {
	c, clk, _, mtip := newCLINT(1)
	clk.now = 1000 // mtime 10
	c.Write(mtimecmpBase, 8, 50)
	if mtip[0].high {
		t.Fatal("mtime < mtimecmp: MTIP must be low")
	}
	if len(clk.events) != 1 || clk.events[c.pending[0]] != 5000 {
		t.Fatalf("want one event at time 5000 (mtime 50), got %v", clk.events)
	}
	clk.now = 5000
	c.Fire(5000, 0)
	if !mtip[0].high {
		t.Fatal("mtime reached mtimecmp: MTIP must be high")
	}
	c.Write(mtimecmpBase+4, 4, 1) // upper half: far in the future
	if mtip[0].high {
		t.Fatal("a later mtimecmp must lower MTIP at once")
	}
	if v, _ := c.Read(mtimeOff, 8); v != 50 {
		t.Fatalf("mtime reads %d, want 50", v)
	}
}

func TestWritingMtimeMovesTheTimebase(t *testing.T) {
	c, clk, _, _ := newCLINT(1)
	clk.now = 100 * 7
	c.Write(mtimeOff, 8, 1000)
	clk.now += 100 * 3
	if v, _ := c.Read(mtimeOff, 8); v != 1003 {
		t.Fatalf("mtime reads %d, want 1003", v)
	}
}

func TestSaveRestoreRoundTrips(t *testing.T) {
	c, clk, _, _ := newCLINT(3)
	clk.now = 12345
	c.Write(8, 4, 1)
	c.Write(mtimecmpBase+16, 8, 999)
	c.Write(mtimeOff, 8, 77)
	var e hw.Encoder
	c.Save(&e)
	c2, _, _, _ := newCLINT(3)
	if err := c2.Restore(hw.NewDecoder(e.Bytes())); err != nil {
		t.Fatal(err)
	}
	var e2 hw.Encoder
	c2.Save(&e2)
	if !bytes.Equal(e.Bytes(), e2.Bytes()) {
		t.Fatal("Save after Restore differs")
	}
	c3, _, _, _ := newCLINT(2)
	if err := c3.Restore(hw.NewDecoder(e.Bytes())); err == nil {
		t.Fatal("restoring 3 harts' state into 2 must fail")
	}
	for n := 0; n < len(e.Bytes()); n++ {
		if err := c2.Restore(hw.NewDecoder(e.Bytes()[:n])); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
}

func TestHostileAccessesNeverPanic(t *testing.T) {
	c, clk, _, _ := newCLINT(4)
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{1, 2, 4, 8}
	for i := 0; i < 200000; i++ {
		clk.now += uint64(r.IntN(1000))
		off := r.Uint64N(Size)
		size := sizes[r.IntN(4)]
		if r.IntN(2) == 0 {
			c.Read(off, size)
		} else {
			c.Write(off, size, r.Uint64())
		}
		if len(clk.events) > 4 {
			t.Fatalf("%d events pending for 4 harts", len(clk.events))
		}
	}
}
