// Package plic implements the RISC-V Platform-Level Interrupt Controller
// (RISC-V PLIC Specification 1.0.0) in the layout of the SiFive PLIC and of
// QEMU's virt machine: source priorities at 0x000000, pending bits at
// 0x001000, per-context enable bits at 0x002000, per-context threshold and
// claim/complete registers at 0x200000.
//
// Interrupt sources are level-triggered wires (see Source). Each context
// drives one output line, normally a hart's MEIP or SEIP; which context is
// which is the caller's choice (the virt convention is context 2h for hart
// h's M-mode and 2h+1 for its S-mode).
//
// Implementation choices where the specification leaves room:
//
//   - Priorities and thresholds are 3-bit WARL fields (values 0..7, so seven
//     active priority levels, as on the SiFive FU540 and QEMU's virt): a
//     write keeps the low three bits.
//   - Registers are 32 bits wide and accessed with LW/SW (spec "Memory
//     Map"): any access that is not an aligned 4-byte access is not decoded
//     and raises an access fault. Reserved and unimplemented registers read
//     as zero and ignore writes; the pending array is read-only.
//   - A claim returns the highest-priority pending enabled source whose
//     priority is not zero; as the specification says ("Interrupt Claim
//     Process"), it is not affected by the context's threshold, which only
//     gates the notification.
package plic

import (
	"fmt"
	"math/bits"

	"everett/hw"
)

// Register layout (spec "Memory Map").
const (
	priorityBase  = 0x000000
	pendingBase   = 0x001000
	enableBase    = 0x002000
	enableStride  = 0x80
	contextBase   = 0x200000
	contextStride = 0x1000
	thresholdOff  = 0x0
	claimOff      = 0x4

	// Size is the size of the register window: room for MaxContexts
	// contexts, as on QEMU's virt machine.
	Size = 0x600000

	// MaxSources is the largest interrupt source id (spec "Interrupt
	// Priorities": sources 1..1023).
	MaxSources = 1023
	// MaxContexts is the number of contexts whose threshold and
	// claim/complete registers fit in the window.
	MaxContexts = (Size - contextBase) / contextStride
	// MaxPriority is the largest priority and threshold value: priorities
	// are 3-bit WARL fields.
	MaxPriority = 7
)

var (
	_ hw.Device  = (*PLIC)(nil)
	_ hw.Persist = (*PLIC)(nil)
)

// PLIC is the interrupt controller. Its methods run on the universe's
// goroutine.
type PLIC struct {
	nsrc  int // sources are ids 1..nsrc
	words int // 32-bit words in each bitmap (covers ids 0..nsrc)
	lines []hw.IRQLine

	priority []uint8  // by source id; [0] stays 0
	level    []uint32 // input wire level, by source id
	pending  []uint32 // IP bits (spec "Interrupt Pending Bits")
	claimed  []uint32 // gateway waiting for a completion
	enable   []uint32 // context c's bitmap is enable[c*words:(c+1)*words]
	thresh   []uint8  // by context
	out      []bool   // level last driven on each context's line
}

// New returns a PLIC with interrupt sources 1..sources and one context per
// line in contexts. It panics if sources is not in 1..MaxSources or there
// are more than MaxContexts contexts: that is a bug in the board, not
// something a guest can cause.
func New(sources int, contexts []hw.IRQLine) *PLIC {
	if sources < 1 || sources > MaxSources {
		panic(fmt.Sprintf("plic: %d sources, want 1..%d", sources, MaxSources))
	}
	if len(contexts) > MaxContexts {
		panic(fmt.Sprintf("plic: %d contexts, want at most %d", len(contexts), MaxContexts))
	}
	for i, l := range contexts {
		if l == nil {
			panic(fmt.Sprintf("plic: context %d has no line", i))
		}
	}
	words := (sources + 1 + 31) / 32
	return &PLIC{
		nsrc:     sources,
		words:    words,
		lines:    append([]hw.IRQLine(nil), contexts...),
		priority: make([]uint8, sources+1),
		level:    make([]uint32, words),
		pending:  make([]uint32, words),
		claimed:  make([]uint32, words),
		enable:   make([]uint32, words*len(contexts)),
		thresh:   make([]uint8, len(contexts)),
		out:      make([]bool, len(contexts)),
	}
}

// Sources returns the number of interrupt sources (the devicetree's
// "riscv,ndev").
func (p *PLIC) Sources() int { return p.nsrc }

// Contexts returns the number of contexts.
func (p *PLIC) Contexts() int { return len(p.lines) }

// Source returns the input wire of interrupt source id (1..Sources()), for a
// device to drive. It panics for an id the PLIC does not have.
func (p *PLIC) Source(id int) hw.IRQLine {
	if id < 1 || id > p.nsrc {
		panic(fmt.Sprintf("plic: no interrupt source %d (have 1..%d)", id, p.nsrc))
	}
	return sourceLine{p: p, id: id}
}

// sourceLine is one interrupt source's wire into its gateway.
type sourceLine struct {
	p  *PLIC
	id int
}

// SetLevel implements hw.IRQLine.
func (s sourceLine) SetLevel(high bool) { s.p.setLevel(s.id, high) }

func bit(m []uint32, id int) bool { return m[id/32]>>(id%32)&1 != 0 }

func set(m []uint32, id int, v bool) {
	if v {
		m[id/32] |= 1 << (id % 32)
	} else {
		m[id/32] &^= 1 << (id % 32)
	}
}

// setLevel is the gateway of a level-triggered source (spec "Interrupt
// Gateways"): the first assertion becomes a request (the IP bit), and no new
// request is forwarded until the previous one is completed. A request stays
// pending if the wire drops before it is claimed.
func (p *PLIC) setLevel(id int, high bool) {
	set(p.level, id, high)
	if high && !bit(p.pending, id) && !bit(p.claimed, id) {
		set(p.pending, id, true)
		p.update()
	}
}

// best returns the highest-priority source that is pending, enabled for
// context c and of non-zero priority; ties go to the lowest id (spec
// "Interrupt Identifiers"). It returns 0 if there is none.
func (p *PLIC) best(c int) (id int, prio uint8) {
	en := p.enable[c*p.words : (c+1)*p.words]
	for w, pend := range p.pending {
		for m := pend & en[w]; m != 0; m &= m - 1 {
			i := w*32 + bits.TrailingZeros32(m)
			if pr := p.priority[i]; pr > prio {
				id, prio = i, pr
			}
		}
	}
	return id, prio
}

// eip is context c's external interrupt pending bit (spec "Interrupt
// Notifications"): a pending enabled source has a priority above the
// context's threshold.
func (p *PLIC) eip(c int) bool {
	_, prio := p.best(c)
	return prio > p.thresh[c]
}

// update drives every context line whose level changed.
func (p *PLIC) update() {
	for c := range p.lines {
		if v := p.eip(c); v != p.out[c] {
			p.out[c] = v
			p.lines[c].SetLevel(v)
		}
	}
}

// claim performs context c's claim (spec "Interrupt Claim Process").
func (p *PLIC) claim(c int) uint32 {
	id, _ := p.best(c)
	if id == 0 {
		return 0
	}
	set(p.pending, id, false)
	set(p.claimed, id, true)
	p.update()
	return uint32(id)
}

// complete performs context c's completion of id (spec "Interrupt
// Completion"): ignored unless id is a source enabled for c; otherwise the
// gateway may forward a new request, which it does at once if the wire is
// still high.
func (p *PLIC) complete(c int, id uint32) {
	if id == 0 || id > uint32(p.nsrc) || !bit(p.enable[c*p.words:], int(id)) {
		return
	}
	i := int(id)
	set(p.claimed, i, false)
	if bit(p.level, i) && !bit(p.pending, i) {
		set(p.pending, i, true)
		p.update()
	}
}

// validMask returns the implemented bits of bitmap word w: bit 0 of word 0
// (source 0) and bits above the last source are hardwired to zero.
func (p *PLIC) validMask(w int) uint32 {
	m := ^uint32(0)
	if w == 0 {
		m &^= 1
	}
	if top := p.nsrc + 1 - w*32; top < 32 {
		m &= 1<<top - 1
	}
	return m
}

// decode maps an aligned register offset to what it addresses.
type reg struct {
	kind int
	idx  int // source id, bitmap word or context
	ctx  int
}

const (
	regNone = iota
	regPriority
	regPending
	regEnable
	regThreshold
	regClaim
)

func (p *PLIC) decode(off uint64) reg {
	switch {
	case off < pendingBase:
		if id := int(off / 4); id >= 1 && id <= p.nsrc {
			return reg{kind: regPriority, idx: id}
		}
	case off < enableBase:
		if w := int((off - pendingBase) / 4); w < p.words {
			return reg{kind: regPending, idx: w}
		}
	case off < contextBase:
		c := int((off - enableBase) / enableStride)
		w := int((off - enableBase) % enableStride / 4)
		if c < len(p.lines) && w < p.words {
			return reg{kind: regEnable, idx: w, ctx: c}
		}
	default:
		c := (off - contextBase) / contextStride
		if c >= uint64(len(p.lines)) {
			break
		}
		switch (off - contextBase) % contextStride {
		case thresholdOff:
			return reg{kind: regThreshold, ctx: int(c)}
		case claimOff:
			return reg{kind: regClaim, ctx: int(c)}
		}
	}
	return reg{kind: regNone}
}

// Read implements hw.Device. Reading a claim/complete register claims.
func (p *PLIC) Read(off uint64, size int) (uint64, bool) {
	if size != 4 || off%4 != 0 || off >= Size {
		return 0, false
	}
	r := p.decode(off)
	switch r.kind {
	case regPriority:
		return uint64(p.priority[r.idx]), true
	case regPending:
		return uint64(p.pending[r.idx]), true
	case regEnable:
		return uint64(p.enable[r.ctx*p.words+r.idx]), true
	case regThreshold:
		return uint64(p.thresh[r.ctx]), true
	case regClaim:
		return uint64(p.claim(r.ctx)), true
	}
	return 0, true
}

// Write implements hw.Device.
func (p *PLIC) Write(off uint64, size int, v uint64) bool {
	if size != 4 || off%4 != 0 || off >= Size {
		return false
	}
	r := p.decode(off)
	switch r.kind {
	case regPriority:
		p.priority[r.idx] = uint8(v & MaxPriority)
		p.update()
	case regEnable:
		p.enable[r.ctx*p.words+r.idx] = uint32(v) & p.validMask(r.idx)
		p.update()
	case regThreshold:
		p.thresh[r.ctx] = uint8(v & MaxPriority)
		p.update()
	case regClaim:
		p.complete(r.ctx, uint32(v))
	}
	// The pending array is read-only; reserved registers ignore writes.
	return true
}

// check returns an error if the state breaks an invariant of the gateways
// or of the hardwired bits. Restore uses it on untrusted input; tests use
// it after every step.
func (p *PLIC) check() error {
	for w := 0; w < p.words; w++ {
		vm := p.validMask(w)
		if (p.level[w]|p.pending[w]|p.claimed[w])&^vm != 0 {
			return fmt.Errorf("source word %d has bits for sources that do not exist", w)
		}
		if p.pending[w]&p.claimed[w] != 0 {
			return fmt.Errorf("source word %d: a source is both pending and claimed", w)
		}
		if p.level[w]&^(p.pending[w]|p.claimed[w]) != 0 {
			return fmt.Errorf("source word %d: a high source is neither pending nor claimed", w)
		}
		for c := range p.lines {
			if p.enable[c*p.words+w]&^vm != 0 {
				return fmt.Errorf("context %d enables sources that do not exist", c)
			}
		}
	}
	if p.priority[0] != 0 {
		return fmt.Errorf("source 0 has priority %d", p.priority[0])
	}
	for id, pr := range p.priority {
		if pr > MaxPriority {
			return fmt.Errorf("source %d has priority %d", id, pr)
		}
	}
	for c, t := range p.thresh {
		if t > MaxPriority {
			return fmt.Errorf("context %d has threshold %d", c, t)
		}
	}
	return nil
}
