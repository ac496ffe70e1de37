// Package fdt builds and reads flattened devicetrees (DTB), the format in
// which the machine describes itself to OpenSBI and Linux (Devicetree
// Specification v0.4, chapter 5 "Flattened Devicetree (DTB) Format").
//
// A Tree is built in memory and written with Bytes:
//
//	t := fdt.New()
//	root := t.Root()
//	root.PropU32("#address-cells", 2)
//	cpus := root.Child("cpus")
//	cpus.PropU32("timebase-frequency", 10_000_000)
//	intc := cpus.Child("cpu@0").Child("interrupt-controller")
//	h := intc.Phandle()
//	blob := t.Bytes(0)
//
// Children and properties keep their insertion order, and the output is a
// pure function of the calls made, so the same machine always gets the same
// blob. Parse reads a blob back (for tests, and for trees a user supplies).
//
// Names are checked against the Devicetree Specification §2.2.1 (node names)
// and §2.2.4 (property names); a name that breaks the rules, or a string
// value holding a NUL byte, is a bug in the caller and panics.
package fdt

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Tree is a devicetree: a root node, a memory reservation list and the
// phandle allocator.
type Tree struct {
	root        *Node
	reserved    []Reservation
	lastPhandle uint32
	bootCPU     uint32 // as read by Parse
}

// Reservation is one entry of the memory reservation block (§5.3): physical
// memory the client program must not use.
type Reservation struct {
	Addr, Size uint64
}

// Node is one devicetree node.
type Node struct {
	tree     *Tree
	name     string
	props    []Prop
	children []*Node
}

// Prop is a property: a name and a value of raw bytes (big-endian cells,
// NUL-terminated strings, ...).
type Prop struct {
	Name  string
	Value []byte
}

// New returns an empty tree: a root node with no properties.
func New() *Tree {
	t := &Tree{}
	t.root = &Node{tree: t}
	return t
}

// Root returns the root node (whose name is empty).
func (t *Tree) Root() *Node { return t.root }

// Reserve adds an entry to the memory reservation block.
func (t *Tree) Reserve(addr, size uint64) {
	t.reserved = append(t.reserved, Reservation{Addr: addr, Size: size})
}

// Reservations returns the memory reservation entries.
func (t *Tree) Reservations() []Reservation { return append([]Reservation(nil), t.reserved...) }

// BootCPU returns the header's boot_cpuid_phys of a parsed tree (0 for a
// tree built with New).
func (t *Tree) BootCPU() uint32 { return t.bootCPU }

// Name returns the node's name, with its unit address ("cpu@0").
func (n *Node) Name() string { return n.name }

// Children returns the node's children in order.
func (n *Node) Children() []*Node { return append([]*Node(nil), n.children...) }

// Props returns the node's properties in order. The values are shared with
// the tree; do not modify them.
func (n *Node) Props() []Prop { return append([]Prop(nil), n.props...) }

// Child returns the child called name, adding it after the existing
// children if there is none.
func (n *Node) Child(name string) *Node {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	if err := checkNodeName(name); err != nil {
		panic("fdt: " + err.Error())
	}
	c := &Node{tree: n.tree, name: name}
	n.children = append(n.children, c)
	return c
}

// Find returns the node at path, relative to n ("cpus/cpu@0"; a leading
// "/" is allowed, and "" or "/" is n itself), or nil.
func (n *Node) Find(path string) *Node {
	cur := n
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		var next *Node
		for _, c := range cur.children {
			if c.name == part {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// Prop returns the value of property name.
func (n *Node) Prop(name string) ([]byte, bool) {
	for _, p := range n.props {
		if p.Name == name {
			return p.Value, true
		}
	}
	return nil, false
}

// U32s returns property name read as big-endian 32-bit cells; ok is false if
// it is missing or its length is not a multiple of 4.
func (n *Node) U32s(name string) (v []uint32, ok bool) {
	b, ok := n.Prop(name)
	if !ok || len(b)%4 != 0 {
		return nil, false
	}
	for i := 0; i < len(b); i += 4 {
		v = append(v, binary.BigEndian.Uint32(b[i:]))
	}
	return v, true
}

// U32 returns property name read as one 32-bit cell.
func (n *Node) U32(name string) (uint32, bool) {
	v, ok := n.U32s(name)
	if !ok || len(v) != 1 {
		return 0, false
	}
	return v[0], true
}

// Strings returns property name read as a list of NUL-terminated strings;
// ok is false if it is missing or does not end with a NUL.
func (n *Node) Strings(name string) ([]string, bool) {
	b, ok := n.Prop(name)
	if !ok || len(b) == 0 || b[len(b)-1] != 0 {
		return nil, false
	}
	return strings.Split(string(b[:len(b)-1]), "\x00"), true
}

// PropBytes sets property name to a copy of v. Setting a property that
// exists replaces its value and keeps its position.
func (n *Node) PropBytes(name string, v []byte) {
	n.set(name, append([]byte{}, v...))
}

// PropEmpty sets property name with an empty value (a boolean property such
// as "interrupt-controller").
func (n *Node) PropEmpty(name string) { n.set(name, []byte{}) }

// PropU32 sets property name to one 32-bit cell.
func (n *Node) PropU32(name string, v uint32) { n.PropU32s(name, v) }

// PropU32s sets property name to a list of 32-bit cells.
func (n *Node) PropU32s(name string, v ...uint32) {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, x)
	}
	n.set(name, b)
}

// PropU64 sets property name to one 64-bit value (two cells).
func (n *Node) PropU64(name string, v uint64) { n.PropU64s(name, v) }

// PropU64s sets property name to a list of 64-bit values, each two cells,
// most significant first (as "reg" with #address-cells = #size-cells = 2).
func (n *Node) PropU64s(name string, v ...uint64) {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.BigEndian.AppendUint64(b, x)
	}
	n.set(name, b)
}

// PropString sets property name to a NUL-terminated string.
func (n *Node) PropString(name, v string) { n.PropStrings(name, v) }

// PropStrings sets property name to a list of NUL-terminated strings (a
// <stringlist>, as "compatible").
func (n *Node) PropStrings(name string, v ...string) {
	var b []byte
	for _, s := range v {
		if strings.IndexByte(s, 0) >= 0 {
			panic(fmt.Sprintf("fdt: property %q: string %q holds a NUL byte", name, s))
		}
		b = append(append(b, s...), 0)
	}
	n.set(name, b)
}

// Phandle returns the node's phandle (§2.3.3), allocating the next free one
// (1, 2, ...) and setting the "phandle" property if the node has none yet.
func (n *Node) Phandle() uint32 {
	if v, ok := n.U32("phandle"); ok {
		return v
	}
	t := n.tree
	t.lastPhandle++
	if t.lastPhandle == 0 || t.lastPhandle == 0xffffffff {
		panic("fdt: out of phandles")
	}
	n.PropU32("phandle", t.lastPhandle)
	return t.lastPhandle
}

func (n *Node) set(name string, v []byte) {
	for i := range n.props {
		if n.props[i].Name == name {
			n.props[i].Value = v
			return
		}
	}
	if err := checkPropName(name); err != nil {
		panic("fdt: " + err.Error())
	}
	n.props = append(n.props, Prop{Name: name, Value: v})
}

// nameChar reports whether c may appear in a node name or unit address
// (§2.2.1, Table 2.1).
func nameChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
		c == ',' || c == '.' || c == '_' || c == '+' || c == '-'
}

// checkNodeName checks name against §2.2.1: node-name[@unit-address], where
// node-name is 1 to 31 characters of Table 2.1 starting with a letter, and
// the unit address is one or more characters of Table 2.1.
func checkNodeName(name string) error {
	base, unit, hasUnit := strings.Cut(name, "@")
	if len(base) < 1 || len(base) > 31 {
		return fmt.Errorf("node name %q: the part before '@' must be 1 to 31 characters", name)
	}
	if c := base[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return fmt.Errorf("node name %q must start with a letter", name)
	}
	if hasUnit && unit == "" {
		return fmt.Errorf("node name %q has an empty unit address", name)
	}
	for i := 0; i < len(base); i++ {
		if !nameChar(base[i]) {
			return fmt.Errorf("node name %q: character %q is not allowed", name, base[i])
		}
	}
	for i := 0; i < len(unit); i++ {
		if !nameChar(unit[i]) {
			return fmt.Errorf("node name %q: character %q is not allowed in a unit address", name, unit[i])
		}
	}
	return nil
}

// checkPropName checks name against §2.2.4: 1 to 31 characters of Table 2.2.
func checkPropName(name string) error {
	if len(name) < 1 || len(name) > 31 {
		return fmt.Errorf("property name %q must be 1 to 31 characters", name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !nameChar(c) && c != '?' && c != '#' {
			return fmt.Errorf("property name %q: character %q is not allowed", name, c)
		}
	}
	return nil
}
