// Package virtio implements the virtio-mmio transport, version 2 ("modern"),
// and the split virtqueue, from the Virtual I/O Device (VIRTIO) Version 1.1
// specification. Section numbers in comments are those of VIRTIO 1.1:
// §2.1 device status, §2.2 feature bits, §2.4 device configuration space,
// §2.6 split virtqueues, §3.1 device initialization, §4.2 virtio over MMIO.
//
// A Transport is one virtio-mmio slot: a 0x1000-byte register window
// (hw.Device), one interrupt line, and a Backend that implements a device
// type (blk, net, rng in the sub-packages). NewEmpty gives a slot with
// DeviceID 0, which drivers skip (§4.2.3.1.1).
//
// # Wiring
//
// A slot needs guest memory, the machine's clock and a PLIC source; the
// machine maps its window and registers it, so that its state and its
// pending events are saved:
//
//	disk, err := blk.New(blk.Config{Image: img})
//	slot := virtio.New(virtio.Host{Mem: m, Clock: m, IRQ: src}, disk)
//	err = m.Map(0x1000_1000, virtio.Size, "virtio0", slot)
//	m.Register("virtio0", slot)
//
// # Timing
//
// Nothing a guest does through the register window completes synchronously.
// An available buffer notification (a store to QueueNotify) schedules an
// event on the machine's clock at now+Backend.Latency(q); at that event the
// backend processes every available buffer of the queue (bounded per event),
// writes the used ring, and the transport sets InterruptStatus bit 0 and
// raises its line. Virtual time is the only clock, so a run is a function of
// its inputs.
//
// # Hostile guests
//
// A guest that breaks the ring protocol (an available index that runs ahead
// by more than the queue size, a head or next index out of range, a
// descriptor loop, an indirect descriptor that was not negotiated, a
// readable descriptor after a writable one, rings outside RAM, a bad queue
// size or alignment, DRIVER_OK without FEATURES_OK) puts the device in the
// DEVICE_NEEDS_RESET state (§2.1.2): the status bit 0x40 is set, a
// configuration change notification is sent if the driver had set
// DRIVER_OK, and the device ignores its queues until the driver resets it.
// Buffers at bad addresses inside a well-formed chain are the backend's
// business: it completes the request with an error status where the device
// type has one. Every loop is bounded by the queue size.
//
// # Persistence
//
// A Transport is the hw.Persist and the hw.EventTarget that the machine
// registers; its Save covers the backend. Pending events are saved as the
// ids the clock returned: the machine saves and restores its event queue
// itself (ids included), so Restore neither schedules nor cancels events,
// and it does not drive the interrupt line (the interrupt controller
// restores its own view of the line).
//
// The encoding (all integers little-endian, see hw.Encoder):
//
//	tag "virtio-mmio"
//	u32 DeviceID, u8 Status, u32 DeviceFeaturesSel, u32 DriverFeaturesSel,
//	u64 DriverFeatures, u32 QueueSel, u32 InterruptStatus,
//	u32 ConfigGeneration, string reason-for-NEEDS_RESET
//	u64 queue count, then per queue:
//	    u32 QueueNum, bool QueueReady, u64 desc, u64 driver, u64 device,
//	    u16 next available index, u16 next used index, u64 pending event id
//	backend state (the backend's own Save)
package virtio

import "everett/hw"

// Register window (§4.2.2, "MMIO Device Register Layout"). All control
// registers are 32 bits wide; the device configuration space starts at
// RegConfig.
const (
	RegMagicValue        = 0x000
	RegVersion           = 0x004
	RegDeviceID          = 0x008
	RegVendorID          = 0x00c
	RegDeviceFeatures    = 0x010
	RegDeviceFeaturesSel = 0x014
	RegDriverFeatures    = 0x020
	RegDriverFeaturesSel = 0x024
	RegQueueSel          = 0x030
	RegQueueNumMax       = 0x034
	RegQueueNum          = 0x038
	RegQueueReady        = 0x044
	RegQueueNotify       = 0x050
	RegInterruptStatus   = 0x060
	RegInterruptACK      = 0x064
	RegStatus            = 0x070
	RegQueueDescLow      = 0x080
	RegQueueDescHigh     = 0x084
	RegQueueDriverLow    = 0x090
	RegQueueDriverHigh   = 0x094
	RegQueueDeviceLow    = 0x0a0
	RegQueueDeviceHigh   = 0x0a4
	RegSHMSel            = 0x0ac
	RegSHMLenLow         = 0x0b0
	RegSHMLenHigh        = 0x0b4
	RegSHMBaseLow        = 0x0b8
	RegSHMBaseHigh       = 0x0bc
	RegQueueReset        = 0x0c0
	RegConfigGeneration  = 0x0fc
	RegConfig            = 0x100

	// Size is the size of a slot's register window.
	Size = 0x1000
)

// Identification values (§4.2.2).
const (
	// MagicValue is "virt" read as a little-endian word.
	MagicValue = 0x74726976
	// Version is the modern (non-legacy) virtio-mmio version.
	Version = 2
	// VendorID is everett's vendor id: "EVRT" read as a little-endian word.
	VendorID = 0x54525645
)

// Device types (§5).
const (
	DeviceNone    = 0 // an empty slot
	DeviceNet     = 1 // §5.1
	DeviceBlock   = 2 // §5.2
	DeviceEntropy = 4 // §5.4
)

// Device status bits (§2.1).
const (
	StatusAcknowledge = 1
	StatusDriver      = 2
	StatusDriverOK    = 4
	StatusFeaturesOK  = 8
	StatusNeedsReset  = 0x40
	StatusFailed      = 0x80
)

// Reserved feature bits (§6). Only VERSION_1 is offered: everett
// implements neither indirect descriptors nor event-index suppression, so
// it never offers them and refuses FEATURES_OK if a driver sets them.
const (
	FeatureIndirectDesc = 1 << 28
	FeatureEventIdx     = 1 << 29
	FeatureVersion1     = 1 << 32
)

// InterruptStatus bits (§4.2.2).
const (
	IntUsedBuffer    = 1
	IntConfigChanged = 2
)

// Split virtqueue flags (§2.6.5, §2.6.6).
const (
	DescFNext         = 1
	DescFWrite        = 2
	DescFIndirect     = 4
	AvailFNoInterrupt = 1
	MaxQueueSize      = 32768
	descBytes         = 16
	usedElemBytes     = 8
	ringHeaderBytes   = 4 // flags and idx
	maxReasonBytes    = 256
)

// Host is what a transport needs from the machine: guest memory for DMA,
// the clock for completions, and the interrupt line (a PLIC source).
type Host struct {
	Mem   hw.Memory
	Clock hw.Clock
	IRQ   hw.IRQLine
}

// Backend is one device type behind the transport. The transport owns the
// registers, feature negotiation, queues, events and interrupts; the backend
// owns the configuration space and the meaning of buffers.
//
// All calls happen on the universe's goroutine. A backend never schedules
// events itself: it is called back through Process.
type Backend interface {
	// DeviceID returns the device type (§5), e.g. DeviceBlock.
	DeviceID() uint32
	// Features returns the device-type feature bits the device offers. The
	// transport adds FeatureVersion1.
	Features() uint64
	// NumQueues returns how many virtqueues the device has.
	NumQueues() int
	// QueueMax returns the largest size queue q supports: a power of 2 no
	// larger than MaxQueueSize.
	QueueMax(q int) int
	// ReadConfig reads size bytes (1, 2, 4 or 8) of the device
	// configuration space at off (relative to RegConfig). Bytes past the
	// end of the structure read as zero; ReadLE helps.
	ReadConfig(off uint64, size int) uint64
	// WriteConfig writes the device configuration space. Read-only fields
	// ignore writes.
	WriteConfig(off uint64, size int, v uint64)
	// Attach is called once, by New, with the transport the backend is
	// plugged into.
	Attach(t *Transport)
	// Latency returns the virtual time from an available buffer
	// notification on queue q to the event that processes it.
	Latency(q int) uint64
	// Process handles the available buffers of queue q at a scheduled
	// event, through Pop and Push. It returns true if it stopped because
	// of its per-event bound with work left, and the transport then
	// schedules another event after Latency(q).
	Process(q int) (more bool)
	// Reset returns the device-type state to what it is after a device
	// reset (the driver wrote 0 to Status). Disk contents survive.
	Reset()
	hw.Persist
}

// ReadLE extracts a little-endian value of size bytes at off from a
// configuration structure; bytes past its end read as zero.
func ReadLE(b []byte, off uint64, size int) uint64 {
	var v uint64
	for i := 0; i < size; i++ {
		p := off + uint64(i)
		if p < off || p >= uint64(len(b)) {
			break
		}
		v |= uint64(b[p]) << (8 * i)
	}
	return v
}
