package board_test

import (
	"fmt"
	"strings"
	"testing"
)

// The F and D parts of the ISA suite (see isa_suite_test.go). FP sources
// are fa1..fa3, set from raw 64-bit patterns with fmv.d.x, so that a
// single can be given NaN-boxed or not; the destination is fa4 (or a4),
// and every case also compares the flags it accrued.

// box NaN-boxes a single (RISC-V unprivileged ISA 20191213, 12.2).
func box(v uint32) uint64 { return 0xffffffff00000000 | uint64(v) }

// Flags (fflags bits, 11.2).
const (
	fNX = 1
	fUF = 2
	fOF = 4
	fDZ = 8
	fNV = 16
)

const (
	sUnboxed = 0x000000003f800000 // 1.0f without its box: reads as the canonical NaN
	sCanon   = 0xffffffff7fc00000 // the canonical NaN, boxed
	dCanon   = 0x7ff8000000000000
)

// isaSingles are single-precision operands (raw registers): zeros, normal
// numbers that round, the extremes, a subnormal, infinities, quiet and
// signalling NaNs with payloads, and a value that is not NaN-boxed.
var isaSingles = []uint64{
	box(0), box(0x80000000), box(0x3f800000), box(0xbfc00000), box(0x3dcccccd), box(0x40400000),
	box(0x7f7fffff), box(0x00800000), box(0x00000001), box(0x7f800000), box(0xff800000),
	box(0x7fc00000), box(0x7f800001), box(0xffc00123), sUnboxed,
}

// isaDoubles are the double-precision operands, chosen the same way.
var isaDoubles = []uint64{
	0, 0x8000000000000000, 0x3ff0000000000000, 0xbff8000000000000, 0x3fb999999999999a, 0x4008000000000000,
	0x7fefffffffffffff, 0x0010000000000000, 1, 0x7ff0000000000000, 0xfff0000000000000,
	dCanon, 0x7ff0000000000001, 0xfff8000000000123,
}

// isaRMs are the rounding modes: the five static ones, and dyn with frm
// set to each of them.
var isaRMs = []struct {
	name string
	frm  int
}{{"rne", 0}, {"rtz", 0}, {"rdn", 0}, {"rup", 0}, {"rmm", 0},
	{"dyn", 0}, {"dyn", 1}, {"dyn", 2}, {"dyn", 3}, {"dyn", 4}}

// fcase is the FP case "line" with the given sources; it compares out
// and the flags.
func fcase(line string, frm int, out string, srcs ...uint64) isaCase {
	c := isaCase{lines: []string{line}, outs: []string{out, "fflags"}, frm: frm}
	name := line
	for i, v := range srcs {
		r := fmt.Sprintf("fa%d", i+1)
		c.set = append(c.set, isaReg{r, v})
		name += fmt.Sprintf(" %s=%#x", r, v)
	}
	if frm != 0 {
		name += fmt.Sprintf(" frm=%d", frm)
	}
	c.name = name
	return c
}

// icase is like fcase with integer sources in a1.. (the conversions to FP
// and fmv.w.x/fmv.d.x).
func icase(line string, frm int, srcs ...uint64) isaCase {
	c := fcase(line, frm, "fa4")
	for i, v := range srcs {
		c.set = append(c.set, isaReg{fmt.Sprintf("a%d", i+1), v})
		c.name += fmt.Sprintf(" a%d=%#x", i+1, v)
	}
	return c
}

func rmSuffix(name string) string {
	if name == "dyn" {
		return ""
	}
	return "," + name
}

func rv64fdCases() []isaCase {
	var cs []isaCase
	for _, f := range []struct {
		sfx  string
		vals []uint64
		some []uint64 // values that round: crossed with every rounding mode
	}{
		{".s", isaSingles, []uint64{box(0x3f800000), box(0x3dcccccd), box(0x40400000), box(0xbfc00000), box(0x7f7fffff), box(0x00000001)}},
		{".d", isaDoubles, []uint64{0x3ff0000000000000, 0x3fb999999999999a, 0x4008000000000000, 0xbff8000000000000, 0x7fefffffffffffff, 1}},
	} {
		for _, op := range []string{"fadd", "fsub", "fmul", "fdiv"} {
			for _, a := range f.vals {
				for _, b := range f.vals {
					cs = append(cs, fcase(op+f.sfx+" fa4,fa1,fa2", 0, "fa4", a, b))
				}
			}
			for _, rm := range isaRMs[1:] {
				for _, a := range f.some {
					for _, b := range f.some {
						cs = append(cs, fcase(op+f.sfx+" fa4,fa1,fa2"+rmSuffix(rm.name), rm.frm, "fa4", a, b))
					}
				}
			}
		}
		for _, a := range f.vals {
			for _, rm := range isaRMs {
				cs = append(cs, fcase("fsqrt"+f.sfx+" fa4,fa1"+rmSuffix(rm.name), rm.frm, "fa4", a))
			}
			cs = append(cs, fcase("fclass"+f.sfx+" a4,fa1", 0, "a4", a))
			for _, b := range f.vals {
				for _, op := range []string{"fmin", "fmax", "fsgnj", "fsgnjn", "fsgnjx"} {
					cs = append(cs, fcase(op+f.sfx+" fa4,fa1,fa2", 0, "fa4", a, b))
				}
				for _, op := range []string{"feq", "flt", "fle"} {
					cs = append(cs, fcase(op+f.sfx+" a4,fa1,fa2", 0, "a4", a, b))
				}
			}
		}
		// Fused multiply-add: the operands of most interest (infinity
		// times zero plus a quiet NaN must still raise NV, 11.6).
		fma := []uint64{f.vals[4], f.vals[3], f.vals[6], f.vals[9], f.vals[11], f.vals[0], f.vals[12]}
		for _, op := range []string{"fmadd", "fmsub", "fnmsub", "fnmadd"} {
			for _, a := range fma {
				for _, b := range fma {
					for _, c := range fma {
						cs = append(cs, fcase(op+f.sfx+" fa4,fa1,fa2,fa3", 0, "fa4", a, b, c))
					}
				}
			}
			for _, rm := range isaRMs[1:] {
				cs = append(cs, fcase(op+f.sfx+" fa4,fa1,fa2,fa3"+rmSuffix(rm.name), rm.frm, "fa4", f.some[1], f.some[2], f.some[3]))
				cs = append(cs, fcase(op+f.sfx+" fa4,fa1,fa2,fa3"+rmSuffix(rm.name), rm.frm, "fa4", f.some[4], f.some[2], f.some[4]))
			}
		}
	}
	// Conversions to integers: ties, both signs, the limits of each
	// width and past them (saturation, 11.7 table 11.4), NaN and the
	// infinities, in every rounding mode.
	toInt := map[string][]uint64{
		".s": {box(0), box(0x80000000), box(0x3f000000), box(0x3fc00000), box(0x40200000), box(0xbf000000),
			box(0xbfc00000), box(0xc0200000), box(0xbf800000), box(0x4f000000), box(0xcf000000), box(0x4f800000),
			box(0x5f000000), box(0xdf000000), box(0x5f800000), box(0x7f800000), box(0xff800000), box(0x7fc00000),
			box(0x7f800001), box(0x4effffff), box(0x00000001), sUnboxed},
		".d": {0, 0x8000000000000000, 0x3fe0000000000000, 0x3ff8000000000000, 0x4004000000000000, 0xbfe0000000000000,
			0xbff8000000000000, 0xc004000000000000, 0xbff0000000000000, 0x41e0000000000000, 0xc1e0000000000000,
			0x41dfffffffc00000, 0x41dfffffffe00000, 0xc1e0000000200000, 0x41f0000000000000, 0x41efffffffff0000,
			0x43e0000000000000, 0xc3e0000000000000, 0x43f0000000000000, 0x7ff0000000000000, 0xfff0000000000000,
			dCanon, 0x7ff0000000000001, 1},
	}
	for _, sfx := range []string{".s", ".d"} {
		for _, to := range []string{"w", "wu", "l", "lu"} {
			for _, v := range toInt[sfx] {
				for _, rm := range isaRMs[:6] {
					cs = append(cs, fcase("fcvt."+to+sfx+" a4,fa1"+rmSuffix(rm.name), 0, "a4", v))
				}
				cs = append(cs, fcase("fcvt."+to+sfx+" a4,fa1", 2, "a4", v))
			}
		}
		for _, from := range []string{"w", "wu", "l", "lu"} {
			for _, v := range []uint64{0, 1, ones, 0x7fffffff, 0x80000000, 0xffffffff, min64, 0x7fffffffffffffff,
				0x123456789abcdef1, 0x1000001, 0x20000000000001, 0xfffffffffffffffd, 0xffffffff00000003} {
				for _, rm := range isaRMs[:6] {
					cs = append(cs, icase("fcvt"+sfx+"."+from+" fa4,a1"+rmSuffix(rm.name), 0, v))
				}
			}
		}
	}
	for _, v := range append(append([]uint64{}, isaDoubles...), 0x3ff0000010000000, 0x3ff0000030000000, 0x7e37e43c8800759c,
		0x3800000000000001, 0x36a0000000000000, 0xc7efffffe0000000) {
		for _, rm := range isaRMs[:6] {
			cs = append(cs, fcase("fcvt.s.d fa4,fa1"+rmSuffix(rm.name), 0, "fa4", v))
		}
		cs = append(cs, fcase("fcvt.s.d fa4,fa1", 3, "fa4", v))
	}
	for _, v := range isaSingles {
		cs = append(cs, fcase("fcvt.d.s fa4,fa1", 0, "fa4", v))
		cs = append(cs, fcase("fmv.x.w a4,fa1", 0, "a4", v)) // raw low word, sign-extended; no box check (11.8)
	}
	for _, v := range []uint64{0, 0x3f800000, 0x7f800001, 0xffffffff, 0x123456789abcdef0, 0xffffffff7fc00000} {
		cs = append(cs, icase("fmv.w.x fa4,a1", 0, v))
		cs = append(cs, icase("fmv.d.x fa4,a1", 0, v))
		cs = append(cs, fcase("fmv.x.d a4,fa1", 0, "a4", v))
	}
	// Loads and stores move bits: flw NaN-boxes, fsw stores the low word
	// of whatever the register holds, neither canonicalizes a NaN (11.5).
	for _, v := range []uint64{0x7f800001, 0xffc00123, 0x3f800000, 0x80000000} {
		cs = append(cs, isaCase{name: fmt.Sprintf("flw of %#x boxes it", v), set: []isaReg{{"a1", 0xdeadbeef00000000 | v}},
			lines: []string{"sd a1,0(a0)", "flw fa4,0(a0)"}, outs: []string{"fa4", "fflags"}, want: []uint64{box(uint32(v)), 0}})
	}
	for _, v := range []uint64{sUnboxed, box(0x7f800001), 0x7ff0000000000001, 0x123456789abcdef0} {
		cs = append(cs,
			isaCase{name: fmt.Sprintf("fsw of %#x stores its low word", v), set: []isaReg{{"fa1", v}, {"a1", ones}},
				lines: []string{"sd a1,0(a0)", "fsw fa1,0(a0)", "ld a4,0(a0)"}, outs: []string{"a4", "fflags"},
				want: []uint64{0xffffffff00000000 | v&0xffffffff, 0}},
			isaCase{name: fmt.Sprintf("fsd then fld of %#x keep its bits", v), set: []isaReg{{"fa1", v}},
				lines: []string{"fsd fa1,8(a0)", "fld fa4,8(a0)", "ld a4,8(a0)"}, outs: []string{"fa4", "a4", "fflags"},
				want: []uint64{v, v, 0}},
		)
	}
	// Edge cases with the values the specification requires (11.3 the
	// canonical NaN; 11.6 fmin/fmax; 11.7 table 11.4; 12.2 NaN boxing).
	cs = append(cs,
		withWant(fcase("fadd.s fa4,fa1,fa2", 0, "fa4", box(0x7fc00123), box(0x3f800000)), sCanon, 0),
		withWant(fcase("fadd.s fa4,fa1,fa2", 0, "fa4", box(0x7f800001), box(0x3f800000)), sCanon, fNV),
		withWant(fcase("fadd.s fa4,fa1,fa2", 0, "fa4", sUnboxed, box(0x3f800000)), sCanon, 0),
		withWant(fcase("fadd.d fa4,fa1,fa2", 0, "fa4", 0x7ff0000000000000, 0xfff0000000000000), dCanon, fNV),
		withWant(fcase("fdiv.d fa4,fa1,fa2", 0, "fa4", 0x3ff0000000000000, 0), 0x7ff0000000000000, fDZ),
		withWant(fcase("fdiv.s fa4,fa1,fa2", 0, "fa4", box(0), box(0)), sCanon, fNV),
		withWant(fcase("fsqrt.d fa4,fa1", 0, "fa4", 0x8000000000000000), 0x8000000000000000, 0),
		withWant(fcase("fsqrt.s fa4,fa1", 0, "fa4", box(0xbf800000)), sCanon, fNV),
		withWant(fcase("fmin.s fa4,fa1,fa2", 0, "fa4", box(0x7f800001), box(0x3f800000)), box(0x3f800000), fNV),
		withWant(fcase("fmax.d fa4,fa1,fa2", 0, "fa4", dCanon, 0xbff0000000000000), 0xbff0000000000000, 0),
		withWant(fcase("fmin.d fa4,fa1,fa2", 0, "fa4", 0x7ff0000000000001, dCanon), dCanon, fNV),
		withWant(fcase("fmin.s fa4,fa1,fa2", 0, "fa4", box(0), box(0x80000000)), box(0x80000000), 0),
		withWant(fcase("fmax.s fa4,fa1,fa2", 0, "fa4", box(0x80000000), box(0)), box(0), 0),
		withWant(fcase("fmin.d fa4,fa1,fa2", 0, "fa4", 0, 0x8000000000000000), 0x8000000000000000, 0),
		withWant(fcase("fmax.d fa4,fa1,fa2", 0, "fa4", 0x8000000000000000, 0), 0, 0),
		withWant(fcase("feq.s a4,fa1,fa2", 0, "a4", box(0x7fc00000), box(0x7fc00000)), 0, 0),
		withWant(fcase("feq.d a4,fa1,fa2", 0, "a4", 0x7ff0000000000001, 0), 0, fNV),
		withWant(fcase("flt.d a4,fa1,fa2", 0, "a4", dCanon, 0), 0, fNV),
		withWant(fcase("fle.s a4,fa1,fa2", 0, "a4", box(0x80000000), box(0)), 1, 0),
		withWant(fcase("fclass.s a4,fa1", 0, "a4", sUnboxed), 0x200, 0),
		withWant(fcase("fclass.d a4,fa1", 0, "a4", 0x7ff0000000000001), 0x100, 0),
		withWant(fcase("fclass.d a4,fa1", 0, "a4", 0x8000000000000000), 0x8, 0),
		withWant(fcase("fcvt.w.s a4,fa1,rtz", 0, "a4", box(0x7fc00000)), 0x7fffffff, fNV),
		withWant(fcase("fcvt.w.d a4,fa1,rtz", 0, "a4", 0xfff0000000000000), min32, fNV),
		withWant(fcase("fcvt.wu.d a4,fa1,rtz", 0, "a4", 0x7ff0000000000000), ones, fNV), // 2^32-1, sign-extended
		withWant(fcase("fcvt.wu.s a4,fa1,rtz", 0, "a4", box(0xbf800000)), 0, fNV),
		withWant(fcase("fcvt.wu.s a4,fa1,rtz", 0, "a4", box(0xbf000000)), 0, fNX), // rounds to 0: representable
		withWant(fcase("fcvt.l.d a4,fa1,rtz", 0, "a4", 0x43e0000000000000), 0x7fffffffffffffff, fNV),
		withWant(fcase("fcvt.lu.d a4,fa1,rtz", 0, "a4", dCanon), ones, fNV),
		withWant(fcase("fcvt.l.s a4,fa1,rne", 0, "a4", box(0x40200000)), 2, fNX), // 2.5 to even
		withWant(fcase("fcvt.l.s a4,fa1,rmm", 0, "a4", box(0x40200000)), 3, fNX),
		withWant(fcase("fcvt.l.s a4,fa1", 3, "a4", box(0xbfc00000)), ones, fNX), // dyn = rup: -1.5 to -1
		withWant(fcase("fcvt.d.s fa4,fa1", 0, "fa4", sUnboxed), dCanon, 0),
		withWant(fcase("fcvt.d.s fa4,fa1", 0, "fa4", box(0x7f800001)), dCanon, fNV),
		withWant(fcase("fsgnj.s fa4,fa1,fa2", 0, "fa4", sUnboxed, box(0x80000000)), box(0xffc00000), 0),
		withWant(fcase("fsgnjn.d fa4,fa1,fa2", 0, "fa4", 0x7ff0000000000001, 0), 0xfff0000000000001, 0),
		withWant(fcase("fmv.x.w a4,fa1", 0, "a4", 0x12345678cafef00d), 0xffffffffcafef00d, 0),
		withWant(icase("fmv.w.x fa4,a1", 0, 0x123456787f800001), box(0x7f800001), 0),
		withWant(fcase("fmadd.d fa4,fa1,fa2,fa3", 0, "fa4", 0x7ff0000000000000, 0, dCanon), dCanon, fNV),
		withWant(icase("fcvt.s.w fa4,a1,rtz", 0, 0x1000001), box(0x4b800000), fNX),
		withWant(icase("fcvt.s.w fa4,a1,rup", 0, 0x1000001), box(0x4b800001), fNX),
		withWant(icase("fcvt.d.wu fa4,a1", 0, ones), 0x41efffffffe00000, 0), // the low word only
		withWant(fcase("fmul.s fa4,fa1,fa2,rtz", 0, "fa4", box(0x7f7fffff), box(0x40400000)), box(0x7f7fffff), fOF|fNX),
		withWant(fcase("fmul.s fa4,fa1,fa2,rne", 0, "fa4", box(0x7f7fffff), box(0x40400000)), box(0x7f800000), fOF|fNX),
		withWant(fcase("fmul.d fa4,fa1,fa2,rne", 0, "fa4", 0x0010000000000000, 0x3fe0000000000000), 0x0008000000000000, 0),
		withWant(fcase("fmul.d fa4,fa1,fa2,rne", 0, "fa4", 0x0010000000000001, 0x3fe0000000000000), 0x0008000000000000, fUF|fNX),
	)
	// x0 as the destination of FP instructions that write an x register:
	// the value is dropped, the flags are not.
	for _, l := range []string{"fcvt.w.s zero,fa1", "fcvt.lu.d zero,fa2", "feq.s zero,fa1,fa1", "flt.d zero,fa2,fa2",
		"fclass.d zero,fa2", "fmv.x.w zero,fa1", "fmv.x.d zero,fa2"} {
		cs = append(cs, isaCase{name: l + " leaves x0 zero", set: []isaReg{{"fa1", box(0x7f800001)}, {"fa2", dCanon}},
			lines: []string{l}, outs: []string{"zero", "fflags"}})
	}
	// fcsr, frm and fflags are views of one register (11.2); writes of
	// fcsr keep bits 7:0 only.
	cs = append(cs,
		isaCase{name: "fcsr reads back frm and fflags written separately", set: []isaReg{{"a1", 3}, {"a2", 0x15}},
			lines: []string{"csrrw zero,frm,a1", "csrrw zero,fflags,a2", "csrrs a4,fcsr,zero", "csrrw zero,frm,zero"},
			outs:  []string{"a4"}, want: []uint64{0x75}},
		isaCase{name: "a write of fcsr sets frm and fflags and drops the reserved bits", set: []isaReg{{"a1", ones}},
			lines: []string{"csrrw a3,fcsr,a1", "csrrs a4,frm,zero", "csrrs a5,fflags,zero", "csrrs a3,fcsr,zero", "csrrw zero,fcsr,zero"},
			outs:  []string{"a4", "a5", "a3"}, want: []uint64{7, 0x1f, 0xff}},
		isaCase{name: "csrrs on fflags sets flags and returns the old ones", set: []isaReg{{"a1", fNX | fOF}},
			lines: []string{"csrrwi zero,fflags,8", "csrrs a4,fflags,a1", "csrrs a5,fflags,zero"},
			outs:  []string{"a4", "a5"}, want: []uint64{8, 8 | fNX | fOF}},
		isaCase{name: "frm writes keep three bits", set: []isaReg{{"a1", 0xfd}},
			lines: []string{"csrrw zero,frm,a1", "csrrs a4,frm,zero", "csrrs a5,fcsr,zero", "csrrw zero,frm,zero"},
			outs:  []string{"a4", "a5"}, want: []uint64{5, 0xa0}},
		isaCase{name: "fflags accrue across instructions", set: []isaReg{{"fa1", 0x3ff0000000000000}, {"fa2", 0}, {"fa3", 0x3fb999999999999a}},
			lines: []string{"fdiv.d fa4,fa1,fa2", "fadd.d fa5,fa1,fa3", "fdiv.d fa4,fa2,fa2"}, outs: []string{"fflags"}, want: []uint64{fDZ | fNX | fNV}},
	)
	return cs
}

// TestISASuiteRV64FDAgreesWithQEMUUnderBothEngines runs every F and D
// instruction on its edge cases, in every rounding mode where one
// applies, under the interpreter, the JIT and QEMU.
func TestISASuiteRV64FDAgreesWithQEMUUnderBothEngines(t *testing.T) {
	t.Parallel()
	runISASuite(t, rv64fdCases())
}

// Every RV64F and RV64D instruction has cases (the manual's F and D
// listings with their RV64 additions), and so do the fcsr accesses.
func TestISASuiteRV64FDTableCoversEveryInstruction(t *testing.T) {
	var fd []string
	for _, p := range []string{".s", ".d"} {
		for _, op := range []string{"fadd", "fsub", "fmul", "fdiv", "fsqrt", "fmin", "fmax", "fmadd", "fmsub", "fnmadd", "fnmsub",
			"fsgnj", "fsgnjn", "fsgnjx", "feq", "flt", "fle", "fclass"} {
			fd = append(fd, op+p)
		}
		for _, i := range []string{"w", "wu", "l", "lu"} {
			fd = append(fd, "fcvt"+"."+i+p, "fcvt"+p+"."+i)
		}
	}
	fd = append(fd, "flw", "fsw", "fld", "fsd", "fcvt.s.d", "fcvt.d.s", "fmv.x.w", "fmv.w.x", "fmv.x.d", "fmv.d.x", "csrrw", "csrrs")
	if m := missingMnemonics(rv64fdCases(), strings.Join(fd, " ")); len(m) != 0 {
		t.Errorf("no case runs %v", m)
	}
}
