package fdt

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The blob (§5.1): a 40-byte header, the memory reservation block, the
// structure block and the strings block, in that order, each starting at a
// multiple of 8 bytes; all integers are big-endian.
//
//	0x00  magic              0xd00dfeed
//	0x04  totalsize          bytes in the blob, padding included
//	0x08  off_dt_struct
//	0x0c  off_dt_strings
//	0x10  off_mem_rsvmap
//	0x14  version            17
//	0x18  last_comp_version  16
//	0x1c  boot_cpuid_phys
//	0x20  size_dt_strings
//	0x24  size_dt_struct
const (
	Magic           = 0xd00dfeed
	Version         = 17
	LastCompVersion = 16

	headerBytes = 40

	// Structure block tokens (§5.4.1).
	tokBeginNode = 0x1
	tokEndNode   = 0x2
	tokProp      = 0x3
	tokNop       = 0x4
	tokEnd       = 0x9

	// MaxDepth bounds the nesting of nodes that Parse accepts.
	MaxDepth = 64
)

// ErrFormat is returned (wrapped) by Parse for a blob that is not a valid
// devicetree.
var ErrFormat = errors.New("malformed devicetree blob")

func align(n, a int) int { return (n + a - 1) &^ (a - 1) }

// Bytes returns the tree as a DTB, with bootCPU as the header's
// boot_cpuid_phys (the physical id of the hart that boots, §5.2). Property
// names are stored once each in the strings block, in order of first use.
func (t *Tree) Bytes(bootCPU uint32) []byte {
	w := writer{strOff: map[string]uint32{}}
	w.node(t.root)
	w.st = binary.BigEndian.AppendUint32(w.st, tokEnd)

	rsvOff := headerBytes
	structOff := rsvOff + 16*(len(t.reserved)+1)
	stringsOff := align(structOff+len(w.st), 8)
	total := align(stringsOff+len(w.strs), 8)

	b := make([]byte, 0, total)
	for _, v := range []uint32{
		Magic, uint32(total), uint32(structOff), uint32(stringsOff), uint32(rsvOff),
		Version, LastCompVersion, bootCPU, uint32(len(w.strs)), uint32(len(w.st)),
	} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	for _, r := range t.reserved {
		b = binary.BigEndian.AppendUint64(b, r.Addr)
		b = binary.BigEndian.AppendUint64(b, r.Size)
	}
	b = append(b, make([]byte, 16)...) // the terminating entry
	b = append(b, w.st...)
	b = append(b, make([]byte, stringsOff-len(b))...)
	b = append(b, w.strs...)
	return append(b, make([]byte, total-len(b))...)
}

type writer struct {
	st, strs []byte
	strOff   map[string]uint32 // lookups only; the order comes from the walk
}

func (w *writer) u32(v uint32) { w.st = binary.BigEndian.AppendUint32(w.st, v) }

// pad zero-fills the structure block to a 4-byte boundary.
func (w *writer) pad() {
	for len(w.st)%4 != 0 {
		w.st = append(w.st, 0)
	}
}

func (w *writer) node(n *Node) {
	w.u32(tokBeginNode)
	w.st = append(append(w.st, n.name...), 0)
	w.pad()
	for _, p := range n.props {
		off, ok := w.strOff[p.Name]
		if !ok {
			off = uint32(len(w.strs))
			w.strOff[p.Name] = off
			w.strs = append(append(w.strs, p.Name...), 0)
		}
		w.u32(tokProp)
		w.u32(uint32(len(p.Value)))
		w.u32(off)
		w.st = append(w.st, p.Value...)
		w.pad()
	}
	for _, c := range n.children {
		w.node(c)
	}
	w.u32(tokEndNode)
}

func formatErr(format string, a ...any) error {
	return fmt.Errorf("fdt: %w: %s", ErrFormat, fmt.Sprintf(format, a...))
}

// Parse reads a DTB. It checks every offset and length against the blob, so
// that any input gives a tree or an error wrapping ErrFormat; it accepts
// version 17 blobs (and later ones compatible with 17), FDT_NOP tokens
// anywhere between tokens, and no property after a child node or duplicate
// names within a node (§5.4.2). The tree shares no memory with b.
func Parse(b []byte) (*Tree, error) {
	if len(b) < headerBytes {
		return nil, formatErr("%d bytes is shorter than the header", len(b))
	}
	h := func(i int) uint32 { return binary.BigEndian.Uint32(b[4*i:]) }
	magic, total, structOff, stringsOff, rsvOff := h(0), h(1), h(2), h(3), h(4)
	version, lastComp, bootCPU, stringsSize, structSize := h(5), h(6), h(7), h(8), h(9)
	switch {
	case magic != Magic:
		return nil, formatErr("magic %#x", magic)
	case total < headerBytes || uint64(total) > uint64(len(b)):
		return nil, formatErr("totalsize %d for a blob of %d bytes", total, len(b))
	case version < Version || lastComp > Version:
		return nil, formatErr("version %d, last compatible %d: need 17", version, lastComp)
	case rsvOff%8 != 0 || rsvOff < headerBytes || rsvOff > total:
		return nil, formatErr("memory reservation block at %#x", rsvOff)
	case structOff%4 != 0 || uint64(structOff)+uint64(structSize) > uint64(total):
		return nil, formatErr("structure block %#x+%#x beyond totalsize %#x", structOff, structSize, total)
	case uint64(stringsOff)+uint64(stringsSize) > uint64(total):
		return nil, formatErr("strings block %#x+%#x beyond totalsize %#x", stringsOff, stringsSize, total)
	}
	b = b[:total]
	t := &Tree{bootCPU: bootCPU}
	for off := int(rsvOff); ; off += 16 {
		if off+16 > len(b) {
			return nil, formatErr("memory reservation block has no terminating entry")
		}
		r := Reservation{Addr: binary.BigEndian.Uint64(b[off:]), Size: binary.BigEndian.Uint64(b[off+8:])}
		if r == (Reservation{}) {
			break
		}
		t.reserved = append(t.reserved, r)
	}
	p := parser{t: t, st: b[structOff : structOff+structSize], strs: b[stringsOff : stringsOff+stringsSize]}
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok != tokBeginNode {
		return nil, formatErr("structure block starts with token %#x, not FDT_BEGIN_NODE", tok)
	}
	if t.root, err = p.node(0); err != nil {
		return nil, err
	}
	if t.root.name != "" {
		return nil, formatErr("root node is named %q", t.root.name)
	}
	if tok, err = p.token(); err != nil {
		return nil, err
	}
	if tok != tokEnd {
		return nil, formatErr("token %#x after the root node, not FDT_END", tok)
	}
	return t, nil
}

type parser struct {
	t        *Tree
	st, strs []byte
	pos      int
}

func (p *parser) u32() (uint32, error) {
	if p.pos+4 > len(p.st) {
		return 0, formatErr("structure block ends inside a token at %#x", p.pos)
	}
	v := binary.BigEndian.Uint32(p.st[p.pos:])
	p.pos += 4
	return v, nil
}

// token returns the next token that is not FDT_NOP.
func (p *parser) token() (uint32, error) {
	for {
		tok, err := p.u32()
		if err != nil || tok != tokNop {
			return tok, err
		}
	}
}

// cstring returns the NUL-terminated string at off in b.
func cstring(b []byte, off int) (string, bool) {
	for i := off; i < len(b); i++ {
		if b[i] == 0 {
			return string(b[off:i]), true
		}
	}
	return "", false
}

// node reads a node whose FDT_BEGIN_NODE token has been read.
func (p *parser) node(depth int) (*Node, error) {
	if depth >= MaxDepth {
		return nil, formatErr("nodes nested deeper than %d", MaxDepth)
	}
	name, ok := cstring(p.st, p.pos)
	if !ok {
		return nil, formatErr("node name at %#x is not terminated", p.pos)
	}
	p.pos = align(p.pos+len(name)+1, 4)
	n := &Node{tree: p.t, name: name}
	props := map[string]bool{}
	children := map[string]bool{}
	for {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case tokEndNode:
			return n, nil
		case tokBeginNode:
			c, err := p.node(depth + 1)
			if err != nil {
				return nil, err
			}
			if children[c.name] {
				return nil, formatErr("node %q has two children named %q", n.name, c.name)
			}
			children[c.name] = true
			n.children = append(n.children, c)
		case tokProp:
			size, err := p.u32()
			if err != nil {
				return nil, err
			}
			nameOff, err := p.u32()
			if err != nil {
				return nil, err
			}
			if uint64(size) > uint64(len(p.st)-p.pos) {
				return nil, formatErr("property of %d bytes at %#x overruns the structure block", size, p.pos)
			}
			pname, ok := cstring(p.strs, int(min(nameOff, uint32(len(p.strs)))))
			if !ok {
				return nil, formatErr("property name offset %#x is outside the strings block", nameOff)
			}
			if len(n.children) > 0 {
				return nil, formatErr("node %q: property %q after a child node", n.name, pname)
			}
			if props[pname] {
				return nil, formatErr("node %q has two properties named %q", n.name, pname)
			}
			props[pname] = true
			v := append([]byte{}, p.st[p.pos:p.pos+int(size)]...)
			p.pos = min(align(p.pos+int(size), 4), len(p.st))
			n.props = append(n.props, Prop{Name: pname, Value: v})
			if pname == "phandle" && len(v) == 4 {
				p.t.lastPhandle = max(p.t.lastPhandle, binary.BigEndian.Uint32(v))
			}
		default:
			return nil, formatErr("token %#x at %#x inside node %q", tok, p.pos-4, n.name)
		}
	}
}
