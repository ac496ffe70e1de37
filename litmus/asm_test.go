package litmus

import (
	"errors"
	"strings"
	"testing"
)

// asmTest builds a one-thread test around a column of instructions.
func asmTest(t *testing.T, lines ...string) *Test {
	t.Helper()
	src := "RISCV A\n{ 0:x6=x; }\n P0 ;\n" + strings.Join(lines, " ;\n") + " ;\nexists (x=0)\n"
	tt, err := Parse("a.litmus", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// The encodings below were worked out by hand from the instruction
// formats (Unprivileged ISA §2.2-2.3, "A" extension §8), not with isa.
func TestLitmusAssembleKnownEncodings(t *testing.T) {
	for _, c := range []struct {
		text string
		want []uint32
	}{
		{"sw x5,0(x6)", []uint32{0x00532023}},
		{"lw x5,0(x6)", []uint32{0x00032283}},
		{"fence rw,rw", []uint32{0x0330000f}},
		{"fence r,r", []uint32{0x0220000f}},
		{"fence w,w", []uint32{0x0110000f}},
		{"fence.tso", []uint32{0x8330000f}},
		{"fence.i", []uint32{0x0000100f}},
		{"lr.w.aq x5,0(x6)", []uint32{0x140322af}},
		{"sc.w.rl x8,x7,(x6)", []uint32{0x1a73242f}},
		{"amoswap.w.aqrl x9,x5,(x6)", []uint32{0x0e5324af}},
		{"amoswap.w.aq.rl x9,x5,(x6)", []uint32{0x0e5324af}},
		{"amoadd.d x5,x7,(x6)", []uint32{0x007332af}},
		{"xor x9,x5,x5", []uint32{0x0052c4b3}},
		{"add a0,s0,s1", []uint32{0x00940533}},
		{"li x5,-1", []uint32{0xfff00293}},
		{"li t0,0x12345", []uint32{0x000122b7, 0x3452829b}},
		// Zalasr ("Zalasr" Atomic Load-Acquire and Store-Release
		// Instructions, version 1.0): AMO opcode, funct5 00110 (loads,
		// aq set) or 00111 (stores, rl set), width in funct3; herd writes
		// the address as 0(rs1).
		{"lw.aq x5,0(x6)", []uint32{0x340322af}},
		{"ld.aq x7,0(x8)", []uint32{0x340433af}},
		{"sw.rl x5,0(x6)", []uint32{0x3a53202f}},
		{"sd.rl x5,0(x6)", []uint32{0x3a53302f}},
		{"lw.aq.rl x5,0(x6)", []uint32{0x360322af}},
		{"lr.w.aq.rl x7,0(x5)", []uint32{0x1602a3af}},
		{"sc.w.aq.rl x8,x6,0(x5)", []uint32{0x1e62a42f}},
		{"amoor.d.aq x5,x7,(x6)", []uint32{0x447332af}},
	} {
		tt := asmTest(t, c.text)
		got, err := Assemble(tt, 0, RAMBase)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d words %#x, want %#x", c.text, len(got), got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: word %d is %#08x, want %#08x", c.text, i, got[i], c.want[i])
			}
		}
	}
}

func TestLitmusAssembleResolvesLabelsBothWays(t *testing.T) {
	tt := asmTest(t, "LC00: lw x5,0(x6)", "bne x5,x0,LC01", "beq x5,x6,LC00", "LC01:", "j LC00")
	got, err := Assemble(tt, 0, RAMBase)
	if err != nil {
		t.Fatal(err)
	}
	// bne at +4 jumps 8 forward to LC01 (+12); beq at +8 jumps 8 back to
	// LC00; j at +12 jumps 12 back to LC00.
	want := []uint32{0x00032283, 0x00029463, 0xfe628ce3, 0xff5ff06f}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("word %d is %#08x, want %#08x", i, got[i], want[i])
		}
	}
}

func TestLitmusAssembleErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct {
		lines []string
		msg   string
	}{
		{[]string{"lw x5,0(x6)", "frobnicate x1"}, "a.litmus:5: P0:"},
		{[]string{"L: nop", "L: nop"}, "defined twice"},
		{[]string{"c.nop"}, "compressed"},
		{[]string{"li x5,0x123456789"}, "32 bits"},
		{[]string{"bne x5,x0,NOWHERE"}, "a.litmus:4: P0: bne x5,x0,NOWHERE: label NOWHERE is not defined"},
		{[]string{"j Exit01"}, "label Exit01 is not defined"},
		{[]string{"lw.aq x5,4(x6)"}, "has no offset"},
		{[]string{"sw.aq x5,0(x6)"}, "a Zalasr load needs aq and a store rl"},
	} {
		tt := asmTest(t, c.lines...)
		_, err := Assemble(tt, 0, RAMBase)
		if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line with %q", c.lines, err, c.msg)
		}
	}
}
