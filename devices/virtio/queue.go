package virtio

import (
	"encoding/binary"
	"errors"
	"fmt"

	"everett/hw"
)

// queue is one split virtqueue (§2.6) as the device sees it.
type queue struct {
	max       uint32 // QueueNumMax, from the backend (configuration, not state)
	num       uint32 // QueueNum as written by the driver
	ready     bool
	desc      uint64 // Descriptor Area: the descriptor table
	driver    uint64 // Driver Area: the available ring
	device    uint64 // Device Area: the used ring
	lastAvail uint16 // next available ring entry the device will take
	usedIdx   uint16 // next used ring entry the device will write
	pending   uint64 // id of the scheduled processing event (0: none)

	used  bool  // buffers were used since the last Signal (transient)
	chain Chain // scratch for Pop, reused
}

// Errors of buffer access through a Chain.
var (
	// ErrBeyondChain is returned for an access past the end of the
	// readable or writable part of a chain.
	ErrBeyondChain = errors.New("access beyond the descriptor chain")
	// ErrAddressWrap is returned for a buffer whose address range wraps
	// around the 64-bit physical address space.
	ErrAddressWrap = errors.New("buffer address range wraps around")
)

// Segment is one buffer of a descriptor chain.
type Segment struct {
	Addr uint64
	Len  uint32
}

// Chain is a descriptor chain taken from the available ring (§2.6.5): its
// device-readable buffers followed by its device-writable ones, each part
// seen as one byte stream. A Chain returned by Pop is valid until the next
// Pop on the same queue.
type Chain struct {
	// Head is the index of the first descriptor, the id the used ring
	// entry reports.
	Head uint16
	// ReadLen and WriteLen are the total lengths of the device-readable
	// and device-writable parts.
	ReadLen, WriteLen uint64

	mem   hw.Memory
	segs  []Segment
	nRead int
}

// Readable returns the device-readable buffers.
func (c *Chain) Readable() []Segment { return c.segs[:c.nRead] }

// Writable returns the device-writable buffers.
func (c *Chain) Writable() []Segment { return c.segs[c.nRead:] }

// Read copies len(p) bytes from offset off of the device-readable part.
// It fails with ErrBeyondChain if the part is too short, or with the
// memory's error if a buffer is outside RAM.
func (c *Chain) Read(off uint64, p []byte) error {
	if off > c.ReadLen || uint64(len(p)) > c.ReadLen-off {
		return ErrBeyondChain
	}
	return c.access(c.Readable(), off, p, false)
}

// Write copies p to offset off of the device-writable part. Buffers before
// a failing one keep what was written to them.
func (c *Chain) Write(off uint64, p []byte) error {
	if off > c.WriteLen || uint64(len(p)) > c.WriteLen-off {
		return ErrBeyondChain
	}
	return c.access(c.Writable(), off, p, true)
}

func (c *Chain) access(segs []Segment, off uint64, p []byte, write bool) error {
	for _, s := range segs {
		if len(p) == 0 {
			break
		}
		if off >= uint64(s.Len) {
			off -= uint64(s.Len)
			continue
		}
		n := min(uint64(s.Len)-off, uint64(len(p)))
		pa := s.Addr + off
		if pa < s.Addr || pa+n < pa {
			return ErrAddressWrap
		}
		var err error
		if write {
			err = c.mem.WritePhys(pa, p[:n])
		} else {
			err = c.mem.ReadPhys(pa, p[:n])
		}
		if err != nil {
			return err
		}
		p = p[n:]
		off = 0
	}
	return nil
}

// checkLayout validates the queue size and ring placement the driver wrote
// before it sets QueueReady (§2.6, alignment table; §4.2.2.2).
func (q *queue) checkLayout(mem hw.Memory) error {
	if q.num == 0 || q.num > q.max || q.num&(q.num-1) != 0 {
		return fmt.Errorf("queue size %d is not a power of 2 in [1, %d]", q.num, q.max)
	}
	n := uint64(q.num)
	parts := []struct {
		name  string
		addr  uint64
		align uint64
		size  uint64
	}{
		{"descriptor table", q.desc, 16, descBytes * n},
		{"available ring", q.driver, 2, ringHeaderBytes + 2 + 2*n},
		{"used ring", q.device, 4, ringHeaderBytes + 2 + usedElemBytes*n},
	}
	var b [1]byte
	for _, p := range parts {
		if p.addr%p.align != 0 {
			return fmt.Errorf("%s at %#x is not %d-byte aligned", p.name, p.addr, p.align)
		}
		last := p.addr + p.size - 1
		if last < p.addr {
			return fmt.Errorf("%s at %#x wraps around", p.name, p.addr)
		}
		if mem == nil || mem.ReadPhys(p.addr, b[:]) != nil || mem.ReadPhys(last, b[:]) != nil {
			return fmt.Errorf("%s [%#x, %#x] is not in RAM", p.name, p.addr, last)
		}
	}
	return nil
}

// Pop takes the next available descriptor chain of queue qi (§2.6.6). It
// returns false when the queue is empty, not ready, or broken; a driver
// error in the ring (see the package doc) sets DEVICE_NEEDS_RESET.
func (t *Transport) Pop(qi int) (*Chain, bool) {
	if !t.QueueReady(qi) {
		return nil, false
	}
	q := &t.queues[qi]
	idx, err := t.readU16(q.driver + 2)
	if err != nil {
		t.fail(fmt.Sprintf("queue %d: available ring index: %v", qi, err))
		return nil, false
	}
	ahead := idx - q.lastAvail
	if ahead == 0 {
		return nil, false
	}
	if uint32(ahead) > q.num {
		t.fail(fmt.Sprintf("queue %d: available index %d is %d entries ahead of the device, more than the queue size %d", qi, idx, ahead, q.num))
		return nil, false
	}
	slot := uint64(q.lastAvail & uint16(q.num-1))
	head, err := t.readU16(q.driver + ringHeaderBytes + 2*slot)
	if err != nil {
		t.fail(fmt.Sprintf("queue %d: available ring entry %d: %v", qi, slot, err))
		return nil, false
	}
	c := &q.chain
	if err := t.walk(q, head, c); err != nil {
		t.fail(fmt.Sprintf("queue %d: chain at head %d: %v", qi, head, err))
		return nil, false
	}
	q.lastAvail++
	return c, true
}

// Unpop gives back the chain the last Pop of queue qi returned, as if it
// had not been taken (net uses it when a frame does not fit a buffer).
func (t *Transport) Unpop(qi int) {
	if qi >= 0 && qi < len(t.queues) {
		t.queues[qi].lastAvail--
	}
}

// walk reads the descriptor chain starting at head into c (§2.6.5). The
// walk is bounded by the queue size: a longer chain is a loop, which the
// driver must not create ("Drivers MUST NOT add a descriptor chain longer
// than 2^32 bytes in total; this implies that loops in the descriptor chain
// are forbidden", §2.6.5.2; "A driver MUST NOT create a descriptor chain
// longer than the Queue Size of the device", §2.6.5.3.1).
func (t *Transport) walk(q *queue, head uint16, c *Chain) error {
	*c = Chain{Head: head, mem: t.host.Mem, segs: c.segs[:0]}
	if uint32(head) >= q.num {
		return fmt.Errorf("head index %d is outside the queue of size %d", head, q.num)
	}
	i := head
	for n := uint32(0); ; n++ {
		if n >= q.num {
			return fmt.Errorf("chain longer than the queue size %d (a loop)", q.num)
		}
		d := t.buf[:descBytes]
		if err := t.host.Mem.ReadPhys(q.desc+descBytes*uint64(i), d); err != nil {
			return fmt.Errorf("descriptor %d: %w", i, err)
		}
		addr := binary.LittleEndian.Uint64(d[0:])
		length := binary.LittleEndian.Uint32(d[8:])
		flags := binary.LittleEndian.Uint16(d[12:])
		next := binary.LittleEndian.Uint16(d[14:])
		if flags&DescFIndirect != 0 {
			// VIRTIO_F_INDIRECT_DESC is never offered (§2.6.5.3.1: "The
			// driver MUST NOT set the VIRTQ_DESC_F_INDIRECT flag unless
			// the VIRTIO_F_INDIRECT_DESC feature was negotiated").
			return fmt.Errorf("descriptor %d is indirect, which was not negotiated", i)
		}
		seg := Segment{Addr: addr, Len: length}
		if flags&DescFWrite != 0 {
			c.segs = append(c.segs, seg)
			c.WriteLen += uint64(length)
		} else {
			// §2.6.4.2: "The driver MUST place any device-writable
			// descriptor elements after any device-readable descriptor
			// elements."
			if len(c.segs) > c.nRead {
				return fmt.Errorf("descriptor %d is device-readable after a device-writable one", i)
			}
			c.segs = append(c.segs, seg)
			c.nRead++
			c.ReadLen += uint64(length)
		}
		if flags&DescFNext == 0 {
			return nil
		}
		if uint32(next) >= q.num {
			return fmt.Errorf("descriptor %d: next index %d is outside the queue of size %d", i, next, q.num)
		}
		i = next
	}
}

// Push returns the chain with head index head to the driver through queue
// qi's used ring (§2.6.8), with written the number of bytes the device
// wrote to its device-writable part. The used buffer notification follows
// at the next Signal.
func (t *Transport) Push(qi int, head uint16, written uint32) {
	if !t.QueueReady(qi) {
		return
	}
	q := &t.queues[qi]
	e := t.buf[:usedElemBytes]
	binary.LittleEndian.PutUint32(e[0:], uint32(head))
	binary.LittleEndian.PutUint32(e[4:], written)
	slot := uint64(q.usedIdx & uint16(q.num-1))
	if err := t.host.Mem.WritePhys(q.device+ringHeaderBytes+usedElemBytes*slot, e); err != nil {
		t.fail(fmt.Sprintf("queue %d: used ring entry %d: %v", qi, slot, err))
		return
	}
	// §2.6.8.1: the element (and its len) is written before idx.
	q.usedIdx++
	binary.LittleEndian.PutUint16(t.buf[:2], q.usedIdx)
	if err := t.host.Mem.WritePhys(q.device+2, t.buf[:2]); err != nil {
		t.fail(fmt.Sprintf("queue %d: used ring index: %v", qi, err))
		return
	}
	q.used = true
}

func (t *Transport) readU16(pa uint64) (uint16, error) {
	b := t.buf[:2]
	if err := t.host.Mem.ReadPhys(pa, b); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}
