package isa

// Immediate layouts. RISC-V scatters immediate bits over the instruction
// word so that register fields stay put (Unprivileged §2.3 for the 32-bit
// formats, §16.2-16.5 for the compressed ones). Each layout below is a
// transcription of one figure of the specification: a list of segments,
// each moving a run of instruction bits to a run of immediate bits. The
// decoder gathers with a layout and the encoder scatters with the same
// layout, so a layout is written exactly once.

// seg moves instruction bits [hi:lo] to immediate bits [at+hi-lo:at].
type seg struct{ hi, lo, at uint8 }

// immLayout is one immediate encoding.
type immLayout struct {
	segs []seg
	// sign is the index of the immediate's sign bit for a sign-extended
	// immediate, or 0 for a zero-extended one.
	sign uint8
}

// get gathers the immediate from an instruction word.
func (l *immLayout) get(raw uint32) int64 {
	var v uint64
	for _, s := range l.segs {
		width := s.hi - s.lo + 1
		v |= uint64(raw>>s.lo&(1<<width-1)) << s.at
	}
	if l.sign != 0 {
		shift := 63 - l.sign
		return int64(v<<shift) >> shift
	}
	return int64(v)
}

// put scatters imm into instruction bits. ok is false if imm does not fit:
// out of range, or with low bits set that the layout cannot hold (the
// implied zero bits of scaled offsets).
func (l *immLayout) put(imm int64) (bits uint32, ok bool) {
	u := uint64(imm)
	for _, s := range l.segs {
		width := s.hi - s.lo + 1
		bits |= uint32(u>>s.at&(1<<width-1)) << s.lo
	}
	return bits, l.get(bits) == imm
}

// 32-bit immediate layouts (Unprivileged §2.3, figure 2.4).
var (
	immI = immLayout{segs: []seg{{31, 20, 0}}, sign: 11}
	immS = immLayout{segs: []seg{{31, 25, 5}, {11, 7, 0}}, sign: 11}
	immB = immLayout{segs: []seg{{31, 31, 12}, {30, 25, 5}, {11, 8, 1}, {7, 7, 11}}, sign: 12}
	immU = immLayout{segs: []seg{{31, 12, 12}}, sign: 31}
	immJ = immLayout{segs: []seg{{31, 31, 20}, {30, 21, 1}, {20, 20, 11}, {19, 12, 12}}, sign: 20}

	// shamt6 and shamt5 are the RV64I shift amounts (§5.2): slli/srli/srai
	// take 6 bits, the *W forms 5.
	shamt6 = immLayout{segs: []seg{{25, 20, 0}}}
	shamt5 = immLayout{segs: []seg{{24, 20, 0}}}
	// uimm12 is FENCE's fm|pred|succ and the CSR number (zero-extended).
	uimm12 = immLayout{segs: []seg{{31, 20, 0}}}
)

// Compressed immediate layouts (Unprivileged §16.3-16.5, figures 16.2-16.4
// and table 16.5-16.7 of §16.8). The comment on each gives the
// specification's bit list for instruction bits 12..2 in order.
var (
	// c.addi4spn: nzuimm[5:4|9:6|2|3] in bits 12:5 (CIW).
	cImmAddi4spn = immLayout{segs: []seg{{12, 11, 4}, {10, 7, 6}, {6, 6, 2}, {5, 5, 3}}}
	// c.lw, c.sw: uimm[5:3] in 12:10, uimm[2|6] in 6:5 (CL, CS).
	cImmW = immLayout{segs: []seg{{12, 10, 3}, {6, 6, 2}, {5, 5, 6}}}
	// c.ld, c.sd, c.fld, c.fsd: uimm[5:3] in 12:10, uimm[7:6] in 6:5.
	cImmD = immLayout{segs: []seg{{12, 10, 3}, {6, 5, 6}}}
	// c.nop, c.addi, c.addiw, c.li, c.andi: imm[5] in 12, imm[4:0] in 6:2 (CI).
	cImm6 = immLayout{segs: []seg{{12, 12, 5}, {6, 2, 0}}, sign: 5}
	// c.slli, c.srli, c.srai: shamt[5] in 12, shamt[4:0] in 6:2.
	cShamt = immLayout{segs: []seg{{12, 12, 5}, {6, 2, 0}}}
	// c.lui: nzimm[17] in 12, nzimm[16:12] in 6:2.
	cImmLui = immLayout{segs: []seg{{12, 12, 17}, {6, 2, 12}}, sign: 17}
	// c.addi16sp: nzimm[9] in 12, nzimm[4|6|8:7|5] in 6:2.
	cImmAddi16sp = immLayout{segs: []seg{{12, 12, 9}, {6, 6, 4}, {5, 5, 6}, {4, 3, 7}, {2, 2, 5}}, sign: 9}
	// c.lwsp: uimm[5] in 12, uimm[4:2|7:6] in 6:2.
	cImmLwsp = immLayout{segs: []seg{{12, 12, 5}, {6, 4, 2}, {3, 2, 6}}}
	// c.ldsp, c.fldsp: uimm[5] in 12, uimm[4:3|8:6] in 6:2.
	cImmLdsp = immLayout{segs: []seg{{12, 12, 5}, {6, 5, 3}, {4, 2, 6}}}
	// c.swsp: uimm[5:2|7:6] in 12:7 (CSS).
	cImmSwsp = immLayout{segs: []seg{{12, 9, 2}, {8, 7, 6}}}
	// c.sdsp, c.fsdsp: uimm[5:3|8:6] in 12:7.
	cImmSdsp = immLayout{segs: []seg{{12, 10, 3}, {9, 7, 6}}}
	// c.beqz, c.bnez: offset[8|4:3] in 12:10, offset[7:6|2:1|5] in 6:2 (CB).
	cImmB = immLayout{segs: []seg{{12, 12, 8}, {11, 10, 3}, {6, 5, 6}, {4, 3, 1}, {2, 2, 5}}, sign: 8}
	// c.j: offset[11|4|9:8|10|6|7|3:1|5] in 12:2 (CJ).
	cImmJ = immLayout{segs: []seg{{12, 12, 11}, {11, 11, 4}, {10, 9, 8}, {8, 8, 10}, {7, 7, 6}, {6, 6, 7}, {5, 3, 1}, {2, 2, 5}}, sign: 11}
)
