// Package litmus runs memory-model litmus tests on everett machines.
//
// A test is read from the text format of the diy/herd tool suite (see
// Parse): a header naming the architecture (RISCV) and the test, an
// initial state, one column of RISC-V assembly per thread, and a final
// condition over registers and memory. Assemble turns each column into
// RV64 machine code with package isa; a Runner builds one bare-metal
// machine with a hart per thread and runs the test many times, each run
// with a schedule drawn from its own seed, and Result.Write prints what it
// saw in the style of litmus7: a histogram of final states and a line
// "Observation NAME Never|Sometimes|Always P N".
//
// The memory model is a setting of the runner. Sequential consistency
// (sc) is what the emulator does: one hart at a time, every access in
// program order. rvwmo is emu's weak mode (store buffers and deferred
// loads drawn from each run's seed: a sound subset of RVWMO), set through
// Options.SetModel or, by default, EmuModel; an unknown model is ErrModel.
//
// References: "The RISC-V Instruction Set Manual, Volume I: Unprivileged
// ISA", chapter "RVWMO Memory Consistency Model" and Appendix A "RVWMO
// Explanatory Material"; the herd/diy documentation for the file format.
package litmus

import "errors"

// ErrSyntax is wrapped by every error Parse returns for bad input.
var ErrSyntax = errors.New("litmus syntax")

// Quantifier is the kind of a test's final condition.
type Quantifier uint8

// The quantifiers of a final condition.
const (
	Exists    Quantifier = iota // exists P: some run satisfies P
	NotExists                   // ~exists P: no run satisfies P
	Forall                      // forall P: every run satisfies P
)

func (q Quantifier) String() string {
	switch q {
	case NotExists:
		return "~exists"
	case Forall:
		return "forall"
	}
	return "exists"
}

// Test is one parsed litmus test.
type Test struct {
	File string // as given to Parse, for messages
	Arch string // "RISCV"
	Name string
	Doc  []string // quoted lines after the header, unquoted
	Info []Info   // Key=value lines after the header, in order

	Vars     []*Var    // memory locations, in order of first mention
	Regs     []RegInit // initial registers, in order of declaration
	Threads  []Thread
	Locs     []Loc // the locations [...] list
	Quant    Quantifier
	Cond     *Prop
	CondLine int // line of the quantifier
	// Filter, if not nil, discards the runs whose final state does not
	// satisfy it: they count neither for nor against the condition.
	Filter     *Prop
	FilterLine int
}

// Info is one Key=value metadata line.
type Info struct {
	Key, Value string
	Line       int
}

// Var is a memory location. It is 0 unless the initial state says
// otherwise; Init may also be the address of another location (AddrOf).
type Var struct {
	Name   string
	Type   Type
	Init   int64
	AddrOf string // non-empty: initially holds this location's address, or a code label's ("P1:LC00")
	Line   int    // of the declaration that set Init or AddrOf (0: none did)
}

// RegInit sets register Reg of thread Thread before it runs: to Value, or
// to the address of the location AddrOf, or of the code label AddrOf
// ("P1:LC00").
type RegInit struct {
	Thread, Reg int
	Type        Type
	Value       int64
	AddrOf      string
	Line        int

	typed, set bool // a declaration gave the type; one gave the value
}

// Thread is one column of assembly.
type Thread struct {
	Lines []SrcLine
}

// SrcLine is one cell of a thread's column: an optional label and an
// optional instruction, with the file line it came from.
type SrcLine struct {
	Line  int
	Label string
	Text  string
}

// Loc names a location the condition or the locations list observes: a
// register of a thread (Thread >= 0) or a memory location (Thread < 0).
type Loc struct {
	Thread int
	Reg    int
	Var    string
}

// Type is the C type of a location or register, which fixes its width and
// signedness.
type Type struct {
	Name   string // as written ("int", "uint64_t"); "" is the default int
	Bytes  int    // 1, 2, 4 or 8
	Signed bool
}

// defaultType is what an undeclared location has: int, as in herd.
var defaultType = Type{Name: "int", Bytes: 4, Signed: true}

// regType is what an undeclared register has: a full 64-bit register.
var regType = Type{Name: "int64_t", Bytes: 8, Signed: true}

// types are the C types a declaration may use.
var types = []Type{
	{"char", 1, true}, {"short", 2, true}, {"int", 4, true}, {"long", 8, true},
	{"int8_t", 1, true}, {"uint8_t", 1, false}, {"int16_t", 2, true}, {"uint16_t", 2, false},
	{"int32_t", 4, true}, {"uint32_t", 4, false}, {"int64_t", 8, true}, {"uint64_t", 8, false},
	{"intptr_t", 8, true}, {"uintptr_t", 8, false},
}

func lookupType(name string) (Type, bool) {
	for _, t := range types {
		if t.Name == name {
			return t, true
		}
	}
	return Type{}, false
}

// Verdict is what a memory model says about a test's condition.
type Verdict uint8

// Verdicts. Allowed: the model allows an outcome satisfying the condition,
// and the runner must show it; Forbidden: no run may satisfy it;
// Required: every run must.
const (
	NoVerdict Verdict = iota
	Allowed
	Forbidden
	Required
)

func (v Verdict) String() string {
	switch v {
	case Allowed:
		return "Allowed"
	case Forbidden:
		return "Forbidden"
	case Required:
		return "Required"
	}
	return "none"
}

// Verdict returns the verdict the test's "Verdict=" metadata gives for the
// model ("Verdict=rvwmo:Allowed sc:Forbidden"), or NoVerdict.
func (t *Test) Verdict(model string) Verdict {
	for _, in := range t.Info {
		if in.Key != "Verdict" {
			continue
		}
		if v, err := parseVerdicts(in.Value); err == nil {
			for _, mv := range v {
				if mv.model == model {
					return mv.v
				}
			}
		}
	}
	return NoVerdict
}

// InfoValue returns the value of the first Key=value line with this key.
func (t *Test) InfoValue(key string) string {
	for _, in := range t.Info {
		if in.Key == key {
			return in.Value
		}
	}
	return ""
}

// Var returns the memory location called name, or nil.
func (t *Test) Var(name string) *Var {
	for _, v := range t.Vars {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// regTypeOf returns the declared type of a thread's register.
func (t *Test) regTypeOf(thread, reg int) Type {
	for _, r := range t.Regs {
		if r.Thread == thread && r.Reg == reg {
			return r.Type
		}
	}
	return regType
}
