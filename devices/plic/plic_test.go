package plic

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"everett/hw"
)

// line records the level a context drives.
type line struct {
	high    bool
	changes int
}

func (l *line) SetLevel(high bool) {
	if high != l.high {
		l.changes++
	}
	l.high = high
}

// rig is a PLIC with recorded context lines.
type rig struct {
	t     testing.TB
	p     *PLIC
	lines []*line
}

func newRig(t testing.TB, sources, contexts int) *rig {
	r := &rig{t: t}
	var ls []hw.IRQLine
	for i := 0; i < contexts; i++ {
		l := &line{}
		r.lines = append(r.lines, l)
		ls = append(ls, l)
	}
	r.p = New(sources, ls)
	return r
}

func (r *rig) rd(off uint64) uint32 {
	r.t.Helper()
	v, ok := r.p.Read(off, 4)
	if !ok {
		r.t.Fatalf("read %#x: access fault", off)
	}
	return uint32(v)
}

func (r *rig) wr(off uint64, v uint32) {
	r.t.Helper()
	if !r.p.Write(off, 4, uint64(v)) {
		r.t.Fatalf("write %#x: access fault", off)
	}
}

func prioOff(id int) uint64    { return uint64(4 * id) }
func pendOff(id int) uint64    { return pendingBase + uint64(4*(id/32)) }
func enOff(c, id int) uint64   { return enableBase + enableStride*uint64(c) + uint64(4*(id/32)) }
func threshOff(c int) uint64   { return contextBase + contextStride*uint64(c) }
func claimRegOff(c int) uint64 { return contextBase + contextStride*uint64(c) + claimOff }

// enable sets source id's enable bit for context c, keeping the others.
func (r *rig) enable(c, id int) {
	r.t.Helper()
	r.wr(enOff(c, id), r.rd(enOff(c, id))|1<<(id%32))
}

func (r *rig) pendingBit(id int) bool { return r.rd(pendOff(id))>>(id%32)&1 != 0 }

func (r *rig) claim(c int) int { r.t.Helper(); return int(r.rd(claimRegOff(c))) }

func (r *rig) complete(c, id int) { r.t.Helper(); r.wr(claimRegOff(c), uint32(id)) }

func (r *rig) mustCheck() {
	r.t.Helper()
	if err := r.p.check(); err != nil {
		r.t.Fatal(err)
	}
	for c, l := range r.lines {
		if want := r.p.eip(c); l.high != want || r.p.out[c] != want {
			r.t.Fatalf("context %d: line %v, recorded %v, EIP %v", c, l.high, r.p.out[c], want)
		}
	}
}

func TestRegistersFollowTheMemoryMap(t *testing.T) {
	// PLIC spec "Memory Map", "Interrupt Priorities", "Interrupt Pending
	// Bits", "Interrupt Enables", "Priority Thresholds".
	tests := []struct {
		name  string
		off   uint64
		write uint32
		want  uint32
	}{
		{"a source priority keeps the three implemented bits", prioOff(5), 0xff, 7},
		{"a source priority reads back what was written", prioOff(40), 3, 3},
		{"the last source's priority is implemented", prioOff(40), 5, 5},
		{"source 0's priority is reserved and reads zero", prioOff(0), 7, 0},
		{"a priority beyond the last source reads zero", prioOff(41), 7, 0},
		{"a priority register at the end of the block reads zero", prioOff(1023), 7, 0},
		{"the pending array is read-only", pendOff(1), 0xffffffff, 0},
		{"pending words beyond the last source read zero", pendingBase + 0x7c, 0xffffffff, 0},
		{"enable bit 0 of word 0 is hardwired to zero", enOff(0, 0), 0xffffffff, 0xfffffffe},
		{"enable bits above the last source are hardwired to zero", enOff(1, 32), 0xffffffff, 0x1ff},
		{"enable words beyond the last source read zero", enOff(1, 64), 0xffffffff, 0},
		{"enables of a context that does not exist read zero", enOff(2, 1), 0xffffffff, 0},
		{"a threshold keeps the three implemented bits", threshOff(1), 0xfa, 2},
		{"a threshold of a context that does not exist reads zero", threshOff(2), 7, 0},
		{"the reserved word after claim/complete reads zero", threshOff(0) + 8, 7, 0},
		{"the reserved gap before the context block reads zero", contextBase - 4, 7, 0},
		{"the last word of the window reads zero", Size - 4, 7, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, 40, 2)
			r.wr(tc.off, tc.write)
			if got := r.rd(tc.off); got != tc.want {
				t.Errorf("read %#x = %#x, want %#x", tc.off, got, tc.want)
			}
			r.mustCheck()
		})
	}
}

func TestOnlyAlignedWordAccessesAreDecoded(t *testing.T) {
	// PLIC spec "Memory Map": the registers are 32 bits wide and accessed
	// with LW and SW.
	r := newRig(t, 8, 2)
	for _, a := range []struct {
		name string
		off  uint64
		size int
	}{
		{"a byte access", prioOff(1), 1},
		{"a halfword access", prioOff(1), 2},
		{"a doubleword access", prioOff(2), 8},
		{"a misaligned word access", prioOff(1) + 2, 4},
		{"an access past the window", Size, 4},
	} {
		t.Run(a.name+" faults", func(t *testing.T) {
			if _, ok := r.p.Read(a.off, a.size); ok {
				t.Error("read decoded")
			}
			if r.p.Write(a.off, a.size, 7) {
				t.Error("write decoded")
			}
		})
	}
	if got := r.rd(prioOff(1)); got != 0 {
		t.Errorf("priority changed by undecoded writes: %d", got)
	}
}

func TestGatewayTurnsALevelIntoOneRequest(t *testing.T) {
	// PLIC spec "Interrupt Gateways", level-sensitive sources.
	tests := []struct {
		name        string
		run         func(r *rig, src hw.IRQLine)
		wantPending bool
		wantClaimed bool
	}{
		{"a rising wire sets the pending bit", func(r *rig, s hw.IRQLine) {
			s.SetLevel(true)
		}, true, false},
		{"a wire that drops before the claim leaves the request pending", func(r *rig, s hw.IRQLine) {
			s.SetLevel(true)
			s.SetLevel(false)
		}, true, false},
		{"a claim clears the pending bit and leaves the gateway busy", func(r *rig, s hw.IRQLine) {
			s.SetLevel(true)
			if got := r.claim(0); got != 3 {
				r.t.Fatalf("claim = %d, want 3", got)
			}
		}, false, true},
		{"a wire toggled while claimed forwards no new request", func(r *rig, s hw.IRQLine) {
			s.SetLevel(true)
			r.claim(0)
			s.SetLevel(false)
			s.SetLevel(true)
		}, false, true},
		{"completion with the wire still high forwards a new request", func(r *rig, s hw.IRQLine) {
			s.SetLevel(true)
			r.complete(0, r.claim(0))
		}, true, false},
		{"completion with the wire low leaves the source idle", func(r *rig, s hw.IRQLine) {
			s.SetLevel(true)
			id := r.claim(0)
			s.SetLevel(false)
			r.complete(0, id)
		}, false, false},
		{"a completion without a claim does not invent a request", func(r *rig, s hw.IRQLine) {
			r.complete(0, 3)
		}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, 8, 2)
			r.wr(prioOff(3), 1)
			r.enable(0, 3)
			tc.run(r, r.p.Source(3))
			if got := r.pendingBit(3); got != tc.wantPending {
				t.Errorf("pending = %v, want %v", got, tc.wantPending)
			}
			if got := bit(r.p.claimed, 3); got != tc.wantClaimed {
				t.Errorf("claimed = %v, want %v", got, tc.wantClaimed)
			}
			r.mustCheck()
		})
	}
}

func TestClaimPicksTheHighestPriorityPendingEnabledSource(t *testing.T) {
	// PLIC spec "Interrupt Claim Process" and "Interrupt Identifiers".
	tests := []struct {
		name      string
		prio      map[int]uint32 // source -> priority (all are raised)
		disabled  []int
		threshold uint32
		want      []int // successive claims, then 0
	}{
		{"the higher priority is claimed first", map[int]uint32{2: 1, 9: 5}, nil, 0, []int{9, 2}},
		{"ties go to the lowest id", map[int]uint32{7: 3, 4: 3, 33: 3}, nil, 0, []int{4, 7, 33}},
		{"a source of priority 0 is never claimed", map[int]uint32{5: 0, 6: 2}, nil, 0, []int{6}},
		{"a disabled source is not claimed", map[int]uint32{5: 7, 6: 1}, []int{5}, 0, []int{6}},
		{"the threshold does not affect a claim", map[int]uint32{5: 2, 40: 7}, nil, 7, []int{40, 5}},
		{"a claim with nothing pending returns zero", nil, nil, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, 40, 2)
			r.wr(threshOff(0), tc.threshold)
			for id := 1; id <= 40; id++ {
				pr, ok := tc.prio[id]
				if !ok {
					continue
				}
				r.wr(prioOff(id), pr)
				r.enable(0, id)
				r.p.Source(id).SetLevel(true)
			}
			for _, id := range tc.disabled {
				r.wr(enOff(0, id), r.rd(enOff(0, id))&^(1<<(id%32)))
			}
			for i, want := range append(tc.want, 0) {
				if got := r.claim(0); got != want {
					t.Fatalf("claim %d = %d, want %d", i, got, want)
				}
				if want != 0 && r.pendingBit(want) {
					t.Errorf("source %d still pending after its claim", want)
				}
				r.mustCheck()
			}
		})
	}
}

func TestCompletionIsIgnoredUnlessTheSourceIsEnabled(t *testing.T) {
	// PLIC spec "Interrupt Completion": "If the completion ID does not
	// match an interrupt source that is currently enabled for the target,
	// the completion is silently ignored."
	tests := []struct {
		name        string
		ctx, id     int
		wantClaimed bool
	}{
		{"completion by the claiming context is taken", 0, 3, false},
		{"completion by another context that enables the source is taken", 1, 3, false},
		{"completion by a context that does not enable the source is ignored", 2, 3, true},
		{"completion of id 0 is ignored", 0, 0, true},
		{"completion of an id beyond the last source is ignored", 0, 1000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, 8, 3)
			r.wr(prioOff(3), 1)
			r.enable(0, 3)
			r.enable(1, 3)
			src := r.p.Source(3)
			src.SetLevel(true)
			if got := r.claim(0); got != 3 {
				t.Fatalf("claim = %d", got)
			}
			r.complete(tc.ctx, tc.id)
			if got := bit(r.p.claimed, 3); got != tc.wantClaimed {
				t.Errorf("claimed = %v, want %v", got, tc.wantClaimed)
			}
			// With the wire still high, a taken completion makes it pending.
			if got := r.pendingBit(3); got == tc.wantClaimed {
				t.Errorf("pending = %v after completion", got)
			}
			r.mustCheck()
		})
	}
}

func TestNotificationNeedsAPriorityAboveTheThreshold(t *testing.T) {
	// PLIC spec "Interrupt Notifications" and "Priority Thresholds": the
	// PLIC masks interrupts of a priority less than or equal to the
	// threshold.
	tests := []struct {
		name      string
		prio      uint32
		threshold uint32
		enabled   bool
		want      bool
	}{
		{"threshold 0 permits priority 1", 1, 0, true, true},
		{"a priority equal to the threshold is masked", 3, 3, true, false},
		{"a priority above the threshold notifies", 4, 3, true, true},
		{"threshold 7 masks everything", 7, 7, true, false},
		{"priority 0 never interrupts", 0, 0, true, false},
		{"a disabled source does not notify", 5, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, 8, 2)
			r.wr(prioOff(2), tc.prio)
			r.wr(threshOff(1), tc.threshold)
			if tc.enabled {
				r.enable(1, 2)
			}
			r.p.Source(2).SetLevel(true)
			if got := r.lines[1].high; got != tc.want {
				t.Errorf("context 1 line = %v, want %v", got, tc.want)
			}
			if r.lines[0].high {
				t.Error("context 0 notified without enabling the source")
			}
			r.mustCheck()
		})
	}
}

func TestNotificationFollowsEveryStateChange(t *testing.T) {
	// PLIC spec "Interrupt Notifications": EIP changes with source state,
	// with claims, and with register writes; interrupts are multicast.
	r := newRig(t, 8, 2)
	src := r.p.Source(1)
	r.wr(prioOff(1), 2)
	r.enable(0, 1)
	r.enable(1, 1)
	src.SetLevel(true)
	if !r.lines[0].high || !r.lines[1].high {
		t.Fatal("a pending source enabled in two contexts must notify both")
	}
	r.wr(threshOff(0), 2)
	if r.lines[0].high {
		t.Error("raising the threshold to the priority must lower the line")
	}
	r.wr(threshOff(0), 0)
	r.wr(prioOff(1), 0)
	if r.lines[0].high || r.lines[1].high {
		t.Error("priority 0 must lower every line")
	}
	r.wr(prioOff(1), 2)
	if got := r.claim(1); got != 1 {
		t.Fatalf("claim = %d", got)
	}
	if r.lines[0].high || r.lines[1].high {
		t.Error("after the claim nothing is pending; both lines must drop")
	}
	r.complete(1, 1)
	if !r.lines[0].high || !r.lines[1].high {
		t.Error("completing with the wire high must notify again")
	}
	r.mustCheck()
}

func TestSourcePanicsForAnIdThePLICDoesNotHave(t *testing.T) {
	r := newRig(t, 8, 1)
	for _, id := range []int{0, 9, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Source(%d) did not panic", id)
				}
			}()
			r.p.Source(id)
		}()
	}
}

// drive performs one random guest or device action, as the hostile test
// and the restore test need.
func drive(r *rig, rng *rand.Rand) {
	p := r.p
	switch rng.IntN(6) {
	case 0:
		p.Source(1 + rng.IntN(p.nsrc)).SetLevel(rng.IntN(2) == 0)
	default:
		sizes := []int{1, 2, 4, 8}
		size := sizes[rng.IntN(4)]
		var off uint64
		switch rng.IntN(6) {
		case 0:
			off = rng.Uint64N(Size + 16)
		case 1:
			off = rng.Uint64N(0x1000)
		case 2:
			off = pendingBase + rng.Uint64N(0x100)
		case 3:
			off = enableBase + rng.Uint64N(uint64(len(r.lines)+1)*enableStride)
		default:
			off = contextBase + contextStride*rng.Uint64N(uint64(len(r.lines)+1)) + rng.Uint64N(12)
		}
		if rng.IntN(4) != 0 {
			off &^= uint64(size - 1)
			if size != 4 && rng.IntN(2) == 0 {
				size = 4
				off &^= 3
			}
		}
		if rng.IntN(2) == 0 {
			p.Read(off, size)
		} else {
			v := rng.Uint64()
			if rng.IntN(2) == 0 {
				v &= 0x3ff
			}
			p.Write(off, size, v)
		}
	}
}

func TestHostileGuestCannotBreakThePLIC(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []struct{ sources, contexts int }{{1, 1}, {31, 2}, {32, 3}, {95, 8}, {MaxSources, 4}} {
		r := newRig(t, shape.sources, shape.contexts)
		for i := 0; i < 20000; i++ {
			drive(r, rng)
			r.mustCheck()
		}
	}
}

func save(p *PLIC) []byte {
	var e hw.Encoder
	p.Save(&e)
	return append([]byte(nil), e.Bytes()...)
}

func TestSaveRestoreRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := newRig(t, 70, 4)
	for i := 0; i < 5000; i++ {
		drive(a, rng)
	}
	first := save(a.p)
	b := newRig(t, 70, 4)
	if err := b.p.Restore(hw.NewDecoder(first)); err != nil {
		t.Fatal(err)
	}
	b.mustCheck()
	if second := save(b.p); !bytes.Equal(first, second) {
		t.Fatal("Save after Restore differs from the saved bytes")
	}
	for c := range a.lines {
		if a.lines[c].high != b.lines[c].high {
			t.Fatalf("context %d: restored line %v, original %v", c, b.lines[c].high, a.lines[c].high)
		}
	}
	// The restored PLIC behaves like the original under the same inputs.
	ra, rb := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 5000; i++ {
		drive(a, ra)
		drive(b, rb)
		for c := range a.lines {
			if a.lines[c].high != b.lines[c].high {
				t.Fatalf("step %d: context %d diverged", i, c)
			}
		}
	}
	if !bytes.Equal(save(a.p), save(b.p)) {
		t.Fatal("states diverged")
	}
}

func TestRestoreRejectsBadInput(t *testing.T) {
	r := newRig(t, 40, 2)
	r.wr(prioOff(3), 4)
	r.enable(1, 3)
	r.p.Source(3).SetLevel(true)
	good := save(r.p)
	corrupt := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	hdr := len(saveTag) + 8 + 8 // tag (length + text), source and context counts
	tests := []struct {
		name string
		in   []byte
	}{
		{"an empty input", nil},
		{"a wrong tag", corrupt(func(b []byte) { b[8] = 'x' })},
		{"a different number of sources", corrupt(func(b []byte) { b[len(saveTag)+8]++ })},
		{"a different number of contexts", corrupt(func(b []byte) { b[len(saveTag)+12]++ })},
		{"a priority above the maximum", corrupt(func(b []byte) { b[hdr] = 8 })},
		{"unknown source flags", corrupt(func(b []byte) { b[hdr+1] = 8 })},
		{"a source both pending and claimed", corrupt(func(b []byte) { b[hdr+2*2+1] = flagPending | flagClaimed })},
		{"a high source neither pending nor claimed", corrupt(func(b []byte) { b[hdr+2*0+1] = flagLevel })},
		{"a threshold above the maximum", corrupt(func(b []byte) { b[hdr+2*40] = 9 })},
		{"an enable bit for source 0", corrupt(func(b []byte) { b[hdr+2*40+1] |= 1 })},
		{"an enable bit beyond the last source", corrupt(func(b []byte) { b[hdr+2*40+1+7] = 0x80 })},
	}
	for n := 0; n < len(good); n++ {
		tests = append(tests, struct {
			name string
			in   []byte
		}{"a truncated input", good[:n]})
	}
	for _, tc := range tests {
		q := newRig(t, 40, 2)
		q.wr(prioOff(9), 6)
		before := save(q.p)
		err := q.p.Restore(hw.NewDecoder(tc.in))
		if !errors.Is(err, hw.ErrCorrupt) {
			t.Errorf("%s: Restore error = %v, want ErrCorrupt", tc.name, err)
		}
		if !bytes.Equal(before, save(q.p)) {
			t.Errorf("%s: a failed Restore changed the PLIC", tc.name)
		}
	}
}

func FuzzRestore(f *testing.F) {
	r := newRig(f, 40, 2)
	f.Add(save(r.p))
	r.wr(prioOff(3), 4)
	r.enable(1, 3)
	r.p.Source(3).SetLevel(true)
	f.Add(save(r.p))
	f.Fuzz(func(t *testing.T, b []byte) {
		q := newRig(t, 40, 2)
		if err := q.p.Restore(hw.NewDecoder(b)); err != nil {
			if !errors.Is(err, hw.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		q.mustCheck()
		if again := save(q.p); !bytes.Equal(again, b[:len(again)]) {
			t.Fatal("accepted state does not save back to its input")
		}
	})
}
