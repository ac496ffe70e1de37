package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzCheck feeds arbitrary bytes to the decoder: it must never panic, and
// anything but the seed file must fail (the checksum sees to that).
func FuzzCheck(f *testing.F) {
	_, good := saved(f, bareSpec(f), 20_000)
	f.Add(good)
	f.Add(good[:headerBytes])
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b)
		if err == nil && !bytes.Equal(b, good) {
			// Another valid file is possible only by finding a SHA-256
			// collision or writing a whole valid file.
			t.Logf("a valid file of %d bytes", len(b))
		}
	})
}

// FuzzSections repairs the length and checksum of its input before decoding
// it, so that the fuzzer reaches the sections: lengths, limits, zstd, the
// page index, the spec.
func FuzzSections(f *testing.F) {
	_, good := saved(f, bareSpec(f), 20_000)
	f.Add(good)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < headerBytes+trailerBytes || string(b[:len(Magic)]) != Magic {
			return
		}
		binary.LittleEndian.PutUint64(b[24:], uint64(len(b)))
		resum(b)
		_ = Check(b)
	})
}

func TestDeclaredLengthsAreLimitsNotAllocations(t *testing.T) {
	enc, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	small := enc.EncodeAll(make([]byte, 100), nil)
	bomb := func() []byte {
		var buf bytes.Buffer
		w, _ := zstd.NewWriter(&buf)
		zero := make([]byte, 1<<20)
		for range 256 {
			w.Write(zero)
		}
		w.Close()
		return buf.Bytes()
	}()
	for _, tc := range []struct {
		name string
		src  []byte
		want uint64
	}{
		{"100 bytes declared as 1 TiB", small, 1 << 40},
		{"256 MiB of zeros declared as 1 MiB", bomb, 1 << 20},
		{"garbage", []byte("definitely not zstd"), 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := unzstd(tc.src, tc.want); err == nil {
				t.Fatal("decoded")
			}
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
				t.Fatalf("allocated %d bytes", got)
			}
		})
	}
}

// sectionOffsets returns the offset of each section's header in a file.
func sectionOffsets(t *testing.T, b []byte) []int {
	t.Helper()
	var offs []int
	off := headerBytes
	for k := 0; k < numSections; k++ {
		offs = append(offs, off)
		off += sectionBytes + int(binary.LittleEndian.Uint64(b[off+8:]))
	}
	if off != len(b)-trailerBytes {
		t.Fatalf("sections end at %d of %d", off, len(b))
	}
	return offs
}

func TestEverySectionFieldIsChecked(t *testing.T) {
	_, good := saved(t, bareSpec(t), 20_000)
	offs := sectionOffsets(t, good)
	for i, off := range offs {
		for _, field := range []struct {
			name string
			at   int
			size int
		}{{"kind", 0, 4}, {"encoding", 4, 4}, {"stored length", 8, 8}, {"decoded length", 16, 8}} {
			orig := uint64(0)
			if field.size == 4 {
				orig = uint64(binary.LittleEndian.Uint32(good[off+field.at:]))
			} else {
				orig = binary.LittleEndian.Uint64(good[off+field.at:])
			}
			for _, v := range []uint64{0, 1, orig - 1, orig + 1, orig * 2, 1 << 31, 1<<63 + orig, ^uint64(0)} {
				if v == orig {
					continue
				}
				b := bytes.Clone(good)
				if field.size == 4 {
					binary.LittleEndian.PutUint32(b[off+field.at:], uint32(v))
					if uint64(uint32(v)) == orig {
						continue
					}
				} else {
					binary.LittleEndian.PutUint64(b[off+field.at:], v)
				}
				resum(b)
				if err := Check(b); !errors.Is(err, ErrCorrupt) {
					t.Errorf("section %d (%s) %s = %d: %v, want ErrCorrupt", i+1, sectionNames[i+1], field.name, v, err)
				}
			}
		}
	}
}

func TestASectionThatDecodesToFarMoreThanItStoresDecodesExactly(t *testing.T) {
	// 40 MiB of pages of one byte each: thousands of times its stored
	// size, past the first allocation, so the stream decodes the rest.
	page := bytes.Repeat([]byte{0x5a}, 4096)
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	for range 40 << 20 / 4096 {
		w.Write(page)
	}
	w.Close()
	if first := max(growStep, firstRatio*uint64(buf.Len())); first >= 40<<20 {
		t.Fatalf("the test's section (%d bytes stored) fits the first allocation (%d)", buf.Len(), first)
	}
	out, err := unzstd(buf.Bytes(), 40<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 40<<20 || out[0] != 0x5a || out[len(out)-1] != 0x5a || bytes.Count(out, []byte{0x5a}) != len(out) {
		t.Fatalf("decoded %d bytes, not the 40 MiB stored", len(out))
	}
	if _, err := unzstd(buf.Bytes(), 40<<20-1); err == nil {
		t.Fatal("a section that decodes to one byte more than declared decoded")
	}
	if _, err := unzstd(buf.Bytes(), 40<<20+1); err == nil {
		t.Fatal("a section that decodes to one byte less than declared decoded")
	}
}
