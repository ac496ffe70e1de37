package emu

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"

	"everett/hw"
)

// The universe's state: every component saves itself through hw.Persist, and
// the state hash is a hash of those bytes plus RAM. The engine's caches
// (TLBs, the jump cache, decoded blocks) are never saved: a restore
// invalidates them.

// PRNG is the universe's one source of entropy: ChaCha8 seeded from the
// run's seed. Every draw advances it, and its state is part of the state
// hash and of snapshots.
type PRNG struct {
	c     *rand.ChaCha8
	draws uint64
}

// NewPRNG returns a PRNG seeded with seed.
func NewPRNG(seed uint64) *PRNG {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	copy(s[8:], "everett universe PRNG")
	return &PRNG{c: rand.NewChaCha8(s)}
}

// Reseed restarts the PRNG from seed, as NewPRNG(seed) would, in place (the
// devices that draw from it keep their reference).
func (p *PRNG) Reseed(seed uint64) {
	*p = *NewPRNG(seed)
}

// Uint64 implements hw.Rand.
func (p *PRNG) Uint64() uint64 {
	p.draws++
	return p.c.Uint64()
}

// Draws returns how many values have been drawn.
func (p *PRNG) Draws() uint64 { return p.draws }

// Save implements hw.Persist.
func (p *PRNG) Save(e *hw.Encoder) {
	e.Tag("prng")
	b, _ := p.c.MarshalBinary()
	e.ByteSlice(b)
	e.U64(p.draws)
}

// Restore implements hw.Persist.
func (p *PRNG) Restore(d *hw.Decoder) error {
	d.Tag("prng")
	b := d.ByteSlice(256)
	draws := d.U64()
	if d.Err() != nil {
		return d.Err()
	}
	c := new(rand.ChaCha8)
	if err := c.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: prng: %v", hw.ErrCorrupt, err)
	}
	p.c, p.draws = c, draws
	return nil
}

// Save implements hw.Persist for a hart's architectural state.
func (h *Hart) Save(e *hw.Encoder) {
	e.Tag("hart")
	for i := 0; i < 32; i++ {
		e.U64(h.x[i])
	}
	for i := 0; i < 32; i++ {
		e.U64(h.f[i])
	}
	for _, v := range []uint64{
		h.pc, uint64(h.priv), h.csr.mstatus, h.csr.mie, h.csr.mip, h.csr.medeleg, h.csr.mideleg,
		h.csr.mtvec, h.csr.stvec, h.csr.mepc, h.csr.sepc, h.csr.mcause, h.csr.scause, h.csr.mtval, h.csr.stval,
		h.csr.mscratch, h.csr.sscratch, h.csr.satp, h.csr.mcounteren, h.csr.scounteren, h.csr.fflags,
		h.csr.frm, h.csr.pmpcfg[0], h.csr.pmpcfg[1],
	} {
		e.U64(v)
	}
	for _, v := range h.csr.pmpaddr {
		e.U64(v)
	}
	e.Bool(h.csr.seipSW)
	e.Bool(h.csr.seipLine)
	e.U64(h.cnt.retired)
	e.U64(h.cnt.steps)
	e.U64(h.cnt.cycleOff)
	e.U64(h.cnt.instretOff)
	e.Bool(h.resValid)
	e.U64(h.resAddr)
	e.U64(h.local)
	e.Bool(h.inSlice)
	e.U64(h.stallAt)
	e.Bool(h.waiting)
	e.U64(h.waitAt)
	e.Bool(h.halted)
}

// Restore implements hw.Persist. It drops the hart's TLBs and jump cache.
func (h *Hart) Restore(d *hw.Decoder) error {
	d.Tag("hart")
	for i := 0; i < 32; i++ {
		h.x[i] = d.U64()
	}
	h.x[0] = 0
	for i := 0; i < 32; i++ {
		h.f[i] = d.U64()
	}
	ptrs := []*uint64{
		&h.pc, nil, &h.csr.mstatus, &h.csr.mie, &h.csr.mip, &h.csr.medeleg, &h.csr.mideleg,
		&h.csr.mtvec, &h.csr.stvec, &h.csr.mepc, &h.csr.sepc, &h.csr.mcause, &h.csr.scause, &h.csr.mtval, &h.csr.stval,
		&h.csr.mscratch, &h.csr.sscratch, &h.csr.satp, &h.csr.mcounteren, &h.csr.scounteren, &h.csr.fflags,
		&h.csr.frm, &h.csr.pmpcfg[0], &h.csr.pmpcfg[1],
	}
	for i, p := range ptrs {
		v := d.U64()
		if p == nil {
			if v != PrivU && v != PrivS && v != PrivM {
				d.Fail("hart %d: privilege level %d", h.ID, v)
			}
			h.priv = uint8(v)
			continue
		}
		_ = i
		*p = v
	}
	for i := range h.csr.pmpaddr {
		h.csr.pmpaddr[i] = d.U64()
	}
	h.csr.seipSW = d.Bool()
	h.csr.seipLine = d.Bool()
	h.cnt.retired = d.U64()
	h.cnt.steps = d.U64()
	h.cnt.cycleOff = d.U64()
	h.cnt.instretOff = d.U64()
	h.resValid = d.Bool()
	h.resAddr = d.U64()
	h.local = d.U64()
	h.inSlice = d.Bool()
	h.stallAt = d.U64()
	h.waiting = d.Bool()
	h.waitAt = d.U64()
	h.halted = d.Bool()
	if err := d.Err(); err != nil {
		return fmt.Errorf("hart %d: %w", h.ID, err)
	}
	if h.csr.frm > 7 || h.csr.fflags > 0x1f {
		return fmt.Errorf("%w: hart %d: fcsr out of range", hw.ErrCorrupt, h.ID)
	}
	h.pos = 0
	h.trapped = false
	h.flushTLB()
	h.updateMode()
	return nil
}

// component is a named piece of machine state for the state hash.
type component struct {
	name string
	p    hw.Persist
}

// Register adds a device (or any component) to the machine's state: it is
// saved and restored, in registration order, and covered by the state hash.
// Event targets must be registered so that scheduled events can be saved.
func (m *Machine) Register(name string, p hw.Persist) {
	m.components = append(m.components, component{name: name, p: p})
}

// targetIndex maps an event target to its registration index.
func (m *Machine) targetIndex(t hw.EventTarget) int {
	for i, c := range m.components {
		if any(c.p) == any(t) {
			return i
		}
	}
	return -1
}

// saveCore writes the machine's own state: clock, scheduler, event queue.
func (m *Machine) saveCore(e *hw.Encoder) { m.saveCoreWith(e, true) }

// saveCoreWith writes the machine core, with or without the scheduler.
func (m *Machine) saveCoreWith(e *hw.Encoder, sched bool) {
	e.Tag("machine")
	e.U64(m.now)
	e.U64(m.sliceEnd)
	e.U64(m.icount)
	e.U64(m.mtimeOff)
	e.Bool(m.round.in)
	e.Int(m.round.next)
	e.Bool(m.round.ran)
	e.Bool(m.round.alive)
	e.U64(m.eventSeq)
	if sched {
		m.saveSched(e)
	}
	// Events in (at, seq) order: the heap's layout depends on history, the
	// sorted order does not.
	evs := append([]event(nil), m.events...)
	sortEvents(evs)
	e.U64(uint64(len(evs)))
	for _, ev := range evs {
		e.U64(ev.at)
		e.U64(ev.seq)
		e.Int(m.targetIndex(ev.target))
		e.U64(ev.tag)
	}
}

func (m *Machine) restoreCore(d *hw.Decoder) error {
	d.Tag("machine")
	m.now = d.U64()
	m.sliceEnd = d.U64()
	m.icount = d.U64()
	m.mtimeOff = d.U64()
	m.round.in = d.Bool()
	m.round.next = d.Int()
	m.round.ran = d.Bool()
	m.round.alive = d.Bool()
	m.eventSeq = d.U64()
	if err := m.restoreSched(d); err != nil {
		return err
	}
	n := d.Len(1 << 20)
	evs := make(eventQueue, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		ev := event{at: d.U64(), seq: d.U64()}
		ti := d.Int()
		ev.tag = d.U64()
		if ti < 0 || ti >= len(m.components) {
			d.Fail("event %d: target %d of %d components", i, ti, len(m.components))
			break
		}
		t, ok := m.components[ti].p.(hw.EventTarget)
		if !ok {
			d.Fail("event %d: component %q takes no events", i, m.components[ti].name)
			break
		}
		ev.target = t
		evs = append(evs, ev)
	}
	if err := d.Err(); err != nil {
		return err
	}
	if m.round.next < 0 || m.round.next > len(m.harts) {
		return fmt.Errorf("%w: scheduler at hart %d of %d", hw.ErrCorrupt, m.round.next, len(m.harts))
	}
	m.events = evs // sorted, hence a valid heap
	return nil
}

func sortEvents(evs []event) {
	q := eventQueue(evs)
	for i := 1; i < len(q); i++ {
		for j := i; j > 0 && q.Less(j, j-1); j-- {
			q.Swap(j, j-1)
		}
	}
}

// ComponentHash is the hash of one component's state.
type ComponentHash struct {
	Name string
	Hash uint64
}

// StateHashes returns the hash of every part of the machine's state, in a
// fixed order: the machine core (clock, scheduler, events), each hart, RAM,
// the PRNG, and each registered device. Two runs with the same inputs have
// equal hashes at equal instruction counts; the first part that differs
// names the component where they diverged.
func (m *Machine) StateHashes() []ComponentHash {
	var out []ComponentHash
	var e hw.Encoder
	add := func(name string, save func(*hw.Encoder)) {
		e.Reset()
		save(&e)
		out = append(out, ComponentHash{Name: name, Hash: hashBytes(e.Bytes())})
	}
	add("machine", func(e *hw.Encoder) { m.saveCoreWith(e, false) })
	add("sched", m.saveSched)
	for _, h := range m.harts {
		add(fmt.Sprintf("hart%d", h.ID), h.Save)
	}
	out = append(out, ComponentHash{Name: "ram", Hash: m.RAM.hash()})
	add("prng", m.PRNG.Save)
	for _, c := range m.components {
		add(c.name, c.p.Save)
	}
	if m.wmo != nil {
		add("rvwmo", m.saveWMO) // only under rvwmo: sc hashes are unchanged
	}
	return out
}

// StateHash combines StateHashes into one value.
func (m *Machine) StateHash() uint64 {
	h := uint64(0x6576657265747431)
	for _, c := range m.StateHashes() {
		h = mix64(h ^ c.Hash)
	}
	return h
}

// hash hashes RAM page by page; never-written and all-zero pages hash alike,
// so the result depends only on contents.
func (r *RAM) hash() uint64 { return ramHash(r.leaves) }

func ramHash(leaves []*leaf) uint64 {
	h := uint64(0x72616d)
	for li, l := range leaves {
		if l == nil {
			continue
		}
		for i, p := range l.pages {
			if p == nil {
				continue
			}
			ph := hashBytes(p[:])
			if ph == zeroPageHash {
				continue
			}
			pn := uint64(li)<<leafShift | uint64(i)
			h = mix64(h ^ mix64(pn^ph))
		}
	}
	return h
}

var zeroPageHash = hashBytes(zeroPage[:])

// hashBytes is a fast, fixed (seedless, so stable across processes and
// hosts) 64-bit hash for state comparison. It is not cryptographic.
func hashBytes(b []byte) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for len(b) >= 8 {
		v := binary.LittleEndian.Uint64(b)
		hi, lo := bits.Mul64(h^v, 0xa0761d6478bd642f)
		h = hi ^ lo ^ v
		b = b[8:]
	}
	for _, c := range b {
		h = mix64(h ^ uint64(c))
	}
	return mix64(h)
}

// mix64 is a 64-bit finalizer (xor-shift-multiply).
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// SaveState writes the machine's complete state except RAM (which snapshots
// store page by page): clock, scheduler, events, harts, PRNG and every
// registered component, in that order.
func (m *Machine) SaveState(e *hw.Encoder) {
	m.saveCore(e)
	e.U64(uint64(len(m.harts)))
	for _, h := range m.harts {
		h.Save(e)
	}
	m.PRNG.Save(e)
	e.U64(uint64(len(m.components)))
	for _, c := range m.components {
		e.String(c.name)
		c.p.Save(e)
	}
	e.Bool(m.end.stopped)
	e.U64(uint64(m.end.reason))
	e.Int(m.end.exitCode)
	if m.wmo != nil {
		// Last and only under rvwmo, so that sc state is byte for byte
		// what it was before the model existed; its presence is what puts
		// a restored machine under rvwmo.
		m.saveWMO(e)
	}
}

// RestoreState reads what SaveState wrote into a machine built with the
// same configuration and devices. Engine caches are dropped.
func (m *Machine) RestoreState(d *hw.Decoder) error {
	if err := m.restoreCore(d); err != nil {
		return err
	}
	if n := d.Len(MaxHarts); d.Err() == nil && n != len(m.harts) {
		return fmt.Errorf("%w: %d harts saved, machine has %d", hw.ErrCorrupt, n, len(m.harts))
	}
	for _, h := range m.harts {
		if err := h.Restore(d); err != nil {
			return err
		}
	}
	if err := m.PRNG.Restore(d); err != nil {
		return err
	}
	if n := d.Len(1 << 16); d.Err() == nil && n != len(m.components) {
		return fmt.Errorf("%w: %d components saved, machine has %d", hw.ErrCorrupt, n, len(m.components))
	}
	for _, c := range m.components {
		if name := d.String(256); d.Err() == nil && name != c.name {
			return fmt.Errorf("%w: component %q saved where the machine has %q", hw.ErrCorrupt, name, c.name)
		}
		if err := c.p.Restore(d); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	m.end.stopped = d.Bool()
	m.end.reason = StopReason(d.U64())
	m.end.exitCode = d.Int()
	if err := d.Err(); err != nil {
		return err
	}
	if d.Remaining() > 0 {
		if err := m.restoreWMO(d); err != nil {
			return err
		}
	} else if m.wmo != nil {
		m.wmo = nil
		for _, h := range m.harts {
			h.w = nil
		}
		m.cfg.MemoryModel = ModelSC
		m.eng.cur = m.eng.asked
	}
	m.cur = nil
	m.FlushCaches()
	return nil
}
