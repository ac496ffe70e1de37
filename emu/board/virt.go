package board

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"everett/devices/clint"
	"everett/devices/fdt"
	"everett/devices/plic"
	"everett/devices/sdk"
	"everett/devices/syscon"
	"everett/devices/uart"
	"everett/devices/virtio"
	"everett/devices/virtio/blk"
	"everett/devices/virtio/net"
	"everett/devices/virtio/rng"
	"everett/emu"
	"everett/hw"
)

// The virt platform: QEMU's `virt` memory map, so that unmodified OpenSBI
// and Linux boot. Addresses and interrupt numbers are QEMU's.
const (
	SysconBase   = 0x0010_0000
	SysconSize   = syscon.Size
	PLICBase     = 0x0c00_0000
	UARTBase     = 0x1000_0000
	UARTIRQ      = 10
	VirtioBase   = 0x1000_1000
	VirtioStride = 0x1000
	VirtioSlots  = 8
	VirtioIRQ    = 1  // slot i uses PLIC source VirtioIRQ+i
	PLICSources  = 95 // sources 1..95 (riscv,ndev)

	// KernelOffset is where the kernel goes, from the start of RAM: OpenSBI
	// occupies the first 2 MiB.
	KernelOffset = 0x20_0000
	// UARTClockHz is the UART's input clock in the device tree.
	UARTClockHz = 3_686_400
)

// DefaultBIOS is where Debian's opensbi package installs the firmware.
const DefaultBIOS = "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin"

// Virtio slots used by the platform.
const (
	SlotBlk = 0
	SlotRNG = 1
	SlotNet = 2
)

// Errors of the virt platform, for errors.Is.
var (
	ErrNoKernel    = errors.New("no kernel image")
	ErrNoBIOS      = errors.New("no firmware image")
	ErrImageLayout = errors.New("images do not fit in RAM")
)

// Virt configures a virt machine.
type Virt struct {
	Harts    int
	RAMBytes uint64
	Quantum  uint64
	Seed     uint64
	Model    emu.MemoryModel // memory model (the zero value is sc)

	BIOS   []byte // M-mode firmware (OpenSBI fw_dynamic.bin), loaded at RAM start
	Kernel []byte // kernel Image, loaded at RAM start + KernelOffset
	Initrd []byte // optional initramfs
	Append string // kernel command line

	Disk         []byte      // optional disk image (virtio-blk; writes go to an overlay)
	DiskStable   []blk.Block // blocks of Disk a crash left changed (blk.Config.Stable)
	Console      io.Writer
	ConsoleInput []byte // bytes typed on the console, delivered at fixed virtual times
	MAC          [6]byte
	NetLink      net.Link // nil: a link with nothing on it

	SDK sdk.Sink // guest-SDK hypercalls (nil: a silent LogSink)

	noLoad bool // build the structure only (restoring a snapshot)
}

// VirtMachine is a virt machine and handles to its devices.
type VirtMachine struct {
	*emu.Machine
	UART   *uart.UART
	PLIC   *plic.PLIC
	CLINT  *clint.CLINT
	Blk    *blk.Device // nil without a disk
	Net    *net.Device
	RNG    *rng.Device
	FDT    []byte // the generated device tree; nil when restored from a snapshot (it is in RAM)
	Layout Layout
}

// Layout records where the images went.
type Layout struct {
	BIOS, Kernel, Initrd, InitrdEnd, FDT, FwDynamicInfo uint64
}

// Console input timing: the first byte arrives at 1 virtual second, then one
// byte every 100 µs (about a 115200-baud line).
const (
	consoleInputStart = 1_000_000_000
	consoleInputGap   = 100_000
)

// NewVirt builds a virt machine: harts start at the firmware in M-mode with
// a0 = hartid, a1 = the device tree, a2 = OpenSBI's fw_dynamic_info, which
// tells the firmware to continue at the kernel in S-mode.
func NewVirt(cfg Virt) (*VirtMachine, error) {
	if len(cfg.Kernel) == 0 {
		return nil, ErrNoKernel
	}
	if len(cfg.BIOS) == 0 {
		return nil, ErrNoBIOS
	}
	m, err := newCore(cfg.Harts, cfg.RAMBytes, cfg.Quantum, cfg.Seed, cfg.Model)
	if err != nil {
		return nil, err
	}
	vm := &VirtMachine{Machine: m}
	attachSDK(m, cfg.SDK)
	harts := m.Harts()

	// Interrupt controllers.
	var lines []clint.Hart
	var ctx []hw.IRQLine
	for _, h := range harts {
		lines = append(lines, clint.Hart{MSIP: h.IRQ(emu.IntMSI), MTIP: h.IRQ(emu.IntMTI)})
		ctx = append(ctx, h.IRQ(emu.IntMEI), h.IRQ(emu.IntSEI))
	}
	cl := clint.New(m, lines)
	vm.CLINT = cl
	vm.PLIC = plic.New(PLICSources, ctx)
	vm.UART = uart.New(m, vm.PLIC.Source(UARTIRQ), cfg.Console)
	if len(cfg.ConsoleInput) > 0 && !cfg.noLoad {
		vm.UART.SetInput(cfg.ConsoleInput, consoleInputStart, consoleInputGap)
	}
	sc := syscon.New(m)

	devs := []struct {
		name       string
		base, size uint64
		dev        hw.Device
	}{
		{"syscon", SysconBase, SysconSize, sc},
		{"clint", CLINTBase, clint.Size, cl},
		{"plic", PLICBase, plic.Size, vm.PLIC},
		{"uart", UARTBase, uart.Size, vm.UART},
	}
	host := func(slot int) virtio.Host {
		return virtio.Host{Mem: m, Clock: m, IRQ: vm.PLIC.Source(VirtioIRQ + slot)}
	}
	slots := make([]*virtio.Transport, VirtioSlots)
	if cfg.Disk != nil {
		d, err := blk.New(blk.Config{Image: cfg.Disk, Stable: cfg.DiskStable, ID: "everett-disk0"})
		if err != nil {
			return nil, fmt.Errorf("disk: %w", err)
		}
		vm.Blk = d
		slots[SlotBlk] = virtio.New(host(SlotBlk), d)
	}
	vm.RNG = rng.New(rng.Config{Rand: m.PRNG})
	slots[SlotRNG] = virtio.New(host(SlotRNG), vm.RNG)
	mac := cfg.MAC
	if mac == [6]byte{} {
		mac = [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}
	}
	vm.Net = net.New(net.Config{MAC: mac, Link: cfg.NetLink})
	slots[SlotNet] = virtio.New(host(SlotNet), vm.Net)
	for i := range slots {
		if slots[i] == nil {
			slots[i] = virtio.NewEmpty()
		}
		devs = append(devs, struct {
			name       string
			base, size uint64
			dev        hw.Device
		}{fmt.Sprintf("virtio%d", i), VirtioBase + uint64(i)*VirtioStride, virtio.Size, slots[i]})
	}
	for _, d := range devs {
		if err := m.Map(d.base, d.size, d.name, d.dev); err != nil {
			return nil, err
		}
		if p, ok := d.dev.(hw.Persist); ok {
			m.Register(d.name, p)
		}
	}

	// Images.
	lay, err := layout(cfg)
	if err != nil {
		return nil, err
	}
	vm.Layout = lay
	if cfg.noLoad {
		// Restoring a snapshot: the device tree is in guest RAM already,
		// and generating it again would be most of a fork's cost.
		return vm, nil
	}
	vm.FDT = virtFDT(cfg, lay)
	if uint64(len(vm.FDT)) > fdtMaxBytes {
		return nil, fmt.Errorf("%w: device tree of %d bytes", ErrImageLayout, len(vm.FDT))
	}
	for _, img := range []struct {
		at   uint64
		data []byte
	}{
		{lay.BIOS, cfg.BIOS},
		{lay.Kernel, cfg.Kernel},
		{lay.Initrd, cfg.Initrd},
		{lay.FDT, vm.FDT},
		{lay.FwDynamicInfo, fwDynamicInfo(lay.Kernel)},
	} {
		if len(img.data) == 0 {
			continue
		}
		if err := m.LoadImage(img.at, img.data); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrImageLayout, err)
		}
	}
	for _, h := range harts {
		h.SetPC(lay.BIOS)
		h.SetX(10, uint64(h.ID))      // a0: hartid
		h.SetX(11, lay.FDT)           // a1: device tree
		h.SetX(12, lay.FwDynamicInfo) // a2: struct fw_dynamic_info
	}
	return vm, nil
}

// fdtMaxBytes is the room reserved for the device tree (OpenSBI grows it in
// place when it adds its own nodes).
const fdtMaxBytes = 1 << 20

// layout places the images in RAM as QEMU's virt does: firmware at the
// start, the kernel 2 MiB in, the initrd halfway into RAM (at most 128 MiB
// in, so that it stays in the kernel's early mappings), the device tree in
// the last 2 MiB.
func layout(cfg Virt) (Layout, error) {
	base, size := uint64(RAMBase), cfg.RAMBytes
	end := base + size
	var l Layout
	l.BIOS = base
	l.Kernel = base + KernelOffset
	if uint64(len(cfg.BIOS)) > KernelOffset {
		return l, fmt.Errorf("%w: firmware of %d bytes overlaps the kernel at %#x", ErrImageLayout, len(cfg.BIOS), l.Kernel)
	}
	if size < 8<<20 {
		return l, fmt.Errorf("%w: %d bytes of RAM is too small (need at least 8 MiB)", ErrImageLayout, size)
	}
	l.FDT = end - 2<<20
	l.FwDynamicInfo = l.FDT - 4096
	kernelEnd := l.Kernel + uint64(len(cfg.Kernel))
	if kernelEnd > l.FwDynamicInfo {
		return l, fmt.Errorf("%w: kernel of %d bytes does not fit in %d bytes of RAM", ErrImageLayout, len(cfg.Kernel), size)
	}
	if len(cfg.Initrd) > 0 {
		off := min(size/2, 128<<20)
		l.Initrd = base + off
		if l.Initrd < kernelEnd {
			l.Initrd = (kernelEnd + 0xfffff) &^ 0xfffff
		}
		l.InitrdEnd = l.Initrd + uint64(len(cfg.Initrd))
		if l.InitrdEnd > l.FwDynamicInfo {
			return l, fmt.Errorf("%w: initrd of %d bytes does not fit in %d bytes of RAM", ErrImageLayout, len(cfg.Initrd), size)
		}
	}
	return l, nil
}

// fwDynamicInfo is OpenSBI's struct fw_dynamic_info, version 2: magic,
// version, next address, next mode (1 = S), options, boot hart.
func fwDynamicInfo(next uint64) []byte {
	b := make([]byte, 48)
	le := binary.LittleEndian
	le.PutUint64(b[0:], 0x4942534f) // "OSBI"
	le.PutUint64(b[8:], 2)
	le.PutUint64(b[16:], next)
	le.PutUint64(b[24:], 1)
	le.PutUint64(b[32:], 0)
	le.PutUint64(b[40:], 0) // hart 0 boots
	return b
}

// virtFDT generates the device tree from the configuration (Devicetree
// Specification v0.4; RISC-V CPU and interrupt-controller bindings).
func virtFDT(cfg Virt, l Layout) []byte {
	t := fdt.New()
	root := t.Root()
	root.PropU32("#address-cells", 2)
	root.PropU32("#size-cells", 2)
	root.PropString("compatible", "riscv-virtio")
	root.PropString("model", "everett,virt")

	chosen := root.Child("chosen")
	if cfg.Append != "" {
		chosen.PropString("bootargs", cfg.Append)
	}
	chosen.PropString("stdout-path", fmt.Sprintf("/soc/serial@%x", UARTBase))
	if l.Initrd != 0 {
		chosen.PropU64("linux,initrd-start", l.Initrd)
		chosen.PropU64("linux,initrd-end", l.InitrdEnd)
	}

	mem := root.Child(fmt.Sprintf("memory@%x", RAMBase))
	mem.PropString("device_type", "memory")
	mem.PropU64s("reg", RAMBase, cfg.RAMBytes)

	cpus := root.Child("cpus")
	cpus.PropU32("#address-cells", 1)
	cpus.PropU32("#size-cells", 0)
	cpus.PropU32("timebase-frequency", emu.TimebaseHz)
	intc := make([]uint32, cfg.Harts)
	for i := 0; i < cfg.Harts; i++ {
		c := cpus.Child(fmt.Sprintf("cpu@%d", i))
		c.PropString("device_type", "cpu")
		c.PropU32("reg", uint32(i))
		c.PropString("status", "okay")
		c.PropString("compatible", "riscv")
		c.PropString("riscv,isa", "rv64imafdc_zicsr_zifencei")
		c.PropString("mmu-type", "riscv,sv48")
		ic := c.Child("interrupt-controller")
		ic.PropU32("#interrupt-cells", 1)
		ic.PropEmpty("interrupt-controller")
		ic.PropString("compatible", "riscv,cpu-intc")
		intc[i] = ic.Phandle()
	}

	soc := root.Child("soc")
	soc.PropU32("#address-cells", 2)
	soc.PropU32("#size-cells", 2)
	soc.PropString("compatible", "simple-bus")
	soc.PropEmpty("ranges")

	test := soc.Child(fmt.Sprintf("test@%x", SysconBase))
	test.PropStrings("compatible", "sifive,test1", "sifive,test0", "syscon")
	test.PropU64s("reg", SysconBase, SysconSize)
	testPh := test.Phandle()

	var clintIRQ, plicIRQ []uint32
	for _, ph := range intc {
		clintIRQ = append(clintIRQ, ph, emu.IntMSI, ph, emu.IntMTI)
		plicIRQ = append(plicIRQ, ph, emu.IntMEI, ph, emu.IntSEI)
	}
	cl := soc.Child(fmt.Sprintf("clint@%x", CLINTBase))
	cl.PropStrings("compatible", "sifive,clint0", "riscv,clint0")
	cl.PropU64s("reg", CLINTBase, clint.Size)
	cl.PropU32s("interrupts-extended", clintIRQ...)

	pl := soc.Child(fmt.Sprintf("plic@%x", PLICBase))
	pl.PropStrings("compatible", "sifive,plic-1.0.0", "riscv,plic0")
	pl.PropU64s("reg", PLICBase, plic.Size)
	pl.PropU32("#address-cells", 0)
	pl.PropU32("#interrupt-cells", 1)
	pl.PropEmpty("interrupt-controller")
	pl.PropU32("riscv,ndev", PLICSources)
	pl.PropU32s("interrupts-extended", plicIRQ...)
	plicPh := pl.Phandle()

	ser := soc.Child(fmt.Sprintf("serial@%x", UARTBase))
	ser.PropString("compatible", "ns16550a")
	ser.PropU64s("reg", UARTBase, uart.Size)
	ser.PropU32("clock-frequency", UARTClockHz)
	ser.PropU32("interrupt-parent", plicPh)
	ser.PropU32("interrupts", UARTIRQ)

	for i := 0; i < VirtioSlots; i++ {
		base := uint64(VirtioBase + i*VirtioStride)
		v := soc.Child(fmt.Sprintf("virtio_mmio@%x", base))
		v.PropString("compatible", "virtio,mmio")
		v.PropU64s("reg", base, virtio.Size)
		v.PropU32("interrupt-parent", plicPh)
		v.PropU32("interrupts", uint32(VirtioIRQ+i))
	}

	po := root.Child("poweroff")
	po.PropString("compatible", "syscon-poweroff")
	po.PropU32("regmap", testPh)
	po.PropU32("offset", 0)
	po.PropU32("value", 0x5555)
	rb := root.Child("reboot")
	rb.PropString("compatible", "syscon-reboot")
	rb.PropU32("regmap", testPh)
	rb.PropU32("offset", 0)
	rb.PropU32("value", 0x7777)

	return t.Bytes(0)
}
