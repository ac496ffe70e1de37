package isa

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzDecode checks, for any word, that Decode does not panic; that a
// valid instruction re-encodes to exactly the word it was decoded from
// (there are no don't-care bits: every bit of a valid encoding is either
// fixed by the op or kept in a field, including HINT fields such as
// FENCE's rd/rs1 and c.nop's immediate, and for a compressed word the
// high 16 bits of the input are ignored); that decoding the re-encoded
// word gives the same Inst; and that Disasm's text parses back to it
// (except for the reserved rounding modes 5 and 6, which objdump prints
// alike as "unknown").
func FuzzDecode(f *testing.F) {
	for _, w := range []uint32{
		0x00000013, 0x0000000b, 0x00000073, 0x8330000f, 0x0010100f,
		0xc0001073, 0x1605a52f, 0x6ac58543, 0xd2007053, 0xfffff517,
		0x0000, 0x0001, 0x6101, 0x717d, 0x8082, 0x9002, 0xffff, 0x1ffe,
		0x12345678, 0xdeadbeef, 0x3405a52f, 0x3ff1202f, 0x3005a52f,
	} {
		f.Add(w)
	}
	f.Fuzz(checkRoundTrip)
}

// checkRoundTrip is FuzzDecode's property for one word.
func checkRoundTrip(t *testing.T, w uint32) {
	t.Helper()
	const pc = 0x80001000
	in := Decode(w)
	if in.Op == ILLEGAL {
		if in.Len != 2 && in.Len != 4 {
			t.Fatalf("Decode(%#x) = ILLEGAL with Len %d", w, in.Len)
		}
	} else {
		want := w
		if w&3 != 3 {
			want = w & 0xffff
		}
		if in.Raw != want {
			t.Fatalf("Decode(%#x).Raw = %#x, want %#x", w, in.Raw, want)
		}
		got, err := Encode(in)
		if err != nil {
			t.Fatalf("Encode(Decode(%#x) = %+v): %v", w, in, err)
		}
		if got != want {
			t.Fatalf("Encode(Decode(%#x)) = %#x (decoded %+v)", w, got, in)
		}
		if again := Decode(got); again != in {
			t.Fatalf("Decode(Encode(Decode(%#x))) = %+v, want %+v", w, again, in)
		}
	}
	text := Disasm(in, pc)
	if strings.HasSuffix(text, ",unknown") && (in.RM == 5 || in.RM == 6) {
		return // objdump prints both reserved rounding modes as "unknown"
	}
	back, err := Parse(text, pc)
	if err != nil {
		t.Fatalf("Parse(Disasm(Decode(%#x)) = %q): %v", w, text, err)
	}
	if !sameInst(back, in) {
		t.Fatalf("Parse(%q) = %+v, want %+v", text, back, in)
	}
}

// sameInst compares a parsed instruction with a decoded one. objdump's
// text does not say whether an instruction was compressed (ret is both
// jalr x0,0(ra) and c.jr ra), so a parsed 32-bit instruction matches a
// compressed one if it has the same operands in the decoded form.
func sameInst(parsed, decoded Inst) bool {
	if parsed == decoded {
		return true
	}
	if decoded.Len == 2 && parsed.Len == 4 {
		// Any form will do: add sp,sp,16 is both c.addi and c.addi16sp.
		try := parsed
		try.C = decoded.C
		if w, err := Encode(try); err == nil && Decode(w) == decoded {
			return true
		}
		// objdump spells c.mv a0,a1 as mv a0,a1, which parses as the
		// 32-bit addi a0,a1,0; c.unimp is unimp, which parses as csrrw.
		c, err := Parse("c."+Disasm(decoded, 0x80001000), 0x80001000)
		return err == nil && c == decoded
	}
	return false
}

// TestRoundTrip runs FuzzDecode's property over every 16-bit word and the
// structured sample of 32-bit words the objdump sweep uses.
func TestRoundTrip(t *testing.T) {
	words := sweepWords(rand.New(rand.NewPCG(7, 7)))
	for _, w := range words {
		checkRoundTrip(t, w)
		if t.Failed() {
			return
		}
	}
}
