package litmus

import (
	"encoding/binary"
	"fmt"

	"everett/isa"
)

// The program a test becomes. RAM starts at RAMBase and holds, page by
// page:
//
//	RAMBase + i*ThreadStride   thread i: MaxDelay nops (the delay sled),
//	                           its column, and the epilogue
//	                           ([TailNops nops;] fence rw,rw; wfi; j back
//	                           to the wfi)
//	DataBase                   memory locations, one per 64-byte line
//	                           (location k at DataBase + 64*k)
//
// A run enters thread i's sled MaxDelay-d instructions before the column,
// so that the thread starts d instructions late. The epilogue's fence
// orders everything the thread did before the hart waits; when every hart
// waits, the run is over and the machine stops idle. Under a weak memory
// model (emu's rvwmo), TailNops nops before the fence give the thread's
// buffered stores and deferred loads instructions in which to complete one
// by one while other threads run, instead of all at once at the fence;
// under sc there are none, so sc runs are what they always were.
const (
	RAMBase  = 0x8000_0000
	MaxDelay = 24 // longest delay a run draws, in instructions
	TailNops = 16 // nops between a column and its epilogue's fence
	lineSize = 64
	pageSize = 4096
)

// Program is a test laid out for the machine.
type Program struct {
	Test      *Test
	RAMBytes  uint64
	Threads   []ThreadCode
	Labels    []map[string]uint64 // per thread: label -> address (looked up only)
	DataBase  uint64
	VarAddr   []uint64 // by index in Test.Vars
	CodeInsns int      // instructions in all columns, without sleds and epilogues
	LRSC      bool     // some thread has an LR (see drawPlan)
}

// ThreadCode is one thread's code and where it sits.
type ThreadCode struct {
	Base  uint64   // first instruction of the sled
	Entry uint64   // first instruction of the column (after the sled)
	Words []uint32 // sled, column, epilogue

	lines []int // the file line of each word of the column
}

// lineAt returns the file line of the column's instruction at pc, or 0
// if pc is not in the column.
func (th *ThreadCode) lineAt(pc uint64) int {
	if pc < th.Entry || pc&3 != 0 || (pc-th.Entry)/4 >= uint64(len(th.lines)) {
		return 0
	}
	return th.lines[(pc-th.Entry)/4]
}

// Layout assembles every thread of t and places code and data, for sc.
func Layout(t *Test) (*Program, error) { return layout(t, 0) }

// layoutFor is the layout of t for a memory model: weak models get
// TailNops nops before each epilogue's fence.
func layoutFor(t *Test, model string) (*Program, error) {
	if model == ModelSC {
		return layout(t, 0)
	}
	return layout(t, TailNops)
}

func layout(t *Test, tail int) (*Program, error) {
	p := &Program{Test: t}
	at := uint64(RAMBase)
	for i := range t.Threads {
		entry := at + 4*MaxDelay
		c, err := assemble(t, i, entry)
		if err != nil {
			return nil, err
		}
		col := c.words
		p.Labels = append(p.Labels, c.labels)
		p.CodeInsns += len(col)
		for _, w := range col {
			if op := isa.Decode(w).Op; op == isa.LR_W || op == isa.LR_D {
				p.LRSC = true
			}
		}
		var words []uint32
		nop := mustEncode("nop", 0)
		for range MaxDelay {
			words = append(words, nop)
		}
		words = append(words, col...)
		for range tail {
			words = append(words, nop)
		}
		end := at + 4*uint64(len(words))
		words = append(words, mustEncode("fence rw,rw", end), mustEncode("wfi", end+4))
		words = append(words, mustEncode(fmt.Sprintf("j %x", end+4), end+8))
		p.Threads = append(p.Threads, ThreadCode{Base: at, Entry: entry, Words: words, lines: c.lines})
		at = alignUp(at+4*uint64(len(words)), pageSize)
	}
	p.DataBase = at
	for k := range t.Vars {
		p.VarAddr = append(p.VarAddr, at+uint64(k)*lineSize)
	}
	p.RAMBytes = alignUp(at+uint64(max(len(t.Vars), 1))*lineSize, pageSize) - RAMBase
	for _, r := range t.Regs {
		if err := p.checkCodeLabel(r.AddrOf, r.Line); err != nil {
			return nil, err
		}
	}
	for _, v := range t.Vars {
		if err := p.checkCodeLabel(v.AddrOf, v.Line); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkCodeLabel reports an initial value "P1:LC00" whose label thread
// P1 does not have.
func (p *Program) checkCodeLabel(name string, line int) error {
	th, label, ok := parseCodeLabel(name)
	if !ok {
		return nil
	}
	if _, found := p.Labels[th][label]; !found {
		return &Error{File: p.Test.File, Line: line, Msg: fmt.Sprintf("%s: P%d has no label %s", name, th, label)}
	}
	return nil
}

func alignUp(v, a uint64) uint64 { return (v + a - 1) &^ (a - 1) }

// mustEncode assembles an instruction the layout itself writes; failing is
// a bug in this file.
func mustEncode(text string, pc uint64) uint32 {
	in, err := isa.Parse(text, pc)
	if err != nil {
		panic(fmt.Sprintf("litmus: layout instruction %q: %v", text, err))
	}
	w, err := isa.Encode(in)
	if err != nil {
		panic(fmt.Sprintf("litmus: layout instruction %q: %v", text, err))
	}
	return w
}

// addrOf returns the address of the memory location called name, or of
// the code label name ("P1:LC00").
func (p *Program) addrOf(name string) uint64 {
	if th, label, ok := parseCodeLabel(name); ok {
		return p.Labels[th][label] // checked by layout
	}
	for k, v := range p.Test.Vars {
		if v.Name == name {
			return p.VarAddr[k]
		}
	}
	panic("litmus: no location " + name) // Parse added every name it saw
}

// image returns the bytes of RAM before a run: code and initial memory.
func (p *Program) image() []byte {
	img := make([]byte, p.RAMBytes)
	for _, th := range p.Threads {
		off := th.Base - RAMBase
		for i, w := range th.Words {
			binary.LittleEndian.PutUint32(img[off+4*uint64(i):], w)
		}
	}
	for k, v := range p.Test.Vars {
		val := uint64(v.Init)
		if v.AddrOf != "" {
			val = p.addrOf(v.AddrOf)
		}
		off := p.VarAddr[k] - RAMBase
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], val)
		copy(img[off:off+uint64(v.Type.Bytes)], b[:v.Type.Bytes])
	}
	return img
}

// regValue returns a register's initial value.
func (p *Program) regValue(r RegInit) uint64 {
	if r.AddrOf != "" {
		return p.addrOf(r.AddrOf)
	}
	return uint64(r.Value)
}
