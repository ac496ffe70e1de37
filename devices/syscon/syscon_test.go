package syscon

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"everett/hw"
)

// power records what the device asked for.
type power struct {
	offs   []int
	resets int
}

func (p *power) PowerOff(code int) { p.offs = append(p.offs, code) }
func (p *power) Reset()            { p.resets++ }

func TestFinisherCommands(t *testing.T) {
	// The "sifive,test" finisher of QEMU's virt machine: PASS, FAIL with a
	// code in bits 31:16, RESET; everything else is ignored.
	tests := []struct {
		name      string
		off       uint64
		size      int
		val       uint64
		wantOffs  []int
		wantReset int
	}{
		{"PASS powers off with code 0", 0, 4, 0x5555, []int{0}, 0},
		{"PASS with bits above it still passes", 0, 4, 0x12345555, []int{0}, 0},
		{"FAIL powers off with the code in bits 31:16", 0, 4, 0x00073333, []int{7}, 0},
		{"FAIL with the largest code", 0, 4, 0xffff3333, []int{0xffff}, 0},
		{"FAIL with code 0 exits with the code as given, 0", 0, 4, 0x3333, []int{0}, 0},
		{"RESET reboots", 0, 4, 0x7777, nil, 1},
		{"a halfword PASS is a command", 0, 2, 0x5555, []int{0}, 0},
		{"a halfword FAIL carries no code", 0, 2, 0x00053333, []int{0}, 0},
		{"a doubleword write uses its low 32 bits", 0, 8, 0xdead000000093333, []int{9}, 0},
		{"an unknown command is ignored", 0, 4, 0x1234, nil, 0},
		{"a byte write is ignored", 0, 1, 0x55, nil, 0},
		{"a write at another offset is ignored", 4, 4, 0x5555, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &power{}
			s := New(p)
			if !s.Write(tc.off, tc.size, tc.val) {
				t.Fatal("write faulted")
			}
			if len(p.offs) != len(tc.wantOffs) || (len(p.offs) > 0 && p.offs[0] != tc.wantOffs[0]) {
				t.Errorf("PowerOff calls %v, want %v", p.offs, tc.wantOffs)
			}
			if p.resets != tc.wantReset {
				t.Errorf("Reset calls %d, want %d", p.resets, tc.wantReset)
			}
		})
	}
}

func TestHostileGuestCannotBreakSyscon(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	s := New(&power{})
	for i := 0; i < 100000; i++ {
		size := []int{1, 2, 4, 8}[rng.IntN(4)]
		off := rng.Uint64N(Size)
		if rng.IntN(4) == 0 {
			off = 0
		}
		if v, ok := s.Read(off, size); !ok || v != 0 {
			t.Fatalf("read %#x/%d = %#x, %v", off, size, v, ok)
		}
		if !s.Write(off, size, rng.Uint64()) {
			t.Fatal("write faulted")
		}
	}
}

func TestSaveRestore(t *testing.T) {
	s := New(&power{})
	var e hw.Encoder
	s.Save(&e)
	good := append([]byte(nil), e.Bytes()...)
	if err := New(&power{}).Restore(hw.NewDecoder(good)); err != nil {
		t.Fatal(err)
	}
	var e2 hw.Encoder
	s.Save(&e2)
	if !bytes.Equal(good, e2.Bytes()) {
		t.Fatal("Save is not canonical")
	}
	for n := 0; n < len(good); n++ {
		if err := s.Restore(hw.NewDecoder(good[:n])); !errors.Is(err, hw.ErrCorrupt) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
}

func FuzzRestore(f *testing.F) {
	var e hw.Encoder
	New(nil).Save(&e)
	f.Add(e.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := New(nil).Restore(hw.NewDecoder(b)); err != nil && !errors.Is(err, hw.ErrCorrupt) {
			t.Fatalf("error does not wrap ErrCorrupt: %v", err)
		}
	})
}
