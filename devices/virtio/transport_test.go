package virtio_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"everett/devices/virtio"
	"everett/devices/virtio/internal/virtiotest"
	"everett/hw"
)

const (
	ramBase     = 0x8000_0000
	ramBytes    = 1 << 20
	echoLatency = 100
	echoQueue   = 8
)

// echo is a test backend with one queue: it copies each chain's readable
// bytes to its writable part and reports how many it wrote. Config space
// is four bytes, "ECHO".
type echo struct {
	t        *virtio.Transport
	requests uint64
	perEvent int // requests per event before asking for another (0: all)
}

func (e *echo) DeviceID() uint32 { return 42 }
func (e *echo) Features() uint64 { return 1 << 3 }
func (e *echo) NumQueues() int   { return 1 }
func (e *echo) QueueMax(int) int { return echoQueue }
func (e *echo) ReadConfig(off uint64, size int) uint64 {
	return virtio.ReadLE([]byte("ECHO"), off, size)
}
func (e *echo) WriteConfig(uint64, int, uint64) {}
func (e *echo) Attach(t *virtio.Transport)      { e.t = t }
func (e *echo) Latency(int) uint64              { return echoLatency }
func (e *echo) Reset()                          {}
func (e *echo) Process(q int) bool {
	for n := 0; e.perEvent == 0 || n < e.perEvent; n++ {
		c, ok := e.t.Pop(q)
		if !ok {
			return false
		}
		b := make([]byte, min(c.ReadLen, c.WriteLen, 4096))
		var written uint32
		if c.Read(0, b) == nil && c.Write(0, b) == nil {
			written = uint32(len(b))
		}
		e.requests++
		e.t.Push(q, c.Head, written)
	}
	return true
}
func (e *echo) Save(enc *hw.Encoder) { enc.Tag("echo"); enc.U64(e.requests) }
func (e *echo) Restore(d *hw.Decoder) error {
	d.Tag("echo")
	n := d.U64()
	if d.Err() == nil {
		e.requests = n
	}
	return d.Err()
}

type rig struct {
	tr    *virtio.Transport
	be    *echo
	ram   *virtiotest.RAM
	clock *virtiotest.Clock
	line  *virtiotest.Line
	drv   *virtiotest.Driver
}

func newRig() *rig { return newRigWith(virtiotest.NewRAM(ramBase, ramBytes)) }

func newRigWith(ram *virtiotest.RAM) *rig {
	r := &rig{be: &echo{}, ram: ram, clock: &virtiotest.Clock{}, line: &virtiotest.Line{}}
	r.tr = virtio.New(virtio.Host{Mem: r.ram, Clock: r.clock, IRQ: r.line}, r.be)
	r.clock.Register(r.tr)
	r.drv = virtiotest.NewDriver(r.tr, r.ram)
	return r
}

// live runs the whole initialization of §3.1.1 with one queue.
func (r *rig) live(t testing.TB) *virtiotest.Queue {
	t.Helper()
	if _, err := r.drv.Init(virtio.FeatureVersion1 | 1<<3); err != nil {
		t.Fatal(err)
	}
	q, err := r.drv.SetupQueue(0, echoQueue)
	if err != nil {
		t.Fatal(err)
	}
	r.drv.DriverOK()
	if s := r.drv.Status(); s != virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusFeaturesOK|virtio.StatusDriverOK {
		t.Fatalf("status %#x after initialization", s)
	}
	return q
}

func TestIdentificationRegisters(t *testing.T) {
	r := newRig()
	empty := virtio.NewEmpty()
	for _, tc := range []struct {
		name string
		dev  hw.Device
		off  uint64
		want uint64
	}{
		{"§4.2.2: MagicValue reads \"virt\"", r.tr, virtio.RegMagicValue, 0x74726976},
		{"§4.2.2: Version reads 2, the modern transport", r.tr, virtio.RegVersion, 2},
		{"§4.2.2: DeviceID reads the backend's device type", r.tr, virtio.RegDeviceID, 42},
		{"§4.2.2: VendorID reads \"EVRT\"", r.tr, virtio.RegVendorID, virtio.VendorID},
		{"§4.2.2: an empty slot still reads the magic value", empty, virtio.RegMagicValue, 0x74726976},
		{"§4.2.2: an empty slot reads DeviceID 0", empty, virtio.RegDeviceID, 0},
		{"§4.2.2: an empty slot offers no queue", empty, virtio.RegQueueNumMax, 0},
		{"§4.2.2: a missing shared memory region has length -1", r.tr, virtio.RegSHMLenLow, 0xffffffff},
		{"§4.2.2: a missing shared memory region has base -1", r.tr, virtio.RegSHMBaseHigh, 0xffffffff},
		{"§4.2.2: the configuration space starts at 0x100", r.tr, virtio.RegConfig, 0x4f484345},
		{"§4.2.2: the configuration space takes byte reads", r.tr, virtio.RegConfig + 1, 'C'},
		{"§4.2.2: configuration bytes past the structure read zero", r.tr, virtio.RegConfig + 8, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := 4
			if tc.off == virtio.RegConfig+1 {
				size = 1
			}
			got, ok := tc.dev.Read(tc.off, size)
			if !ok || got != tc.want {
				t.Errorf("read %#x = %#x, %v; want %#x", tc.off, got, ok, tc.want)
			}
		})
	}
}

func TestEmptySlotIgnoresWrites(t *testing.T) {
	e := virtio.NewEmpty()
	for off := uint64(0); off < virtio.Size; off += 4 {
		e.Write(off, 4, 0xffffffff)
	}
	if s, _ := e.Read(virtio.RegStatus, 4); s != 0 {
		t.Errorf("status %#x after writes to an empty slot", s)
	}
	var enc hw.Encoder
	e.Save(&enc)
	if err := virtio.NewEmpty().Restore(hw.NewDecoder(enc.Bytes())); err != nil {
		t.Error(err)
	}
}

func TestControlRegistersTakeOnlyAlignedWords(t *testing.T) {
	r := newRig()
	for _, tc := range []struct {
		name string
		off  uint64
		size int
		ok   bool
	}{
		{"§4.2.2.2: a 32-bit read of a control register is decoded", virtio.RegStatus, 4, true},
		{"§4.2.2.2: a 64-bit access to control registers faults", virtio.RegQueueDescLow, 8, false},
		{"§4.2.2.2: a byte access to a control register faults", virtio.RegStatus, 1, false},
		{"§4.2.2.2: a misaligned word faults", virtio.RegStatus + 2, 4, false},
		{"§4.2.2.2: 16-bit configuration accesses are decoded", virtio.RegConfig + 2, 2, true},
		{"§4.2.2.2: 64-bit configuration accesses are decoded", virtio.RegConfig, 8, true},
		{"a misaligned configuration access faults", virtio.RegConfig + 1, 2, false},
		{"an access past the window faults", virtio.Size, 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := r.tr.Read(tc.off, tc.size); ok != tc.ok {
				t.Errorf("read ok = %v, want %v", ok, tc.ok)
			}
			if ok := r.tr.Write(tc.off, tc.size, 0); ok != tc.ok {
				t.Errorf("write ok = %v, want %v", ok, tc.ok)
			}
		})
	}
}

func TestFeatureNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		accept uint64
		ok     bool
	}{
		{"§3.1.1: a driver accepting VERSION_1 and offered bits gets FEATURES_OK", virtio.FeatureVersion1 | 1<<3, true},
		{"§3.1.1: a driver accepting only VERSION_1 gets FEATURES_OK", virtio.FeatureVersion1, true},
		{"§6.2: a driver without VERSION_1 finds FEATURES_OK clear", 1 << 3, false},
		{"§2.2.2: a driver accepting INDIRECT_DESC, which was not offered, finds FEATURES_OK clear", virtio.FeatureVersion1 | virtio.FeatureIndirectDesc, false},
		{"§2.2.2: a driver accepting EVENT_IDX, which was not offered, finds FEATURES_OK clear", virtio.FeatureVersion1 | virtio.FeatureEventIdx, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			if got := r.drv.DeviceFeatures(); got != virtio.FeatureVersion1|1<<3 {
				t.Fatalf("device offers %#x", got)
			}
			r.drv.Write32(virtio.RegStatus, virtio.StatusAcknowledge|virtio.StatusDriver)
			r.drv.WriteFeatures(tc.accept)
			r.drv.Write32(virtio.RegStatus, virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusFeaturesOK)
			got := r.drv.Status()&virtio.StatusFeaturesOK != 0
			if got != tc.ok {
				t.Fatalf("FEATURES_OK = %v, want %v", got, tc.ok)
			}
			if tc.ok && r.tr.Negotiated() != tc.accept {
				t.Errorf("negotiated %#x, want %#x", r.tr.Negotiated(), tc.accept)
			}
		})
	}
	t.Run("§3.1.1: features written after FEATURES_OK are ignored", func(t *testing.T) {
		r := newRig()
		r.live(t)
		r.drv.WriteFeatures(0)
		if r.tr.Negotiated() != virtio.FeatureVersion1|1<<3 {
			t.Errorf("negotiated %#x", r.tr.Negotiated())
		}
	})
}

func TestDriverStatusMisuse(t *testing.T) {
	t.Run("§2.1.2: DRIVER_OK without FEATURES_OK sets DEVICE_NEEDS_RESET and a config interrupt", func(t *testing.T) {
		r := newRig()
		r.drv.Write32(virtio.RegStatus, virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusDriverOK)
		if r.drv.Status()&virtio.StatusNeedsReset == 0 || r.tr.Live() {
			t.Fatalf("status %#x, live %v", r.drv.Status(), r.tr.Live())
		}
		if r.drv.Read32(virtio.RegInterruptStatus) != virtio.IntConfigChanged || !r.line.High {
			t.Errorf("no configuration change notification")
		}
	})
	t.Run("§2.1: the driver cannot set DEVICE_NEEDS_RESET or clear bits", func(t *testing.T) {
		r := newRig()
		r.live(t)
		r.drv.Write32(virtio.RegStatus, virtio.StatusNeedsReset)
		if s := r.drv.Status(); s&virtio.StatusNeedsReset != 0 || s&virtio.StatusDriverOK == 0 {
			t.Errorf("status %#x", s)
		}
	})
	t.Run("§2.1: a driver that sets FAILED stops the device", func(t *testing.T) {
		r := newRig()
		q := r.live(t)
		_, _, _ = q.Add(virtiotest.Buf{Data: []byte("x")}, virtiotest.Buf{Len: 1, Writable: true})
		r.drv.Notify(0)
		r.drv.Write32(virtio.RegStatus, uint32(r.drv.Status())|virtio.StatusFailed)
		r.clock.Run(10)
		if len(q.TakeUsed()) != 0 {
			t.Error("a failed device used a buffer")
		}
	})
	t.Run("§3.1.1: notifications before DRIVER_OK are ignored", func(t *testing.T) {
		r := newRig()
		if _, err := r.drv.Init(virtio.FeatureVersion1); err != nil {
			t.Fatal(err)
		}
		q, _ := r.drv.SetupQueue(0, echoQueue)
		_, _, _ = q.Add(virtiotest.Buf{Data: []byte("x")}, virtiotest.Buf{Len: 1, Writable: true})
		r.drv.Notify(0)
		if r.clock.Pending() != 0 {
			t.Fatal("a notification before DRIVER_OK scheduled work")
		}
		// Buffers made available before DRIVER_OK are used once the
		// device is live (§3.1.1 step 7 lets the driver populate queues).
		r.drv.DriverOK()
		r.clock.Run(10)
		if u := q.TakeUsed(); len(u) != 1 {
			t.Errorf("used %v after DRIVER_OK", u)
		}
	})
}

func TestQueueSetupChecksLayout(t *testing.T) {
	for _, tc := range []struct {
		name   string
		num    uint32
		desc   uint64
		driver uint64
		device uint64
		ok     bool
	}{
		{"§2.6: a well-placed queue of size QueueNumMax becomes ready", 8, ramBase + 0x1000, ramBase + 0x2000, ramBase + 0x3000, true},
		{"§2.6: a queue of size 1 is a power of 2", 1, ramBase + 0x1000, ramBase + 0x2000, ramBase + 0x3000, true},
		{"§2.6: a queue size that is not a power of 2 sets DEVICE_NEEDS_RESET", 6, ramBase + 0x1000, ramBase + 0x2000, ramBase + 0x3000, false},
		{"§4.2.2.2: a queue size above QueueNumMax sets DEVICE_NEEDS_RESET", 16, ramBase + 0x1000, ramBase + 0x2000, ramBase + 0x3000, false},
		{"§2.6: a queue size of 0 sets DEVICE_NEEDS_RESET", 0, ramBase + 0x1000, ramBase + 0x2000, ramBase + 0x3000, false},
		{"§2.6: a descriptor table not 16-byte aligned sets DEVICE_NEEDS_RESET", 8, ramBase + 0x1008, ramBase + 0x2000, ramBase + 0x3000, false},
		{"§2.6: an odd available ring address sets DEVICE_NEEDS_RESET", 8, ramBase + 0x1000, ramBase + 0x2001, ramBase + 0x3000, false},
		{"§2.6: a used ring not 4-byte aligned sets DEVICE_NEEDS_RESET", 8, ramBase + 0x1000, ramBase + 0x2000, ramBase + 0x3002, false},
		{"a descriptor table outside RAM sets DEVICE_NEEDS_RESET", 8, 0x1000, ramBase + 0x2000, ramBase + 0x3000, false},
		{"a used ring running off the end of RAM sets DEVICE_NEEDS_RESET", 8, ramBase + 0x1000, ramBase + 0x2000, ramBase + ramBytes - 16, false},
		{"a ring wrapping around the address space sets DEVICE_NEEDS_RESET", 8, ramBase + 0x1000, ^uint64(0) - 7, ramBase + 0x3000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			if _, err := r.drv.Init(virtio.FeatureVersion1); err != nil {
				t.Fatal(err)
			}
			d := r.drv
			d.Write32(virtio.RegQueueSel, 0)
			d.Write32(virtio.RegQueueNum, tc.num)
			d.Write32(virtio.RegQueueDescLow, uint32(tc.desc))
			d.Write32(virtio.RegQueueDescHigh, uint32(tc.desc>>32))
			d.Write32(virtio.RegQueueDriverLow, uint32(tc.driver))
			d.Write32(virtio.RegQueueDriverHigh, uint32(tc.driver>>32))
			d.Write32(virtio.RegQueueDeviceLow, uint32(tc.device))
			d.Write32(virtio.RegQueueDeviceHigh, uint32(tc.device>>32))
			d.Write32(virtio.RegQueueReady, 1)
			ready := d.Read32(virtio.RegQueueReady) == 1
			needsReset := d.Status()&virtio.StatusNeedsReset != 0
			if ready != tc.ok || needsReset == tc.ok {
				t.Errorf("ready %v, needs reset %v (%s); want ready %v", ready, needsReset, r.tr.NeedsResetReason(), tc.ok)
			}
		})
	}
	t.Run("§4.2.2.2: queue registers are ignored while the queue is ready", func(t *testing.T) {
		r := newRig()
		q := r.live(t)
		r.drv.Write32(virtio.RegQueueDescLow, 0)
		r.drv.Write32(virtio.RegQueueNum, 2)
		_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
		r.drv.Notify(0)
		r.clock.Run(10)
		if u := q.TakeUsed(); len(u) != 1 {
			t.Errorf("used %v", u)
		}
	})
	t.Run("§4.2.2: QueueNumMax reads 0 for a queue the device does not have", func(t *testing.T) {
		r := newRig()
		r.drv.Write32(virtio.RegQueueSel, 1)
		if m := r.drv.Read32(virtio.RegQueueNumMax); m != 0 {
			t.Errorf("QueueNumMax %d", m)
		}
		r.drv.Write32(virtio.RegQueueReady, 1) // ignored, no panic
	})
}

func virtio1Byte() virtiotest.Buf { return virtiotest.Buf{Data: []byte{0x5a}} }

func TestRequestCompletesAtTheScheduledEvent(t *testing.T) {
	r := newRig()
	q := r.live(t)
	r.clock.SetNow(1000)
	_, addrs, _ := q.Add(virtiotest.Buf{Data: []byte("hello")}, virtiotest.Buf{Len: 8, Writable: true})
	r.drv.Notify(0)
	t.Run("a notification completes nothing inside the guest's store", func(t *testing.T) {
		if q.UsedIdx() != 0 || r.line.High {
			t.Fatal("request completed synchronously")
		}
		if at, ok := r.clock.Next(); !ok || at != 1000+echoLatency {
			t.Fatalf("next event at %d, %v; want %d", at, ok, 1000+echoLatency)
		}
	})
	t.Run("a second notification before the event schedules nothing more", func(t *testing.T) {
		r.drv.Notify(0)
		if r.clock.Pending() != 1 {
			t.Fatalf("%d events pending", r.clock.Pending())
		}
	})
	r.clock.Run(10)
	t.Run("§2.6.8: the used ring reports the head and the bytes written", func(t *testing.T) {
		u := q.TakeUsed()
		if len(u) != 1 || u[0].Len != 5 {
			t.Fatalf("used %v", u)
		}
		if got := r.ram.Bytes(addrs[1], 5); string(got) != "hello" {
			t.Errorf("device wrote %q", got)
		}
	})
	t.Run("§4.2.3.4: the line is high with InterruptStatus bit 0 until acknowledged", func(t *testing.T) {
		if !r.line.High || r.line.Rises != 1 {
			t.Fatalf("line %+v", *r.line)
		}
		if s := r.drv.Ack(); s != virtio.IntUsedBuffer {
			t.Errorf("InterruptStatus %#x", s)
		}
		if r.line.High {
			t.Error("line still high after InterruptACK")
		}
	})
}

func TestNoInterruptFlagSuppressesNotifications(t *testing.T) {
	r := newRig()
	q := r.live(t)
	q.SetNoInterrupt(true)
	_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
	r.drv.Notify(0)
	r.clock.Run(10)
	if len(q.TakeUsed()) != 1 {
		t.Fatal("request not completed")
	}
	if r.line.High || r.tr.InterruptStatus() != 0 {
		t.Error("§2.6.7.2: a used buffer notification was sent although VIRTQ_AVAIL_F_NO_INTERRUPT was set")
	}
}

func TestWorkIsSpreadOverEvents(t *testing.T) {
	r := newRig()
	r.be.perEvent = 2
	q := r.live(t)
	for range 4 {
		if _, _, err := q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true}); err != nil {
			t.Fatal(err)
		}
	}
	r.drv.Notify(0)
	if n := r.clock.Run(100); n != 3 {
		t.Errorf("%d events for 4 requests at 2 per event, want 3", n)
	}
	if u := q.TakeUsed(); len(u) != 4 {
		t.Errorf("used %d", len(u))
	}
}

func TestResetClearsTheDevice(t *testing.T) {
	r := newRig()
	q := r.live(t)
	_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
	r.drv.Notify(0)
	_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
	r.clock.Run(1)
	r.drv.Notify(0)
	r.drv.Write32(virtio.RegStatus, 0)
	for _, tc := range []struct {
		name string
		got  uint32
	}{
		{"§4.2.2.1: reset clears InterruptStatus", r.drv.Read32(virtio.RegInterruptStatus)},
		{"§4.2.2.1: reset clears QueueReady", r.drv.Read32(virtio.RegQueueReady)},
		{"§2.1: reset clears Status", uint32(r.drv.Status())},
		{"reset cancels the pending processing event", uint32(r.clock.Pending())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != 0 {
				t.Errorf("got %#x", tc.got)
			}
		})
	}
	t.Run("reset lowers the interrupt line", func(t *testing.T) {
		if r.line.High {
			t.Error("line high")
		}
	})
	t.Run("§3.1.1: the device can be initialized again after a reset", func(t *testing.T) {
		r.drv = virtiotest.NewDriver(r.tr, r.ram)
		q := r.live(t)
		_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
		r.drv.Notify(0)
		r.clock.Run(10)
		if len(q.TakeUsed()) != 1 {
			t.Error("request not completed")
		}
	})
}

func TestBrokenRingsNeedReset(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(q *virtiotest.Queue)
		why   string
	}{
		{"§2.6: an available index more than a queue ahead sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.SetAvailIdx(echoQueue + 1)
		}, "ahead"},
		{"§2.6: a head index outside the queue sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.Publish(echoQueue)
		}, "head index"},
		{"§2.6.5: a next index outside the queue sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.PutDesc(0, virtiotest.Desc{Addr: ramBase, Len: 1, Flags: virtio.DescFNext, Next: 200})
			q.Publish(0)
		}, "next index"},
		{"§2.6.5.2: a descriptor loop sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.PutDesc(0, virtiotest.Desc{Addr: ramBase, Len: 1, Flags: virtio.DescFNext, Next: 1})
			q.PutDesc(1, virtiotest.Desc{Addr: ramBase, Len: 1, Flags: virtio.DescFNext, Next: 0})
			q.Publish(0)
		}, "loop"},
		{"§2.6.5.2: a descriptor pointing at itself sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.PutDesc(3, virtiotest.Desc{Addr: ramBase, Len: 1, Flags: virtio.DescFNext, Next: 3})
			q.Publish(3)
		}, "loop"},
		{"§2.6.5.3.1: an indirect descriptor, not negotiated, sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.PutDesc(0, virtiotest.Desc{Addr: ramBase, Len: 16, Flags: virtio.DescFIndirect})
			q.Publish(0)
		}, "indirect"},
		{"§2.6.4.2: a readable descriptor after a writable one sets DEVICE_NEEDS_RESET", func(q *virtiotest.Queue) {
			q.PutDesc(0, virtiotest.Desc{Addr: ramBase, Len: 1, Flags: virtio.DescFWrite | virtio.DescFNext, Next: 1})
			q.PutDesc(1, virtiotest.Desc{Addr: ramBase, Len: 1})
			q.Publish(0)
		}, "readable after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			q := r.live(t)
			tc.setup(q)
			r.drv.Notify(0)
			r.clock.Run(10)
			if r.drv.Status()&virtio.StatusNeedsReset == 0 {
				t.Fatal("DEVICE_NEEDS_RESET not set")
			}
			if !strings.Contains(r.tr.NeedsResetReason(), tc.why) {
				t.Errorf("reason %q does not mention %q", r.tr.NeedsResetReason(), tc.why)
			}
			if r.tr.InterruptStatus()&virtio.IntConfigChanged == 0 || !r.line.High {
				t.Error("§2.1.2: no configuration change notification after DEVICE_NEEDS_RESET")
			}
			if len(q.TakeUsed()) != 0 {
				t.Error("a broken chain was used")
			}
			r.drv.Notify(0)
			if r.clock.Pending() != 0 {
				t.Error("a device that needs a reset accepted a notification")
			}
		})
	}
}

func TestChainAccess(t *testing.T) {
	r := newRig()
	q := r.live(t)
	_, addrs, _ := q.Add(
		virtiotest.Buf{Data: []byte("ab")}, virtiotest.Buf{Data: nil}, virtiotest.Buf{Data: []byte("cde")},
		virtiotest.Buf{Len: 2, Writable: true}, virtiotest.Buf{Len: 3, Writable: true})
	r.tr.Write(virtio.RegQueueNotify, 4, 0)
	var got []byte
	var werr, rerr, past error
	var c *virtio.Chain
	r.be.perEvent = -1 // the test takes the chain itself
	r.clock.Run(1)
	c, ok := r.tr.Pop(0)
	if !ok {
		t.Fatal("no chain")
	}
	got = make([]byte, 4)
	rerr = c.Read(1, got)
	werr = c.Write(1, []byte("WXYZ"))
	past = c.Read(2, make([]byte, 4))
	t.Run("§2.6.4: the readable buffers read as one stream", func(t *testing.T) {
		if rerr != nil || string(got) != "bcde" {
			t.Errorf("read %q, %v", got, rerr)
		}
	})
	t.Run("§2.6.4: the writable buffers write as one stream", func(t *testing.T) {
		if werr != nil || string(r.ram.Bytes(addrs[3], 2)) != "\x00W" || string(r.ram.Bytes(addrs[4], 3)) != "XYZ" {
			t.Errorf("wrote %q %q, %v", r.ram.Bytes(addrs[3], 2), r.ram.Bytes(addrs[4], 3), werr)
		}
	})
	t.Run("a read past the readable part fails", func(t *testing.T) {
		if !errors.Is(past, virtio.ErrBeyondChain) {
			t.Errorf("got %v", past)
		}
	})
	t.Run("the lengths add up", func(t *testing.T) {
		if c.ReadLen != 5 || c.WriteLen != 5 || len(c.Readable()) != 3 || len(c.Writable()) != 2 {
			t.Errorf("chain %+v", c)
		}
	})
}

func saveBytes(p hw.Persist) []byte {
	var e hw.Encoder
	p.Save(&e)
	return append([]byte(nil), e.Bytes()...)
}

func TestSaveRestore(t *testing.T) {
	r := newRig()
	q := r.live(t)
	_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
	r.drv.Notify(0)
	r.clock.Run(10)
	_, _, _ = q.Add(virtiotest.Buf{Data: []byte("later")}, virtiotest.Buf{Len: 8, Writable: true})
	r.drv.Notify(0) // pending: restored below before it fires
	state := saveBytes(r.tr)
	var ce hw.Encoder
	r.clock.Save(&ce)

	t.Run("Save, Restore, Save gives the same bytes", func(t *testing.T) {
		r2 := newRig()
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if again := saveBytes(r2.tr); !bytes.Equal(state, again) {
			t.Error("state changed across Restore")
		}
	})
	t.Run("a request restored between notify and completion completes identically", func(t *testing.T) {
		r2 := newRigWith(r.ram.Clone())
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if err := r2.clock.Restore(hw.NewDecoder(ce.Bytes())); err != nil {
			t.Fatal(err)
		}
		r.clock.Run(10)
		r2.clock.Run(10)
		if !bytes.Equal(r.ram.B, r2.ram.B) || !bytes.Equal(saveBytes(r.tr), saveBytes(r2.tr)) {
			t.Error("the restored run diverged")
		}
		if r.clock.Now() != r2.clock.Now() {
			t.Errorf("completed at %d and %d", r.clock.Now(), r2.clock.Now())
		}
	})
	t.Run("every truncation of the state is an ErrCorrupt error", func(t *testing.T) {
		for n := 0; n < len(state); n++ {
			r2 := newRig()
			before := saveBytes(r2.tr)
			err := r2.tr.Restore(hw.NewDecoder(state[:n]))
			if !errors.Is(err, hw.ErrCorrupt) {
				t.Fatalf("truncated to %d bytes: %v", n, err)
			}
			if !bytes.Equal(before, saveBytes(r2.tr)) {
				t.Fatalf("a failed Restore of %d bytes changed the device", n)
			}
		}
	})
	t.Run("state of another device type is refused", func(t *testing.T) {
		if err := virtio.NewEmpty().Restore(hw.NewDecoder(state)); !errors.Is(err, hw.ErrCorrupt) {
			t.Errorf("got %v", err)
		}
	})
}
