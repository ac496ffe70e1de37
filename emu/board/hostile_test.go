package board_test

import (
	"math/rand/v2"
	"testing"

	"everett/emu"
	"everett/emu/board"
)

// A hostile guest writes garbage to every device window and hands the
// virtio devices garbage queues and descriptors. Guests are untrusted code
// (the explorer runs whatever a seed makes of them, and a guest bug can do
// anything), so the host must not crash or hang; the machine keeps running
// and devices answer with their architected behaviour.

// spinBIOS is a firmware that loops forever: `j .`.
var spinBIOS = []byte{0x6f, 0x00, 0x00, 0x00}

func newHostileVirt(t *testing.T, seed uint64) *board.VirtMachine {
	t.Helper()
	disk := make([]byte, 1<<20)
	vm, err := board.NewVirt(board.Virt{
		Harts: 4, RAMBytes: 64 << 20, Seed: seed,
		BIOS: spinBIOS, Kernel: spinBIOS, Disk: disk,
	})
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

var windows = []struct {
	name       string
	base, size uint64
}{
	{"syscon", board.SysconBase, board.SysconSize},
	{"clint", board.CLINTBase, 0x10000},
	{"plic", board.PLICBase, 0x600000},
	{"uart", board.UARTBase, 0x100},
	{"virtio", board.VirtioBase, board.VirtioSlots * board.VirtioStride},
}

func TestRandomWritesToEveryDeviceWindowNeverCrashTheHost(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		vm := newHostileVirt(t, seed)
		r := rand.New(rand.NewPCG(seed, 99))
		sizes := []int{1, 2, 4, 8}
		for i := 0; i < 100_000; i++ {
			w := windows[r.IntN(len(windows))]
			off := r.Uint64N(w.size)
			if w.name == "plic" && r.IntN(4) != 0 {
				off = r.Uint64N(0x3000) // mostly the registers that exist
			}
			size := sizes[r.IntN(len(sizes))]
			if r.IntN(3) == 0 {
				vm.BusRead(w.base+off, size)
			} else {
				vm.BusWrite(w.base+off, size, r.Uint64())
			}
			if i%1000 == 0 {
				// Let scheduled device work run.
				if reason := vm.Run(vm.ICount() + 20_000); reason != emu.StopLimit && reason != emu.StopPowerOff && reason != emu.StopReset {
					t.Fatalf("seed %d: machine stopped with %v", seed, reason)
				}
			}
		}
	}
}

// virtio-mmio register offsets (virtio 1.1 §4.2.2).
const (
	vStatus     = 0x070
	vQueueSel   = 0x030
	vQueueNum   = 0x038
	vQueueReady = 0x044
	vNotify     = 0x050
	vDescLo     = 0x080
	vDescHi     = 0x084
	vDriverLo   = 0x090
	vDriverHi   = 0x094
	vDeviceLo   = 0x0a0
	vDeviceHi   = 0x0a4
	vFeatSel    = 0x024
	vFeatures   = 0x020
	vIntAck     = 0x064
)

func TestGarbageVirtqueuesNeverCrashOrHangTheHost(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		vm := newHostileVirt(t, seed)
		r := rand.New(rand.NewPCG(seed, 7))
		ram := uint64(board.RAMBase)
		addr := func() uint64 {
			switch r.IntN(4) {
			case 0:
				return r.Uint64() // anywhere
			case 1:
				return ram + 64<<20 - uint64(r.IntN(64)) // straddling the end of RAM
			default:
				return ram + 0x100_0000 + r.Uint64N(0x10000)&^15 // inside RAM
			}
		}
		for round := 0; round < 200; round++ {
			// Fill a region of RAM with random rings and descriptors.
			for i := 0; i < 512; i++ {
				vm.BusWrite(ram+0x100_0000+uint64(i)*8, 8, r.Uint64()&0xffff_00ff_0000_ffff)
			}
			slot := uint64(r.IntN(3)) // blk, rng, net
			base := board.VirtioBase + slot*board.VirtioStride
			w := func(off uint64, v uint64) { vm.BusWrite(base+off, 4, v) }
			w(vStatus, 0)
			w(vStatus, 1|2)
			w(vFeatSel, 1)
			w(vFeatures, 1) // VIRTIO_F_VERSION_1
			w(vStatus, 1|2|8)
			for q := uint64(0); q < 2; q++ {
				w(vQueueSel, q)
				w(vQueueNum, uint64([]int{0, 1, 3, 8, 64, 256, 1 << 15}[r.IntN(7)]))
				d, a, u := addr(), addr(), addr()
				w(vDescLo, d&0xffffffff)
				w(vDescHi, d>>32)
				w(vDriverLo, a&0xffffffff)
				w(vDriverHi, a>>32)
				w(vDeviceLo, u&0xffffffff)
				w(vDeviceHi, u>>32)
				w(vQueueReady, 1)
			}
			w(vStatus, 1|2|8|4)
			for n := 0; n < 20; n++ {
				w(vNotify, uint64(r.IntN(3)))
			}
			w(vIntAck, 0xffffffff)
			if reason := vm.Run(vm.ICount() + 200_000); reason != emu.StopLimit {
				t.Fatalf("seed %d round %d: machine stopped with %v", seed, round, reason)
			}
		}
	}
}

func TestConsoleInputArrivesAtFixedVirtualTimes(t *testing.T) {
	// The hart waits for interrupts (wfi; j .-4), so time skips ahead.
	idle := []byte{0x73, 0x00, 0x50, 0x10, 0x6f, 0xf0, 0xdf, 0xff}
	vm, err := board.NewVirt(board.Virt{
		Harts: 1, RAMBytes: 64 << 20, BIOS: idle, Kernel: idle,
		ConsoleInput: []byte("hi"),
	})
	if err != nil {
		t.Fatal(err)
	}
	lsr := func() uint64 { v, _ := vm.BusRead(board.UARTBase+5, 1); return v }
	// Nothing before 1 virtual second.
	vm.RunUntil(0, 999_000_000)
	if lsr()&1 != 0 {
		t.Fatal("console input arrived before 1 virtual second")
	}
	vm.RunUntil(0, 1_000_200_000)
	if lsr()&1 == 0 {
		t.Fatal("no console input by 1 virtual second")
	}
	got := []byte{}
	for i := 0; i < 2; i++ {
		for lsr()&1 == 0 {
			vm.RunUntil(0, vm.Now()+100_000)
		}
		b, _ := vm.BusRead(board.UARTBase, 1)
		got = append(got, byte(b))
	}
	if string(got) != "hi" {
		t.Fatalf("read %q, want %q", got, "hi")
	}
}
