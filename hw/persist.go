package hw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Persist is implemented by every component that has state: harts, RAM,
// devices, the clock, the PRNG. Save writes the component's complete state;
// Restore reads it back into a component built with the same configuration.
// The encoding is also what the state hash covers, so Save must be canonical:
// the same state always gives the same bytes (no map order, no pointers).
type Persist interface {
	Save(e *Encoder)
	Restore(d *Decoder) error
}

// ErrCorrupt is returned (wrapped) by Decoder when the input is truncated or
// holds a value out of range.
var ErrCorrupt = errors.New("corrupt state")

// MaxSliceLen bounds every length a Decoder reads, so that a corrupted or
// hostile snapshot cannot make the host allocate without limit.
const MaxSliceLen = 1 << 30

// Encoder appends values in a fixed little-endian binary form.
type Encoder struct {
	buf []byte
}

// Bytes returns what has been encoded.
func (e *Encoder) Bytes() []byte { return e.buf }

// Reset empties the encoder, keeping its buffer.
func (e *Encoder) Reset() { e.buf = e.buf[:0] }

// Grow makes room for n more bytes, so that encoding that many appends
// without growing the buffer (and copying it) again and again.
func (e *Encoder) Grow(n int) {
	if n > cap(e.buf)-len(e.buf) {
		e.buf = append(make([]byte, 0, len(e.buf)+n), e.buf...)
	}
}

// U8 appends a byte.
func (e *Encoder) U8(v uint8) { e.buf = append(e.buf, v) }

// Bool appends a boolean as one byte.
func (e *Encoder) Bool(v bool) {
	if v {
		e.U8(1)
	} else {
		e.U8(0)
	}
}

// U16 appends a 16-bit value.
func (e *Encoder) U16(v uint16) { e.buf = binary.LittleEndian.AppendUint16(e.buf, v) }

// U32 appends a 32-bit value.
func (e *Encoder) U32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }

// U64 appends a 64-bit value.
func (e *Encoder) U64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }

// I64 appends a signed 64-bit value.
func (e *Encoder) I64(v int64) { e.U64(uint64(v)) }

// Int appends an int as 64 bits.
func (e *Encoder) Int(v int) { e.U64(uint64(int64(v))) }

// F64 appends a float64 by its bits.
func (e *Encoder) F64(v float64) { e.U64(math.Float64bits(v)) }

// ByteSlice appends a length-prefixed byte string.
func (e *Encoder) ByteSlice(b []byte) {
	e.U64(uint64(len(b)))
	e.buf = append(e.buf, b...)
}

// String appends a length-prefixed string.
func (e *Encoder) String(s string) {
	e.U64(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// Tag appends a section name; Decoder.Tag checks it. Tags make a corrupted
// or mismatched stream fail early with a useful message.
func (e *Encoder) Tag(name string) { e.String(name) }

// Decoder reads what an Encoder wrote. After the first error every read
// returns zero and Err reports the error, so callers can read a whole
// structure and check once.
type Decoder struct {
	buf []byte
	off int
	err error
}

// NewDecoder reads from b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Err returns the first error.
func (d *Decoder) Err() error { return d.err }

// Remaining returns the number of unread bytes.
func (d *Decoder) Remaining() int { return len(d.buf) - d.off }

// Fail records an error (the first one wins).
func (d *Decoder) Fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
	}
}

func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.buf)-d.off {
		d.Fail("truncated at byte %d (need %d more, have %d)", d.off, n, len(d.buf)-d.off)
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

// U8 reads a byte.
func (d *Decoder) U8() uint8 {
	b := d.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// Bool reads a boolean; any byte other than 0 or 1 is corrupt.
func (d *Decoder) Bool() bool {
	v := d.U8()
	if v > 1 {
		d.Fail("boolean byte %d", v)
	}
	return v == 1
}

// U16 reads a 16-bit value.
func (d *Decoder) U16() uint16 {
	b := d.take(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

// U32 reads a 32-bit value.
func (d *Decoder) U32() uint32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// U64 reads a 64-bit value.
func (d *Decoder) U64() uint64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// I64 reads a signed 64-bit value.
func (d *Decoder) I64() int64 { return int64(d.U64()) }

// Int reads an int written by Encoder.Int.
func (d *Decoder) Int() int { return int(d.I64()) }

// F64 reads a float64.
func (d *Decoder) F64() float64 { return math.Float64frombits(d.U64()) }

// Len reads a length and checks it against max (and MaxSliceLen).
func (d *Decoder) Len(max int) int {
	n := d.U64()
	if max > MaxSliceLen || max < 0 {
		max = MaxSliceLen
	}
	if n > uint64(max) {
		d.Fail("length %d exceeds the limit %d", n, max)
		return 0
	}
	return int(n)
}

// ByteSlice reads a length-prefixed byte string of at most max bytes. The
// result is a copy.
func (d *Decoder) ByteSlice(max int) []byte {
	n := d.Len(max)
	b := d.take(n)
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// String reads a length-prefixed string of at most max bytes.
func (d *Decoder) String(max int) string { return string(d.ByteSlice(max)) }

// Tag reads a section name and fails unless it is name.
func (d *Decoder) Tag(name string) {
	got := d.String(256)
	if d.err == nil && got != name {
		d.Fail("expected section %q, found %q", name, got)
	}
}

// Rand is the universe's PRNG as devices see it (virtio-rng, fault draws).
// Every draw changes universe state and is part of the state hash.
type Rand interface {
	Uint64() uint64
}
