package rng_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"everett/devices/virtio"
	"everett/devices/virtio/internal/virtiotest"
	"everett/devices/virtio/rng"
	"everett/hw"
)

const (
	ramBase  = 0x8000_0000
	ramBytes = 1 << 20
)

// prng is a seeded hw.Rand, as the universe's PRNG is.
func prng(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	return rand.NewChaCha8(s)
}

type rig struct {
	dev   *rng.Device
	tr    *virtio.Transport
	ram   *virtiotest.RAM
	clock *virtiotest.Clock
	drv   *virtiotest.Driver
	q     *virtiotest.Queue
}

func newDevice(r hw.Rand, ram *virtiotest.RAM) *rig {
	g := &rig{dev: rng.New(rng.Config{Rand: r}), ram: ram, clock: &virtiotest.Clock{}}
	g.tr = virtio.New(virtio.Host{Mem: ram, Clock: g.clock, IRQ: &virtiotest.Line{}}, g.dev)
	g.clock.Register(g.tr)
	g.drv = virtiotest.NewDriver(g.tr, ram)
	return g
}

func newRig(t testing.TB, r hw.Rand) *rig {
	t.Helper()
	g := newDevice(r, virtiotest.NewRAM(ramBase, ramBytes))
	if _, err := g.drv.Init(virtio.FeatureVersion1); err != nil {
		t.Fatal(err)
	}
	q, err := g.drv.SetupQueue(0, rng.QueueSize)
	if err != nil {
		t.Fatal(err)
	}
	g.q = q
	g.drv.DriverOK()
	return g
}

// request asks for n random bytes and returns what the device wrote.
func (g *rig) request(t testing.TB, bufs ...virtiotest.Buf) ([]byte, uint32) {
	t.Helper()
	_, addrs, err := g.q.Add(bufs...)
	if err != nil {
		t.Fatal(err)
	}
	g.drv.Notify(0)
	g.clock.Run(10)
	u := g.q.TakeUsed()
	if len(u) != 1 {
		t.Fatalf("used %v", u)
	}
	var out []byte
	for i, b := range bufs {
		if b.Writable {
			out = append(out, g.ram.Bytes(addrs[i], b.Len)...)
		}
	}
	return out[:min(len(out), int(u[0].Len))], u[0].Len
}

func TestEntropy(t *testing.T) {
	t.Run("§5.4: the device id is 4 and it offers no feature but VERSION_1", func(t *testing.T) {
		g := newDevice(prng(1), virtiotest.NewRAM(ramBase, ramBytes))
		if id, _ := g.drv.Probe(); id != virtio.DeviceEntropy {
			t.Errorf("device id %d", id)
		}
		if f := g.drv.DeviceFeatures(); f != virtio.FeatureVersion1 {
			t.Errorf("features %#x", f)
		}
	})
	t.Run("§5.4.6: a buffer is filled with the PRNG's bytes in draw order", func(t *testing.T) {
		g := newRig(t, prng(7))
		got, n := g.request(t, virtiotest.Buf{Len: 20, Writable: true})
		ref := prng(7)
		var want []byte
		for range 3 {
			want = binary.LittleEndian.AppendUint64(want, ref.Uint64())
		}
		if n != 20 || !bytes.Equal(got, want[:20]) {
			t.Errorf("got %x (%d), want %x", got, n, want[:20])
		}
	})
	t.Run("two devices with the same seed give the same bytes", func(t *testing.T) {
		a, b := newRig(t, prng(99)), newRig(t, prng(99))
		for _, n := range []int{1, 8, 33, 512} {
			x, _ := a.request(t, virtiotest.Buf{Len: n, Writable: true})
			y, _ := b.request(t, virtiotest.Buf{Len: n, Writable: true})
			if !bytes.Equal(x, y) {
				t.Fatalf("%d bytes differ", n)
			}
		}
	})
	t.Run("different seeds give different bytes", func(t *testing.T) {
		x, _ := newRig(t, prng(1)).request(t, virtiotest.Buf{Len: 32, Writable: true})
		y, _ := newRig(t, prng(2)).request(t, virtiotest.Buf{Len: 32, Writable: true})
		if bytes.Equal(x, y) {
			t.Error("same bytes")
		}
	})
	t.Run("§5.4.6.2: a buffer larger than MaxRequestBytes is filled only that far", func(t *testing.T) {
		g := newRig(t, prng(3))
		_, n := g.request(t, virtiotest.Buf{Len: 3 * rng.MaxRequestBytes, Writable: true})
		if n != rng.MaxRequestBytes {
			t.Errorf("used %d", n)
		}
	})
	t.Run("§2.6.4: several writable buffers fill as one stream", func(t *testing.T) {
		g := newRig(t, prng(5))
		got, n := g.request(t, virtiotest.Buf{Len: 3, Writable: true}, virtiotest.Buf{Len: 13, Writable: true})
		ref := prng(5)
		want := binary.LittleEndian.AppendUint64(nil, ref.Uint64())
		want = binary.LittleEndian.AppendUint64(want, ref.Uint64())
		if n != 16 || !bytes.Equal(got, want) {
			t.Errorf("got %x", got)
		}
	})
	t.Run("a chain with no writable buffer is returned empty", func(t *testing.T) {
		g := newRig(t, prng(5))
		if _, n := g.request(t, virtiotest.Buf{Data: []byte("hi")}); n != 0 {
			t.Errorf("used %d", n)
		}
	})
	t.Run("a buffer outside RAM is returned empty", func(t *testing.T) {
		g := newRig(t, prng(5))
		if _, n := g.request(t, virtiotest.Buf{Len: 16, Writable: true, Addr: 0x10}); n != 0 {
			t.Errorf("used %d", n)
		}
	})
}

// TestNotifyStorm floods the device with notifications and buffers; work
// per event is bounded and every buffer is answered.
func TestNotifyStorm(t *testing.T) {
	g := newRig(t, prng(11))
	total := 0
	for round := range 50 {
		for range rng.QueueSize {
			if _, _, err := g.q.Add(virtiotest.Buf{Len: 64, Writable: true, Addr: ramBase + 0x80000}); err != nil {
				break
			}
		}
		for range 1000 {
			g.drv.Notify(0)
		}
		if g.clock.Pending() != 1 {
			t.Fatalf("round %d: %d events after a storm", round, g.clock.Pending())
		}
		g.clock.Run(10)
		total += len(g.q.TakeUsed())
	}
	if total != 50*rng.QueueSize || g.dev.Stats().Requests != uint64(total) {
		t.Errorf("answered %d, stats %+v", total, g.dev.Stats())
	}
}

func saveBytes(p hw.Persist) []byte {
	var e hw.Encoder
	p.Save(&e)
	return append([]byte(nil), e.Bytes()...)
}

func TestSaveRestore(t *testing.T) {
	r := prng(21)
	g := newRig(t, r)
	g.request(t, virtiotest.Buf{Len: 40, Writable: true})
	_, addrs, _ := g.q.Add(virtiotest.Buf{Len: 24, Writable: true})
	g.drv.Notify(0)
	state := saveBytes(g.tr)
	var clock hw.Encoder
	g.clock.Save(&clock)
	rstate, _ := r.MarshalBinary()

	t.Run("Save, Restore, Save gives the same bytes", func(t *testing.T) {
		g2 := newDevice(prng(0), virtiotest.NewRAM(ramBase, ramBytes))
		if err := g2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(state, saveBytes(g2.tr)) {
			t.Error("state changed")
		}
	})
	t.Run("a request restored after its notification gets the same bytes", func(t *testing.T) {
		r2 := new(rand.ChaCha8)
		if err := r2.UnmarshalBinary(rstate); err != nil {
			t.Fatal(err)
		}
		g2 := newDevice(r2, g.ram.Clone())
		if err := g2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if err := g2.clock.Restore(hw.NewDecoder(clock.Bytes())); err != nil {
			t.Fatal(err)
		}
		g.clock.Run(10)
		g2.clock.Run(10)
		if !bytes.Equal(g.ram.Bytes(addrs[0], 24), g2.ram.Bytes(addrs[0], 24)) || !bytes.Equal(g.ram.B, g2.ram.B) {
			t.Error("different bytes after restore")
		}
	})
	t.Run("every truncation is an ErrCorrupt error", func(t *testing.T) {
		for n := 0; n < len(state); n++ {
			g2 := newDevice(prng(0), virtiotest.NewRAM(ramBase, ramBytes))
			if err := g2.tr.Restore(hw.NewDecoder(state[:n])); !errors.Is(err, hw.ErrCorrupt) {
				t.Fatalf("%d bytes: %v", n, err)
			}
		}
	})
}
