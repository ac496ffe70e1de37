// Package net implements the virtio network device (VIRTIO 1.1 §5.1,
// DeviceID 1) with one receive queue (0) and one transmit queue (1), a MAC
// address and a link status, and no offloads: no checksum offload, no
// segmentation, no mergeable receive buffers. Every packet is therefore
// preceded by the 12-byte struct virtio_net_hdr of VIRTIO_F_VERSION_1
// (§5.1.6), which the device ignores on transmit and writes as zeros with
// num_buffers = 1 on receive (§5.1.6.4.1: "If VIRTIO_NET_F_MRG_RXBUF is
// not negotiated, the device MUST set num_buffers to 1").
//
// Transmitted frames (header stripped) go to a Link at the transmit
// queue's processing event; received frames come in through Deliver, which
// the machine's network model calls at a deterministic point. A frame that
// finds no receive buffer waits in a bounded backlog; beyond it, frames are
// dropped and counted.
//
// State encoding (after the transport's, see package virtio):
//
//	tag "virtio-net"
//	6 bytes MAC, bool link up
//	u64 backlog frame count, then per frame (oldest first): bytes frame
//	u64 tx frames, u64 tx dropped, u64 rx frames, u64 rx dropped
package net

import (
	"encoding/binary"
	"slices"

	"everett/devices/virtio"
	"everett/hw"
)

// Queues, sizes and limits.
const (
	RxQueue = 0
	TxQueue = 1
	// QueueSize is QueueNumMax of both queues.
	QueueSize = 256
	// HeaderBytes is the size of struct virtio_net_hdr with
	// VIRTIO_F_VERSION_1 (§5.1.6).
	HeaderBytes = 12
	// MaxFrameBytes bounds a frame (without the header) in both
	// directions; longer frames are dropped.
	MaxFrameBytes = 65550
	// DefaultBacklog is the number of received frames held while the
	// guest has no receive buffer.
	DefaultBacklog = 256
	// DefaultTxLatency is the virtual time from a transmit notification
	// to the frames leaving (10 µs at 1 slot per ns).
	DefaultTxLatency = 10_000
	// DefaultRxLatency is the virtual time from a receive notification
	// (new buffers) to backlogged frames being placed in them.
	DefaultRxLatency = 10_000
)

// Feature bits (§5.1.3) and the link status bit (§5.1.4).
const (
	FeatureMAC    = 1 << 5
	FeatureStatus = 1 << 16
	StatusLinkUp  = 1
)

// Link carries transmitted frames away from the device: the simulated
// network's port. Send owns frame. It is called at the transmit queue's
// processing event, on the universe's goroutine; it may call Deliver on any
// device (including this one).
type Link interface {
	Send(frame []byte)
}

// Config describes a network device.
type Config struct {
	// MAC is the address offered in the configuration space.
	MAC [6]byte
	// Link receives transmitted frames; nil is a cable to nowhere.
	Link Link
	// TxLatency and RxLatency: 0 means the default.
	TxLatency, RxLatency uint64
	// Backlog bounds the frames waiting for receive buffers; 0 means
	// DefaultBacklog.
	Backlog int
}

// Stats counts frames since construction; they are part of the state.
type Stats struct {
	TxFrames, TxDropped, RxFrames, RxDropped uint64
}

// Device is a virtio network device backend; plug it into a slot with
// virtio.New.
type Device struct {
	t       *virtio.Transport
	mac     [6]byte
	link    Link
	latency [2]uint64
	maxLog  int

	linkUp  bool
	backlog [][]byte
	stats   Stats
}

// New returns a network device with its link up.
func New(cfg Config) *Device {
	d := &Device{mac: cfg.MAC, link: cfg.Link, maxLog: cfg.Backlog, linkUp: true}
	d.latency[RxQueue] = cmpOr(cfg.RxLatency, DefaultRxLatency)
	d.latency[TxQueue] = cmpOr(cfg.TxLatency, DefaultTxLatency)
	if d.maxLog <= 0 {
		d.maxLog = DefaultBacklog
	}
	return d
}

func cmpOr(v, def uint64) uint64 {
	if v == 0 {
		return def
	}
	return v
}

// MAC returns the device's address.
func (d *Device) MAC() [6]byte { return d.mac }

// Stats returns the frame counters.
func (d *Device) Stats() Stats { return d.stats }

// LinkUp reports the link status.
func (d *Device) LinkUp() bool { return d.linkUp }

// SetLinkUp plugs or unplugs the cable. The driver sees the change in the
// status field through a configuration change notification (§5.1.4).
// While the link is down, frames are dropped both ways.
func (d *Device) SetLinkUp(up bool) {
	if up == d.linkUp {
		return
	}
	d.linkUp = up
	if !up {
		d.dropBacklog()
	}
	if d.t != nil {
		d.t.ConfigChanged()
	}
}

// DeviceID implements virtio.Backend.
func (d *Device) DeviceID() uint32 { return virtio.DeviceNet }

// Features implements virtio.Backend.
func (d *Device) Features() uint64 { return FeatureMAC | FeatureStatus }

// NumQueues implements virtio.Backend: receiveq1 and transmitq1 (no
// VIRTIO_NET_F_MQ, no control queue).
func (d *Device) NumQueues() int { return 2 }

// QueueMax implements virtio.Backend.
func (d *Device) QueueMax(int) int { return QueueSize }

// ReadConfig implements virtio.Backend: mac, status and
// max_virtqueue_pairs (§5.1.4).
func (d *Device) ReadConfig(off uint64, size int) uint64 {
	var c [10]byte
	copy(c[:6], d.mac[:])
	if d.linkUp {
		binary.LittleEndian.PutUint16(c[6:], StatusLinkUp)
	}
	binary.LittleEndian.PutUint16(c[8:], 1)
	return virtio.ReadLE(c[:], off, size)
}

// WriteConfig implements virtio.Backend; the fields are read-only for a
// VERSION_1 driver.
func (d *Device) WriteConfig(uint64, int, uint64) {}

// Attach implements virtio.Backend.
func (d *Device) Attach(t *virtio.Transport) { d.t = t }

// Latency implements virtio.Backend.
func (d *Device) Latency(q int) uint64 { return d.latency[q&1] }

// Reset implements virtio.Backend: frames waiting for a receive buffer are
// discarded with the driver's buffers.
func (d *Device) Reset() { d.dropBacklog() }

func (d *Device) dropBacklog() {
	d.stats.RxDropped += uint64(len(d.backlog))
	clear(d.backlog)
	d.backlog = d.backlog[:0]
}

// Process implements virtio.Backend.
func (d *Device) Process(q int) bool {
	if q == TxQueue {
		return d.transmit()
	}
	d.drain()
	return false
}

// transmit sends up to a queue's worth of frames.
func (d *Device) transmit() bool {
	for range QueueSize {
		c, ok := d.t.Pop(TxQueue)
		if !ok {
			return false
		}
		d.send(c)
		d.t.Push(TxQueue, c.Head, 0)
	}
	return true
}

// send hands one transmitted frame to the link. A chain that is not a
// frame (no bytes after the header, too long, a buffer outside RAM) is
// dropped; the device still returns it.
func (d *Device) send(c *virtio.Chain) {
	if c.ReadLen <= HeaderBytes || c.ReadLen-HeaderBytes > MaxFrameBytes || !d.linkUp {
		d.stats.TxDropped++
		return
	}
	frame := make([]byte, c.ReadLen-HeaderBytes)
	if c.Read(HeaderBytes, frame) != nil {
		d.stats.TxDropped++
		return
	}
	d.stats.TxFrames++
	if d.link != nil {
		d.link.Send(frame)
	}
}

// Deliver offers a received frame to the guest. The frame is copied. It
// returns false if the frame was dropped: the link is down, the driver is
// not running, the frame is empty or longer than MaxFrameBytes, or the
// backlog of frames waiting for receive buffers is full.
func (d *Device) Deliver(frame []byte) bool {
	if !d.linkUp || d.t == nil || !d.t.QueueReady(RxQueue) || len(frame) == 0 || len(frame) > MaxFrameBytes ||
		len(d.backlog) >= d.maxLog {
		d.stats.RxDropped++
		return false
	}
	d.backlog = append(d.backlog, slices.Clone(frame))
	d.drain()
	return true
}

// Pending returns the number of frames waiting for receive buffers.
func (d *Device) Pending() int { return len(d.backlog) }

// drain moves backlogged frames into receive buffers, oldest first. A frame
// that does not fit the next buffer is dropped and the buffer kept.
func (d *Device) drain() {
	var hdr [HeaderBytes]byte
	binary.LittleEndian.PutUint16(hdr[10:], 1) // num_buffers
	for len(d.backlog) > 0 {
		c, ok := d.t.Pop(RxQueue)
		if !ok {
			break
		}
		f := d.backlog[0]
		d.backlog[0] = nil
		d.backlog = d.backlog[1:]
		if HeaderBytes+uint64(len(f)) > c.WriteLen {
			d.t.Unpop(RxQueue)
			d.stats.RxDropped++
			continue
		}
		if c.Write(0, hdr[:]) != nil || c.Write(HeaderBytes, f) != nil {
			d.t.Push(RxQueue, c.Head, 0)
			d.stats.RxDropped++
			continue
		}
		d.t.Push(RxQueue, c.Head, uint32(HeaderBytes+len(f)))
		d.stats.RxFrames++
	}
	if len(d.backlog) == 0 {
		d.backlog = d.backlog[:0:0]
	}
	d.t.Signal(RxQueue)
}

// Save implements hw.Persist.
func (d *Device) Save(e *hw.Encoder) {
	e.Tag("virtio-net")
	for _, b := range d.mac {
		e.U8(b)
	}
	e.Bool(d.linkUp)
	e.U64(uint64(len(d.backlog)))
	for _, f := range d.backlog {
		e.ByteSlice(f)
	}
	e.U64(d.stats.TxFrames)
	e.U64(d.stats.TxDropped)
	e.U64(d.stats.RxFrames)
	e.U64(d.stats.RxDropped)
}

// Restore implements hw.Persist.
func (d *Device) Restore(dec *hw.Decoder) error {
	dec.Tag("virtio-net")
	var mac [6]byte
	for i := range mac {
		mac[i] = dec.U8()
	}
	if dec.Err() == nil && mac != d.mac {
		dec.Fail("virtio-net: saved MAC %x, this device has %x", mac, d.mac)
	}
	up := dec.Bool()
	n := dec.Len(d.maxLog)
	var backlog [][]byte
	for i := 0; i < n && dec.Err() == nil; i++ {
		f := dec.ByteSlice(MaxFrameBytes)
		if dec.Err() == nil && len(f) == 0 {
			dec.Fail("virtio-net: empty backlog frame")
		}
		backlog = append(backlog, f)
	}
	if dec.Err() == nil && !up && n > 0 {
		dec.Fail("virtio-net: %d frames waiting behind a link that is down", n)
	}
	st := Stats{TxFrames: dec.U64(), TxDropped: dec.U64(), RxFrames: dec.U64(), RxDropped: dec.U64()}
	if err := dec.Err(); err != nil {
		return err
	}
	d.linkUp, d.backlog, d.stats = up, backlog, st
	return nil
}
