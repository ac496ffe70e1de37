package virtio_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"everett/devices/virtio"
	"everett/devices/virtio/blk"
	"everett/devices/virtio/internal/virtiotest"
	"everett/devices/virtio/net"
	"everett/devices/virtio/rng"
	"everett/hw"
)

type nullLink struct{}

func (nullLink) Send([]byte) {}

// backends builds each device type fresh, with what it needs.
var backends = []struct {
	name string
	make func() virtio.Backend
}{
	{"echo", func() virtio.Backend { return &echo{} }},
	{"blk", func() virtio.Backend {
		d, err := blk.New(blk.Config{Image: make([]byte, 64<<10)})
		if err != nil {
			panic(err)
		}
		return d
	}},
	{"net", func() virtio.Backend { return net.New(net.Config{Link: nullLink{}}) }},
	{"rng", func() virtio.Backend {
		var seed [32]byte
		return rng.New(rng.Config{Rand: rand.NewChaCha8(seed)})
	}},
}

// TestHostileGuestsNeverHurtTheHost throws random stores at the whole
// register window of every device type, interleaved with events, random
// rings and descriptors written over guest RAM, notification storms and
// incoming frames. A device must not panic, must keep at most one event
// per queue, must let every run of events end, and must always be in a
// state that saves and restores.
func TestHostileGuestsNeverHurtTheHost(t *testing.T) {
	for _, be := range backends {
		t.Run("a hostile guest cannot crash or hang the "+be.name+" device", func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(3, uint64(len(be.name))))
			resets, work := 0, uint64(0)
			for round := range 150 {
				ram := virtiotest.NewRAM(ramBase, 1<<20)
				clock := &virtiotest.Clock{}
				b := be.make()
				tr := virtio.New(virtio.Host{Mem: ram, Clock: clock, IRQ: &virtiotest.Line{}}, b)
				clock.Register(tr)
				drv := virtiotest.NewDriver(tr, ram)
				var queues []*virtiotest.Queue
				if round%2 == 0 {
					// A driver that plays by the rules first, then turns.
					if _, err := drv.Init(^uint64(0)); err != nil {
						t.Fatal(err)
					}
					for q := range b.NumQueues() {
						vq, err := drv.SetupQueue(q, 8)
						if err != nil {
							t.Fatal(err)
						}
						queues = append(queues, vq)
					}
					drv.DriverOK()
				}
				for range 400 {
					switch rnd.IntN(12) {
					case 0:
						clock.Step()
					case 1, 2:
						// Scribble over RAM, mostly where the rings live.
						var w [8]byte
						binary.LittleEndian.PutUint64(w[:], scribble(rnd))
						at := ramBase + uint64(rnd.IntN(0x6000))
						if rnd.IntN(2) == 0 {
							at = ramBase + 0x1000 + uint64(rnd.IntN(0x400))
						}
						ram.Put(at&^1, w[:rnd.IntN(8)+1])
					case 10, 11:
						// A well-formed request of random size.
						if len(queues) > 0 {
							vq := queues[rnd.IntN(len(queues))]
							out := make([]byte, rnd.IntN(600))
							if len(out) >= 16 {
								binary.LittleEndian.PutUint32(out, uint32(rnd.IntN(9)))
								binary.LittleEndian.PutUint64(out[8:], uint64(rnd.IntN(130)))
							}
							_, _, _ = vq.Add(virtiotest.Buf{Data: out}, virtiotest.Buf{Len: rnd.IntN(1100), Writable: true})
							vq.TakeUsed()
							drv.Notify(vq.Index)
						}
					case 3:
						for range rnd.IntN(50) {
							drv.Notify(rnd.IntN(3))
						}
					case 4:
						if n, ok := b.(*net.Device); ok {
							n.Deliver(make([]byte, rnd.IntN(2000)))
						}
					case 5:
						tr.Write(virtio.RegQueueSel+uint64(rnd.IntN(0x20))*4, 4, uint64(rnd.IntN(16)))
					default:
						sizes := []int{1, 2, 4, 8}
						size := sizes[rnd.IntN(4)]
						off := uint64(rnd.IntN(virtio.Size+16)) &^ uint64(size-1)
						v := rnd.Uint64()
						if rnd.IntN(2) == 0 {
							v = uint64(rnd.IntN(0x100))
						}
						tr.Write(off, size, v)
						tr.Read(off, size)
					}
					if clock.Pending() > b.NumQueues() {
						t.Fatalf("round %d: %d events pending for %d queues", round, clock.Pending(), b.NumQueues())
					}
				}
				if n := clock.Run(1000); n >= 1000 {
					t.Fatalf("round %d: events never stop", round)
				}
				if tr.Status()&virtio.StatusNeedsReset != 0 {
					resets++
				}
				work += progress(b)
				state := saveBytes(tr)
				tr2 := virtio.New(virtio.Host{Mem: ram, Clock: clock}, be.make())
				if err := tr2.Restore(hw.NewDecoder(state)); err != nil {
					t.Fatalf("round %d: the state reached does not restore: %v", round, err)
				}
				if !bytes.Equal(state, saveBytes(tr2)) {
					t.Fatalf("round %d: Save is not canonical", round)
				}
			}
			if resets == 0 || work == 0 {
				t.Errorf("the storm missed a path: %d rounds ended needing a reset, %d requests handled", resets, work)
			}
			t.Logf("%d of 150 rounds ended needing a reset; %d requests handled", resets, work)
		})
	}
}

// scribble returns values that look like ring contents half the time:
// small indices, flags, addresses in RAM.
func scribble(rnd *rand.Rand) uint64 {
	switch rnd.IntN(4) {
	case 0:
		return uint64(rnd.IntN(16))
	case 1:
		return ramBase + uint64(rnd.IntN(0x8000))
	case 2:
		return uint64(rnd.IntN(8)) | uint64(rnd.IntN(16))<<16
	}
	return rnd.Uint64()
}

// progress returns how many requests a backend handled.
func progress(b virtio.Backend) uint64 {
	switch d := b.(type) {
	case *echo:
		return d.requests
	case *blk.Device:
		s := d.Stats()
		return s.Reads + s.Writes + s.Flushes + s.Errors
	case *net.Device:
		s := d.Stats()
		return s.TxFrames + s.TxDropped + s.RxFrames
	case *rng.Device:
		return d.Stats().Requests
	}
	return 0
}
