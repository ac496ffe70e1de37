// Package rng implements the virtio entropy device (VIRTIO 1.1 §5.4,
// DeviceID 4): one request queue whose device-writable buffers the device
// fills with bytes from the universe's PRNG. The device has no feature bits
// and no configuration space.
//
// §5.4.6.2: "The device MUST place one or more random bytes into the
// buffer, but it MAY use less than the entire buffer length." The device
// fills at most MaxRequestBytes of each buffer. Bytes come from whole
// 64-bit draws, least significant byte first; the unused bytes of a
// request's last draw are discarded, so a request of n bytes costs
// ceil(n/8) draws.
//
// State encoding (after the transport's, see package virtio):
//
//	tag "virtio-rng"
//	u64 requests, u64 bytes
package rng

import (
	"encoding/binary"

	"everett/devices/virtio"
	"everett/hw"
)

// Sizes and timing.
const (
	// QueueSize is QueueNumMax of the request queue.
	QueueSize = 64
	// MaxRequestBytes bounds the bytes given for one buffer.
	MaxRequestBytes = 4096
	// DefaultLatency is the virtual time from a notification to the
	// buffers being filled (2 µs at 1 slot per ns).
	DefaultLatency = 2_000
)

// Config describes an entropy device.
type Config struct {
	// Rand is the universe's PRNG; every byte comes from it.
	Rand hw.Rand
	// Latency: 0 means DefaultLatency.
	Latency uint64
}

// Stats counts served requests and bytes; they are part of the state.
type Stats struct {
	Requests, Bytes uint64
}

// Device is a virtio entropy device backend; plug it into a slot with
// virtio.New.
type Device struct {
	t       *virtio.Transport
	rand    hw.Rand
	latency uint64
	stats   Stats
	buf     [MaxRequestBytes]byte
}

// New returns an entropy device drawing from cfg.Rand.
func New(cfg Config) *Device {
	d := &Device{rand: cfg.Rand, latency: cfg.Latency}
	if d.latency == 0 {
		d.latency = DefaultLatency
	}
	return d
}

// Stats returns the counters.
func (d *Device) Stats() Stats { return d.stats }

// DeviceID implements virtio.Backend.
func (d *Device) DeviceID() uint32 { return virtio.DeviceEntropy }

// Features implements virtio.Backend: none (§5.4.3).
func (d *Device) Features() uint64 { return 0 }

// NumQueues implements virtio.Backend: requestq (§5.4.2).
func (d *Device) NumQueues() int { return 1 }

// QueueMax implements virtio.Backend.
func (d *Device) QueueMax(int) int { return QueueSize }

// ReadConfig implements virtio.Backend: there is no configuration space.
func (d *Device) ReadConfig(uint64, int) uint64 { return 0 }

// WriteConfig implements virtio.Backend.
func (d *Device) WriteConfig(uint64, int, uint64) {}

// Attach implements virtio.Backend.
func (d *Device) Attach(t *virtio.Transport) { d.t = t }

// Latency implements virtio.Backend.
func (d *Device) Latency(int) uint64 { return d.latency }

// Reset implements virtio.Backend; the device keeps no per-driver state.
func (d *Device) Reset() {}

// Process implements virtio.Backend: it fills up to a queue's worth of
// buffers.
func (d *Device) Process(q int) bool {
	for range QueueSize {
		c, ok := d.t.Pop(q)
		if !ok {
			return false
		}
		n := min(c.WriteLen, MaxRequestBytes)
		b := d.buf[:n]
		for i := 0; i < len(b); i += 8 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], d.rand.Uint64())
			copy(b[i:], w[:])
		}
		if c.Write(0, b) != nil {
			n = 0 // a buffer outside RAM: nothing is reported as written
		}
		d.stats.Requests++
		d.stats.Bytes += n
		d.t.Push(q, c.Head, uint32(n))
	}
	return true
}

// Save implements hw.Persist.
func (d *Device) Save(e *hw.Encoder) {
	e.Tag("virtio-rng")
	e.U64(d.stats.Requests)
	e.U64(d.stats.Bytes)
}

// Restore implements hw.Persist.
func (d *Device) Restore(dec *hw.Decoder) error {
	dec.Tag("virtio-rng")
	st := Stats{Requests: dec.U64(), Bytes: dec.U64()}
	if err := dec.Err(); err != nil {
		return err
	}
	d.stats = st
	return nil
}
