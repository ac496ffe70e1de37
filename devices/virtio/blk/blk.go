// Package blk implements the virtio block device (VIRTIO 1.1 §5.2,
// DeviceID 2) over a read-only disk image and an in-memory copy-on-write
// overlay.
//
// The image bytes are given at construction and never written. Writes go to
// 4 KiB overlay blocks, in two layers that model a disk with a volatile
// write cache:
//
//   - unflushed blocks hold completed writes that are not yet stable (only
//     when the driver negotiated VIRTIO_BLK_F_FLUSH: §5.2.6.2 makes a
//     write stable at completion when FLUSH was offered but not
//     negotiated);
//   - flushed blocks hold stable data; VIRTIO_BLK_T_FLUSH moves every
//     unflushed block there.
//
// Reads see unflushed over flushed over the image. CrashLoseUnflushed
// models power loss; Overlay, Flushed and Unflushed expose the blocks
// (sorted) so that the CLI can write a disk back at exit.
//
// Requests (§5.2.6): VIRTIO_BLK_T_IN, T_OUT, T_FLUSH and T_GET_ID; other
// types complete with VIRTIO_BLK_S_UNSUPP. A request outside the capacity,
// with a data length that is not a multiple of 512 bytes or larger than
// MaxRequestBytes, with a header shorter than 16 bytes, with a buffer
// outside RAM, or writing a read-only disk, completes with
// VIRTIO_BLK_S_IOERR. A request without a device-writable byte for the
// status cannot be answered: the device sets DEVICE_NEEDS_RESET.
//
// State encoding (after the transport's, see package virtio):
//
//	tag "virtio-blk"
//	u64 image bytes, bool read-only
//	u64 flushed block count, then per block (ascending index):
//	    u64 block index, bytes (4096) contents
//	u64 unflushed block count, then the same
//	u64 reads, u64 writes, u64 flushes, u64 errors
package blk

import (
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"

	"everett/devices/virtio"
	"everett/hw"
)

// Geometry and limits.
const (
	// SectorBytes is the unit of capacity and of request offsets (§5.2.4).
	SectorBytes = 512
	// BlockBytes is the granularity of the copy-on-write overlay.
	BlockBytes = 4096
	// MaxRequestBytes bounds the data of one request: QueueSize-2 segments
	// (seg_max) of at most SegmentBytes (size_max).
	MaxRequestBytes = SegMax * SegmentBytes
	// QueueSize is QueueNumMax of the request queue.
	QueueSize = 256
	// SegMax is the seg_max the device advertises.
	SegMax = 128
	// SegmentBytes is the size_max the device advertises.
	SegmentBytes = 8192
	// IDBytes is the length of the VIRTIO_BLK_T_GET_ID answer.
	IDBytes = 20
	// DefaultLatency is the virtual time from a notification to the
	// completion of the requests it announced (20 µs at 1 slot per ns).
	DefaultLatency = 20_000
	// DefaultID is the device id string when Config.ID is empty.
	DefaultID = "everett-disk"
	// eventBudgetBytes bounds the data moved in one event; the rest is
	// processed at a later event.
	eventBudgetBytes = 8 << 20
	sectorsPerBlock  = BlockBytes / SectorBytes
)

// Feature bits (§5.2.3).
const (
	FeatureSizeMax = 1 << 1
	FeatureSegMax  = 1 << 2
	FeatureRO      = 1 << 5
	FeatureFlush   = 1 << 9
)

// Request types and status values (§5.2.6).
const (
	TypeIn       = 0
	TypeOut      = 1
	TypeFlush    = 4
	TypeGetID    = 8
	StatusOK     = 0
	StatusIOErr  = 1
	StatusUnsupp = 2
	headerBytes  = 16
)

// Config describes a disk.
type Config struct {
	// Image is the disk's initial contents; its length must be a multiple
	// of 512. The device never writes it and keeps no other reference to
	// host storage.
	Image []byte
	// ReadOnly offers VIRTIO_BLK_F_RO: writes fail with IOERR.
	ReadOnly bool
	// ID is the answer to VIRTIO_BLK_T_GET_ID, at most 20 bytes.
	ID string
	// Latency is the virtual time from notification to completion; 0
	// means DefaultLatency.
	Latency uint64
	// Stable are blocks whose stable contents differ from Image (what a
	// crash left on the disk, from Flushed), each at an offset that is a
	// multiple of BlockBytes and as long as the block. The device copies
	// them: a restarted machine shares Image with the one that crashed
	// instead of a copy of the whole disk.
	Stable []Block
}

// Stats counts requests since construction; they are part of the state.
type Stats struct {
	Reads, Writes, Flushes, Errors uint64
}

// Block is one overlay block: Data holds the disk's bytes at Off (4096
// bytes, fewer for a last block that the image does not fill).
type Block struct {
	Off  uint64
	Data []byte
}

type block = [BlockBytes]byte

// Device is a virtio block device backend; plug it into a slot with
// virtio.New.
type Device struct {
	t        *virtio.Transport
	image    []byte
	readOnly bool
	id       [IDBytes]byte
	latency  uint64

	// The disk's layers, newest first: unflushed writes, flushed ones, the
	// blocks a crash left stable (Config.Stable; never written, not
	// state: they come with the device, as the image does), the image.
	flushed   map[uint64]*block
	unflushed map[uint64]*block
	base      map[uint64]*block
	stats     Stats

	buf    []byte // request data scratch
	faults Faults // fault model (not state)
}

// ReadImage reads a whole image of size bytes from r, for Config.Image.
// Call it before the universe starts: the device does no host I/O.
func ReadImage(r io.ReaderAt, size int64) ([]byte, error) {
	if size < 0 || size > 1<<40 {
		return nil, fmt.Errorf("disk image size %d out of range", size)
	}
	b := make([]byte, size)
	// io.ReaderAt may report io.EOF along with a full read at the end.
	if n, err := r.ReadAt(b, 0); err != nil && !(err == io.EOF && n == len(b)) {
		return nil, fmt.Errorf("read disk image: %w", err)
	}
	return b, nil
}

// Faults injects disk faults (the explorer's fault model). It is consulted
// once per read and per write request, at the request's completion, so its
// answers are a function of the universe's fault stream.
type Faults interface {
	DiskFault(write bool, off, n uint64) Fault
}

// Fault is the fate of one request: IOErr fails it with VIRTIO_BLK_S_IOERR;
// Corrupt flips bit Bit (modulo the request's size in bits) of the data, in
// the buffer returned for a read or in the data stored for a write, and the
// request reports success (silent corruption).
type Fault struct {
	IOErr   bool
	Corrupt bool
	Bit     uint64
}

// SetFaults installs a fault model (nil: none). The model is not part of the
// device's state: its owner saves its own.
func (d *Device) SetFaults(f Faults) { d.faults = f }

// New returns a block device for cfg.
func New(cfg Config) (*Device, error) {
	if len(cfg.Image)%SectorBytes != 0 {
		return nil, fmt.Errorf("disk image of %d bytes is not a whole number of %d-byte sectors", len(cfg.Image), SectorBytes)
	}
	if len(cfg.ID) > IDBytes {
		return nil, fmt.Errorf("disk id %q is longer than %d bytes", cfg.ID, IDBytes)
	}
	d := &Device{
		image:     cfg.Image,
		readOnly:  cfg.ReadOnly,
		latency:   cfg.Latency,
		flushed:   map[uint64]*block{},
		unflushed: map[uint64]*block{},
		base:      map[uint64]*block{},
	}
	if d.latency == 0 {
		d.latency = DefaultLatency
	}
	id := cfg.ID
	if id == "" {
		id = DefaultID
	}
	copy(d.id[:], id)
	nblocks := (uint64(len(d.image)) + BlockBytes - 1) / BlockBytes
	for _, b := range cfg.Stable {
		i := b.Off / BlockBytes
		if b.Off%BlockBytes != 0 || i >= nblocks || len(b.Data) != d.blockBytes(i) {
			return nil, fmt.Errorf("disk: stable block of %d bytes at offset %d is not a whole block of the %d-byte disk", len(b.Data), b.Off, len(d.image))
		}
		nb := new(block)
		copy(nb[:], b.Data)
		d.base[i] = nb
	}
	return d, nil
}

// Capacity returns the disk size in 512-byte sectors.
func (d *Device) Capacity() uint64 { return uint64(len(d.image)) / SectorBytes }

// Stats returns the request counters.
func (d *Device) Stats() Stats { return d.stats }

// DeviceID implements virtio.Backend.
func (d *Device) DeviceID() uint32 { return virtio.DeviceBlock }

// Features implements virtio.Backend.
func (d *Device) Features() uint64 {
	f := uint64(FeatureSizeMax | FeatureSegMax | FeatureFlush)
	if d.readOnly {
		f |= FeatureRO
	}
	return f
}

// NumQueues implements virtio.Backend: one request queue (no
// VIRTIO_BLK_F_MQ).
func (d *Device) NumQueues() int { return 1 }

// QueueMax implements virtio.Backend.
func (d *Device) QueueMax(int) int { return QueueSize }

// ReadConfig implements virtio.Backend: capacity, size_max and seg_max
// (§5.2.4); the remaining fields read as zero.
func (d *Device) ReadConfig(off uint64, size int) uint64 {
	var c [24]byte
	binary.LittleEndian.PutUint64(c[0:], d.Capacity())
	binary.LittleEndian.PutUint32(c[8:], SegmentBytes)
	binary.LittleEndian.PutUint32(c[12:], SegMax)
	return virtio.ReadLE(c[:], off, size)
}

// WriteConfig implements virtio.Backend; nothing is writable (no
// VIRTIO_BLK_F_CONFIG_WCE).
func (d *Device) WriteConfig(uint64, int, uint64) {}

// Attach implements virtio.Backend.
func (d *Device) Attach(t *virtio.Transport) { d.t = t }

// Latency implements virtio.Backend.
func (d *Device) Latency(int) uint64 { return d.latency }

// Reset implements virtio.Backend. The disk keeps its contents, including
// unflushed writes (the cache of a real disk survives a driver reset).
func (d *Device) Reset() {}

// Process implements virtio.Backend: it completes the available requests,
// up to a queue's worth or eventBudgetBytes of data.
func (d *Device) Process(q int) bool {
	moved := 0
	for range QueueSize {
		c, ok := d.t.Pop(q)
		if !ok {
			return false
		}
		n, ok := d.handle(c)
		if !ok {
			return false // the device needs a reset
		}
		d.t.Push(q, c.Head, n)
		if moved += int(c.ReadLen + c.WriteLen); moved >= eventBudgetBytes {
			return true
		}
	}
	return true
}

// handle performs one request and writes its status byte. It returns the
// number of bytes written to the device-writable part, and false if the
// request could not be answered at all.
func (d *Device) handle(c *virtio.Chain) (uint32, bool) {
	if c.WriteLen == 0 {
		d.t.Fail("blk: request without a status byte")
		return 0, false
	}
	statusOff := c.WriteLen - 1
	status, dataIn := d.execute(c, statusOff)
	if status != StatusOK {
		d.stats.Errors++
		dataIn = 0
	}
	if err := c.Write(statusOff, []byte{status}); err != nil {
		d.t.Fail(fmt.Sprintf("blk: status byte: %v", err))
		return 0, false
	}
	return uint32(dataIn) + 1, true
}

// execute carries out the request and returns its status and the number of
// data bytes written to the driver.
func (d *Device) execute(c *virtio.Chain, dataInBytes uint64) (uint8, uint64) {
	var h [headerBytes]byte
	if c.Read(0, h[:]) != nil {
		return StatusIOErr, 0
	}
	typ := binary.LittleEndian.Uint32(h[0:])
	sector := binary.LittleEndian.Uint64(h[8:])
	switch typ {
	case TypeIn:
		n := dataInBytes
		if !d.inRange(sector, n) {
			return StatusIOErr, 0
		}
		buf := d.scratch(n)
		d.read(sector*SectorBytes, buf)
		if d.faults != nil {
			f := d.faults.DiskFault(false, sector*SectorBytes, n)
			if f.IOErr {
				d.stats.Errors++
				return StatusIOErr, 0
			}
			if f.Corrupt && n > 0 {
				buf[f.Bit/8%n] ^= 1 << (f.Bit % 8)
			}
		}
		if c.Write(0, buf) != nil {
			return StatusIOErr, 0
		}
		d.stats.Reads++
		return StatusOK, n
	case TypeOut:
		n := c.ReadLen - headerBytes
		if d.readOnly || !d.inRange(sector, n) {
			return StatusIOErr, 0
		}
		buf := d.scratch(n)
		if c.Read(headerBytes, buf) != nil {
			return StatusIOErr, 0
		}
		if d.faults != nil {
			f := d.faults.DiskFault(true, sector*SectorBytes, n)
			if f.IOErr {
				d.stats.Errors++
				return StatusIOErr, 0
			}
			if f.Corrupt && n > 0 {
				buf[f.Bit/8%n] ^= 1 << (f.Bit % 8)
			}
		}
		d.write(sector*SectorBytes, buf, d.t.Negotiated()&FeatureFlush == 0)
		d.stats.Writes++
		return StatusOK, 0
	case TypeFlush:
		d.Flush()
		d.stats.Flushes++
		return StatusOK, 0
	case TypeGetID:
		n := min(dataInBytes, IDBytes)
		if c.Write(0, d.id[:n]) != nil {
			return StatusIOErr, 0
		}
		return StatusOK, n
	}
	return StatusUnsupp, 0
}

// inRange checks a transfer of n bytes at sector: whole sectors, within
// the capacity, within MaxRequestBytes.
func (d *Device) inRange(sector, n uint64) bool {
	sectors := d.Capacity()
	return n%SectorBytes == 0 && n <= MaxRequestBytes && sector <= sectors && n/SectorBytes <= sectors-sector
}

func (d *Device) scratch(n uint64) []byte {
	if uint64(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	return d.buf[:n]
}

// blockBytes returns how many bytes of block i lie on the disk.
func (d *Device) blockBytes(i uint64) int {
	return min(BlockBytes, len(d.image)-int(i*BlockBytes))
}

// current returns the newest contents of block i: unflushed, flushed or
// the image's.
func (d *Device) current(i uint64) []byte {
	if b := d.unflushed[i]; b != nil {
		return b[:d.blockBytes(i)]
	}
	return d.stable(i)
}

// stable returns the stable contents of block i.
func (d *Device) stable(i uint64) []byte {
	if b := d.flushed[i]; b != nil {
		return b[:d.blockBytes(i)]
	}
	if b := d.base[i]; b != nil {
		return b[:d.blockBytes(i)]
	}
	off := i * BlockBytes
	return d.image[off : off+uint64(d.blockBytes(i))]
}

// read copies the disk's bytes at off into p (the range is checked).
func (d *Device) read(off uint64, p []byte) {
	for len(p) > 0 {
		i, o := off/BlockBytes, off%BlockBytes
		n := copy(p, d.current(i)[o:])
		p, off = p[n:], off+uint64(n)
	}
}

// write stores p at off. A stable write lands in the flushed layer; if the
// block also has unflushed data, that data becomes stable with it (the
// disk wrote the whole cached block).
func (d *Device) write(off uint64, p []byte, stable bool) {
	for len(p) > 0 {
		i, o := off/BlockBytes, off%BlockBytes
		b := d.unflushed[i]
		if b == nil {
			if stable {
				b = d.flushed[i]
			}
			if b == nil {
				b = new(block)
				copy(b[:], d.stable(i))
			}
		}
		n := copy(b[o:d.blockBytes(i)], p)
		if stable {
			d.flushed[i] = b
			delete(d.unflushed, i)
		} else {
			d.unflushed[i] = b
		}
		p, off = p[n:], off+uint64(n)
	}
}

// Flush makes every unflushed write stable, as VIRTIO_BLK_T_FLUSH does.
func (d *Device) Flush() {
	for _, i := range slices.Sorted(maps.Keys(d.unflushed)) {
		d.flushed[i] = d.unflushed[i]
	}
	clear(d.unflushed)
}

// CrashLoseUnflushed models a power loss: each unflushed block, in block
// order, draws one fate from r: lost (the stable data stays), persisted,
// or torn (a second draw picks which of its eight sectors reached the
// medium; a sector is the unit a disk writes atomically). Afterwards no
// write is unflushed. The machine reboots the guest after a crash.
func (d *Device) CrashLoseUnflushed(r hw.Rand) {
	for _, i := range slices.Sorted(maps.Keys(d.unflushed)) {
		nb := d.unflushed[i]
		var mask uint64
		switch r.Uint64() % 3 {
		case 0: // lost
			continue
		case 1: // persisted
			mask = 1<<sectorsPerBlock - 1
		case 2: // torn
			mask = r.Uint64()
		}
		b := new(block)
		copy(b[:], d.stable(i))
		for s := 0; s < sectorsPerBlock; s++ {
			if mask>>s&1 != 0 {
				copy(b[s*SectorBytes:(s+1)*SectorBytes], nb[s*SectorBytes:])
			}
		}
		d.flushed[i] = b
	}
	clear(d.unflushed)
}

// Overlay returns every block that differs from the image as the guest
// sees the disk now (unflushed over flushed), sorted by offset.
func (d *Device) Overlay() []Block {
	return d.blocks(keysOf(d.flushed, d.unflushed, d.base), d.current)
}

// keysOf is the block numbers of every layer, sorted, each once.
func keysOf(layers ...map[uint64]*block) []uint64 {
	var keys []uint64
	for _, l := range layers {
		keys = append(keys, slices.Collect(maps.Keys(l))...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// Flushed returns the stable overlay blocks, sorted by offset: what the
// disk holds after a power loss that loses every unflushed write.
func (d *Device) Flushed() []Block {
	return d.blocks(keysOf(d.flushed, d.base), d.stable)
}

// Unflushed returns the blocks with writes that are not yet stable, with
// their newest contents, sorted by offset.
func (d *Device) Unflushed() []Block {
	return d.blocks(slices.Sorted(maps.Keys(d.unflushed)), d.current)
}

func (d *Device) blocks(keys []uint64, get func(uint64) []byte) []Block {
	out := make([]Block, len(keys))
	for k, i := range keys {
		out[k] = Block{Off: i * BlockBytes, Data: slices.Clone(get(i))}
	}
	return out
}

// Save implements hw.Persist.
func (d *Device) Save(e *hw.Encoder) {
	e.Tag("virtio-blk")
	e.U64(uint64(len(d.image)))
	e.Bool(d.readOnly)
	saveBlocks(e, d.flushed)
	saveBlocks(e, d.unflushed)
	e.U64(d.stats.Reads)
	e.U64(d.stats.Writes)
	e.U64(d.stats.Flushes)
	e.U64(d.stats.Errors)
}

func saveBlocks(e *hw.Encoder, m map[uint64]*block) {
	keys := slices.Sorted(maps.Keys(m))
	e.U64(uint64(len(keys)))
	for _, i := range keys {
		e.U64(i)
		e.ByteSlice(m[i][:])
	}
}

// Restore implements hw.Persist.
func (d *Device) Restore(dec *hw.Decoder) error {
	dec.Tag("virtio-blk")
	size := dec.U64()
	ro := dec.Bool()
	if dec.Err() == nil && (size != uint64(len(d.image)) || ro != d.readOnly) {
		dec.Fail("virtio-blk: saved disk of %d bytes (read-only %v), this one has %d (read-only %v)", size, ro, len(d.image), d.readOnly)
	}
	nblocks := (uint64(len(d.image)) + BlockBytes - 1) / BlockBytes
	flushed := restoreBlocks(dec, nblocks)
	unflushed := restoreBlocks(dec, nblocks)
	st := Stats{Reads: dec.U64(), Writes: dec.U64(), Flushes: dec.U64(), Errors: dec.U64()}
	if err := dec.Err(); err != nil {
		return err
	}
	d.flushed, d.unflushed, d.stats = flushed, unflushed, st
	return nil
}

func restoreBlocks(dec *hw.Decoder, nblocks uint64) map[uint64]*block {
	n := dec.Len(int(min(nblocks, hw.MaxSliceLen)))
	m := make(map[uint64]*block, n)
	prev := int64(-1)
	for k := 0; k < n && dec.Err() == nil; k++ {
		i := dec.U64()
		data := dec.ByteSlice(BlockBytes)
		if dec.Err() != nil {
			break
		}
		if i >= nblocks || int64(i) <= prev {
			dec.Fail("virtio-blk: overlay block %d out of order or past the disk's %d blocks", i, nblocks)
			break
		}
		if len(data) != BlockBytes {
			dec.Fail("virtio-blk: overlay block %d holds %d bytes", i, len(data))
			break
		}
		prev = int64(i)
		b := new(block)
		copy(b[:], data)
		m[i] = b
	}
	return m
}
