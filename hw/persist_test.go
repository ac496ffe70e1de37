package hw

import (
	"bytes"
	"testing"
)

func TestGrowKeepsWhatWasEncodedAndMakesRoomForTheRest(t *testing.T) {
	var e, plain Encoder
	e.U64(0x0102030405060708)
	plain.U64(0x0102030405060708)
	e.Grow(1000)
	if room := cap(e.Bytes()) - len(e.Bytes()); room < 1000 {
		t.Fatalf("room for %d bytes after Grow(1000)", room)
	}
	before := &e.Bytes()[:1][0]
	for i := 0; i < 125; i++ {
		e.U64(uint64(i))
		plain.U64(uint64(i))
	}
	if &e.Bytes()[:1][0] != before {
		t.Error("the buffer moved while filling the room Grow made")
	}
	if !bytes.Equal(e.Bytes(), plain.Bytes()) {
		t.Error("the bytes differ from those of an encoder that did not grow")
	}
}
