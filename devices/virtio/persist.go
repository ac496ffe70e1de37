package virtio

import (
	"fmt"

	"everett/hw"
)

// Save implements hw.Persist; the layout is drawn in the package doc.
func (t *Transport) Save(e *hw.Encoder) {
	e.Tag("virtio-mmio")
	e.U32(t.id)
	e.U8(t.status)
	e.U32(t.devFeatSel)
	e.U32(t.drvFeatSel)
	e.U64(t.driverFeatures)
	e.U32(t.queueSel)
	e.U32(t.intStatus)
	e.U32(t.configGen)
	e.String(t.reason)
	e.U64(uint64(len(t.queues)))
	for i := range t.queues {
		q := &t.queues[i]
		e.U32(q.num)
		e.Bool(q.ready)
		e.U64(q.desc)
		e.U64(q.driver)
		e.U64(q.device)
		e.U16(q.lastAvail)
		e.U16(q.usedIdx)
		e.U64(q.pending)
	}
	t.b.Save(e)
}

// Restore implements hw.Persist. It checks every field against what the
// transport could have reached by itself, restores the backend, and only
// then replaces the transport's state: a failed Restore changes nothing.
// It neither schedules nor cancels events (the clock's queue is restored
// by the machine) and does not drive the interrupt line.
func (t *Transport) Restore(d *hw.Decoder) error {
	d.Tag("virtio-mmio")
	id := d.U32()
	n := Transport{
		status:         d.U8(),
		devFeatSel:     d.U32(),
		drvFeatSel:     d.U32(),
		driverFeatures: d.U64(),
		queueSel:       d.U32(),
		intStatus:      d.U32(),
		configGen:      d.U32(),
		reason:         d.String(maxReasonBytes),
	}
	nq := d.Len(len(t.queues))
	if d.Err() == nil && nq != len(t.queues) {
		d.Fail("virtio-mmio: %d queues, the device has %d", nq, len(t.queues))
	}
	if d.Err() == nil && id != t.id {
		d.Fail("virtio-mmio: device id %d, this slot holds device %d", id, t.id)
	}
	if err := d.Err(); err != nil {
		return err
	}
	n.queues = make([]queue, nq)
	for i := range n.queues {
		q := &n.queues[i]
		q.max = t.queues[i].max
		q.num = d.U32()
		q.ready = d.Bool()
		q.desc = d.U64()
		q.driver = d.U64()
		q.device = d.U64()
		q.lastAvail = d.U16()
		q.usedIdx = d.U16()
		q.pending = d.U64()
	}
	if err := d.Err(); err != nil {
		return err
	}
	if err := n.check(t); err != nil {
		return fmt.Errorf("%w: virtio-mmio: %v", hw.ErrCorrupt, err)
	}
	if err := t.b.Restore(d); err != nil {
		return err
	}
	for i := range n.queues {
		n.queues[i].chain.segs = t.queues[i].chain.segs[:0]
	}
	t.status, t.devFeatSel, t.drvFeatSel = n.status, n.devFeatSel, n.drvFeatSel
	t.driverFeatures, t.queueSel, t.intStatus = n.driverFeatures, n.queueSel, n.intStatus
	t.configGen, t.reason, t.queues = n.configGen, n.reason, n.queues
	t.level = t.intStatus != 0
	return nil
}

// check validates restored state n against the invariants the transport
// keeps for slot t.
func (n *Transport) check(t *Transport) error {
	if t.id == DeviceNone {
		if n.status != 0 || n.intStatus != 0 || n.driverFeatures != 0 || n.reason != "" {
			return fmt.Errorf("an empty slot with state")
		}
		return nil
	}
	if n.intStatus&^(IntUsedBuffer|IntConfigChanged) != 0 {
		return fmt.Errorf("interrupt status %#x", n.intStatus)
	}
	if n.status&StatusFeaturesOK != 0 {
		f := n.driverFeatures
		if f&^t.DeviceFeatures() != 0 || f&FeatureVersion1 == 0 {
			return fmt.Errorf("negotiated features %#x not acceptable (device offers %#x)", f, t.DeviceFeatures())
		}
	}
	if n.status&StatusDriverOK != 0 && n.status&(StatusFeaturesOK|StatusNeedsReset) == 0 {
		return fmt.Errorf("DRIVER_OK without FEATURES_OK")
	}
	if n.status&StatusNeedsReset == 0 && n.reason != "" {
		return fmt.Errorf("a reason for a reset that is not needed")
	}
	seen := map[uint64]bool{}
	for i := range n.queues {
		q := &n.queues[i]
		if q.ready {
			if q.num == 0 || q.num > q.max || q.num&(q.num-1) != 0 {
				return fmt.Errorf("queue %d: ready with size %d", i, q.num)
			}
			if q.desc%16 != 0 || q.driver%2 != 0 || q.device%4 != 0 {
				return fmt.Errorf("queue %d: misaligned rings", i)
			}
			// Requests are processed whole inside one event, so every
			// chain taken is returned unless the device gave up.
			if n.status&StatusNeedsReset == 0 && q.usedIdx != q.lastAvail {
				return fmt.Errorf("queue %d: used index %d differs from the consumed available index %d", i, q.usedIdx, q.lastAvail)
			}
		}
		if q.pending != 0 {
			if !q.ready {
				return fmt.Errorf("queue %d: an event pending on a disabled queue", i)
			}
			if seen[q.pending] {
				return fmt.Errorf("queue %d: event id %d used twice", i, q.pending)
			}
			seen[q.pending] = true
		}
	}
	return nil
}
