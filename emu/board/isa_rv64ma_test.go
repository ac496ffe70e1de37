package board_test

import (
	"fmt"
	"strings"
	"testing"
)

// The RV64M and RV64A parts of the ISA suite (see isa_suite_test.go).

const (
	min64 = 0x8000000000000000
	ones  = 0xffffffffffffffff
	min32 = 0xffffffff80000000 // the 32-bit minimum, sign-extended
)

func rv64mCases() []isaCase {
	var cs []isaCase
	ops := []string{"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu",
		"mulw", "divw", "divuw", "remw", "remuw"}
	for _, op := range ops {
		for _, a := range isaInts {
			for _, b := range isaInts {
				cs = append(cs, rr(op, a, b))
			}
		}
	}
	// RISC-V unprivileged ISA 20191213, 7.2, table 7.1: division by zero
	// and the one overflow; the W forms use the low 32 bits of both
	// operands and sign-extend the 32-bit result, even for DIVUW and REMUW.
	const x = 0x123456789abcdef0
	cs = append(cs,
		withWant(rr("div", x, 0), ones),
		withWant(rr("divu", x, 0), ones),
		withWant(rr("rem", x, 0), x),
		withWant(rr("remu", x, 0), x),
		withWant(rr("div", min64, ones), min64),
		withWant(rr("rem", min64, ones), 0),
		withWant(rr("divw", x, 0), ones),
		withWant(rr("divuw", x, 0), ones),
		withWant(rr("remw", x, 0), 0xffffffff9abcdef0),
		withWant(rr("remuw", x, 0), 0xffffffff9abcdef0),
		withWant(rr("divw", 0x80000000, ones), min32), // upper bits of rs1 are ignored
		withWant(rr("divw", 0x1234567880000000&^0xffffffff|0x80000000, 0xffffffff), min32),
		withWant(rr("remw", min32, ones), 0),
		withWant(rr("divuw", 0xfffffffe, 0x100000001), 0xfffffffffffffffe), // rs2 = 1 in its low word
		withWant(rr("mulw", 0x10000, 0x10000), 0),
		withWant(rr("mulw", 0x7fffffff, 2), 0xfffffffffffffffe),
		withWant(rr("mulh", min64, min64), 0x4000000000000000),
		withWant(rr("mulhu", ones, ones), 0xfffffffffffffffe),
		withWant(rr("mulhsu", ones, ones), ones),                       // -1 * (2^64-1): high word -1
		withWant(rr("div", 7, 0xfffffffffffffffe), 0xfffffffffffffffd), // rounds toward zero
		withWant(rr("rem", 0xfffffffffffffff9, 2), ones),               // the sign of the dividend
	)
	for _, op := range ops {
		cs = append(cs, isaCase{name: op + " into x0 leaves x0 zero", set: []isaReg{{"a1", 7}, {"a2", 0}},
			lines: []string{op + " zero,a1,a2"}, outs: []string{"zero"}, want: []uint64{0}})
	}
	return cs
}

// isaMemPairs are (memory, operand) pairs for the AMOs: both signs, both
// halves of the doubleword set, so that a .w AMO's sign extension and
// its ignoring of the upper word show.
var isaMemPairs = [][2]uint64{
	{0, 0}, {5, 3}, {0x7fffffff, 1}, {0xffffffff80000000, 0x7fffffff}, {0x123456789abcdef0, 0xfedcba9876543210},
	{ones, 1}, {min64, ones}, {0x00000001ffffffff, 0x80000000}, {0xaaaaaaaa55555555, 0x5555555580000001},
}

func rv64aCases() []isaCase {
	var cs []isaCase
	amos := []string{"amoswap", "amoadd", "amoxor", "amoand", "amoor", "amomin", "amomax", "amominu", "amomaxu"}
	for _, w := range []string{".w", ".d"} {
		for _, op := range amos {
			for i, p := range isaMemPairs {
				ord := []string{"", ".aq", ".rl", ".aqrl"}[i%4]
				// The word AMOs act on the low word of the doubleword at
				// a0 (little-endian): the high word must stay; the word
				// at a0+4 is tried too.
				for _, off := range []int{0, 4} {
					if w == ".d" && off == 4 {
						continue
					}
					cs = append(cs, isaCase{
						name:  fmt.Sprintf("%s%s%s on %#x with %#x at offset %d", op, w, ord, p[0], p[1], off),
						set:   []isaReg{{"a1", p[0]}, {"a2", p[1]}},
						lines: []string{"sd a1,0(a0)", fmt.Sprintf("addi a3,a0,%d", off), fmt.Sprintf("%s%s%s a4,a2,(a3)", op, w, ord), "ld a5,0(a0)"},
						outs:  []string{"a4", "a5"},
					})
				}
			}
			cs = append(cs, isaCase{
				name:  op + w + " into x0 still writes memory",
				set:   []isaReg{{"a1", 6}, {"a2", 3}},
				lines: []string{"sd a1,0(a0)", fmt.Sprintf("%s%s zero,a2,(a0)", op, w), "ld a5,0(a0)"},
				outs:  []string{"zero", "a5"},
			})
		}
	}
	// LR/SC (unprivileged ISA 20191213, 8.2). Each case first executes
	// an SC to a scratch doubleword (a0+64): whatever it does, it
	// invalidates any reservation this hart holds. A failed SC writes a
	// nonzero rd and no memory. a0+128 lies in another 64-byte block
	// than a0, so outside the reservation set of any implementation whose
	// sets are at most that large (everett's and QEMU's hold the LR's
	// address only); the set's size is the implementation's choice (8.2).
	clear := []string{"addi t1,a0,64", "sc.d t2,a1,(t1)"}
	for _, w := range []string{".w", ".d"} {
		lr, sc := "lr"+w, "sc"+w
		for _, v := range []uint64{0x123456789abcdef0, 0xfedcba9880000000, 0x7fffffff} {
			cs = append(cs, isaCase{
				name:  fmt.Sprintf("%s then %s to the same address succeeds (memory %#x)", lr, sc, v),
				set:   []isaReg{{"a1", v}, {"a2", 0x1111222233334444}},
				lines: append(append([]string{"sd a1,0(a0)"}, clear...), lr+" a4,(a0)", sc+" a5,a2,(a0)", "ld a3,0(a0)"),
				outs:  []string{"a4", "a5", "a3"},
			})
		}
		cs = append(cs,
			isaCase{
				name:  sc + " without a reservation fails and writes nothing",
				set:   []isaReg{{"a1", 42}, {"a2", 7}},
				lines: append(append([]string{"sd a1,0(a0)"}, clear...), sc+" a5,a2,(a0)", "sltu a5,zero,a5", "ld a3,0(a0)"),
				outs:  []string{"a5", "a3"}, want: []uint64{1, 42},
			},
			isaCase{
				name:  "a second " + sc + " after a successful one fails",
				set:   []isaReg{{"a1", 42}, {"a2", 7}},
				lines: append(append([]string{"sd a1,0(a0)"}, clear...), lr+" a4,(a0)", sc+" a5,a2,(a0)", "addi a2,a2,1", sc+" a5,a2,(a0)", "sltu a5,zero,a5", "ld a3,0(a0)"),
				outs:  []string{"a5", "a3"}, want: []uint64{1, 7},
			},
			isaCase{
				name:  sc + " to another block than the " + lr + " fails",
				set:   []isaReg{{"a1", 42}, {"a2", 7}},
				lines: append(append([]string{"sd a1,0(a0)", "sd a1,128(a0)"}, clear...), lr+" a4,(a0)", "addi t1,a0,128", sc+" a5,a2,(t1)", "sltu a5,zero,a5", "ld a3,128(a0)"),
				outs:  []string{"a5", "a3"}, want: []uint64{1, 42},
			},
			isaCase{
				name:  lr + " with rd = x0 still reserves",
				set:   []isaReg{{"a1", 42}, {"a2", 7}},
				lines: append(append([]string{"sd a1,0(a0)"}, clear...), lr+" zero,(a0)", sc+" a5,a2,(a0)", "ld a3,0(a0)"),
				outs:  []string{"zero", "a5", "a3"},
			},
			isaCase{
				name:  sc + ".rl after " + lr + ".aq succeeds",
				set:   []isaReg{{"a1", 42}, {"a2", 7}},
				lines: append(append([]string{"sd a1,0(a0)"}, clear...), lr+".aq a4,(a0)", sc+".rl a5,a2,(a0)", "ld a3,0(a0)"),
				outs:  []string{"a4", "a5", "a3"},
			},
		)
	}
	return cs
}

// TestISASuiteRV64MAgreesWithQEMUUnderBothEngines runs every RV64M
// instruction on its edge cases under the interpreter, the JIT and QEMU.
func TestISASuiteRV64MAgreesWithQEMUUnderBothEngines(t *testing.T) {
	t.Parallel()
	runISASuite(t, rv64mCases())
}

// TestISASuiteRV64AAgreesWithQEMUUnderBothEngines runs every AMO on both
// widths and the LR/SC reservation rules under the interpreter, the JIT
// and QEMU.
func TestISASuiteRV64AAgreesWithQEMUUnderBothEngines(t *testing.T) {
	t.Parallel()
	runISASuite(t, rv64aCases())
}

// Every RV64M instruction, and every RV64A one in each of its ordering
// annotations (LR takes aq, SC rl, as the manual's examples; AMOs all
// four), has cases.
func TestISASuiteRV64MAndATablesCoverEveryInstruction(t *testing.T) {
	const rv64m = "mul mulh mulhsu mulhu div divu rem remu mulw divw divuw remw remuw"
	if m := missingMnemonics(rv64mCases(), rv64m); len(m) != 0 {
		t.Errorf("M: no case runs %v", m)
	}
	var rv64a []string
	for _, op := range []string{"amoswap", "amoadd", "amoxor", "amoand", "amoor", "amomin", "amomax", "amominu", "amomaxu"} {
		for _, w := range []string{".w", ".d"} {
			for _, ord := range []string{"", ".aq", ".rl", ".aqrl"} {
				rv64a = append(rv64a, op+w+ord)
			}
		}
	}
	rv64a = append(rv64a, "lr.w", "lr.w.aq", "lr.d", "lr.d.aq", "sc.w", "sc.w.rl", "sc.d", "sc.d.rl")
	if m := missingMnemonics(rv64aCases(), strings.Join(rv64a, " ")); len(m) != 0 {
		t.Errorf("A: no case runs %v", m)
	}
}
