package net_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"everett/devices/virtio"
	"everett/devices/virtio/internal/virtiotest"
	"everett/devices/virtio/net"
	"everett/hw"
)

const (
	ramBase  = 0x8000_0000
	ramBytes = 4 << 20
	rxBuf    = 1526 // §5.1.6.3.1: at least 1526 bytes without MRG_RXBUF
)

var mac = [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}

// recorder is a Link that keeps what it is sent.
type recorder struct{ frames [][]byte }

func (r *recorder) Send(f []byte) { r.frames = append(r.frames, f) }

// deliverer is a Link that hands frames to another device.
type deliverer struct{ to *net.Device }

func (l *deliverer) Send(f []byte) { l.to.Deliver(f) }

type rig struct {
	dev    *net.Device
	tr     *virtio.Transport
	ram    *virtiotest.RAM
	clock  *virtiotest.Clock
	line   *virtiotest.Line
	drv    *virtiotest.Driver
	rx, tx *virtiotest.Queue
	link   *recorder
}

func newDevice(cfg net.Config, ram *virtiotest.RAM) *rig {
	r := &rig{ram: ram, clock: &virtiotest.Clock{}, line: &virtiotest.Line{}, link: &recorder{}}
	if cfg.Link == nil {
		cfg.Link = r.link
	}
	if cfg.MAC == ([6]byte{}) {
		cfg.MAC = mac
	}
	r.dev = net.New(cfg)
	r.tr = virtio.New(virtio.Host{Mem: r.ram, Clock: r.clock, IRQ: r.line}, r.dev)
	r.clock.Register(r.tr)
	r.drv = virtiotest.NewDriver(r.tr, r.ram)
	return r
}

// newRig returns a live network device (§3.1.1, §5.1.5).
func newRig(t testing.TB, cfg net.Config) *rig {
	t.Helper()
	r := newDevice(cfg, virtiotest.NewRAM(ramBase, ramBytes))
	if _, err := r.drv.Init(virtio.FeatureVersion1 | net.FeatureMAC | net.FeatureStatus); err != nil {
		t.Fatal(err)
	}
	var err error
	if r.rx, err = r.drv.SetupQueue(net.RxQueue, 16); err != nil {
		t.Fatal(err)
	}
	if r.tx, err = r.drv.SetupQueue(net.TxQueue, 16); err != nil {
		t.Fatal(err)
	}
	r.drv.DriverOK()
	return r
}

func frame(n int, seed byte) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = seed + byte(i)
	}
	return f
}

// send transmits one frame as header and frame buffers and runs the device.
func (r *rig) send(t testing.TB, bufs ...virtiotest.Buf) {
	t.Helper()
	if _, _, err := r.tx.Add(bufs...); err != nil {
		t.Fatal(err)
	}
	r.drv.Notify(net.TxQueue)
	r.clock.Run(100)
}

// post makes n receive buffers of size bytes available.
func (r *rig) post(t testing.TB, n, size int) []uint64 {
	t.Helper()
	var addrs []uint64
	for range n {
		_, a, err := r.rx.Add(virtiotest.Buf{Len: size, Writable: true})
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, a[0])
	}
	r.drv.Notify(net.RxQueue)
	r.clock.Run(100)
	return addrs
}

func TestConfigAndFeatures(t *testing.T) {
	r := newRig(t, net.Config{})
	for _, tc := range []struct {
		name string
		off  uint64
		size int
		want uint64
	}{
		{"§5.1.4: mac holds the configured address", 0, 4, 0x12005452},
		{"§5.1.4: mac reads byte by byte", 5, 1, 0x56},
		{"§5.1.4: status says the link is up", 6, 2, net.StatusLinkUp},
		{"§5.1.4: max_virtqueue_pairs is 1", 8, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := r.tr.Read(virtio.RegConfig+tc.off, tc.size); got != tc.want {
				t.Errorf("got %#x, want %#x", got, tc.want)
			}
		})
	}
	t.Run("§5.1.3: the device offers MAC and STATUS and no offloads", func(t *testing.T) {
		if f := r.drv.DeviceFeatures(); f != virtio.FeatureVersion1|net.FeatureMAC|net.FeatureStatus {
			t.Errorf("features %#x", f)
		}
	})
}

func TestTransmit(t *testing.T) {
	hdr := make([]byte, net.HeaderBytes)
	f := frame(60, 1)
	for _, tc := range []struct {
		name    string
		bufs    []virtiotest.Buf
		sent    []byte
		dropped uint64
	}{
		{"§5.1.6.2: a header and a frame in two buffers send the frame", []virtiotest.Buf{{Data: hdr}, {Data: f}}, f, 0},
		{"§2.6.4: a header and frame in one buffer send the frame", []virtiotest.Buf{{Data: append(append([]byte(nil), hdr...), f...)}}, f, 0},
		{"§2.6.4: a frame split anywhere is reassembled", []virtiotest.Buf{{Data: hdr[:5]}, {Data: append(append([]byte(nil), hdr[5:]...), f[:7]...)}, {Data: f[7:]}}, f, 0},
		{"a chain with only a header is dropped", []virtiotest.Buf{{Data: hdr}}, nil, 1},
		{"a chain shorter than the header is dropped", []virtiotest.Buf{{Data: hdr[:4]}}, nil, 1},
		{"a frame outside RAM is dropped", []virtiotest.Buf{{Data: hdr}, {Len: 60, Addr: 0x1000}}, nil, 1},
		{"a frame longer than MaxFrameBytes is dropped", []virtiotest.Buf{{Data: hdr}, {Len: net.MaxFrameBytes + 1, Addr: ramBase}}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, net.Config{})
			r.send(t, tc.bufs...)
			u := r.tx.TakeUsed()
			if len(u) != 1 || u[0].Len != 0 {
				t.Fatalf("used %v", u)
			}
			if tc.sent == nil {
				if len(r.link.frames) != 0 {
					t.Errorf("sent %d frames", len(r.link.frames))
				}
			} else if len(r.link.frames) != 1 || !bytes.Equal(r.link.frames[0], tc.sent) {
				t.Errorf("link got %q", r.link.frames)
			}
			if got := r.dev.Stats().TxDropped; got != tc.dropped {
				t.Errorf("%d dropped", got)
			}
			if !r.line.High {
				t.Error("no used buffer notification")
			}
		})
	}
	t.Run("transmission waits for the device's latency", func(t *testing.T) {
		r := newRig(t, net.Config{TxLatency: 777})
		_, _, _ = r.tx.Add(virtiotest.Buf{Data: hdr}, virtiotest.Buf{Data: f})
		r.drv.Notify(net.TxQueue)
		if at, _ := r.clock.Next(); at != 777 || len(r.link.frames) != 0 {
			t.Errorf("event at %d, %d frames sent inside the notification", at, len(r.link.frames))
		}
	})
}

func TestNilLinkIsACableToNowhere(t *testing.T) {
	d := net.New(net.Config{MAC: mac})
	ram := virtiotest.NewRAM(ramBase, ramBytes)
	clock := &virtiotest.Clock{}
	tr := virtio.New(virtio.Host{Mem: ram, Clock: clock, IRQ: &virtiotest.Line{}}, d)
	drv := virtiotest.NewDriver(tr, ram)
	if _, err := drv.Init(virtio.FeatureVersion1); err != nil {
		t.Fatal(err)
	}
	_, _ = drv.SetupQueue(net.RxQueue, 16)
	tx, _ := drv.SetupQueue(net.TxQueue, 16)
	drv.DriverOK()
	_, _, _ = tx.Add(virtiotest.Buf{Data: make([]byte, net.HeaderBytes+60)})
	drv.Notify(net.TxQueue)
	clock.Run(10)
	if len(tx.TakeUsed()) != 1 || d.Stats().TxFrames != 1 {
		t.Errorf("stats %+v", d.Stats())
	}
}

func TestReceive(t *testing.T) {
	t.Run("§5.1.6.4.1: a delivered frame lands after a zero header with num_buffers 1", func(t *testing.T) {
		r := newRig(t, net.Config{})
		addrs := r.post(t, 1, rxBuf)
		f := frame(100, 9)
		if !r.dev.Deliver(f) {
			t.Fatal("dropped")
		}
		u := r.rx.TakeUsed()
		if len(u) != 1 || u[0].Len != net.HeaderBytes+100 {
			t.Fatalf("used %v", u)
		}
		want := make([]byte, net.HeaderBytes)
		binary.LittleEndian.PutUint16(want[10:], 1)
		got := r.ram.Bytes(addrs[0], net.HeaderBytes+100)
		if !bytes.Equal(got[:net.HeaderBytes], want) || !bytes.Equal(got[net.HeaderBytes:], f) {
			t.Errorf("buffer %x", got[:20])
		}
		if !r.line.High {
			t.Error("no used buffer notification")
		}
	})
	t.Run("frames wait in the backlog until the driver posts buffers", func(t *testing.T) {
		r := newRig(t, net.Config{})
		for i := range 3 {
			if !r.dev.Deliver(frame(60, byte(i))) {
				t.Fatal("dropped")
			}
		}
		if r.dev.Pending() != 3 {
			t.Fatalf("%d pending", r.dev.Pending())
		}
		addrs := r.post(t, 2, rxBuf)
		if r.dev.Pending() != 1 || len(r.rx.TakeUsed()) != 2 {
			t.Fatalf("%d pending after two buffers", r.dev.Pending())
		}
		if got := r.ram.Bytes(addrs[1]+net.HeaderBytes, 60); !bytes.Equal(got, frame(60, 1)) {
			t.Error("frames out of order")
		}
	})
	t.Run("the backlog is bounded and frames beyond it are dropped", func(t *testing.T) {
		r := newRig(t, net.Config{Backlog: 4})
		for i := range 6 {
			if ok := r.dev.Deliver(frame(60, 0)); ok != (i < 4) {
				t.Fatalf("frame %d: delivered %v", i, ok)
			}
		}
		if r.dev.Stats().RxDropped != 2 {
			t.Errorf("stats %+v", r.dev.Stats())
		}
	})
	t.Run("a frame too big for the buffer is dropped and the buffer kept", func(t *testing.T) {
		r := newRig(t, net.Config{})
		r.post(t, 1, 100)
		if !r.dev.Deliver(frame(200, 0)) {
			t.Fatal("refused")
		}
		if r.dev.Stats().RxDropped != 1 || len(r.rx.TakeUsed()) != 0 {
			t.Fatalf("stats %+v", r.dev.Stats())
		}
		r.dev.Deliver(frame(50, 0))
		if u := r.rx.TakeUsed(); len(u) != 1 || u[0].Len != net.HeaderBytes+50 {
			t.Errorf("used %v", u)
		}
	})
	t.Run("a receive buffer outside RAM is returned empty and the frame dropped", func(t *testing.T) {
		r := newRig(t, net.Config{})
		_, _, _ = r.rx.Add(virtiotest.Buf{Len: rxBuf, Writable: true, Addr: 0x1000})
		r.drv.Notify(net.RxQueue)
		r.clock.Run(10)
		r.dev.Deliver(frame(60, 0))
		if u := r.rx.TakeUsed(); len(u) != 1 || u[0].Len != 0 || r.dev.Stats().RxDropped != 1 {
			t.Errorf("used %v, stats %+v", u, r.dev.Stats())
		}
	})
	for _, tc := range []struct {
		name string
		f    []byte
	}{
		{"an empty frame is dropped", nil},
		{"a frame longer than MaxFrameBytes is dropped", make([]byte, net.MaxFrameBytes+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, net.Config{})
			r.post(t, 1, rxBuf)
			if r.dev.Deliver(tc.f) {
				t.Error("accepted")
			}
		})
	}
	t.Run("§3.1.1: frames for a driver that is not running are dropped", func(t *testing.T) {
		r := newDevice(net.Config{}, virtiotest.NewRAM(ramBase, ramBytes))
		if r.dev.Deliver(frame(60, 0)) {
			t.Error("accepted before DRIVER_OK")
		}
	})
	t.Run("a device reset discards the backlog", func(t *testing.T) {
		r := newRig(t, net.Config{})
		r.dev.Deliver(frame(60, 0))
		r.drv.Write32(virtio.RegStatus, 0)
		if r.dev.Pending() != 0 {
			t.Error("backlog survives a reset")
		}
	})
}

func TestLinkStatus(t *testing.T) {
	r := newRig(t, net.Config{})
	r.post(t, 1, rxBuf)
	gen := r.drv.Read32(virtio.RegConfigGeneration)
	r.dev.SetLinkUp(false)
	t.Run("§5.1.4: unplugging sends a configuration change notification", func(t *testing.T) {
		if r.drv.Ack() != virtio.IntConfigChanged {
			t.Error("no configuration change notification")
		}
		if r.drv.Read32(virtio.RegConfigGeneration) == gen {
			t.Error("§2.4: ConfigGeneration did not change")
		}
		if s, _ := r.tr.Read(virtio.RegConfig+6, 2); s != 0 {
			t.Errorf("status %#x with the link down", s)
		}
	})
	t.Run("frames are dropped both ways while the link is down", func(t *testing.T) {
		if r.dev.Deliver(frame(60, 0)) {
			t.Error("received")
		}
		r.send(t, virtiotest.Buf{Data: make([]byte, net.HeaderBytes+60)})
		if len(r.link.frames) != 0 {
			t.Error("sent")
		}
	})
	t.Run("plugging back in restores traffic", func(t *testing.T) {
		r.dev.SetLinkUp(true)
		if !r.dev.Deliver(frame(60, 0)) || len(r.rx.TakeUsed()) != 1 {
			t.Error("no traffic")
		}
	})
}

func TestTwoDevicesTalk(t *testing.T) {
	b := newRig(t, net.Config{})
	a := newRig(t, net.Config{Link: &deliverer{to: b.dev}})
	b.post(t, 4, rxBuf)
	for i := range 3 {
		_, _, _ = a.tx.Add(virtiotest.Buf{Data: make([]byte, net.HeaderBytes)}, virtiotest.Buf{Data: frame(64, byte(i))})
	}
	a.drv.Notify(net.TxQueue)
	a.clock.Run(10)
	if u := b.rx.TakeUsed(); len(u) != 3 {
		t.Fatalf("b received %d frames", len(u))
	}
	if s := b.dev.Stats(); s.RxFrames != 3 || a.dev.Stats().TxFrames != 3 {
		t.Errorf("stats a %+v b %+v", a.dev.Stats(), s)
	}
}

func TestLoopbackLink(t *testing.T) {
	loop := &deliverer{}
	r := newDevice(net.Config{Link: loop}, virtiotest.NewRAM(ramBase, ramBytes))
	loop.to = r.dev
	if _, err := r.drv.Init(virtio.FeatureVersion1 | net.FeatureMAC); err != nil {
		t.Fatal(err)
	}
	r.rx, _ = r.drv.SetupQueue(net.RxQueue, 16)
	r.tx, _ = r.drv.SetupQueue(net.TxQueue, 16)
	r.drv.DriverOK()
	r.post(t, 2, rxBuf)
	r.send(t, virtiotest.Buf{Data: make([]byte, net.HeaderBytes)}, virtiotest.Buf{Data: frame(80, 3)})
	if len(r.rx.TakeUsed()) != 1 || len(r.tx.TakeUsed()) != 1 {
		t.Error("a frame sent to itself did not arrive")
	}
}

func saveBytes(p hw.Persist) []byte {
	var e hw.Encoder
	p.Save(&e)
	return append([]byte(nil), e.Bytes()...)
}

func TestSaveRestore(t *testing.T) {
	r := newRig(t, net.Config{})
	r.dev.Deliver(frame(70, 1))
	r.dev.Deliver(frame(71, 2))
	_, _, _ = r.tx.Add(virtiotest.Buf{Data: make([]byte, net.HeaderBytes)}, virtiotest.Buf{Data: frame(90, 5)})
	r.drv.Notify(net.TxQueue) // in flight
	state := saveBytes(r.tr)
	var clock hw.Encoder
	r.clock.Save(&clock)

	t.Run("Save, Restore, Save gives the same bytes", func(t *testing.T) {
		r2 := newDevice(net.Config{}, virtiotest.NewRAM(ramBase, ramBytes))
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(state, saveBytes(r2.tr)) || r2.dev.Pending() != 2 {
			t.Error("state changed")
		}
	})
	t.Run("a transmission restored after its notification sends the same frame", func(t *testing.T) {
		r2 := newDevice(net.Config{}, r.ram.Clone())
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if err := r2.clock.Restore(hw.NewDecoder(clock.Bytes())); err != nil {
			t.Fatal(err)
		}
		r.clock.Run(10)
		r2.clock.Run(10)
		if fmt.Sprint(r.link.frames) != fmt.Sprint(r2.link.frames) || len(r2.link.frames) != 1 {
			t.Error("different frames sent")
		}
		if !bytes.Equal(r.ram.B, r2.ram.B) || !bytes.Equal(saveBytes(r.tr), saveBytes(r2.tr)) {
			t.Error("the restored run diverged")
		}
	})
	t.Run("every truncation is an ErrCorrupt error", func(t *testing.T) {
		for n := 0; n < len(state); n += 1 + n/32 {
			r2 := newDevice(net.Config{}, virtiotest.NewRAM(ramBase, ramBytes))
			if err := r2.tr.Restore(hw.NewDecoder(state[:n])); !errors.Is(err, hw.ErrCorrupt) {
				t.Fatalf("%d bytes: %v", n, err)
			}
		}
	})
	t.Run("a state saved with another MAC is refused", func(t *testing.T) {
		r2 := newDevice(net.Config{MAC: [6]byte{2}}, virtiotest.NewRAM(ramBase, ramBytes))
		if err := r2.tr.Restore(hw.NewDecoder(state)); !errors.Is(err, hw.ErrCorrupt) {
			t.Errorf("got %v", err)
		}
	})
}

// FuzzRestore feeds arbitrary bytes to Restore: no panic, and accepted
// states save canonically.
func FuzzRestore(f *testing.F) {
	r := newRig(f, net.Config{})
	r.dev.Deliver(frame(70, 1))
	f.Add(saveBytes(r.tr))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newDevice(net.Config{}, virtiotest.NewRAM(ramBase, 1<<16))
		if err := r.tr.Restore(hw.NewDecoder(b)); err != nil {
			return
		}
		s := saveBytes(r.tr)
		r2 := newDevice(net.Config{}, virtiotest.NewRAM(ramBase, 1<<16))
		if err := r2.tr.Restore(hw.NewDecoder(s)); err != nil || !bytes.Equal(s, saveBytes(r2.tr)) {
			t.Fatalf("not canonical: %v", err)
		}
		r.dev.Deliver(frame(10, 0))
	})
}
