package plic

import (
	"fmt"

	"everett/hw"
)

// The saved state (hw.Encoder encoding, little-endian):
//
//	tag      "plic/1"
//	u32      number of sources         must equal the restoring PLIC's
//	u32      number of contexts        must equal the restoring PLIC's
//	sources × {
//	  u8     priority                  0..MaxPriority
//	  u8     flags                     bit 0 wire high, bit 1 pending,
//	                                   bit 2 claimed (gateway busy)
//	}
//	contexts × {
//	  u8     threshold                 0..MaxPriority
//	  words × u32 enable bits          words = (sources+1+31)/32
//	}
//
// The context output levels are not saved: they are a function of the rest.

const saveTag = "plic/1"

const (
	flagLevel   = 1 << 0
	flagPending = 1 << 1
	flagClaimed = 1 << 2
)

// Save implements hw.Persist.
func (p *PLIC) Save(e *hw.Encoder) {
	e.Tag(saveTag)
	e.U32(uint32(p.nsrc))
	e.U32(uint32(len(p.lines)))
	for id := 1; id <= p.nsrc; id++ {
		var f uint8
		if bit(p.level, id) {
			f |= flagLevel
		}
		if bit(p.pending, id) {
			f |= flagPending
		}
		if bit(p.claimed, id) {
			f |= flagClaimed
		}
		e.U8(p.priority[id])
		e.U8(f)
	}
	for c := range p.lines {
		e.U8(p.thresh[c])
		for w := 0; w < p.words; w++ {
			e.U32(p.enable[c*p.words+w])
		}
	}
}

// Restore implements hw.Persist. The PLIC must have been built with the same
// number of sources and contexts. On success every context line is driven to
// its restored level; on error the PLIC is unchanged.
func (p *PLIC) Restore(d *hw.Decoder) error {
	d.Tag(saveTag)
	nsrc, nctx := d.U32(), d.U32()
	if d.Err() == nil && (nsrc != uint32(p.nsrc) || nctx != uint32(len(p.lines))) {
		d.Fail("plic: saved with %d sources and %d contexts, restoring into %d and %d",
			nsrc, nctx, p.nsrc, len(p.lines))
	}
	if err := d.Err(); err != nil {
		return fmt.Errorf("plic: %w", err)
	}
	q := New(p.nsrc, p.lines)
	for id := 1; id <= q.nsrc && d.Err() == nil; id++ {
		q.priority[id] = d.U8()
		f := d.U8()
		if f > flagLevel|flagPending|flagClaimed {
			d.Fail("source %d: flags %#x", id, f)
		}
		set(q.level, id, f&flagLevel != 0)
		set(q.pending, id, f&flagPending != 0)
		set(q.claimed, id, f&flagClaimed != 0)
	}
	for c := 0; c < len(q.lines) && d.Err() == nil; c++ {
		q.thresh[c] = d.U8()
		for w := 0; w < q.words; w++ {
			q.enable[c*q.words+w] = d.U32()
		}
	}
	if err := d.Err(); err != nil {
		return fmt.Errorf("plic: %w", err)
	}
	if err := q.check(); err != nil {
		return fmt.Errorf("%w: plic: %v", hw.ErrCorrupt, err)
	}
	copy(p.priority, q.priority)
	copy(p.level, q.level)
	copy(p.pending, q.pending)
	copy(p.claimed, q.claimed)
	copy(p.enable, q.enable)
	copy(p.thresh, q.thresh)
	for c := range p.lines {
		p.out[c] = p.eip(c)
		p.lines[c].SetLevel(p.out[c])
	}
	return nil
}
