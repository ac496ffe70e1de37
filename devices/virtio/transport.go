package virtio

import (
	"fmt"
	"math/bits"

	"everett/hw"
)

// Transport is one virtio-mmio slot (§4.2). It implements hw.Device,
// hw.EventTarget and hw.Persist.
type Transport struct {
	host Host
	b    Backend
	id   uint32 // b.DeviceID(), fixed at construction

	status         uint8
	devFeatSel     uint32
	drvFeatSel     uint32
	driverFeatures uint64
	queueSel       uint32
	intStatus      uint32
	configGen      uint32
	reason         string // why DEVICE_NEEDS_RESET was set
	queues         []queue

	level bool     // the level last driven on host.IRQ (derived from intStatus)
	buf   [16]byte // DMA scratch for ring accesses
}

// New returns a transport for backend b and attaches b to it.
func New(h Host, b Backend) *Transport {
	n := b.NumQueues()
	if n < 0 || n > 1024 {
		panic(fmt.Sprintf("virtio: backend with %d queues", n))
	}
	t := &Transport{host: h, b: b, id: b.DeviceID(), queues: make([]queue, n)}
	for q := range t.queues {
		m := b.QueueMax(q)
		if m < 1 || m > MaxQueueSize || m&(m-1) != 0 {
			panic(fmt.Sprintf("virtio: queue %d maximum size %d is not a power of 2 in [1, %d]", q, m, MaxQueueSize))
		}
		t.queues[q].max = uint32(m)
	}
	b.Attach(t)
	return t
}

// NewEmpty returns a slot with DeviceID 0: a placeholder that a driver
// probes and ignores (§4.2.2: "Value zero (0x0) is used to define a system
// memory map with placeholder devices at static, well known addresses").
func NewEmpty() *Transport { return New(Host{}, empty{}) }

// empty is the backend of an empty slot.
type empty struct{}

func (empty) DeviceID() uint32                { return DeviceNone }
func (empty) Features() uint64                { return 0 }
func (empty) NumQueues() int                  { return 0 }
func (empty) QueueMax(int) int                { return 0 }
func (empty) ReadConfig(uint64, int) uint64   { return 0 }
func (empty) WriteConfig(uint64, int, uint64) {}
func (empty) Attach(*Transport)               {}
func (empty) Latency(int) uint64              { return 0 }
func (empty) Process(int) bool                { return false }
func (empty) Reset()                          {}
func (empty) Save(*hw.Encoder)                {}
func (empty) Restore(*hw.Decoder) error       { return nil }

// DeviceFeatures returns every feature bit the device offers.
func (t *Transport) DeviceFeatures() uint64 {
	if t.id == DeviceNone {
		return 0
	}
	return t.b.Features() | FeatureVersion1
}

// Negotiated returns the features the driver accepted; they are final once
// FEATURES_OK is set (§2.2, §3.1.1).
func (t *Transport) Negotiated() uint64 {
	if t.status&StatusFeaturesOK == 0 {
		return 0
	}
	return t.driverFeatures
}

// Status returns the device status register.
func (t *Transport) Status() uint8 { return t.status }

// NeedsResetReason returns why the device set DEVICE_NEEDS_RESET ("" if
// it has not).
func (t *Transport) NeedsResetReason() string { return t.reason }

// InterruptStatus returns the InterruptStatus register.
func (t *Transport) InterruptStatus() uint32 { return t.intStatus }

// Live reports whether the device may use its queues: the driver has set
// DRIVER_OK (§3.1.1 step 8), and neither FAILED nor DEVICE_NEEDS_RESET is
// set.
func (t *Transport) Live() bool {
	return t.status&StatusDriverOK != 0 && t.status&(StatusFailed|StatusNeedsReset) == 0
}

// QueueReady reports whether queue q is enabled and the device is live.
func (t *Transport) QueueReady(q int) bool {
	return t.Live() && q >= 0 && q < len(t.queues) && t.queues[q].ready
}

// Read implements hw.Device. Control registers take aligned 32-bit
// accesses only (§4.2.2.2, driver requirement); any other access to them
// is an access fault. The configuration space takes naturally aligned
// accesses of 1, 2, 4 or 8 bytes.
func (t *Transport) Read(off uint64, size int) (uint64, bool) {
	if off >= Size {
		return 0, false
	}
	if off >= RegConfig {
		if !naturallyAligned(off, size) {
			return 0, false
		}
		if t.id == DeviceNone {
			return 0, true
		}
		return t.b.ReadConfig(off-RegConfig, size), true
	}
	if size != 4 || off%4 != 0 {
		return 0, false
	}
	return uint64(t.readReg(off)), true
}

func (t *Transport) readReg(off uint64) uint32 {
	switch off {
	case RegMagicValue:
		return MagicValue
	case RegVersion:
		return Version
	case RegDeviceID:
		return t.id
	case RegVendorID:
		return VendorID
	}
	if t.id == DeviceNone {
		return 0 // a driver must not touch anything else (§4.2.3.1.1)
	}
	switch off {
	case RegDeviceFeatures:
		if t.devFeatSel > 1 {
			return 0
		}
		return uint32(t.DeviceFeatures() >> (32 * t.devFeatSel))
	case RegQueueNumMax:
		if q := t.selected(); q != nil {
			return q.max
		}
		return 0
	case RegQueueReady:
		if q := t.selected(); q != nil && q.ready {
			return 1
		}
		return 0
	case RegInterruptStatus:
		return t.intStatus
	case RegStatus:
		return uint32(t.status)
	case RegSHMLenLow, RegSHMLenHigh, RegSHMBaseLow, RegSHMBaseHigh:
		return 0xffffffff // no shared memory regions: length and base are -1
	case RegConfigGeneration:
		return t.configGen
	}
	return 0 // write-only and reserved registers
}

// Write implements hw.Device.
func (t *Transport) Write(off uint64, size int, v uint64) bool {
	if off >= Size {
		return false
	}
	if off >= RegConfig {
		if !naturallyAligned(off, size) {
			return false
		}
		if t.id != DeviceNone {
			t.b.WriteConfig(off-RegConfig, size, v)
		}
		return true
	}
	if size != 4 || off%4 != 0 {
		return false
	}
	if t.id != DeviceNone {
		t.writeReg(off, uint32(v))
	}
	return true
}

func (t *Transport) writeReg(off uint64, v uint32) {
	switch off {
	case RegDeviceFeaturesSel:
		t.devFeatSel = v
	case RegDriverFeaturesSel:
		t.drvFeatSel = v
	case RegDriverFeatures:
		// Features are fixed once FEATURES_OK is set (§3.1.1 step 5).
		if t.status&StatusFeaturesOK != 0 || t.drvFeatSel > 1 {
			return
		}
		shift := 32 * t.drvFeatSel
		t.driverFeatures = t.driverFeatures&^(0xffffffff<<shift) | uint64(v)<<shift
	case RegQueueSel:
		t.queueSel = v
	case RegQueueNum:
		if q := t.selected(); q != nil && !q.ready {
			q.num = v
		}
	case RegQueueDescLow, RegQueueDescHigh, RegQueueDriverLow, RegQueueDriverHigh,
		RegQueueDeviceLow, RegQueueDeviceHigh:
		q := t.selected()
		if q == nil || q.ready {
			return // §4.2.2.2: not while QueueReady is set
		}
		p := &q.desc
		switch off &^ 7 {
		case RegQueueDriverLow:
			p = &q.driver
		case RegQueueDeviceLow:
			p = &q.device
		}
		if off%8 == 0 {
			*p = *p&^0xffffffff | uint64(v)
		} else {
			*p = *p&0xffffffff | uint64(v)<<32
		}
	case RegQueueReady:
		if q := t.selected(); q != nil {
			t.setReady(int(t.queueSel), q, v&1 != 0)
		}
	case RegQueueNotify:
		t.notify(v)
	case RegInterruptACK:
		t.intStatus &^= v
		t.updateLine()
	case RegStatus:
		t.writeStatus(uint8(v))
	}
}

// selected returns the queue QueueSel names, or nil.
func (t *Transport) selected() *queue {
	if uint64(t.queueSel) >= uint64(len(t.queues)) {
		return nil
	}
	return &t.queues[t.queueSel]
}

// setReady enables or disables queue qi. Enabling checks the layout the
// driver wrote (§2.6: size a power of 2 no larger than QueueNumMax, parts
// aligned to 16, 2 and 4 bytes, in RAM); a bad layout leaves the queue
// disabled and sets DEVICE_NEEDS_RESET.
func (t *Transport) setReady(qi int, q *queue, on bool) {
	if !on {
		if q.pending != 0 {
			t.host.Clock.Cancel(q.pending)
			q.pending = 0
		}
		q.ready = false
		return
	}
	if q.ready {
		return
	}
	if err := q.checkLayout(t.host.Mem); err != nil {
		t.fail(fmt.Sprintf("queue %d: %v", qi, err))
		return
	}
	q.ready = true
	q.lastAvail, q.usedIdx = 0, 0
}

// writeStatus handles a store to Status (§2.1, §3.1.1, §4.2.2).
func (t *Transport) writeStatus(v uint8) {
	if v == 0 {
		t.reset()
		return
	}
	old := t.status
	// The driver sets bits; it cannot clear them, and it cannot set
	// DEVICE_NEEDS_RESET, which belongs to the device.
	nv := old | v&^StatusNeedsReset
	if nv&StatusFeaturesOK != 0 && old&StatusFeaturesOK == 0 && !t.featuresAcceptable() {
		// §3.1.1 step 6: the driver re-reads Status and finds FEATURES_OK
		// clear if the device does not support the subset it wrote.
		nv &^= StatusFeaturesOK
	}
	t.status = nv
	if nv&StatusDriverOK != 0 && old&StatusDriverOK == 0 {
		if nv&StatusFeaturesOK == 0 {
			t.fail("DRIVER_OK set before FEATURES_OK")
			return
		}
		// Buffers made available before DRIVER_OK without a
		// notification (allowed by §3.1.1 step 7) are processed now.
		for qi := range t.queues {
			q := &t.queues[qi]
			if !q.ready {
				continue
			}
			if idx, err := t.readU16(q.driver + 2); err != nil || idx != q.lastAvail {
				t.kick(qi, t.host.Clock.Now())
			}
		}
	}
}

// featuresAcceptable reports whether the driver's features are a subset of
// the device's and include VERSION_1, which a modern device requires
// (§6.2: "A device MAY fail to operate further if VIRTIO_F_VERSION_1 is
// not accepted"); anything else is refused as §2.2.2 allows.
func (t *Transport) featuresAcceptable() bool {
	f := t.driverFeatures
	return f&^t.DeviceFeatures() == 0 && f&FeatureVersion1 != 0
}

// reset is the device reset of §2.1 and §4.2.2: status, features, queues
// and interrupts return to their initial values.
func (t *Transport) reset() {
	for qi := range t.queues {
		q := &t.queues[qi]
		if q.pending != 0 {
			t.host.Clock.Cancel(q.pending)
		}
		*q = queue{max: q.max}
	}
	t.status = 0
	t.devFeatSel, t.drvFeatSel, t.driverFeatures = 0, 0, 0
	t.queueSel = 0
	t.intStatus = 0
	t.reason = ""
	t.updateLine()
	t.b.Reset()
}

// notify handles an available buffer notification (§4.2.3.3): without
// VIRTIO_F_NOTIFICATION_DATA the value is the queue index. Notifications
// before DRIVER_OK, to unknown queues or to disabled queues are ignored.
func (t *Transport) notify(v uint32) {
	if v >= uint32(len(t.queues)) || !t.QueueReady(int(v)) {
		return
	}
	t.kick(int(v), t.host.Clock.Now())
}

// kick schedules processing of queue qi unless it is already scheduled.
func (t *Transport) kick(qi int, now uint64) {
	q := &t.queues[qi]
	if q.pending != 0 {
		return
	}
	at, carry := bits.Add64(now, t.b.Latency(qi), 0)
	if carry != 0 {
		at = ^uint64(0)
	}
	q.pending = t.host.Clock.Schedule(at, t, uint64(qi))
}

// Fire implements hw.EventTarget: the processing event of queue tag.
func (t *Transport) Fire(now uint64, tag uint64) {
	if tag >= uint64(len(t.queues)) {
		return
	}
	qi := int(tag)
	t.queues[qi].pending = 0
	if !t.QueueReady(qi) {
		return
	}
	more := t.b.Process(qi)
	t.Signal(qi)
	if more && t.QueueReady(qi) {
		t.kick(qi, now)
	}
}

// Signal sends a used buffer notification for queue qi if buffers were used
// since the last one, unless the driver suppressed it with
// VIRTQ_AVAIL_F_NO_INTERRUPT (§2.6.7). Process is followed by Signal
// automatically; a backend that pushes outside Process (net's Deliver)
// calls it itself.
func (t *Transport) Signal(qi int) {
	q := &t.queues[qi]
	if !q.used || !t.QueueReady(qi) {
		q.used = false
		return
	}
	q.used = false
	flags, err := t.readU16(q.driver)
	if err != nil {
		t.fail(fmt.Sprintf("queue %d: available ring flags: %v", qi, err))
		return
	}
	if flags&AvailFNoInterrupt != 0 {
		return
	}
	t.raise(IntUsedBuffer)
}

// ConfigChanged records a change of the configuration space: the
// generation counter moves (§2.4) and, once the driver has set DRIVER_OK,
// a configuration change notification is sent.
func (t *Transport) ConfigChanged() {
	t.configGen++
	if t.status&StatusDriverOK != 0 {
		t.raise(IntConfigChanged)
	}
}

// Fail puts the device in the DEVICE_NEEDS_RESET state (§2.1.2): it stops
// using its queues until the driver resets it. reason is kept for
// diagnostics and saved with the state.
func (t *Transport) Fail(reason string) { t.fail(reason) }

func (t *Transport) fail(reason string) {
	if t.status&StatusNeedsReset != 0 {
		return
	}
	if len(reason) > maxReasonBytes {
		reason = reason[:maxReasonBytes]
	}
	t.status |= StatusNeedsReset
	t.reason = reason
	// §2.1.2: "If DEVICE_NEEDS_RESET is set after DRIVER_OK, the device
	// MUST send a device configuration change notification."
	if t.status&StatusDriverOK != 0 {
		t.raise(IntConfigChanged)
	}
}

func (t *Transport) raise(bit uint32) {
	t.intStatus |= bit
	t.updateLine()
}

// updateLine drives the interrupt line to InterruptStatus != 0 (§4.2.3.4),
// touching it only when the level changes.
func (t *Transport) updateLine() {
	high := t.intStatus != 0
	if high == t.level {
		return
	}
	t.level = high
	if t.host.IRQ != nil {
		t.host.IRQ.SetLevel(high)
	}
}

func naturallyAligned(off uint64, size int) bool {
	switch size {
	case 1, 2, 4, 8:
		return off%uint64(size) == 0 && off+uint64(size) <= Size
	}
	return false
}
