package virtio_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"everett/devices/virtio"
	"everett/devices/virtio/internal/virtiotest"
	"everett/hw"
)

// FuzzDescriptorWalk lets the fuzzer write the descriptor table and the
// available ring of a live queue (§2.6.5, §2.6.6), then notifies. Whatever
// the bytes, the device must not panic, must finish in a bounded number of
// events, and must either use chains or set DEVICE_NEEDS_RESET.
func FuzzDescriptorWalk(f *testing.F) {
	seed := make([]byte, 16*echoQueue+4+2*echoQueue)
	binary.LittleEndian.PutUint64(seed[0:], ramBase+0x100)
	binary.LittleEndian.PutUint32(seed[8:], 4)
	binary.LittleEndian.PutUint16(seed[12:], virtio.DescFNext)
	binary.LittleEndian.PutUint16(seed[14:], 1)
	binary.LittleEndian.PutUint64(seed[16:], ramBase+0x200)
	binary.LittleEndian.PutUint32(seed[24:], 4)
	binary.LittleEndian.PutUint16(seed[28:], virtio.DescFWrite)
	binary.LittleEndian.PutUint16(seed[16*echoQueue+2:], 1) // avail idx
	f.Add(seed)
	loop := append([]byte(nil), seed...)
	binary.LittleEndian.PutUint16(loop[28:], virtio.DescFWrite|virtio.DescFNext)
	binary.LittleEndian.PutUint16(loop[30:], 0)
	f.Add(loop)
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newRig()
		q := r.live(t)
		table := make([]byte, 16*echoQueue)
		copy(table, b)
		r.ram.Put(q.Desc, table)
		if len(b) > len(table) {
			ring := make([]byte, 4+2*echoQueue)
			copy(ring, b[len(table):])
			r.ram.Put(q.Avail, ring)
		}
		r.drv.Notify(0)
		if n := r.clock.Run(100); n >= 100 {
			t.Fatal("events never stop")
		}
		used := q.UsedIdx()
		if used == 0 && r.ram.U16(q.Avail+2) != 0 && r.tr.Status()&virtio.StatusNeedsReset == 0 {
			t.Fatal("available buffers neither used nor refused")
		}
		if used > echoQueue {
			t.Fatalf("used index %d beyond the queue size", used)
		}
	})
}

// FuzzRestore feeds arbitrary bytes to Restore. It must not panic; when it
// accepts the bytes, the state must save back canonically.
func FuzzRestore(f *testing.F) {
	r := newRig()
	q := r.live(f)
	_, _, _ = q.Add(virtio1Byte(), virtiotest.Buf{Len: 1, Writable: true})
	r.drv.Notify(0)
	f.Add(saveBytes(r.tr))
	f.Add(saveBytes(newRig().tr))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newRig()
		if err := r.tr.Restore(hw.NewDecoder(b)); err != nil {
			return
		}
		s1 := saveBytes(r.tr)
		r2 := newRig()
		if err := r2.tr.Restore(hw.NewDecoder(s1)); err != nil {
			t.Fatalf("saved state does not restore: %v", err)
		}
		if !bytes.Equal(s1, saveBytes(r2.tr)) {
			t.Fatal("Save is not canonical")
		}
		// The restored device must survive a driver.
		r.drv.Notify(0)
		r.tr.Fire(0, 0)
		r.clock.Run(100)
	})
}
