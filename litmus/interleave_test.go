package litmus

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"everett/isa"
)

// A second SC oracle, operational rather than axiomatic: every
// interleaving of the threads' instructions over one memory, explored
// depth first with each machine state visited once. It shares only the
// arithmetic helpers with oracle.go, so the two check each other.

// ilState is one state of the interleaving search.
type ilState struct {
	pc   []uint64
	x    [][32]uint64
	resv []uint64 // per thread: reserved address + 1, or 0
	back []int    // backward jumps taken, per thread (loops are bounded as in the oracle)
	mem  []byte
}

func (s *ilState) key() string {
	var b strings.Builder
	for i := range s.pc {
		fmt.Fprintf(&b, "%x,%x,%d|", s.pc[i], s.resv[i], s.back[i])
		for _, v := range s.x[i] {
			fmt.Fprintf(&b, "%x,", v)
		}
	}
	b.Write(s.mem)
	return b.String()
}

func (s *ilState) clone() *ilState {
	c := &ilState{pc: append([]uint64(nil), s.pc...), x: append([][32]uint64(nil), s.x...),
		resv: append([]uint64(nil), s.resv...), back: append([]int(nil), s.back...), mem: append([]byte(nil), s.mem...)}
	return c
}

// interleavings returns the final states (as Reach.States keys) of every
// interleaving of t.
func interleavings(t *Test) (map[string]bool, error) {
	p, err := Layout(t)
	if err != nil {
		return nil, err
	}
	o := &oracle{t: t, p: p}
	if err := o.setup(); err != nil {
		return nil, err
	}
	n := len(o.code)
	s0 := &ilState{pc: make([]uint64, n), x: make([][32]uint64, n), resv: make([]uint64, n), back: make([]int, n),
		mem: append([]byte(nil), o.init...)}
	for i := range n {
		s0.pc[i] = p.Threads[i].Entry
	}
	for _, r := range t.Regs {
		if r.Reg > 0 && r.Reg < 32 {
			s0.x[r.Thread][r.Reg] = p.regValue(r)
		}
	}
	locs := observed(t)
	out := map[string]bool{}
	seen := map[string]bool{}
	var visit func(s *ilState) error
	visit = func(s *ilState) error {
		k := s.key()
		if seen[k] {
			return nil
		}
		seen[k] = true
		if len(seen) > 2_000_000 {
			return fmt.Errorf("more than 2e6 states")
		}
		done := true
		for th := range n {
			if s.pc[th] == p.Threads[th].Entry+4*uint64(len(o.code[th])) {
				continue
			}
			done = false
			nexts, err := ilStep(o, s, th)
			if err != nil {
				return err
			}
			for _, c := range nexts {
				if err := visit(c); err != nil {
					return err
				}
			}
		}
		if done {
			key := make([]byte, 8*len(locs))
			for i, l := range locs {
				var v uint64
				if l.Thread >= 0 {
					v = extend(s.x[l.Thread][l.Reg], t.regTypeOf(l.Thread, l.Reg))
				} else {
					vr := t.Var(l.Var)
					var b [8]byte
					off := p.addrOf(l.Var) - o.lo
					copy(b[:], s.mem[off:off+uint64(vr.Type.Bytes)])
					v = extend(binary.LittleEndian.Uint64(b[:]), vr.Type)
				}
				binary.LittleEndian.PutUint64(key[8*i:], v)
			}
			if t.Filter == nil || o.holds(t.Filter, locs, string(key)) {
				out[string(key)] = true
			}
		}
		return nil
	}
	return out, visit(s0)
}

// ilStep runs one instruction of thread th from s: the states it may lead
// to (two for an SC that may succeed, none for a path past its loop
// bound).
func ilStep(o *oracle, s *ilState, th int) ([]*ilState, error) {
	entry := o.p.Threads[th].Entry
	in := o.code[th][(s.pc[th]-entry)/4]
	c := s.clone()
	x := &c.x[th]
	rs1, rs2 := x[in.Rs1], x[in.Rs2]
	pc := s.pc[th]
	next := pc + 4
	set := func(v uint64) {
		if in.Rd != 0 {
			x[in.Rd] = v
		}
	}
	// A plain load or store may be misaligned (each instruction is
	// performed whole); an atomic or annotated one traps.
	plain := !in.AQ && !in.RL && (in.Op >= isa.LB && in.Op <= isa.LWU || in.Op >= isa.SB && in.Op <= isa.SD)
	mem := func(a uint64, size int) (int, error) {
		if a < o.lo || a+uint64(size) > o.hi || a&uint64(size-1) != 0 && !plain {
			return 0, fmt.Errorf("P%d: access %#x", th, a)
		}
		return int(a - o.lo), nil
	}
	read := func(off, size int) uint64 {
		var b [8]byte
		copy(b[:], c.mem[off:off+size])
		return binary.LittleEndian.Uint64(b[:])
	}
	write := func(st *ilState, off, size int, v uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		copy(st.mem[off:off+size], b[:size])
		for t2 := range st.resv { // a store ends every reservation it touches
			if r := st.resv[t2]; r != 0 && r-1 < o.lo+uint64(off+size) && o.lo+uint64(off) < r-1+8 {
				st.resv[t2] = 0
			}
		}
	}
	out := []*ilState{c}
	switch op := in.Op; {
	case op == isa.LUI:
		set(uint64(in.Imm))
	case op == isa.AUIPC:
		set(pc + uint64(in.Imm))
	case op == isa.ADDI || op == isa.XORI || op == isa.ORI || op == isa.ANDI || op == isa.SLTI || op == isa.SLTIU ||
		op == isa.SLLI || op == isa.SRLI || op == isa.SRAI || op == isa.ADDIW:
		set(aluImm(op, rs1, in.Imm))
	case op == isa.ADD || op == isa.SUB || op == isa.XOR || op == isa.OR || op == isa.AND || op == isa.SLL ||
		op == isa.SRL || op == isa.SRA || op == isa.SLT || op == isa.SLTU || op == isa.ADDW || op == isa.SUBW || op == isa.MUL:
		set(aluReg(op, rs1, rs2))
	case op == isa.JAL:
		set(next)
		next = pc + uint64(in.Imm)
	case op == isa.JALR:
		set(next)
		next = (rs1 + uint64(in.Imm)) &^ 1
	case op >= isa.BEQ && op <= isa.BGEU:
		if branchTaken(op, rs1, rs2) {
			next = pc + uint64(in.Imm)
		}
	case op == isa.FENCE || op == isa.FENCE_I:
	case (op >= isa.LB && op <= isa.LWU) || (op >= isa.LB_AQ && op <= isa.LD_AQ):
		size, kind := loadShape(op)
		off, err := mem(rs1+uint64(in.Imm), size)
		if err != nil {
			return nil, err
		}
		set(extendLoad(kind, read(off, size)))
	case (op >= isa.SB && op <= isa.SD) || (op >= isa.SB_RL && op <= isa.SD_RL):
		size := storeSize(op)
		off, err := mem(rs1+uint64(in.Imm), size)
		if err != nil {
			return nil, err
		}
		write(c, off, size, rs2)
	case op == isa.LR_W || op == isa.LR_D:
		size := amoSize(op)
		off, err := mem(rs1, size)
		if err != nil {
			return nil, err
		}
		set(extendLoad(amoKind(size), read(off, size)))
		c.resv[th] = rs1 + 1
	case op == isa.SC_W || op == isa.SC_D:
		size := amoSize(op)
		off, err := mem(rs1, size)
		if err != nil {
			return nil, err
		}
		if c.resv[th] == rs1+1 { // success, in a state of its own
			w := c.clone()
			w.resv[th] = 0
			w.x[th][in.Rd] = 0
			write(w, off, size, rs2)
			out = append(out, w)
		}
		c.resv[th] = 0
		set(1) // failure: always possible
	case (op >= isa.AMOSWAP_W && op <= isa.AMOMAXU_W) || (op >= isa.AMOSWAP_D && op <= isa.AMOMAXU_D):
		size := amoSize(op)
		off, err := mem(rs1, size)
		if err != nil {
			return nil, err
		}
		old := read(off, size)
		write(c, off, size, amoResult(op, old, rs2))
		set(extendLoad(amoKind(size), old))
	default:
		return nil, fmt.Errorf("P%d: %s", th, isa.Disasm(in, pc))
	}
	for _, st := range out {
		st.x[th][0] = 0
		st.pc[th] = next
		if next <= pc {
			if st.back[th]++; st.back[th] > oracleBackMax {
				return nil, nil
			}
		}
	}
	return out, nil
}

// The interleaving enumerator and the axiomatic oracle agree on what SC
// allows, state for state, on our tests and a sample of the public suite;
// and no state the sc runner shows is one the enumerator cannot reach.
func TestLitmusEveryInterleavingGivesTheStatesTheSCOracleAllows(t *testing.T) {
	files, _ := filepath.Glob("../testdata/litmus/*.litmus")
	files = append(files, suiteSample(suiteFiles(t), 40)...)
	for _, f := range files {
		tt, err := parseAndLayout(f)
		if err != nil {
			continue // the known-bad suite files
		}
		il, err := interleavings(tt)
		if err != nil {
			t.Errorf("%s: interleavings: %v", f, err)
			continue
		}
		ax, err := Reachable(tt, ModelSC)
		if err != nil {
			t.Errorf("%s: oracle: %v", f, err)
			continue
		}
		if ax.Truncated {
			continue // the two bound loops differently
		}
		for k := range il {
			if !ax.States[k] {
				t.Errorf("%s: an interleaving reaches a state the sc oracle does not list", f)
			}
		}
		for k := range ax.States {
			if !il[k] {
				t.Errorf("%s: the sc oracle lists a state no interleaving reaches", f)
			}
		}
		res, err := Run(tt, Options{Model: ModelSC, Runs: 200, Seed: 3, Jobs: 1})
		if err != nil {
			t.Errorf("%s: run: %v", f, err)
			continue
		}
		if bad := unreachable(res, &Reach{States: il}); len(bad) > 0 {
			t.Errorf("%s: sc shows states no interleaving reaches: %q", f, bad)
		}
	}
}

// The enumerator is no rubber stamp: of SB's four final states it reaches
// the three SC allows and not the one with both loads 0.
func TestLitmusInterleavingsOfSBMissOnlyTheStoreBufferedState(t *testing.T) {
	il, err := interleavings(loadTest(t, "SB"))
	if err != nil {
		t.Fatal(err)
	}
	key := func(a, b uint64) string {
		var k [16]byte
		binary.LittleEndian.PutUint64(k[:], a)
		binary.LittleEndian.PutUint64(k[8:], b)
		return string(k[:])
	}
	for _, c := range []struct {
		a, b uint64
		want bool
	}{{0, 0, false}, {0, 1, true}, {1, 0, true}, {1, 1, true}} {
		if il[key(c.a, c.b)] != c.want {
			t.Errorf("SB with loads %d and %d: reached %v, want %v", c.a, c.b, !c.want, c.want)
		}
	}
	if len(il) != 3 {
		t.Errorf("SB: %d states, want 3", len(il))
	}
}
