package gdbstub

// The register table and the target description gdb reads through
// qXfer:features:read:target.xml (GDB manual, appendix "Target
// Descriptions"; section "RISC-V Features" names the features and their
// registers). gdb's register number is the index in regTable; every
// register is 64 bits wide and sent as 16 hex digits, least significant byte
// first (RISC-V is little-endian).

import (
	"fmt"
	"strings"
)

// regInfo is one register as gdb sees it.
type regInfo struct {
	name    string // gdb's name (the ABI name for x and f registers)
	reg     Reg    // how the target names it
	feature string // the target description feature it belongs to
	typ     string // a target description type
	group   string // a register group, or "" for the feature's default
}

// The RISC-V features of the GDB manual's "RISC-V Features" section.
const (
	featureCPU     = "org.gnu.gdb.riscv.cpu"
	featureFPU     = "org.gnu.gdb.riscv.fpu"
	featureVirtual = "org.gnu.gdb.riscv.virtual"
	featureCSR     = "org.gnu.gdb.riscv.csr"
)

// gRegCount is how many registers g and G carry: x0..x31 and pc, the cpu
// feature. The rest gdb reads with p, which keeps g small.
const gRegCount = 33

// regBytes is the size of every register in the table.
const regBytes = 8

// xNames are the ABI names of x0..x31 (RISC-V psABI, "Integer Register
// Convention"); gdb accepts them in the cpu feature.
var xNames = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"fp", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
}

// fNames are the ABI names of f0..f31 (RISC-V psABI, "Floating-point
// Register Convention").
var fNames = [32]string{
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7",
	"fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5",
	"fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
	"fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
}

// csrs are the CSRs of the csr feature, with their numbers (Privileged ISA,
// "CSR Listing"; cycle, time and instret from the unprivileged ISA's
// "Counters" chapter).
var csrs = []struct {
	name string
	n    int
}{
	{"sstatus", 0x100}, {"sie", 0x104}, {"stvec", 0x105}, {"scounteren", 0x106},
	{"sscratch", 0x140}, {"sepc", 0x141}, {"scause", 0x142}, {"stval", 0x143},
	{"sip", 0x144}, {"satp", 0x180},
	{"mstatus", 0x300}, {"misa", 0x301}, {"medeleg", 0x302}, {"mideleg", 0x303},
	{"mie", 0x304}, {"mtvec", 0x305}, {"mcounteren", 0x306},
	{"mscratch", 0x340}, {"mepc", 0x341}, {"mcause", 0x342}, {"mtval", 0x343},
	{"mip", 0x344}, {"mhartid", 0xf14},
	{"cycle", 0xc00}, {"time", 0xc01}, {"instret", 0xc02},
}

// regTable is every register gdb can name, indexed by gdb's number:
// 0..31 x0..x31, 32 pc, 33..64 f0..f31, 65..67 fflags, frm, fcsr, 68 priv,
// and the CSRs from 69.
var regTable = buildRegTable()

func buildRegTable() []regInfo {
	var t []regInfo
	for i, name := range xNames {
		typ := "int"
		switch name {
		case "ra":
			typ = "code_ptr"
		case "sp", "gp", "tp", "fp":
			typ = "data_ptr"
		}
		t = append(t, regInfo{name: name, reg: Reg{RegX, i}, feature: featureCPU, typ: typ})
	}
	t = append(t, regInfo{name: "pc", reg: Reg{RegPC, 0}, feature: featureCPU, typ: "code_ptr"})
	for i, name := range fNames {
		t = append(t, regInfo{name: name, reg: Reg{RegF, i}, feature: featureFPU, typ: "ieee_double"})
	}
	for i, name := range []string{"fflags", "frm", "fcsr"} {
		t = append(t, regInfo{name: name, reg: Reg{RegCSR, i + 1}, feature: featureFPU, typ: "int", group: "float"})
	}
	t = append(t, regInfo{name: "priv", reg: Reg{RegPriv, 0}, feature: featureVirtual, typ: "int", group: "general"})
	for _, c := range csrs {
		t = append(t, regInfo{name: c.name, reg: Reg{RegCSR, c.n}, feature: featureCSR, typ: "int", group: "system"})
	}
	return t
}

// targetXML is the whole target description, one document with every
// feature inline (no xi:include), so gdb reads it in one or two qXfer
// requests.
var targetXML = buildTargetXML()

func buildTargetXML() []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n")
	b.WriteString(`<!DOCTYPE target SYSTEM "gdb-target.dtd">` + "\n")
	b.WriteString(`<target version="1.0">` + "\n")
	b.WriteString("<architecture>riscv:rv64</architecture>\n")
	feature := ""
	for n, r := range regTable {
		if r.feature != feature {
			if feature != "" {
				b.WriteString("</feature>\n")
			}
			feature = r.feature
			fmt.Fprintf(&b, "<feature name=%q>\n", feature)
		}
		fmt.Fprintf(&b, "<reg name=%q bitsize=\"%d\" regnum=\"%d\" type=%q", r.name, regBytes*8, n, r.typ)
		if r.group != "" {
			fmt.Fprintf(&b, " group=%q", r.group)
		}
		b.WriteString("/>\n")
	}
	b.WriteString("</feature>\n</target>\n")
	return []byte(b.String())
}
