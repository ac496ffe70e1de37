package board_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/guestbuild"
	"everett/isa"
)

// The user-mode differential fuzz test: random sequences of RV64IMAFDC
// user-level instructions run on everett (in U-mode on the bare-metal
// board) and on qemu-riscv64-static (as a static Linux program), from the
// same initial registers, fcsr and scratch memory; both dump every x and f
// register, fcsr and the scratch memory, and the dumps must agree.
//
// Both harness builds (testdata/progs/userfuzz) put the sequence, the
// registers and the scratch memory at the same addresses, so even
// pc-relative and address-dependent results agree. The generator never
// writes x2 (sp), x8 (s0: scratch base) or x9 (s1: AMO address).

var (
	fuzzLong  = flag.Bool("long", false, "run many more user-mode fuzz sequences")
	fuzzSeed0 = flag.Uint64("fuzzseed", 1, "first seed of the user-mode fuzz sequences")
)

const qemuUser = "qemu-riscv64-static"

// Harness layout (testdata/progs/userfuzz/common/seq.S).
const (
	fuzzSlotBytes = 0x4000
	scratchBytes  = 3072 // what a sequence may touch
	outWords      = 65   // x0..x31, f0..f31, fcsr
	spOff         = 1024 // x2 = scratch + spOff
	s0Off         = 2048 // x8 = scratch + s0Off
	s1Off         = 2992 // x9 = scratch + s1Off (AMO address)
)

// fuzzHarness is one build of the harness with the file offsets of the
// patched areas.
type fuzzHarness struct {
	image                        []byte
	initOff, scratchOff, codeOff int
	scratchAddr, codeAddr        uint64
}

func loadHarness(t testing.TB, linux bool) *fuzzHarness {
	t.Helper()
	progs, err := guestbuild.ProgsDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(progs, "userfuzz")
	s := guestbuild.Spec{
		Name:         "userfuzz-bare",
		Dirs:         []string{filepath.Join(dir, "common"), filepath.Join(dir, "bare")},
		LinkerScript: filepath.Join(dir, "bare", "bare.ld"),
		Flags:        []string{"-march=rv64gc", "-mabi=lp64d", "-nostdlib", "-nostartfiles", "-static", "-Wl,--no-warn-rwx-segments"},
	}
	if linux {
		s.Name = "userfuzz-linux"
		s.CC = guestbuild.LinuxCC
		s.Dirs[1] = filepath.Join(dir, "linux")
		s.LinkerScript = filepath.Join(dir, "linux", "linux.ld")
		s.Flags = append(s.Flags, "-Wl,--build-id=none")
	}
	path := guestbuild.BuildSpec(t, s)
	image, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	h := &fuzzHarness{image: image}
	fileOff := func(name string) (int, uint64) {
		for _, sym := range syms {
			if sym.Name != name {
				continue
			}
			for _, sec := range f.Sections {
				if sec.Type == elf.SHT_PROGBITS && sym.Value >= sec.Addr && sym.Value < sec.Addr+sec.Size {
					return int(sec.Offset + sym.Value - sec.Addr), sym.Value
				}
			}
		}
		t.Fatalf("%s: no symbol %s in a PROGBITS section", path, name)
		return 0, 0
	}
	h.initOff, _ = fileOff("fuzz_init")
	h.scratchOff, h.scratchAddr = fileOff("fuzz_scratch")
	h.codeOff, h.codeAddr = fileOff("fuzz_code")
	return h
}

// fuzzCase is one generated test: initial state and code.
type fuzzCase struct {
	seed    uint64
	regs    [outWords]uint64
	scratch [scratchBytes]byte
	code    []byte
	insns   []genInsn
}

// patch returns a copy of the harness image with c's state and code.
func (h *fuzzHarness) patch(c *fuzzCase) []byte {
	img := bytes.Clone(h.image)
	regs := c.regs
	regs[0] = 0
	regs[2] = h.scratchAddr + spOff
	regs[8] = h.scratchAddr + s0Off
	regs[9] = h.scratchAddr + s1Off
	for i, v := range regs {
		binary.LittleEndian.PutUint64(img[h.initOff+8*i:], v)
	}
	copy(img[h.scratchOff:], c.scratch[:])
	copy(img[h.codeOff:], c.code)
	return img
}

// ---------------------------------------------------------------------
// The generator.

type genInsn struct {
	bits   uint32
	n      int // 2 or 4 bytes
	target int // forward branch: index of the target instruction, else -1
	kind   int // branch kind for fixups
}

const (
	fixNone = iota
	fixB    // B-type
	fixJ    // jal
	fixCB   // c.beqz / c.bnez
	fixCJ   // c.j
)

type gen struct {
	r *rand.Rand
}

func (g *gen) n(k int) int { return g.r.IntN(k) }

// wreg is a register the sequence may write: never x2, x8, x9.
func (g *gen) wreg() uint32 {
	for {
		r := uint32(g.n(32))
		if r != 2 && r != 8 && r != 9 {
			return r
		}
	}
}
func (g *gen) rreg() uint32 { return uint32(g.n(32)) }
func (g *gen) freg() uint32 { return uint32(g.n(32)) }

// creg is a compressed register x10..x15 (x8/x9 are reserved).
func (g *gen) creg() uint32 { return uint32(2 + g.n(6)) }

func rtype(f7, rs2, rs1, f3, rd, op uint32) uint32 {
	return f7<<25 | rs2<<20 | rs1<<15 | f3<<12 | rd<<7 | op
}
func itype(imm int32, rs1, f3, rd, op uint32) uint32 {
	return uint32(imm&0xfff)<<20 | rs1<<15 | f3<<12 | rd<<7 | op
}
func stype(imm int32, rs2, rs1, f3, op uint32) uint32 {
	u := uint32(imm & 0xfff)
	return (u>>5)<<25 | rs2<<20 | rs1<<15 | f3<<12 | (u&0x1f)<<7 | op
}

// rm is a rounding mode: the five static ones or dyn (fcsr.frm is 0..4).
func (g *gen) rm() uint32 { return []uint32{0, 1, 2, 3, 4, 7, 7}[g.n(7)] }

// memOff is an offset from x8 for an access of size bytes inside the
// scratch bytes, aligned with probability 3/4.
func (g *gen) memOff(size int) int32 {
	off := g.n(scratchBytes-size) - s0Off
	if g.n(4) != 0 {
		off &^= size - 1
	}
	return int32(off)
}

func (g *gen) one() []genInsn {
	w := func(bits uint32) []genInsn { return []genInsn{{bits: bits, n: 4, target: -1}} }
	c := func(bits uint32) []genInsn { return []genInsn{{bits: bits, n: 2, target: -1}} }
	switch k := g.n(100); {
	case k < 14: // OP and OP-32 incl. M
		ops := [][2]uint32{{0, 0}, {0x20, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0x20, 5}, {0, 6}, {0, 7},
			{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {1, 7}}
		if g.n(2) == 0 {
			o := ops[g.n(len(ops))]
			return w(rtype(o[0], g.rreg(), g.rreg(), o[1], g.wreg(), 0x33))
		}
		ow := [][2]uint32{{0, 0}, {0x20, 0}, {0, 1}, {0, 5}, {0x20, 5}, {1, 0}, {1, 4}, {1, 5}, {1, 6}, {1, 7}}
		o := ow[g.n(len(ow))]
		return w(rtype(o[0], g.rreg(), g.rreg(), o[1], g.wreg(), 0x3b))
	case k < 24: // OP-IMM, OP-IMM-32, LUI, AUIPC
		imm := int32(g.n(4096)) - 2048
		switch g.n(10) {
		case 0:
			return w(itype(int32(g.n(64)), g.rreg(), 1, g.wreg(), 0x13)) // slli
		case 1:
			return w(itype(int32(g.n(64))|int32(g.n(2))<<10, g.rreg(), 5, g.wreg(), 0x13)) // srli/srai
		case 2:
			return w(itype(int32(g.n(32)), g.rreg(), 1, g.wreg(), 0x1b)) // slliw
		case 3:
			return w(itype(int32(g.n(32))|int32(g.n(2))<<10, g.rreg(), 5, g.wreg(), 0x1b))
		case 4:
			return w(itype(imm, g.rreg(), 0, g.wreg(), 0x1b)) // addiw
		case 5:
			return w(uint32(g.r.Uint32()&0xfffff000) | g.wreg()<<7 | 0x37) // lui
		case 6:
			return w(uint32(g.r.Uint32()&0xfffff000) | g.wreg()<<7 | 0x17) // auipc
		default:
			f3 := []uint32{0, 2, 3, 4, 6, 7}[g.n(6)]
			return w(itype(imm, g.rreg(), f3, g.wreg(), 0x13))
		}
	case k < 34: // loads and stores through x8
		size := []int{1, 2, 4, 8}[g.n(4)]
		f3 := map[int]uint32{1: 0, 2: 1, 4: 2, 8: 3}[size]
		off := g.memOff(size)
		switch g.n(4) {
		case 0, 1:
			if size < 8 && g.n(2) == 0 {
				f3 |= 4 // unsigned
			}
			return w(itype(off, 8, f3, g.wreg(), 0x03))
		case 2:
			return w(stype(off, g.rreg(), 8, f3, 0x23))
		default: // FP
			if size < 4 {
				size = 4
				f3 = 2
				off = g.memOff(4)
			}
			if g.n(2) == 0 {
				return w(itype(off, 8, f3, g.freg(), 0x07))
			}
			return w(stype(off, g.freg(), 8, f3, 0x27))
		}
	case k < 40: // AMOs on (x9); LR/SC only as an adjacent pair
		f3 := uint32(2 + g.n(2))
		aqrl := uint32(g.n(4))
		if g.n(6) == 0 {
			rd := g.wreg()
			lr := (2<<27 | aqrl<<25 | 9<<15 | f3<<12 | rd<<7 | 0x2f)
			sc := (3<<27 | aqrl<<25 | g.rreg()<<20 | 9<<15 | f3<<12 | g.wreg()<<7 | 0x2f)
			return []genInsn{{bits: lr, n: 4, target: -1}, {bits: sc, n: 4, target: -1}}
		}
		f5 := []uint32{0, 1, 4, 8, 0xc, 0x10, 0x14, 0x18, 0x1c}[g.n(9)]
		return w(f5<<27 | aqrl<<25 | g.rreg()<<20 | 9<<15 | f3<<12 | g.wreg()<<7 | 0x2f)
	case k < 62: // FP computational
		fmt := uint32(g.n(2))
		switch g.n(12) {
		case 0, 1, 2: // fadd fsub fmul fdiv
			f7 := []uint32{0x00, 0x04, 0x08, 0x0c}[g.n(4)] | fmt
			return w(rtype(f7, g.freg(), g.freg(), g.rm(), g.freg(), 0x53))
		case 3: // fsqrt
			return w(rtype(0x2c|fmt, 0, g.freg(), g.rm(), g.freg(), 0x53))
		case 4: // fsgnj*, fmin/fmax
			if g.n(2) == 0 {
				return w(rtype(0x10|fmt, g.freg(), g.freg(), uint32(g.n(3)), g.freg(), 0x53))
			}
			return w(rtype(0x14|fmt, g.freg(), g.freg(), uint32(g.n(2)), g.freg(), 0x53))
		case 5: // fcvt.s.d / fcvt.d.s
			if fmt == 0 {
				return w(rtype(0x20, 1, g.freg(), g.rm(), g.freg(), 0x53))
			}
			return w(rtype(0x21, 0, g.freg(), 0, g.freg(), 0x53))
		case 6: // compares, fclass
			if g.n(3) == 0 {
				return w(rtype(0x70|fmt, 0, g.freg(), 1, g.wreg(), 0x53))
			}
			return w(rtype(0x50|fmt, g.freg(), g.freg(), uint32(g.n(3)), g.wreg(), 0x53))
		case 7: // fcvt to integer
			return w(rtype(0x60|fmt, uint32(g.n(4)), g.freg(), g.rm(), g.wreg(), 0x53))
		case 8: // fcvt from integer
			return w(rtype(0x68|fmt, uint32(g.n(4)), g.rreg(), g.rm(), g.freg(), 0x53))
		case 9: // fmv
			if g.n(2) == 0 {
				return w(rtype(0x70|fmt, 0, g.freg(), 0, g.wreg(), 0x53))
			}
			return w(rtype(0x78|fmt, 0, g.rreg(), 0, g.freg(), 0x53))
		default: // fused multiply-add
			op := []uint32{0x43, 0x47, 0x4b, 0x4f}[g.n(4)]
			return w(g.freg()<<27 | fmt<<25 | g.freg()<<20 | g.freg()<<15 | g.rm()<<12 | g.freg()<<7 | op)
		}
	case k < 90: // compressed
		return c(g.compressed())
	default: // forward control flow, fixed up later
		return []genInsn{g.branch()}
	}
}

func (g *gen) compressed() uint32 {
	imm6 := func() uint32 { return uint32(g.n(64)) }
	nz6 := func() uint32 { return uint32(1 + g.n(63)) }
	ci := func(f3, imm, rd, op uint32) uint32 {
		return f3<<13 | (imm>>5&1)<<12 | rd<<7 | (imm&0x1f)<<2 | op
	}
	nz := func() uint32 {
		for {
			if r := g.wreg(); r != 0 {
				return r
			}
		}
	}
	for {
		switch g.n(14) {
		case 0:
			return ci(0, nz6(), nz(), 1) // c.addi
		case 1:
			return ci(1, imm6(), nz(), 1) // c.addiw
		case 2:
			return ci(2, imm6(), nz(), 1) // c.li
		case 3:
			rd := nz()
			if rd == 2 {
				continue
			}
			return ci(3, nz6(), rd, 1) // c.lui
		case 4: // c.srli c.srai c.andi
			f2 := uint32(g.n(3))
			v := nz6()
			if f2 == 2 {
				v = imm6()
			}
			return 4<<13 | (v>>5&1)<<12 | f2<<10 | g.creg()<<7 | (v&0x1f)<<2 | 1
		case 5: // c.sub c.xor c.or c.and c.subw c.addw
			hi := uint32(g.n(2))
			f2 := uint32(g.n(4))
			if hi == 1 {
				f2 = uint32(g.n(2))
			}
			return 4<<13 | hi<<12 | 3<<10 | g.creg()<<7 | f2<<5 | uint32(g.n(8))<<2 | 1
		case 6:
			return ci(0, nz6(), nz(), 2) // c.slli
		case 7: // c.mv c.add
			rs2 := g.rreg()
			if rs2 == 0 {
				continue
			}
			return 4<<13 | uint32(g.n(2))<<12 | nz()<<7 | rs2<<2 | 2
		case 8: // c.lw / c.ld / c.fld through x8 (offsets 0..124 / 0..248)
			switch g.n(3) {
			case 0:
				u := uint32(g.n(32)) * 4
				return 2<<13 | (u>>3&7)<<10 | 0<<7 | (u>>2&1)<<6 | (u>>6&1)<<5 | g.creg()<<2
			case 1:
				u := uint32(g.n(32)) * 8
				return 3<<13 | (u>>3&7)<<10 | 0<<7 | (u>>6&3)<<5 | g.creg()<<2
			default:
				u := uint32(g.n(32)) * 8
				return 1<<13 | (u>>3&7)<<10 | 0<<7 | (u>>6&3)<<5 | uint32(g.n(8))<<2
			}
		case 9: // c.sw / c.sd / c.fsd through x8
			switch g.n(3) {
			case 0:
				u := uint32(g.n(32)) * 4
				return 6<<13 | (u>>3&7)<<10 | 0<<7 | (u>>2&1)<<6 | (u>>6&1)<<5 | uint32(g.n(8))<<2
			case 1:
				u := uint32(g.n(32)) * 8
				return 7<<13 | (u>>3&7)<<10 | 0<<7 | (u>>6&3)<<5 | uint32(g.n(8))<<2
			default:
				u := uint32(g.n(32)) * 8
				return 5<<13 | (u>>3&7)<<10 | 0<<7 | (u>>6&3)<<5 | uint32(g.n(8))<<2
			}
		case 10: // c.lwsp c.ldsp c.fldsp
			switch g.n(3) {
			case 0:
				u := uint32(g.n(64)) * 4
				return 2<<13 | (u>>5&1)<<12 | nz()<<7 | (u>>2&7)<<4 | (u>>6&3)<<2 | 2
			case 1:
				u := uint32(g.n(64)) * 8
				return 3<<13 | (u>>5&1)<<12 | nz()<<7 | (u>>3&3)<<5 | (u>>6&7)<<2 | 2
			default:
				u := uint32(g.n(64)) * 8
				return 1<<13 | (u>>5&1)<<12 | g.freg()<<7 | (u>>3&3)<<5 | (u>>6&7)<<2 | 2
			}
		case 11: // c.swsp c.sdsp c.fsdsp
			switch g.n(3) {
			case 0:
				u := uint32(g.n(64)) * 4
				return 6<<13 | (u>>2&0xf)<<9 | (u>>6&3)<<7 | g.rreg()<<2 | 2
			case 1:
				u := uint32(g.n(64)) * 8
				return 7<<13 | (u>>3&7)<<10 | (u>>6&7)<<7 | g.rreg()<<2 | 2
			default:
				u := uint32(g.n(64)) * 8
				return 5<<13 | (u>>3&7)<<10 | (u>>6&7)<<7 | g.freg()<<2 | 2
			}
		case 12: // c.addi4spn: rd' = sp + nzuimm
			u := uint32(1+g.n(255)) * 4
			return 0<<13 | (u>>4&3)<<11 | (u>>6&0xf)<<7 | (u>>2&1)<<6 | (u>>3&1)<<5 | g.creg()<<2
		default:
			return 0x0001 // c.nop
		}
	}
}

func (g *gen) branch() genInsn {
	switch g.n(4) {
	case 0, 1:
		f3 := []uint32{0, 1, 4, 5, 6, 7}[g.n(6)]
		return genInsn{bits: g.rreg()<<20 | g.rreg()<<15 | f3<<12 | 0x63, n: 4, kind: fixB}
	case 2:
		rd := []uint32{0, 1, g.wreg()}[g.n(3)]
		return genInsn{bits: rd<<7 | 0x6f, n: 4, kind: fixJ}
	default:
		if g.n(3) == 0 {
			return genInsn{bits: 5<<13 | 1, n: 2, kind: fixCJ}
		}
		return genInsn{bits: uint32(6+g.n(2))<<13 | uint32(g.n(8))<<7 | 1, n: 2, kind: fixCB}
	}
}

// generate makes the case of seed with n instructions.
func generate(seed uint64, n int) *fuzzCase {
	return generateFrom(rand.New(rand.NewPCG(seed, 0x65766572657474)), seed, n, nil)
}

// generateFrom makes a case with n instructions from r's draws. extra,
// when set, is asked first for every instruction and may return some of
// its own (nil: one of the generator's).
func generateFrom(r *rand.Rand, seed uint64, n int, extra func(g *gen) []genInsn) *fuzzCase {
	g := &gen{r: r}
	c := &fuzzCase{seed: seed}
	for i := 1; i < 32; i++ {
		c.regs[i] = g.intValue()
	}
	for i := 0; i < 32; i++ {
		c.regs[32+i] = g.fpValue()
	}
	c.regs[64] = uint64(g.n(5))<<5 | uint64(g.n(32))
	for i := range c.scratch {
		c.scratch[i] = byte(r.Uint32())
	}
	for len(c.insns) < n {
		var more []genInsn
		if extra != nil {
			more = extra(g)
		}
		if more == nil {
			more = g.one()
		}
		for _, in := range more {
			if in.kind != fixNone {
				in.target = len(c.insns) + 1 + g.n(4)
			} else {
				in.target = -1
			}
			c.insns = append(c.insns, in)
		}
	}
	// byte offsets; targets past the end land in the nop sled
	offs := make([]int, len(c.insns)+8)
	pos := 0
	for i := range offs {
		offs[i] = pos
		if i < len(c.insns) {
			pos += c.insns[i].n
		} else {
			pos += 4
		}
	}
	end := offs[len(c.insns)]
	for i := range c.insns {
		in := &c.insns[i]
		if in.target < 0 {
			continue
		}
		d := offs[in.target] - offs[i]
		if in.target >= len(c.insns) {
			d = end - offs[i] + 4*(in.target-len(c.insns))
			if end%4 != 0 {
				d += 2 // the c.nop that pads the sequence
			}
		}
		u := uint32(d)
		switch in.kind {
		case fixB:
			in.bits |= (u>>12&1)<<31 | (u>>5&0x3f)<<25 | (u>>1&0xf)<<8 | (u>>11&1)<<7
		case fixJ:
			in.bits |= (u>>20&1)<<31 | (u>>1&0x3ff)<<21 | (u>>11&1)<<20 | (u>>12&0xff)<<12
		case fixCB:
			in.bits |= (u>>8&1)<<12 | (u>>3&3)<<10 | (u>>6&3)<<5 | (u>>1&3)<<3 | (u>>5&1)<<2
		case fixCJ:
			in.bits |= (u>>11&1)<<12 | (u>>4&1)<<11 | (u>>8&3)<<9 | (u>>10&1)<<8 | (u>>6&1)<<7 |
				(u>>7&1)<<6 | (u>>1&7)<<3 | (u>>5&1)<<2
		}
	}
	for _, in := range c.insns {
		if in.n == 2 {
			c.code = binary.LittleEndian.AppendUint16(c.code, uint16(in.bits))
		} else {
			c.code = binary.LittleEndian.AppendUint32(c.code, in.bits)
		}
	}
	if len(c.code)%4 != 0 {
		c.code = binary.LittleEndian.AppendUint16(c.code, 0x0001) // c.nop
	}
	return c
}

func (g *gen) intValue() uint64 {
	switch g.n(4) {
	case 0:
		return uint64(int64(g.n(33)) - 16)
	case 1:
		v := []uint64{0, 1, ^uint64(0), 1 << 63, 1<<63 - 1, 1 << 31, 1<<31 - 1, 0xffffffff, 0xffffffff80000000, 63, 64, 32}
		return v[g.n(len(v))]
	default:
		return g.r.Uint64()
	}
}

func (g *gen) fpValue() uint64 {
	box := func(v uint32) uint64 { return 0xffffffff00000000 | uint64(v) }
	s := []uint32{0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
		0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0x4f000000, 0xcf000000, 0x5f000000, 0x3f000000}
	d := []uint64{0, 1 << 63, 0x3ff0000000000000, 0xbff0000000000000, 0x7ff0000000000000, 0xfff0000000000000,
		0x7ff8000000000000, 0x7ff0000000000001, 1, 0x000fffffffffffff, 0x0010000000000000,
		0x7fefffffffffffff, 0x41e0000000000000, 0xc1e0000000000000, 0x43e0000000000000, 0x3fe0000000000000}
	switch g.n(6) {
	case 0:
		return box(s[g.n(len(s))])
	case 1:
		return box(g.r.Uint32())
	case 2:
		return d[g.n(len(d))]
	case 3:
		return g.r.Uint64() // often not a NaN-boxed single
	case 4: // a double of modest exponent
		return uint64(g.n(2))<<63 | uint64(0x3c0+g.n(0x80))<<52 | g.r.Uint64()>>12
	default: // a single of modest exponent, boxed
		return box(uint32(g.n(2))<<31 | uint32(0x60+g.n(0x40))<<23 | g.r.Uint32()>>9)
	}
}

// ---------------------------------------------------------------------
// Running and comparing.

type fuzzRunner struct {
	bare, linux *fuzzHarness
	dir         string
}

func newFuzzRunner(t testing.TB) *fuzzRunner {
	t.Helper()
	if _, err := exec.LookPath(qemuUser); err != nil {
		t.Fatalf("%s not installed (`make test` installs it through scripts/deps.sh): %v", qemuUser, err)
	}
	return &fuzzRunner{bare: loadHarness(t, false), linux: loadHarness(t, true), dir: t.TempDir()}
}

func (fr *fuzzRunner) everett(c *fuzzCase) ([]byte, error) {
	prog, err := emu.ParseELF(fr.bare.patch(c))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	m, err := board.NewBareMetal(board.BareMetal{Harts: 1, RAMBytes: 16 << 20, Console: &out}, prog)
	if err != nil {
		return nil, err
	}
	reason := m.Run(10_000_000)
	if reason != emu.StopPowerOff || m.ExitCode() != 0 {
		return out.Bytes(), fmt.Errorf("everett stopped with %v, exit code %d", reason, m.ExitCode())
	}
	return out.Bytes(), nil
}

func (fr *fuzzRunner) qemu(c *fuzzCase) ([]byte, error) {
	path := filepath.Join(fr.dir, fmt.Sprintf("seq-%d.elf", c.seed))
	if err := os.WriteFile(path, fr.linux.patch(c), 0o755); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemuUser, path)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.Bytes(), fmt.Errorf("%s: %v %s", qemuUser, err, stderr.String())
		}
		return nil, err
	}
	return out.Bytes(), nil
}

// check runs seed on both and describes any difference ("" if none).
func (fr *fuzzRunner) check(seed uint64, n int) string {
	c := generate(seed, n)
	want, qerr := fr.qemu(c)
	got, eerr := fr.everett(c)
	if qerr == nil && eerr == nil && bytes.Equal(want, got) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (%d instructions): reproduce with go test ./emu/board -run 'TestUserSequences' -fuzzseed %d\n", seed, n, seed)
	if qerr != nil {
		fmt.Fprintf(&b, "  qemu: %v\n", qerr)
	}
	if eerr != nil {
		fmt.Fprintf(&b, "  everett: %v (output %q)\n", eerr, trimTo(got, 64))
	}
	if qerr == nil && eerr == nil {
		describeDiff(&b, want, got)
	}
	b.WriteString(c.listing(0x80012000))
	return b.String()
}

func trimTo(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func describeDiff(b *strings.Builder, want, got []byte) {
	if len(want) != len(got) {
		fmt.Fprintf(b, "  output lengths differ: qemu %d, everett %d\n", len(want), len(got))
		return
	}
	shown := 0
	for i := 0; i+8 <= len(want) && shown < 12; i += 8 {
		w, g := binary.LittleEndian.Uint64(want[i:]), binary.LittleEndian.Uint64(got[i:])
		if w == g {
			continue
		}
		shown++
		var name string
		switch k := i / 8; {
		case k < 32:
			name = fmt.Sprintf("x%d", k)
		case k < 64:
			name = fmt.Sprintf("f%d", k-32)
		case k == 64:
			name = "fcsr"
		default:
			name = fmt.Sprintf("scratch+%d", i-outWords*8)
		}
		fmt.Fprintf(b, "  %-12s qemu %016x everett %016x\n", name, w, g)
	}
}

// listing disassembles the sequence as it sits at address base.
func (c *fuzzCase) listing(base uint64) string {
	var b strings.Builder
	pc := base
	for _, in := range c.insns {
		d := isa.Decode(in.bits)
		fmt.Fprintf(&b, "    %x: %08x %s\n", pc, in.bits, isa.Disasm(d, pc))
		pc += uint64(in.n)
	}
	return b.String()
}

// TestUserSequences compares everett with qemu-riscv64-static on random
// user-mode instruction sequences (200 of 200 instructions; -long: 5000).
func TestUserSequences(t *testing.T) {
	t.Parallel()
	fr := newFuzzRunner(t)
	count, n := 200, 200
	if *fuzzLong {
		count = 5000
	}
	seeds := make(chan uint64)
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range seeds {
				if d := fr.check(s, n); d != "" {
					mu.Lock()
					failures = append(failures, d)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range count {
		seeds <- *fuzzSeed0 + uint64(i)
	}
	close(seeds)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d sequences differ between qemu-riscv64-static and everett; first:\n%s",
			len(failures), count, failures[0])
		for _, f := range failures[1:min(len(failures), 4)] {
			t.Logf("also:\n%s", f)
		}
	}
}

// FuzzUserSequences is the same comparison as a Go fuzz target over seeds.
func FuzzUserSequences(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 0xdeadbeef} {
		f.Add(s)
	}
	fr := newFuzzRunner(f)
	f.Fuzz(func(t *testing.T, seed uint64) {
		if d := fr.check(seed, 200); d != "" {
			t.Error(d)
		}
	})
}
