package fdt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"everett/internal/hosttool"
)

// virtTree is a small tree in the shape of the machine's: cpus with an
// interrupt controller, memory, a PLIC and a UART referring to each other
// by phandle, and one memory reservation.
func virtTree() *Tree {
	t := New()
	root := t.Root()
	root.PropU32("#address-cells", 2)
	root.PropU32("#size-cells", 2)
	root.PropString("compatible", "riscv-virtio")
	root.PropString("model", "everett,virt")
	chosen := root.Child("chosen")
	chosen.PropString("bootargs", "console=ttyS0")
	chosen.PropString("stdout-path", "/soc/serial@10000000")
	cpus := root.Child("cpus")
	cpus.PropU32("#address-cells", 1)
	cpus.PropU32("#size-cells", 0)
	cpus.PropU32("timebase-frequency", 10_000_000)
	cpu := cpus.Child("cpu@0")
	cpu.PropString("device_type", "cpu")
	cpu.PropU32("reg", 0)
	cpu.PropString("compatible", "riscv")
	cpu.PropString("riscv,isa", "rv64imafdc")
	cpu.PropString("mmu-type", "riscv,sv48")
	intc := cpu.Child("interrupt-controller")
	intc.PropU32("#address-cells", 0)
	intc.PropU32("#interrupt-cells", 1)
	intc.PropEmpty("interrupt-controller")
	intc.PropString("compatible", "riscv,cpu-intc")
	hIntc := intc.Phandle()
	mem := root.Child("memory@80000000")
	mem.PropString("device_type", "memory")
	mem.PropU64s("reg", 0x8000_0000, 0x800_0000)
	soc := root.Child("soc")
	soc.PropU32("#address-cells", 2)
	soc.PropU32("#size-cells", 2)
	soc.PropString("compatible", "simple-bus")
	soc.PropEmpty("ranges")
	plic := soc.Child("plic@c000000")
	plic.PropStrings("compatible", "sifive,plic-1.0.0", "riscv,plic0")
	plic.PropU64s("reg", 0xc00_0000, 0x60_0000)
	plic.PropU32s("interrupts-extended", hIntc, 11, hIntc, 9)
	plic.PropU32("riscv,ndev", 95)
	plic.PropU32("#address-cells", 0)
	plic.PropU32("#interrupt-cells", 1)
	plic.PropEmpty("interrupt-controller")
	hPlic := plic.Phandle()
	uart := soc.Child("serial@10000000")
	uart.PropString("compatible", "ns16550a")
	uart.PropU64s("reg", 0x1000_0000, 0x100)
	uart.PropU32("interrupts", 10)
	uart.PropU32("interrupt-parent", hPlic)
	uart.PropU32("clock-frequency", 1_843_200)
	t.Reserve(0x8000_0000, 0x8_0000)
	return t
}

func be32(b []byte, off int) uint32 { return binary.BigEndian.Uint32(b[off:]) }

func TestHeaderFollowsSection5_2(t *testing.T) {
	b := virtTree().Bytes(3)
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"magic is 0xd00dfeed", uint64(be32(b, 0x00)), Magic},
		{"totalsize is the blob's length", uint64(be32(b, 0x04)), uint64(len(b))},
		{"the reservation block follows the header", uint64(be32(b, 0x10)), headerBytes},
		{"the structure block follows the two reservation entries", uint64(be32(b, 0x08)), headerBytes + 2*16},
		{"version is 17", uint64(be32(b, 0x14)), 17},
		{"last compatible version is 16", uint64(be32(b, 0x18)), 16},
		{"boot_cpuid_phys is the boot hart", uint64(be32(b, 0x1c)), 3},
		{"the strings block starts 8-aligned after the structure block",
			uint64(be32(b, 0x0c)), uint64(align(int(be32(b, 0x08)+be32(b, 0x24)), 8))},
		{"the blob is padded to 8 bytes", uint64(len(b) % 8), 0},
		{"the structure block ends with FDT_END",
			uint64(be32(b, int(be32(b, 0x08)+be32(b, 0x24))-4)), tokEnd},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %#x, want %#x", tc.got, tc.want)
			}
		})
	}
}

func TestStructureBlockEncodingFollowsSection5_4(t *testing.T) {
	tr := New()
	tr.Root().PropU32("a", 0x01020304)
	c := tr.Root().Child("nd@1")
	c.PropString("a", "xy") // the name "a" is stored once
	c.PropEmpty("bb")
	b := tr.Bytes(0)
	u := func(v ...uint32) []byte {
		var out []byte
		for _, x := range v {
			out = binary.BigEndian.AppendUint32(out, x)
		}
		return out
	}
	var want []byte
	want = append(want, u(tokBeginNode, 0)...)           // root: empty name, padded
	want = append(want, u(tokProp, 4, 0, 0x01020304)...) // "a" at string offset 0
	want = append(want, u(tokBeginNode)...)
	want = append(want, "nd@1\x00\x00\x00\x00"...) // name, NUL, padding
	want = append(want, u(tokProp, 3, 0)...)
	want = append(want, "xy\x00\x00"...)
	want = append(want, u(tokProp, 0, 2)...) // "bb" at offset 2, empty value
	want = append(want, u(tokEndNode, tokEndNode, tokEnd)...)
	off, size := be32(b, 0x08), be32(b, 0x24)
	if got := b[off : off+size]; !bytes.Equal(got, want) {
		t.Errorf("structure block\n got % x\nwant % x", got, want)
	}
	soff, ssize := be32(b, 0x0c), be32(b, 0x20)
	if got := string(b[soff : soff+ssize]); got != "a\x00bb\x00" {
		t.Errorf("strings block %q", got)
	}
	rsv := be32(b, 0x10)
	if !bytes.Equal(b[rsv:rsv+16], make([]byte, 16)) {
		t.Error("the reservation block must end with a zero entry")
	}
}

func TestBuilderKeepsInsertionOrder(t *testing.T) {
	tr := New()
	r := tr.Root()
	r.Child("b")
	r.Child("a")
	r.Child("b").PropU32("x", 1)
	r.PropU32("z", 1)
	r.PropU32("y", 2)
	r.PropU32("z", 3) // replaces, keeps the position
	var names []string
	for _, c := range r.Children() {
		names = append(names, c.Name())
	}
	if strings.Join(names, ",") != "b,a" {
		t.Errorf("children %v", names)
	}
	var props []string
	for _, p := range r.Props() {
		props = append(props, p.Name)
	}
	if strings.Join(props, ",") != "z,y" {
		t.Errorf("props %v", props)
	}
	if v, _ := r.U32("z"); v != 3 {
		t.Errorf("z = %d", v)
	}
	if r.Find("/b") == nil || r.Find("b").Props()[0].Name != "x" {
		t.Error("Child did not return the existing node")
	}
	if !bytes.Equal(tr.Bytes(0), tr.Bytes(0)) {
		t.Error("Bytes is not deterministic")
	}
}

func TestPhandlesAreAllocatedInOrder(t *testing.T) {
	// §2.3.3: a phandle is a unique 32-bit value; 0 and 0xffffffff are not
	// used.
	tr := New()
	a, b := tr.Root().Child("a"), tr.Root().Child("b")
	if got := []uint32{a.Phandle(), b.Phandle(), a.Phandle()}; !reflect.DeepEqual(got, []uint32{1, 2, 1}) {
		t.Errorf("phandles %v", got)
	}
	p, err := Parse(tr.Bytes(0))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Root().Child("c").Phandle(); got != 3 {
		t.Errorf("a parsed tree allocated %d, want 3", got)
	}
}

func TestInvalidNamesPanic(t *testing.T) {
	// §2.2.1 (node names, Table 2.1) and §2.2.4 (property names, Table 2.2).
	tests := []struct {
		name string
		f    func(n *Node)
		ok   bool
	}{
		{"a node name with a unit address is allowed", func(n *Node) { n.Child("uart@10000000") }, true},
		{"a node name with punctuation from Table 2.1 is allowed", func(n *Node) { n.Child("a,b._+-") }, true},
		{"a property name with '#' and '?' is allowed", func(n *Node) { n.PropEmpty("#a?,b") }, true},
		{"an empty node name panics", func(n *Node) { n.Child("") }, false},
		{"a node name starting with a digit panics", func(n *Node) { n.Child("0cpu") }, false},
		{"a node name of 32 characters panics", func(n *Node) { n.Child(strings.Repeat("a", 32)) }, false},
		{"an empty unit address panics", func(n *Node) { n.Child("cpu@") }, false},
		{"a slash in a node name panics", func(n *Node) { n.Child("a/b") }, false},
		{"a NUL in a unit address panics", func(n *Node) { n.Child("a@1\x00") }, false},
		{"an empty property name panics", func(n *Node) { n.PropEmpty("") }, false},
		{"a property name of 32 characters panics", func(n *Node) { n.PropEmpty(strings.Repeat("p", 32)) }, false},
		{"a space in a property name panics", func(n *Node) { n.PropEmpty("a b") }, false},
		{"a NUL inside a string value panics", func(n *Node) { n.PropString("s", "a\x00b") }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r == nil) != tc.ok {
					t.Errorf("panic = %v", r)
				}
			}()
			tc.f(New().Root())
		})
	}
}

func TestParseReadsBackWhatWasWritten(t *testing.T) {
	tr := virtTree()
	b := tr.Bytes(2)
	p, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if p.BootCPU() != 2 {
		t.Errorf("boot cpu %d", p.BootCPU())
	}
	if got := p.Reservations(); !reflect.DeepEqual(got, []Reservation{{0x8000_0000, 0x8_0000}}) {
		t.Errorf("reservations %v", got)
	}
	if got, _ := p.Root().Find("/soc/plic@c000000").Strings("compatible"); !reflect.DeepEqual(got, []string{"sifive,plic-1.0.0", "riscv,plic0"}) {
		t.Errorf("compatible %q", got)
	}
	if got, _ := p.Root().Find("soc/plic@c000000").U32s("interrupts-extended"); !reflect.DeepEqual(got, []uint32{1, 11, 1, 9}) {
		t.Errorf("interrupts-extended %v", got)
	}
	if got, _ := p.Root().Find("/memory@80000000").U32s("reg"); !reflect.DeepEqual(got, []uint32{0, 0x8000_0000, 0, 0x800_0000}) {
		t.Errorf("reg %#x", got)
	}
	if v, ok := p.Root().Find("/cpus/cpu@0/interrupt-controller").Prop("interrupt-controller"); !ok || len(v) != 0 {
		t.Error("empty property lost")
	}
	if !bytes.Equal(p.Bytes(2), b) {
		t.Error("writing the parsed tree gives different bytes")
	}
}

func TestParseRejectsMalformedBlobs(t *testing.T) {
	good := virtTree().Bytes(0)
	structOff := int(be32(good, 0x08))
	edit := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	put := func(off int, v uint32) []byte {
		return edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[off:], v); return b })
	}
	// tiny builds a blob around a hand-written structure block.
	tiny := func(st ...uint32) []byte {
		var s []byte
		for _, v := range st {
			s = binary.BigEndian.AppendUint32(s, v)
		}
		strs := []byte("p\x00")
		so := headerBytes + 16
		stro := so + len(s)
		b := make([]byte, 0, stro+len(strs))
		for _, v := range []uint32{Magic, uint32(stro + len(strs)), uint32(so), uint32(stro), headerBytes,
			17, 16, 0, uint32(len(strs)), uint32(len(s))} {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		b = append(b, make([]byte, 16)...)
		return append(append(b, s...), strs...)
	}
	if _, err := Parse(tiny(tokBeginNode, 0, tokEndNode, tokEnd)); err != nil {
		t.Fatalf("the smallest valid tree: %v", err)
	}
	nested := []uint32{tokBeginNode, 0}
	for i := 0; i < MaxDepth; i++ {
		nested = append(nested, tokBeginNode, 0x61000000)
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"a blob shorter than the header", good[:39]},
		{"a wrong magic", put(0x00, 0xd00dfeee)},
		{"a totalsize beyond the input", put(0x04, uint32(len(good)+8))},
		{"a totalsize inside the header", put(0x04, 8)},
		{"version 16", put(0x14, 16)},
		{"a last compatible version above 17", put(0x18, 18)},
		{"a misaligned reservation block", put(0x10, 44)},
		{"a reservation block inside the header", put(0x10, 8)},
		{"a misaligned structure block", put(0x08, uint32(structOff+2))},
		{"a structure block beyond totalsize", put(0x24, uint32(len(good)))},
		{"a strings block beyond totalsize", put(0x20, 0xffffffff)},
		{"a reservation block without its terminating entry", edit(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[0x10:], uint32(len(b)-8))
			b[len(b)-8] = 1
			return b
		})},
		{"no FDT_BEGIN_NODE first", tiny(tokProp)},
		{"a root node with a name", tiny(tokBeginNode, 0x61000000, tokEndNode, tokEnd)},
		{"a missing FDT_END", tiny(tokBeginNode, 0, tokEndNode)},
		{"a token after the root other than FDT_END", tiny(tokBeginNode, 0, tokEndNode, tokEndNode)},
		{"an unknown token", tiny(tokBeginNode, 0, 7, tokEndNode, tokEnd)},
		{"FDT_END inside a node", tiny(tokBeginNode, 0, tokEnd)},
		{"an unterminated node name", tiny(tokBeginNode, 0x61616161)},
		{"a property overrunning the structure block", tiny(tokBeginNode, 0, tokProp, 100, 0, tokEndNode, tokEnd)},
		{"a property name outside the strings block", tiny(tokBeginNode, 0, tokProp, 0, 9, tokEndNode, tokEnd)},
		{"a property name at the end of the strings block", tiny(tokBeginNode, 0, tokProp, 0, 2, tokEndNode, tokEnd)},
		{"a property token cut short", tiny(tokBeginNode, 0, tokProp, 0)},
		{"a property after a child node", tiny(tokBeginNode, 0, tokBeginNode, 0x61000000, tokEndNode, tokProp, 0, 0, tokEndNode, tokEnd)},
		{"two properties with one name", tiny(tokBeginNode, 0, tokProp, 0, 0, tokProp, 0, 0, tokEndNode, tokEnd)},
		{"two children with one name", tiny(tokBeginNode, 0, tokBeginNode, 0x61000000, tokEndNode, tokBeginNode, 0x61000000, tokEndNode, tokEndNode, tokEnd)},
		{"nodes nested too deep", tiny(nested...)},
	}
	for n := headerBytes; n < len(good); n += 8 {
		tests = append(tests, struct {
			name string
			in   []byte
		}{"a truncated blob", good[:n]})
	}
	for _, tc := range tests {
		if _, err := Parse(tc.in); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want ErrFormat", tc.name, err)
		}
	}
}

func TestParseSkipsNopTokens(t *testing.T) {
	// §5.4.1: FDT_NOP tokens are ignored by any program parsing the tree.
	tr := New()
	tr.Root().Child("a").PropU32("p", 0x77)
	b := tr.Bytes(0)
	off, size := int(be32(b, 0x08)), int(be32(b, 0x24))
	st := b[off : off+size]
	var withNops []byte
	for i := 0; i < len(st); i += 4 {
		tok := be32(st, i)
		if tok == tokBeginNode || tok == tokEndNode || tok == tokEnd {
			withNops = binary.BigEndian.AppendUint32(withNops, tokNop)
		}
		withNops = append(withNops, st[i:i+4]...)
	}
	out := append([]byte(nil), b[:off]...)
	out = append(out, withNops...)
	strs := b[be32(b, 0x0c) : be32(b, 0x0c)+be32(b, 0x20)]
	binary.BigEndian.PutUint32(out[0x0c:], uint32(len(out)))
	out = append(out, strs...)
	binary.BigEndian.PutUint32(out[0x24:], uint32(len(withNops)))
	binary.BigEndian.PutUint32(out[0x04:], uint32(len(out)))
	p, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.Bytes(0), b) {
		t.Error("NOPs changed the tree")
	}
}

// dtc runs the devicetree compiler, or skips the test if it is missing
// (Debian package device-tree-compiler).
func dtc(t *testing.T, in []byte, args ...string) []byte {
	t.Helper()
	path := hosttool.Need(t, "dtc")
	f := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(f, in, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append(args, "-o", "-", f)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dtc %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

func TestDtcDecompilesTheBlob(t *testing.T) {
	want, err := os.ReadFile("testdata/virt.dts")
	if err != nil {
		t.Fatal(err)
	}
	got := dtc(t, virtTree().Bytes(0), "-q", "-I", "dtb", "-O", "dts")
	if !bytes.Equal(got, want) {
		t.Errorf("dtc -I dtb -O dts gave\n%s\nwant (testdata/virt.dts)\n%s", got, want)
	}
}

func TestParseReadsDtcOutput(t *testing.T) {
	src, err := os.ReadFile("testdata/virt.dts")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(dtc(t, src, "-q", "-I", "dts", "-O", "dtb"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.Bytes(0), virtTree().Bytes(0)) {
		t.Error("the tree dtc compiled from testdata/virt.dts differs from the one it came from")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(virtTree().Bytes(0))
	tiny := New()
	tiny.Root().Child("a").PropEmpty("b")
	f.Add(tiny.Bytes(1))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		out := p.Bytes(p.BootCPU())
		q, err := Parse(out)
		if err != nil {
			t.Fatalf("a parsed tree does not parse once written: %v", err)
		}
		if !bytes.Equal(q.Bytes(q.BootCPU()), out) {
			t.Fatal("writing is not stable across a parse")
		}
	})
}
