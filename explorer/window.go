package explorer

import (
	"everett/emu"
	"everett/isa"
)

// The trace window: the last instructions before a point of a replayed
// universe, one Step each (everett replay --trace-window, and the history
// of a bisection).

// Step is one executed instruction of a trace.
type Step struct {
	ICount  uint64 `json:"icount"`
	Node    int    `json:"node"`
	Hart    int    `json:"hart"`
	PC      uint64 `json:"pc"`
	Raw     uint32 `json:"raw"`
	Disasm  string `json:"disasm"`
	Symbol  string `json:"symbol,omitempty"`
	Trapped bool   `json:"trapped,omitempty"`
}

// trace single-steps to instruction count n, recording each instruction.
func (rp *replayer) trace(n uint64) []Step {
	u := rp.u
	var steps []Step
	syms := symbolizer(rp.spec)
	for i, nd := range u.nodes {
		if nd.b == nil {
			continue
		}
		node := i
		m := nd.b
		m.Tracer = func(h *emu.Hart, pc uint64, raw uint32, trapped bool) {
			in := isa.Decode(raw)
			st := Step{ICount: u.ICount(), Node: node, Hart: h.ID, PC: pc, Raw: raw, Disasm: isa.Disasm(in, pc), Trapped: trapped}
			if in.Len == 2 {
				st.Raw &= 0xffff
			}
			st.Symbol = syms(node, pc)
			steps = append(steps, st)
		}
	}
	rp.advance(n)
	for _, nd := range u.nodes {
		if nd.b != nil {
			nd.b.Tracer = nil
		}
	}
	return steps
}

// symbolizer returns a function naming the symbol at or below a pc (see
// Spec.symbolize).
func symbolizer(s *Spec) func(node int, pc uint64) string { return s.symbolize }

// TraceWindow replays the report's universe and returns the last k
// instructions up to instruction count end (0: the report's count).
func TraceWindow(r *Report, end uint64, k int) ([]Step, error) {
	if end == 0 {
		end = r.ICount
	}
	skip := uint64(0)
	if uint64(k) < end {
		skip = end - uint64(k)
	}
	rp, err := newReplayerSkip(r, nil, skip, true)
	if err != nil {
		return nil, err
	}
	if uint64(k) < end {
		rp.advance(end - uint64(k))
	}
	return rp.trace(end), nil
}
