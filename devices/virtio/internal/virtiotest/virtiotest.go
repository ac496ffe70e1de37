// Package virtiotest is a fake machine and a fake guest driver for testing
// virtio devices: guest RAM over a byte slice, a clock with an explicit
// event queue, an interrupt line that counts edges, and a driver that
// performs the initialization sequence of VIRTIO 1.1 §3.1.1 and the
// virtqueue setup of §4.2.3.2 through the device's register window, then
// builds descriptor chains in RAM as a guest would (§2.6.13).
package virtiotest

import (
	"encoding/binary"
	"fmt"
	"sort"

	"everett/devices/virtio"
	"everett/hw"
)

// RAM is guest memory: len(B) bytes at physical address Base.
type RAM struct {
	Base uint64
	B    []byte
}

// NewRAM returns size bytes of zeroed RAM at base.
func NewRAM(base uint64, size int) *RAM { return &RAM{Base: base, B: make([]byte, size)} }

// Clone returns a copy of the RAM.
func (r *RAM) Clone() *RAM { return &RAM{Base: r.Base, B: append([]byte(nil), r.B...)} }

func (r *RAM) span(pa uint64, n int) (int, error) {
	off := pa - r.Base
	if pa < r.Base || off > uint64(len(r.B)) || uint64(n) > uint64(len(r.B))-off {
		return 0, fmt.Errorf("%d bytes at %#x: outside RAM", n, pa)
	}
	return int(off), nil
}

// ReadPhys implements hw.Memory.
func (r *RAM) ReadPhys(pa uint64, b []byte) error {
	off, err := r.span(pa, len(b))
	if err != nil {
		return err
	}
	copy(b, r.B[off:])
	return nil
}

// WritePhys implements hw.Memory.
func (r *RAM) WritePhys(pa uint64, b []byte) error {
	off, err := r.span(pa, len(b))
	if err != nil {
		return err
	}
	copy(r.B[off:], b)
	return nil
}

// Bytes returns a copy of n bytes at pa (nil if outside RAM).
func (r *RAM) Bytes(pa uint64, n int) []byte {
	b := make([]byte, n)
	if r.ReadPhys(pa, b) != nil {
		return nil
	}
	return b
}

// Put writes b at pa and panics outside RAM (a bug in the test).
func (r *RAM) Put(pa uint64, b []byte) {
	if err := r.WritePhys(pa, b); err != nil {
		panic(err)
	}
}

// U16 reads a little-endian 16-bit value.
func (r *RAM) U16(pa uint64) uint16 { return binary.LittleEndian.Uint16(r.Bytes(pa, 2)) }

// PutU16 writes a little-endian 16-bit value.
func (r *RAM) PutU16(pa uint64, v uint16) {
	r.Put(pa, binary.LittleEndian.AppendUint16(nil, v))
}

// Line is a fake interrupt line.
type Line struct {
	High  bool
	Rises int // low-to-high transitions
	Sets  int // calls to SetLevel
}

// SetLevel implements hw.IRQLine.
func (l *Line) SetLevel(high bool) {
	l.Sets++
	if high && !l.High {
		l.Rises++
	}
	l.High = high
}

type event struct {
	at, seq, tag uint64
	target       hw.EventTarget
}

// Clock is a fake hw.Clock whose events fire only when the test says so.
// Like the machine's, it orders events by (time, id) and can save its
// queue, naming targets by their registration index.
type Clock struct {
	now     uint64
	seq     uint64
	events  []event
	targets []hw.EventTarget
	// Fired counts the events fired.
	Fired int
}

// Register names t for Save and Restore.
func (c *Clock) Register(t hw.EventTarget) { c.targets = append(c.targets, t) }

// Now implements hw.Clock.
func (c *Clock) Now() uint64 { return c.now }

// SetNow moves the clock to t without firing anything.
func (c *Clock) SetNow(t uint64) { c.now = t }

// Schedule implements hw.Clock.
func (c *Clock) Schedule(at uint64, t hw.EventTarget, tag uint64) uint64 {
	if at < c.now {
		at = c.now
	}
	c.seq++
	c.events = append(c.events, event{at: at, seq: c.seq, tag: tag, target: t})
	c.sort()
	return c.seq
}

func (c *Clock) sort() {
	sort.Slice(c.events, func(i, j int) bool {
		if c.events[i].at != c.events[j].at {
			return c.events[i].at < c.events[j].at
		}
		return c.events[i].seq < c.events[j].seq
	})
}

// Cancel implements hw.Clock.
func (c *Clock) Cancel(id uint64) {
	for i, e := range c.events {
		if e.seq == id {
			c.events = append(c.events[:i], c.events[i+1:]...)
			return
		}
	}
}

// Pending returns the number of scheduled events.
func (c *Clock) Pending() int { return len(c.events) }

// Next returns the time of the next event.
func (c *Clock) Next() (uint64, bool) {
	if len(c.events) == 0 {
		return 0, false
	}
	return c.events[0].at, true
}

// Step fires the next event, moving time to it. It returns false if there
// was none.
func (c *Clock) Step() bool {
	if len(c.events) == 0 {
		return false
	}
	e := c.events[0]
	c.events = c.events[1:]
	if e.at > c.now {
		c.now = e.at
	}
	c.Fired++
	e.target.Fire(c.now, e.tag)
	return true
}

// Run fires events until none is left or limit have fired, and returns how
// many fired.
func (c *Clock) Run(limit int) int {
	n := 0
	for n < limit && c.Step() {
		n++
	}
	return n
}

// Advance moves time forward by d, firing the events due on the way.
func (c *Clock) Advance(d uint64) {
	end := c.now + d
	for len(c.events) > 0 && c.events[0].at <= end {
		c.Step()
	}
	c.now = end
}

// Save writes the clock: time, id counter, and events by target index.
func (c *Clock) Save(e *hw.Encoder) {
	e.U64(c.now)
	e.U64(c.seq)
	e.U64(uint64(len(c.events)))
	for _, ev := range c.events {
		ti := -1
		for i, t := range c.targets {
			if t == ev.target {
				ti = i
			}
		}
		e.U64(ev.at)
		e.U64(ev.seq)
		e.Int(ti)
		e.U64(ev.tag)
	}
}

// Restore reads what Save wrote into a clock with the same registrations.
func (c *Clock) Restore(d *hw.Decoder) error {
	c.now = d.U64()
	c.seq = d.U64()
	n := d.Len(1 << 16)
	c.events = nil
	for i := 0; i < n && d.Err() == nil; i++ {
		ev := event{at: d.U64(), seq: d.U64()}
		ti := d.Int()
		ev.tag = d.U64()
		if ti < 0 || ti >= len(c.targets) {
			d.Fail("event target %d", ti)
			break
		}
		ev.target = c.targets[ti]
		c.events = append(c.events, ev)
	}
	return d.Err()
}

// Driver is a fake guest driver talking to one virtio-mmio slot.
type Driver struct {
	Dev    hw.Device
	Mem    *RAM
	Queues map[int]*Queue
	// Err is the first register access the device refused.
	Err  error
	next uint64 // bump allocator
}

// NewDriver returns a driver for dev whose allocations start 4 KiB into
// mem.
func NewDriver(dev hw.Device, mem *RAM) *Driver {
	return &Driver{Dev: dev, Mem: mem, Queues: map[int]*Queue{}, next: mem.Base + 0x1000}
}

// Alloc reserves n bytes of guest RAM aligned to align, zeroed.
func (d *Driver) Alloc(n, align uint64) uint64 {
	p := (d.next + align - 1) &^ (align - 1)
	if p+n > d.Mem.Base+uint64(len(d.Mem.B)) {
		panic(fmt.Sprintf("virtiotest: out of RAM allocating %d bytes", n))
	}
	d.next = p + n
	d.Mem.Put(p, make([]byte, n))
	return p
}

// Read32 reads a control register.
func (d *Driver) Read32(off uint64) uint32 {
	v, ok := d.Dev.Read(off, 4)
	if !ok && d.Err == nil {
		d.Err = fmt.Errorf("read of register %#x refused", off)
	}
	return uint32(v)
}

// Write32 writes a control register.
func (d *Driver) Write32(off uint64, v uint32) {
	if !d.Dev.Write(off, 4, uint64(v)) && d.Err == nil {
		d.Err = fmt.Errorf("write of register %#x refused", off)
	}
}

// Status returns the device status register.
func (d *Driver) Status() uint8 { return uint8(d.Read32(virtio.RegStatus)) }

// Probe checks the identification registers (§4.2.3.1.1) and returns the
// device id.
func (d *Driver) Probe() (uint32, error) {
	if m := d.Read32(virtio.RegMagicValue); m != virtio.MagicValue {
		return 0, fmt.Errorf("magic %#x", m)
	}
	if v := d.Read32(virtio.RegVersion); v != virtio.Version {
		return 0, fmt.Errorf("version %d", v)
	}
	return d.Read32(virtio.RegDeviceID), nil
}

// DeviceFeatures reads the 64 feature bits the device offers.
func (d *Driver) DeviceFeatures() uint64 {
	d.Write32(virtio.RegDeviceFeaturesSel, 0)
	lo := d.Read32(virtio.RegDeviceFeatures)
	d.Write32(virtio.RegDeviceFeaturesSel, 1)
	hi := d.Read32(virtio.RegDeviceFeatures)
	return uint64(hi)<<32 | uint64(lo)
}

// WriteFeatures writes the driver's feature bits.
func (d *Driver) WriteFeatures(f uint64) {
	d.Write32(virtio.RegDriverFeaturesSel, 0)
	d.Write32(virtio.RegDriverFeatures, uint32(f))
	d.Write32(virtio.RegDriverFeaturesSel, 1)
	d.Write32(virtio.RegDriverFeatures, uint32(f>>32))
}

// Init performs steps 1 to 6 of §3.1.1: reset, ACKNOWLEDGE, DRIVER, feature
// negotiation (the driver accepts the bits of want the device offers) and
// FEATURES_OK, which it checks by reading Status back. It returns the
// negotiated features.
func (d *Driver) Init(want uint64) (uint64, error) {
	id, err := d.Probe()
	if err != nil {
		return 0, err
	}
	if id == 0 {
		return 0, fmt.Errorf("empty slot")
	}
	d.Write32(virtio.RegStatus, 0)
	if s := d.Status(); s != 0 {
		return 0, fmt.Errorf("status %#x after reset", s)
	}
	d.Write32(virtio.RegStatus, virtio.StatusAcknowledge)
	d.Write32(virtio.RegStatus, virtio.StatusAcknowledge|virtio.StatusDriver)
	f := d.DeviceFeatures() & want
	d.WriteFeatures(f)
	d.Write32(virtio.RegStatus, virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusFeaturesOK)
	if d.Status()&virtio.StatusFeaturesOK == 0 {
		return 0, fmt.Errorf("device refused features %#x", f)
	}
	return f, d.Err
}

// DriverOK sets DRIVER_OK (§3.1.1 step 8).
func (d *Driver) DriverOK() {
	d.Write32(virtio.RegStatus, uint32(d.Status())|virtio.StatusDriverOK)
}

// Notify sends an available buffer notification for queue q.
func (d *Driver) Notify(q int) { d.Write32(virtio.RegQueueNotify, uint32(q)) }

// Ack reads InterruptStatus and acknowledges every bit set, as an
// interrupt handler does (§4.2.3.4), returning the bits.
func (d *Driver) Ack() uint32 {
	s := d.Read32(virtio.RegInterruptStatus)
	if s != 0 {
		d.Write32(virtio.RegInterruptACK, s)
	}
	return s
}

// Queue is the driver's side of one split virtqueue.
type Queue struct {
	d                 *Driver
	Index             int
	Size              int
	Desc, Avail, Used uint64
	free              []uint16
	chains            [][]uint16 // descriptors of the chain with each head
	availIdx          uint16
	lastUsed          uint16
}

// SetupQueue sets queue index up with size entries, following §4.2.3.2.
func (d *Driver) SetupQueue(index, size int) (*Queue, error) {
	d.Write32(virtio.RegQueueSel, uint32(index))
	if d.Read32(virtio.RegQueueReady) != 0 {
		return nil, fmt.Errorf("queue %d already in use", index)
	}
	max := int(d.Read32(virtio.RegQueueNumMax))
	if max == 0 {
		return nil, fmt.Errorf("queue %d not available", index)
	}
	if size > max {
		size = max
	}
	q := &Queue{d: d, Index: index, Size: size, chains: make([][]uint16, size)}
	q.Desc = d.Alloc(uint64(16*size), 16)
	q.Avail = d.Alloc(uint64(6+2*size), 2)
	q.Used = d.Alloc(uint64(6+8*size), 4)
	for i := size - 1; i >= 0; i-- {
		q.free = append(q.free, uint16(i))
	}
	d.Write32(virtio.RegQueueNum, uint32(size))
	d.Write32(virtio.RegQueueDescLow, uint32(q.Desc))
	d.Write32(virtio.RegQueueDescHigh, uint32(q.Desc>>32))
	d.Write32(virtio.RegQueueDriverLow, uint32(q.Avail))
	d.Write32(virtio.RegQueueDriverHigh, uint32(q.Avail>>32))
	d.Write32(virtio.RegQueueDeviceLow, uint32(q.Used))
	d.Write32(virtio.RegQueueDeviceHigh, uint32(q.Used>>32))
	d.Write32(virtio.RegQueueReady, 1)
	if d.Read32(virtio.RegQueueReady) != 1 {
		return nil, fmt.Errorf("queue %d did not become ready (status %#x)", index, d.Status())
	}
	d.Queues[index] = q
	return q, d.Err
}

// Buf is one buffer of a chain to add. A device-readable buffer holds Data
// (or, with Data nil, Len bytes left as they are); a device-writable one
// has Len bytes. Addr, if not zero, places the buffer
// there instead of allocating it (a hostile test may point it anywhere).
type Buf struct {
	Data     []byte
	Len      int
	Writable bool
	Addr     uint64
}

// Desc is a raw descriptor (§2.6.5).
type Desc struct {
	Addr  uint64
	Len   uint32
	Flags uint16
	Next  uint16
}

// PutDesc writes descriptor i of the table.
func (q *Queue) PutDesc(i uint16, d Desc) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:], d.Addr)
	binary.LittleEndian.PutUint32(b[8:], d.Len)
	binary.LittleEndian.PutUint16(b[12:], d.Flags)
	binary.LittleEndian.PutUint16(b[14:], d.Next)
	q.d.Mem.Put(q.Desc+16*uint64(i), b[:])
}

// Add builds a chain of bufs in free descriptors and makes it available
// (without notifying). It returns the head and each buffer's address.
func (q *Queue) Add(bufs ...Buf) (uint16, []uint64, error) {
	if len(bufs) == 0 || len(bufs) > len(q.free) {
		return 0, nil, fmt.Errorf("queue %d: %d buffers, %d free descriptors", q.Index, len(bufs), len(q.free))
	}
	idx := make([]uint16, len(bufs))
	for i := range bufs {
		idx[i] = q.free[len(q.free)-1]
		q.free = q.free[:len(q.free)-1]
	}
	addrs := make([]uint64, len(bufs))
	for i, b := range bufs {
		n := b.Len
		if !b.Writable && b.Data != nil {
			n = len(b.Data)
		}
		addr := b.Addr
		if addr == 0 {
			addr = q.d.Alloc(uint64(max(n, 1)), 8)
		}
		if !b.Writable && b.Data != nil {
			_ = q.d.Mem.WritePhys(addr, b.Data)
		}
		addrs[i] = addr
		d := Desc{Addr: addr, Len: uint32(n)}
		if b.Writable {
			d.Flags |= virtio.DescFWrite
		}
		if i+1 < len(bufs) {
			d.Flags |= virtio.DescFNext
			d.Next = idx[i+1]
		}
		q.PutDesc(idx[i], d)
	}
	q.chains[idx[0]] = idx
	q.Publish(idx[0])
	return idx[0], addrs, nil
}

// Publish puts head in the next available ring entry and moves the
// available index.
func (q *Queue) Publish(head uint16) {
	slot := uint64(q.availIdx % uint16(q.Size))
	q.d.Mem.PutU16(q.Avail+4+2*slot, head)
	q.availIdx++
	q.d.Mem.PutU16(q.Avail+2, q.availIdx)
}

// SetAvailIdx writes the available index directly (a hostile driver).
func (q *Queue) SetAvailIdx(v uint16) {
	q.availIdx = v
	q.d.Mem.PutU16(q.Avail+2, v)
}

// SetNoInterrupt sets or clears VIRTQ_AVAIL_F_NO_INTERRUPT.
func (q *Queue) SetNoInterrupt(on bool) {
	var v uint16
	if on {
		v = virtio.AvailFNoInterrupt
	}
	q.d.Mem.PutU16(q.Avail, v)
}

// UsedElem is a used ring entry (§2.6.8).
type UsedElem struct {
	ID, Len uint32
}

// UsedIdx returns the device's used index.
func (q *Queue) UsedIdx() uint16 { return q.d.Mem.U16(q.Used + 2) }

// TakeUsed returns the used entries written since the last call and frees
// their descriptors.
func (q *Queue) TakeUsed() []UsedElem {
	var out []UsedElem
	end := q.UsedIdx()
	for ; q.lastUsed != end; q.lastUsed++ {
		slot := uint64(q.lastUsed % uint16(q.Size))
		b := q.d.Mem.Bytes(q.Used+4+8*slot, 8)
		e := UsedElem{ID: binary.LittleEndian.Uint32(b), Len: binary.LittleEndian.Uint32(b[4:])}
		out = append(out, e)
		if e.ID < uint32(q.Size) {
			q.free = append(q.free, q.chains[e.ID]...)
			q.chains[e.ID] = nil
		}
	}
	return out
}
