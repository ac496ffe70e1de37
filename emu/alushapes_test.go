package emu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"everett/internal/testelf"
	"everett/isa"
)

// aluShapeOps are the register-register integer ops whose lowering has
// cases by register shape (in place when rd == rs1, a host register when
// rd is cached) and the ones beside them.
var aluShapeOps = []string{"add", "sub", "xor", "or", "and", "sll", "srl", "sra",
	"slt", "sltu", "addw", "subw", "sllw", "srlw", "sraw", "mul"}

// aluShapeRegs are the registers the programs use: few, so that a hot loop
// caches most of them in host registers; a0 among them.
var aluShapeRegs = []string{"a0", "a1", "a2", "s2", "s3", "t3", "t4"}

// aluShapesProgram is a loop, run 300 times, of every op of aluShapeOps in
// every register shape (rd = rs1 ≠ rs2, rd = rs2 ≠ rs1, all three equal,
// all different, x0 as a source or the destination), registers drawn from
// seed, a0 as the second source of one op in three; every turn mixes the
// registers into s1.
func aluShapesProgram(seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0x616c75))
	pick := func() string { return aluShapeRegs[r.IntN(len(aluShapeRegs))] }
	other := func(not ...string) string {
		for {
			x := pick()
			ok := true
			for _, n := range not {
				ok = ok && x != n
			}
			if ok {
				return x
			}
		}
	}
	var body []string
	for _, op := range aluShapeOps {
		d := pick()
		s := other(d)
		if r.IntN(3) == 0 && d != "a0" {
			s = "a0"
		}
		t := other(d, s)
		for _, sh := range [][3]string{
			{d, d, s}, {d, s, d}, {d, d, d}, {d, s, t}, {d, "zero", s}, {d, s, "zero"}, {"zero", s, t},
		} {
			body = append(body, fmt.Sprintf("%s %s,%s,%s", op, sh[0], sh[1], sh[2]))
		}
	}
	r.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
	p := []string{"addi s11,zero,300"} // 80000000
	loop := DefaultRAMBase + 4
	p = append(p, body...)
	for _, x := range aluShapeRegs {
		p = append(p, "xor s1,s1,"+x)
	}
	p = append(p, "addi s11,s11,-1", fmt.Sprintf("bne s11,zero,%x", loop))
	end := DefaultRAMBase + uint64(4*len(p))
	return append(p, fmt.Sprintf("j %x", end))
}

// aluShapesBuild builds a one-hart machine running aluShapesProgram(seed)
// with registers drawn from seed.
func aluShapesBuild(t *testing.T, seed uint64) func() (*Machine, error) {
	t.Helper()
	code, err := testelf.Assemble(DefaultRAMBase, aluShapesProgram(seed)...)
	if err != nil {
		t.Fatal(err)
	}
	return func() (*Machine, error) {
		m, err := New(Config{RAMBytes: 1 << 20, Harts: 1, Quantum: 1000})
		if err != nil {
			return nil, err
		}
		if err := m.WritePhys(DefaultRAMBase, code); err != nil {
			return nil, err
		}
		h := m.harts[0]
		h.SetPC(DefaultRAMBase)
		r := rand.New(rand.NewPCG(seed, 0x72656773))
		for i := 1; i < 32; i++ {
			h.SetX(i, r.Uint64())
		}
		return m, nil
	}
}

// aluShapeSeeds is how many programs the tests below compare.
const aluShapeSeeds = 12

func TestTheEnginesAgreeOnEveryALUOpInEveryRegisterShape(t *testing.T) {
	if !JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	for seed := uint64(0); seed < aluShapeSeeds; seed++ {
		r, d, err := compareEngines(t, aluShapesBuild(t, seed), 997, 60_000)
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			t.Fatalf("seed %d: %v", seed, d)
		}
		if r.HostInsns < 30_000 {
			t.Fatalf("seed %d: %d of 60000 instructions ran as host code: the loop was not translated", seed, r.HostInsns)
		}
	}
}

// A test of the tests: a JIT that lowers one case wrong (add into a
// destination held in a host register, second source a0, done as xor) must
// make the comparison above fail, and so must one that gets the in-place
// case of sub wrong.
func TestTheALUShapeComparisonsCatchAWrongCaseOfTheLowering(t *testing.T) {
	if !JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	// Translations are shared by every machine of the process, keyed by
	// the code: each mutant runs programs of its own (seeds no other test
	// uses), so that its translations are made under it and reach no
	// other test.
	for i, m := range []struct {
		name string
		fn   func(o *op, rdCached bool) isa.Op
	}{
		{"add into a cached destination from a0 done as xor", func(o *op, rdCached bool) isa.Op {
			if o.kind == isa.ADD && rdCached && o.rs2 == 10 {
				return isa.XOR
			}
			return o.kind
		}},
		{"sub in place done as add", func(o *op, rdCached bool) isa.Op {
			if o.kind == isa.SUB && o.rd == o.rs1 && o.rs2 != o.rd {
				return isa.ADD
			}
			return o.kind
		}},
	} {
		t.Run(m.name, func(t *testing.T) {
			jitOpMutant = m.fn
			defer func() { jitOpMutant = nil }()
			for k := uint64(0); k < aluShapeSeeds; k++ {
				seed := 1000*uint64(i+1) + k
				_, d, err := compareEngines(t, aluShapesBuild(t, seed), 997, 60_000)
				if err != nil {
					t.Fatal(err)
				}
				if d != nil {
					return // caught
				}
			}
			t.Fatalf("no program of %d diverged under the mutant", aluShapeSeeds)
		})
	}
}
