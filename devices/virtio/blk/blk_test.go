package blk_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"everett/devices/virtio"
	"everett/devices/virtio/blk"
	"everett/devices/virtio/internal/virtiotest"
	"everett/hw"
)

const (
	ramBase    = 0x8000_0000
	ramBytes   = 4 << 20
	imageBytes = 64 << 10
)

func image() []byte {
	b := make([]byte, imageBytes)
	for i := range b {
		b[i] = byte(i*7 + i>>9)
	}
	return b
}

type rig struct {
	dev   *blk.Device
	tr    *virtio.Transport
	ram   *virtiotest.RAM
	clock *virtiotest.Clock
	line  *virtiotest.Line
	drv   *virtiotest.Driver
	q     *virtiotest.Queue
	img   []byte
}

func newDevice(t testing.TB, cfg blk.Config, ram *virtiotest.RAM) *rig {
	t.Helper()
	if cfg.Image == nil {
		cfg.Image = image()
	}
	d, err := blk.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{dev: d, ram: ram, clock: &virtiotest.Clock{}, line: &virtiotest.Line{}, img: cfg.Image}
	r.tr = virtio.New(virtio.Host{Mem: r.ram, Clock: r.clock, IRQ: r.line}, d)
	r.clock.Register(r.tr)
	r.drv = virtiotest.NewDriver(r.tr, r.ram)
	return r
}

// newRig returns a live block device: the driver went through §3.1.1 and
// accepted features.
func newRig(t testing.TB, cfg blk.Config, features uint64) *rig {
	t.Helper()
	r := newDevice(t, cfg, virtiotest.NewRAM(ramBase, ramBytes))
	if _, err := r.drv.Init(virtio.FeatureVersion1 | features); err != nil {
		t.Fatal(err)
	}
	q, err := r.drv.SetupQueue(0, blk.QueueSize)
	if err != nil {
		t.Fatal(err)
	}
	r.q = q
	r.drv.DriverOK()
	return r
}

type result struct {
	status uint8
	data   []byte
	used   uint32
}

func header(typ uint32, sector uint64) []byte {
	h := make([]byte, 16)
	binary.LittleEndian.PutUint32(h, typ)
	binary.LittleEndian.PutUint64(h[8:], sector)
	return h
}

// submit queues a request laid out as Linux does (header, data, status
// byte, §5.2.6), runs the device, and returns the outcome.
func (r *rig) submit(t testing.TB, typ uint32, sector uint64, out []byte, in int) result {
	t.Helper()
	bufs := []virtiotest.Buf{{Data: header(typ, sector)}}
	if out != nil {
		bufs = append(bufs, virtiotest.Buf{Data: out})
	}
	if in > 0 {
		bufs = append(bufs, virtiotest.Buf{Len: in, Writable: true})
	}
	bufs = append(bufs, virtiotest.Buf{Len: 1, Writable: true})
	_, addrs, err := r.q.Add(bufs...)
	if err != nil {
		t.Fatal(err)
	}
	r.drv.Notify(0)
	r.clock.Run(100)
	r.drv.Ack()
	u := r.q.TakeUsed()
	if len(u) != 1 {
		t.Fatalf("used %v (status %#x: %s)", u, r.tr.Status(), r.tr.NeedsResetReason())
	}
	res := result{status: r.ram.Bytes(addrs[len(addrs)-1], 1)[0], used: u[0].Len}
	if in > 0 {
		res.data = r.ram.Bytes(addrs[len(addrs)-2], in)
	}
	return res
}

func TestConfigSpace(t *testing.T) {
	r := newRig(t, blk.Config{}, 0)
	for _, tc := range []struct {
		name string
		off  uint64
		size int
		want uint64
	}{
		{"§5.2.4: capacity is the image size in 512-byte sectors", 0, 8, imageBytes / 512},
		{"§5.2.4: capacity reads as two 32-bit halves", 4, 4, 0},
		{"§5.2.4: size_max bounds a segment", 8, 4, blk.SegmentBytes},
		{"§5.2.4: seg_max bounds the segments of a request", 12, 4, blk.SegMax},
		{"§5.2.4: fields the device does not offer read zero", 20, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := r.tr.Read(virtio.RegConfig+tc.off, tc.size); !ok || got != tc.want {
				t.Errorf("got %d, %v; want %d", got, ok, tc.want)
			}
		})
	}
	t.Run("§5.2.3: the device offers FLUSH, SEG_MAX and SIZE_MAX, and RO only for a read-only disk", func(t *testing.T) {
		if f := r.drv.DeviceFeatures(); f != virtio.FeatureVersion1|blk.FeatureFlush|blk.FeatureSegMax|blk.FeatureSizeMax {
			t.Errorf("features %#x", f)
		}
		ro := newDevice(t, blk.Config{ReadOnly: true}, virtiotest.NewRAM(ramBase, ramBytes))
		if ro.drv.DeviceFeatures()&blk.FeatureRO == 0 {
			t.Error("read-only disk does not offer VIRTIO_BLK_F_RO")
		}
	})
}

func TestNewRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  blk.Config
	}{
		{"an image that is not whole sectors is refused", blk.Config{Image: make([]byte, 1000)}},
		{"§5.2.6: an id longer than 20 bytes is refused", blk.Config{Image: make([]byte, 512), ID: strings.Repeat("x", 21)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := blk.New(tc.cfg); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestRequests(t *testing.T) {
	img := image()
	pattern := bytes.Repeat([]byte("everett!"), 128) // 1024 bytes
	for _, tc := range []struct {
		name     string
		cfg      blk.Config
		typ      uint32
		sector   uint64
		out      []byte
		in       int
		status   uint8
		wantData []byte
	}{
		{"§5.2.6: T_IN reads sectors of the image", blk.Config{}, blk.TypeIn, 3, nil, 1024, blk.StatusOK, img[3*512 : 5*512]},
		{"§5.2.6: T_IN reads the last sector", blk.Config{}, blk.TypeIn, imageBytes/512 - 1, nil, 512, blk.StatusOK, img[imageBytes-512:]},
		{"§5.2.6.1: T_IN past the capacity is IOERR", blk.Config{}, blk.TypeIn, imageBytes/512 - 1, nil, 1024, blk.StatusIOErr, nil},
		{"§5.2.6.1: T_IN at a sector far past the capacity is IOERR", blk.Config{}, blk.TypeIn, 1 << 60, nil, 512, blk.StatusIOErr, nil},
		{"§5.2.6.1: T_IN of a partial sector is IOERR", blk.Config{}, blk.TypeIn, 0, nil, 100, blk.StatusIOErr, nil},
		{"§5.2.6: T_OUT writes sectors", blk.Config{}, blk.TypeOut, 2, pattern, 0, blk.StatusOK, nil},
		{"§5.2.6.1: T_OUT past the capacity is IOERR", blk.Config{}, blk.TypeOut, imageBytes / 512, pattern[:512], 0, blk.StatusIOErr, nil},
		{"§5.2.6.1: T_OUT of a partial sector is IOERR", blk.Config{}, blk.TypeOut, 0, pattern[:511], 0, blk.StatusIOErr, nil},
		{"§5.2.6.2: T_OUT to a read-only disk is IOERR", blk.Config{ReadOnly: true}, blk.TypeOut, 0, pattern, 0, blk.StatusIOErr, nil},
		{"§5.2.6: T_FLUSH succeeds", blk.Config{}, blk.TypeFlush, 0, nil, 0, blk.StatusOK, nil},
		{"§5.2.6: T_GET_ID returns the id, NUL-padded to 20 bytes", blk.Config{ID: "disk-0"}, blk.TypeGetID, 0, nil, 20, blk.StatusOK, append([]byte("disk-0"), make([]byte, 14)...)},
		{"§5.2.6: T_GET_ID of a 20-byte id has no NUL", blk.Config{ID: "01234567890123456789"}, blk.TypeGetID, 0, nil, 20, blk.StatusOK, []byte("01234567890123456789")},
		{"§5.2.6: T_GET_ID with the default id", blk.Config{}, blk.TypeGetID, 0, nil, 20, blk.StatusOK, append([]byte(blk.DefaultID), make([]byte, 20-len(blk.DefaultID))...)},
		{"§5.2.6: T_DISCARD, not offered, is UNSUPP", blk.Config{}, 11, 0, make([]byte, 16), 0, blk.StatusUnsupp, nil},
		{"§5.2.6: T_GET_LIFETIME, not offered, is UNSUPP", blk.Config{}, 10, 0, nil, 8, blk.StatusUnsupp, nil},
		{"§5.2.6: an unknown request type is UNSUPP", blk.Config{}, 0x1234, 0, nil, 0, blk.StatusUnsupp, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.cfg, blk.FeatureFlush)
			res := r.submit(t, tc.typ, tc.sector, tc.out, tc.in)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d", res.status, tc.status)
			}
			if tc.wantData != nil && !bytes.Equal(res.data[:len(tc.wantData)], tc.wantData) {
				t.Errorf("data %q, want %q", res.data[:min(len(res.data), 32)], tc.wantData[:min(len(tc.wantData), 32)])
			}
			wantUsed := uint32(1)
			if tc.status == blk.StatusOK {
				wantUsed += uint32(len(tc.wantData))
			}
			if res.used != wantUsed {
				t.Errorf("used length %d, want %d (§2.6.8: bytes written)", res.used, wantUsed)
			}
			if tc.typ == blk.TypeOut {
				back := r.submit(t, blk.TypeIn, tc.sector%(imageBytes/512), nil, 512)
				want := img[tc.sector%(imageBytes/512)*512:][:512]
				if tc.status == blk.StatusOK {
					want = tc.out[:512]
				}
				if !bytes.Equal(back.data, want) {
					t.Error("reading back after the write gave the wrong data")
				}
			}
		})
	}
}

func TestCopyOnWriteOverlay(t *testing.T) {
	img := image()
	orig := append([]byte(nil), img...)
	r := newRig(t, blk.Config{Image: img}, blk.FeatureFlush)
	data := bytes.Repeat([]byte{0xab}, 512)
	r.submit(t, blk.TypeOut, 9, data, 0) // inside block 1, sector 1 of 8
	t.Run("the image bytes never change", func(t *testing.T) {
		if !bytes.Equal(img, orig) {
			t.Fatal("the device wrote the image")
		}
	})
	t.Run("a write is unflushed until T_FLUSH", func(t *testing.T) {
		if len(r.dev.Unflushed()) != 1 || len(r.dev.Flushed()) != 0 {
			t.Fatalf("unflushed %d, flushed %d", len(r.dev.Unflushed()), len(r.dev.Flushed()))
		}
	})
	t.Run("the overlay holds the whole 4 KiB block with the write merged", func(t *testing.T) {
		o := r.dev.Overlay()
		if len(o) != 1 || o[0].Off != 4096 || len(o[0].Data) != 4096 {
			t.Fatalf("overlay %v", len(o))
		}
		want := append([]byte(nil), img[4096:8192]...)
		copy(want[512:], data)
		if !bytes.Equal(o[0].Data, want) {
			t.Error("overlay block contents")
		}
	})
	r.submit(t, blk.TypeFlush, 0, nil, 0)
	t.Run("§5.2.6.2: T_FLUSH makes completed writes stable", func(t *testing.T) {
		if len(r.dev.Unflushed()) != 0 || len(r.dev.Flushed()) != 1 {
			t.Fatalf("unflushed %d, flushed %d", len(r.dev.Unflushed()), len(r.dev.Flushed()))
		}
	})
	t.Run("a read spanning overlay and image blocks sees both", func(t *testing.T) {
		got := r.submit(t, blk.TypeIn, 7, nil, 1536).data
		want := append([]byte(nil), img[7*512:10*512]...)
		copy(want[1024:], data)
		if !bytes.Equal(got, want) {
			t.Error("mixed read")
		}
	})
	t.Run("§5.2.6.2: without FLUSH negotiated, writes are stable at completion", func(t *testing.T) {
		r := newRig(t, blk.Config{}, 0)
		r.submit(t, blk.TypeOut, 0, data, 0)
		if len(r.dev.Unflushed()) != 0 || len(r.dev.Flushed()) != 1 {
			t.Errorf("unflushed %d, flushed %d", len(r.dev.Unflushed()), len(r.dev.Flushed()))
		}
	})
}

// seq is a hw.Rand that returns fixed values.
type seq struct{ v []uint64 }

func (s *seq) Uint64() uint64 {
	x := s.v[0]
	s.v = s.v[1:]
	return x
}

func TestCrashLosesUnflushedWrites(t *testing.T) {
	img := image()
	ones := bytes.Repeat([]byte{1}, 4096)
	for _, tc := range []struct {
		name  string
		draws []uint64
		want  func(b []byte) []byte
	}{
		{"a lost block keeps its stable data", []uint64{0}, func(b []byte) []byte { return b }},
		{"a persisted block keeps the whole write", []uint64{1}, func([]byte) []byte { return ones }},
		{"a torn block keeps the sectors the mask names", []uint64{2, 0b1010_0001}, func(b []byte) []byte {
			out := append([]byte(nil), b...)
			for _, s := range []int{0, 5, 7} {
				copy(out[s*512:(s+1)*512], ones)
			}
			return out
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, blk.Config{Image: img}, blk.FeatureFlush)
			r.submit(t, blk.TypeOut, 8, ones, 0)
			r.dev.CrashLoseUnflushed(&seq{tc.draws})
			if len(r.dev.Unflushed()) != 0 {
				t.Fatal("unflushed writes survive a crash")
			}
			got := r.submit(t, blk.TypeIn, 8, nil, 4096).data
			if !bytes.Equal(got, tc.want(img[4096:8192])) {
				t.Error("block contents after the crash")
			}
		})
	}
}

func TestHostileRequests(t *testing.T) {
	for _, tc := range []struct {
		name       string
		bufs       []virtiotest.Buf
		status     uint8 // expected status if answered
		needsReset bool
	}{
		{"§5.2.6: a header shorter than 16 bytes is IOERR", []virtiotest.Buf{{Data: make([]byte, 8)}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"a header outside RAM is IOERR", []virtiotest.Buf{{Data: nil, Len: 16, Addr: 0x10}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"a read into a buffer outside RAM is IOERR", []virtiotest.Buf{{Data: header(blk.TypeIn, 0)}, {Len: 512, Writable: true, Addr: 0x1000}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"a write from a buffer outside RAM is IOERR", []virtiotest.Buf{{Data: header(blk.TypeOut, 0)}, {Len: 512, Addr: 0x1000}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"a buffer wrapping the address space is IOERR", []virtiotest.Buf{{Data: header(blk.TypeIn, 0)}, {Len: 512, Writable: true, Addr: ^uint64(0) - 100}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"a request larger than MaxRequestBytes is IOERR", []virtiotest.Buf{{Data: header(blk.TypeIn, 0)}, {Len: blk.MaxRequestBytes + 512, Writable: true, Addr: ramBase}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"a request with huge lengths is IOERR", []virtiotest.Buf{{Data: header(blk.TypeIn, 0)}, {Len: 0xffffffff, Writable: true, Addr: ramBase}, {Len: 0xffffffff, Writable: true, Addr: ramBase}, {Len: 1, Writable: true}}, blk.StatusIOErr, false},
		{"zero-length buffers in a chain are harmless", []virtiotest.Buf{{Data: header(blk.TypeIn, 0)}, {Data: []byte{}}, {Len: 0, Writable: true}, {Len: 512, Writable: true}, {Len: 1, Writable: true}}, blk.StatusOK, false},
		{"a request with no writable byte needs a reset", []virtiotest.Buf{{Data: header(blk.TypeIn, 0)}, {Data: make([]byte, 512)}}, 0, true},
		{"a status byte outside RAM needs a reset", []virtiotest.Buf{{Data: header(blk.TypeFlush, 0)}, {Len: 1, Writable: true, Addr: 0x10}}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, blk.Config{}, blk.FeatureFlush)
			_, addrs, err := r.q.Add(tc.bufs...)
			if err != nil {
				t.Fatal(err)
			}
			r.drv.Notify(0)
			r.clock.Run(100)
			u := r.q.TakeUsed()
			if tc.needsReset {
				if r.tr.Status()&virtio.StatusNeedsReset == 0 || len(u) != 0 {
					t.Fatalf("status %#x, used %v", r.tr.Status(), u)
				}
				return
			}
			if len(u) != 1 {
				t.Fatalf("used %v (%s)", u, r.tr.NeedsResetReason())
			}
			if got := r.ram.Bytes(addrs[len(addrs)-1], 1)[0]; got != tc.status {
				t.Errorf("status %d, want %d", got, tc.status)
			}
		})
	}
}

// TestRandomDescriptorStorm submits chains of random descriptors (random
// addresses, lengths, flags and next indices, or well-formed chains of
// random buffers) and random notifications. Every round must finish, and
// every request must either complete or leave the device needing a reset.
func TestRandomDescriptorStorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	resets, completed, ioerrs := 0, 0, 0
	for round := range 200 {
		r := newRig(t, blk.Config{}, blk.FeatureFlush)
		hostile := round%4 == 0
		const requests = 60
		for k := range requests {
			n := 1 + rng.IntN(5)
			if !hostile {
				n++
			}
			head := uint16(k * 8 % blk.QueueSize)
			writable := false
			r.ram.Put(ramBase+0x10000, header(uint32(rng.IntN(10)), uint64(rng.IntN(256))>>rng.IntN(8)))
			for i := range n {
				d := virtiotest.Desc{Addr: randAddr(rng), Len: randLen(rng)}
				if hostile {
					d.Flags = uint16(rng.IntN(8))
					d.Next = uint16(rng.IntN(blk.QueueSize + 8))
				} else {
					if i > 0 && (writable || i == n-1 || rng.IntN(2) == 0) {
						d.Flags |= virtio.DescFWrite
						writable = true
					}
					if i+1 < n {
						d.Flags |= virtio.DescFNext
						d.Next = head + uint16(i) + 1
					}
				}
				if i == 0 && rng.IntN(4) != 0 {
					d.Addr, d.Len = ramBase+0x10000, 16
				}
				if i == n-1 && (!hostile && rng.IntN(200) != 0 || rng.IntN(4) != 0) {
					d.Addr, d.Len = ramBase+0x20000+uint64(k), 1
				}
				r.q.PutDesc(head+uint16(i), d)
			}
			r.q.Publish(head)
			if rng.IntN(3) == 0 {
				r.drv.Notify(rng.IntN(2))
			}
			if rng.IntN(2) == 0 {
				r.clock.Step()
			}
			if r.clock.Pending() > 1 {
				t.Fatalf("round %d: %d events", round, r.clock.Pending())
			}
		}
		r.drv.Notify(0)
		if n := r.clock.Run(1000); n >= 1000 {
			t.Fatalf("round %d: events never stop", round)
		}
		used := r.q.UsedIdx()
		if r.tr.Status()&virtio.StatusNeedsReset != 0 {
			if round < 8 {
				t.Logf("round %d: %s", round, r.tr.NeedsResetReason())
			}
			resets++
		} else if used != requests {
			t.Fatalf("round %d: %d of %d requests used and no reset needed", round, used, requests)
		} else {
			completed++
			for k := range requests {
				if r.ram.Bytes(ramBase+0x20000+uint64(k), 1)[0] == blk.StatusIOErr {
					ioerrs++
				}
			}
		}
		state := saveBytes(r.tr)
		r2 := newDevice(t, blk.Config{}, virtiotest.NewRAM(ramBase, ramBytes))
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if resets == 0 || completed == 0 || ioerrs == 0 {
		t.Errorf("the storm missed a path: %d rounds needed a reset, %d completed, %d IOERR statuses", resets, completed, ioerrs)
	}
	t.Logf("%d rounds needed a reset, %d completed every request, %d IOERR statuses", resets, completed, ioerrs)
}

func randAddr(rng *rand.Rand) uint64 {
	switch rng.IntN(4) {
	case 0:
		return rng.Uint64()
	case 1:
		return ramBase + uint64(rng.IntN(ramBytes))
	case 2:
		return ramBase + ramBytes - uint64(rng.IntN(64))
	}
	return ramBase + uint64(rng.IntN(0x1000))
}

func randLen(rng *rand.Rand) uint32 {
	switch rng.IntN(4) {
	case 0:
		return rng.Uint32()
	case 1:
		return 0
	}
	return uint32(rng.IntN(2048))
}

func saveBytes(p hw.Persist) []byte {
	var e hw.Encoder
	p.Save(&e)
	return append([]byte(nil), e.Bytes()...)
}

func TestSaveRestore(t *testing.T) {
	r := newRig(t, blk.Config{}, blk.FeatureFlush)
	r.submit(t, blk.TypeOut, 0, bytes.Repeat([]byte{1}, 512), 0)
	r.submit(t, blk.TypeFlush, 0, nil, 0)
	r.submit(t, blk.TypeOut, 100, bytes.Repeat([]byte{2}, 4096), 0) // unaligned to blocks: two blocks
	// A request in flight: notified, not yet completed.
	_, addrs, _ := r.q.Add(virtiotest.Buf{Data: header(blk.TypeIn, 98)}, virtiotest.Buf{Len: 2048, Writable: true}, virtiotest.Buf{Len: 1, Writable: true})
	r.drv.Notify(0)
	state := saveBytes(r.tr)
	var clock hw.Encoder
	r.clock.Save(&clock)

	t.Run("Save, Restore, Save gives the same bytes", func(t *testing.T) {
		r2 := newDevice(t, blk.Config{}, virtiotest.NewRAM(ramBase, ramBytes))
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(state, saveBytes(r2.tr)) {
			t.Error("state changed")
		}
	})
	t.Run("a request restored after its notification completes identically", func(t *testing.T) {
		r2 := newDevice(t, blk.Config{}, r.ram.Clone())
		if err := r2.tr.Restore(hw.NewDecoder(state)); err != nil {
			t.Fatal(err)
		}
		if err := r2.clock.Restore(hw.NewDecoder(clock.Bytes())); err != nil {
			t.Fatal(err)
		}
		r.clock.Run(10)
		r2.clock.Run(10)
		if !bytes.Equal(r.ram.B, r2.ram.B) || !bytes.Equal(saveBytes(r.tr), saveBytes(r2.tr)) {
			t.Fatal("the restored run diverged")
		}
		want := append(bytes.Repeat([]byte{0}, 0), image()[98*512:100*512]...)
		want = append(want, bytes.Repeat([]byte{2}, 1024)...)
		if got := r2.ram.Bytes(addrs[1], 2048); !bytes.Equal(got, want) {
			t.Error("restored read returned the wrong data")
		}
	})
	t.Run("every truncation is an ErrCorrupt error and changes nothing", func(t *testing.T) {
		for n := 0; n < len(state); n += 1 + n/64 {
			r2 := newDevice(t, blk.Config{}, virtiotest.NewRAM(ramBase, ramBytes))
			before := saveBytes(r2.tr)
			if err := r2.tr.Restore(hw.NewDecoder(state[:n])); !errors.Is(err, hw.ErrCorrupt) {
				t.Fatalf("%d bytes: %v", n, err)
			}
			if !bytes.Equal(before, saveBytes(r2.tr)) {
				t.Fatalf("%d bytes: a failed Restore changed the device", n)
			}
		}
	})
	t.Run("a state saved from another disk size is refused", func(t *testing.T) {
		r2 := newDevice(t, blk.Config{Image: make([]byte, 1024)}, virtiotest.NewRAM(ramBase, ramBytes))
		if err := r2.tr.Restore(hw.NewDecoder(state)); !errors.Is(err, hw.ErrCorrupt) {
			t.Errorf("got %v", err)
		}
	})
}

func TestReadImage(t *testing.T) {
	img := image()
	got, err := blk.ReadImage(bytes.NewReader(img), int64(len(img)))
	if err != nil || !bytes.Equal(got, img) {
		t.Fatalf("ReadImage: %v", err)
	}
	if _, err := blk.ReadImage(bytes.NewReader(img), int64(len(img))+1); err == nil {
		t.Error("a short image read succeeded")
	}
}

// FuzzRestore feeds arbitrary bytes to Restore: no panic, and accepted
// states save canonically.
func FuzzRestore(f *testing.F) {
	r := newRig(f, blk.Config{}, blk.FeatureFlush)
	r.submit(f, blk.TypeOut, 3, bytes.Repeat([]byte{9}, 512), 0)
	f.Add(saveBytes(r.tr))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newDevice(t, blk.Config{}, virtiotest.NewRAM(ramBase, 1<<16))
		if err := r.tr.Restore(hw.NewDecoder(b)); err != nil {
			return
		}
		s := saveBytes(r.tr)
		r2 := newDevice(t, blk.Config{}, virtiotest.NewRAM(ramBase, 1<<16))
		if err := r2.tr.Restore(hw.NewDecoder(s)); err != nil || !bytes.Equal(s, saveBytes(r2.tr)) {
			t.Fatalf("not canonical: %v", err)
		}
		_ = r.dev.Overlay()
	})
}

// afterCrash runs writes (sector, fill byte, flush after it) on r and a
// crash that keeps every other unflushed block, and returns the disk as
// the crash left it: the image with Flushed laid over it.
func afterCrash(t *testing.T, r *rig, writes [][3]int) []byte {
	t.Helper()
	for _, w := range writes {
		r.submit(t, blk.TypeOut, uint64(w[0]), bytes.Repeat([]byte{byte(w[1])}, 4096), 0)
		if w[2] != 0 {
			r.submit(t, blk.TypeFlush, 0, nil, 0)
		}
	}
	draws := make([]uint64, 64)
	for i := range draws {
		draws[i] = uint64(i % 2) // lost, persisted, lost, ...
	}
	r.dev.CrashLoseUnflushed(&seq{draws})
	disk := bytes.Clone(r.img)
	for _, b := range r.dev.Flushed() {
		copy(disk[b.Off:], b.Data)
	}
	return disk
}

func TestARestartOnTheBlocksACrashLeftIsTheDiskACopyWouldBe(t *testing.T) {
	img := image()
	first := [][3]int{{0, 1, 1}, {9, 2, 0}, {24, 3, 0}, {40, 4, 1}, {56, 5, 0}}
	crashed := afterCrash(t, newRig(t, blk.Config{Image: img}, blk.FeatureFlush), first)
	var stable []blk.Block
	r := newRig(t, blk.Config{Image: img}, blk.FeatureFlush)
	afterCrash(t, r, first)
	stable = r.dev.Flushed()

	layered := newRig(t, blk.Config{Image: img, Stable: stable}, blk.FeatureFlush)
	copied := newRig(t, blk.Config{Image: bytes.Clone(crashed)}, blk.FeatureFlush)
	if got := layered.submit(t, blk.TypeIn, 0, nil, imageBytes).data; !bytes.Equal(got, crashed) {
		t.Fatal("the restarted disk does not read as the crash left it")
	}
	copied.submit(t, blk.TypeIn, 0, nil, imageBytes)
	if !bytes.Equal(saveBytes(layered.tr), saveBytes(copied.tr)) {
		t.Fatal("the restarted device's state differs from one built on a copy of the disk")
	}
	// The second life: more writes and another crash, on both.
	second := [][3]int{{8, 6, 0}, {24, 7, 1}, {64, 8, 0}, {88, 9, 0}}
	a, b := afterCrash(t, layered, second), afterCrash(t, copied, second)
	if !bytes.Equal(a, b) || !bytes.Equal(saveBytes(layered.tr), saveBytes(copied.tr)) {
		t.Error("after a second crash the layered disk and the copy differ")
	}
	if !bytes.Equal(img, image()) {
		t.Error("the device wrote its image")
	}
	for _, bad := range []blk.Block{
		{Off: 100, Data: make([]byte, 4096)},
		{Off: imageBytes, Data: make([]byte, 4096)},
		{Off: 4096, Data: make([]byte, 512)},
	} {
		if _, err := blk.New(blk.Config{Image: img, Stable: []blk.Block{bad}}); err == nil {
			t.Errorf("a stable block of %d bytes at %d was accepted", len(bad.Data), bad.Off)
		}
	}
}
