package litmus

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits on a test, so that hostile input cannot make the runner build an
// unbounded machine.
const (
	MaxThreads   = 16
	MaxVars      = 256
	MaxLines     = 4096 // instruction lines per thread
	maxInputSize = 1 << 20
)

// Error is a syntax or semantic error in a test file: its message names the
// file and line ("mp.litmus:7: ..."). It wraps ErrSyntax.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *Error) Unwrap() error { return ErrSyntax }

// Parse reads one litmus test in the diy/herd text format:
//
//	RISCV NAME
//	"optional doc line"
//	Key=value            (optional metadata; Verdict= is read by --check)
//	{ 0:x5=1; 0:x6=x; 1:x6=y; uint64_t y; x=2; }
//	 P0          | P1          ;
//	 sw x5,0(x6) | lw x5,0(x6) ;
//	locations [x; 1:x5;]  (optional)
//	filter (0:x7=0)       (optional)
//	exists (1:x5=1 /\ x=2)
//
// The initial state declares registers (T:REG, holding a value, the
// address of a location, or the address of a label in a thread's code,
// "P1:LC00") and memory locations (0 unless given), optionally with a C
// type (int by default for memory, 64 bits for registers; a declaration
// may give a register's type alone: "uint64_t 1:x7;"). Columns hold RISC-V
// assembly, one instruction per cell, with optional labels ("LC00:"). The
// condition is exists, ~exists or forall over atoms (T:REG=V, x=V, [x]=V)
// joined by /\, \/, ~ or not, and parentheses; a test without one is
// "forall (true)". A filter proposition, in the same language, discards
// the runs whose final state does not satisfy it before the condition is
// checked. Comments are (* ... *). Errors are *Error and name the line.
func Parse(file string, src []byte) (*Test, error) {
	if len(src) > maxInputSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("file is %d bytes, more than the %d a litmus test may have", len(src), maxInputSize)}
	}
	text, err := stripComments(string(src))
	if err != nil {
		return nil, &Error{File: file, Line: err.(*Error).Line, Msg: err.(*Error).Msg}
	}
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], "\r")
	}
	p := &parser{file: file, lines: lines, t: &Test{File: file}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.t, nil
}

type parser struct {
	file  string
	lines []string
	i     int // index of the next line
	t     *Test
}

func (p *parser) errf(line int, format string, a ...any) error {
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// next returns the next non-blank line, trimmed, and its number (0 at the
// end of the file).
func (p *parser) next() (string, int) {
	for p.i < len(p.lines) {
		l := strings.TrimSpace(p.lines[p.i])
		p.i++
		if l != "" {
			return l, p.i
		}
	}
	return "", 0
}

func (p *parser) peek() (string, int) {
	save := p.i
	l, n := p.next()
	p.i = save
	return l, n
}

func (p *parser) lastLine() int { return max(len(p.lines), 1) }

func (p *parser) parse() error {
	if err := p.header(); err != nil {
		return err
	}
	if err := p.meta(); err != nil {
		return err
	}
	if err := p.initState(); err != nil {
		return err
	}
	if err := p.threads(); err != nil {
		return err
	}
	if err := p.final(); err != nil {
		return err
	}
	return p.check()
}

// header reads "RISCV NAME" and an optional doc string on the same line.
func (p *parser) header() error {
	l, n := p.next()
	if n == 0 {
		return p.errf(1, "empty file: expected a header line \"RISCV NAME\"")
	}
	f := strings.Fields(l)
	if len(f) < 2 {
		return p.errf(n, "header %q: expected \"RISCV NAME\"", l)
	}
	if !strings.EqualFold(f[0], "RISCV") {
		return p.errf(n, "architecture %q: only RISCV tests run here", f[0])
	}
	p.t.Arch, p.t.Name = "RISCV", f[1]
	if rest := strings.TrimSpace(strings.Join(f[2:], " ")); rest != "" {
		doc, ok := unquote(rest)
		if !ok {
			return p.errf(n, "after the test name: expected a quoted doc string, got %q", rest)
		}
		p.t.Doc = append(p.t.Doc, doc)
	}
	return nil
}

func unquote(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && !strings.Contains(s[1:len(s)-1], `"`) {
		return s[1 : len(s)-1], true
	}
	return "", false
}

// meta reads quoted doc lines and Key=value lines up to the initial state.
func (p *parser) meta() error {
	for {
		l, n := p.peek()
		switch {
		case n == 0:
			return p.errf(p.lastLine(), "no initial state: expected \"{\"")
		case strings.HasPrefix(l, "{"):
			return nil
		}
		p.next()
		if strings.HasPrefix(l, `"`) && strings.Count(l, `"`) == 1 {
			// A doc string over several lines: up to the line that
			// closes it.
			for {
				more, m := p.next()
				if m == 0 {
					return p.errf(n, "the doc string's quote is never closed")
				}
				l += " " + more
				if strings.Contains(more, `"`) {
					break
				}
			}
		}
		if doc, ok := unquote(l); ok {
			p.t.Doc = append(p.t.Doc, doc)
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || !isIdent(k) {
			return p.errf(n, "%q: expected a quoted doc line, Key=value or \"{\"", l)
		}
		if k == "Verdict" {
			if _, err := parseVerdicts(v); err != nil {
				return p.errf(n, "Verdict: %v", err)
			}
		}
		p.t.Info = append(p.t.Info, Info{Key: k, Value: v, Line: n})
	}
}

type verdictOf struct {
	model string
	v     Verdict
}

// parseVerdicts reads "rvwmo:Forbidden sc:Forbidden" (separated by
// spaces, commas or semicolons).
func parseVerdicts(s string) ([]verdictOf, error) {
	var out []verdictOf
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '\t' }) {
		m, v, ok := strings.Cut(f, ":")
		if !ok || !isIdent(m) {
			return nil, fmt.Errorf("%q: expected MODEL:Allowed|Forbidden|Required", f)
		}
		var vv Verdict
		switch v {
		case "Allowed":
			vv = Allowed
		case "Forbidden":
			vv = Forbidden
		case "Required":
			vv = Required
		default:
			return nil, fmt.Errorf("%q: verdict %q is not Allowed, Forbidden or Required", f, v)
		}
		out = append(out, verdictOf{m, vv})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no MODEL:VERDICT pairs")
	}
	return out, nil
}

// initState reads "{ decl; decl; ... }", possibly over several lines.
func (p *parser) initState() error {
	l, n := p.next()
	body := strings.TrimPrefix(l, "{")
	type piece struct {
		line int
		text string
	}
	var decls []piece
	cur, curLine := "", 0
	closed := false
	for line := n; ; {
		end := strings.IndexByte(body, '}')
		seg := body
		if end >= 0 {
			seg = body[:end]
		}
		for _, ch := range seg {
			if ch == ';' {
				decls = append(decls, piece{curLine, cur})
				cur, curLine = "", 0
				continue
			}
			if curLine == 0 && ch != ' ' && ch != '\t' {
				curLine = line
			}
			cur += string(ch)
		}
		if end >= 0 {
			if rest := strings.TrimSpace(body[end+1:]); rest != "" {
				return p.errf(line, "after the initial state's \"}\": unexpected %q", rest)
			}
			closed = true
			break
		}
		cur += " "
		if p.i >= len(p.lines) {
			break
		}
		body = p.lines[p.i]
		p.i++
		line = p.i
	}
	if !closed {
		return p.errf(n, "the initial state's \"{\" is never closed")
	}
	if strings.TrimSpace(cur) != "" {
		decls = append(decls, piece{curLine, cur})
	}
	for _, d := range decls {
		if err := p.decl(d.line, strings.TrimSpace(d.text)); err != nil {
			return err
		}
	}
	return nil
}

// decl reads one declaration of the initial state.
func (p *parser) decl(line int, s string) error {
	if s == "" {
		return nil
	}
	lhs, rhs, hasValue := strings.Cut(s, "=")
	lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
	f := strings.Fields(strings.ReplaceAll(lhs, "*", " * "))
	if len(f) == 0 {
		return p.errf(line, "%q: expected a location before \"=\"", s)
	}
	loc := f[len(f)-1]
	var typ Type
	typed := false
	if len(f) > 1 {
		tf := f[:len(f)-1]
		ptr := tf[len(tf)-1] == "*"
		if ptr {
			tf = tf[:len(tf)-1]
		}
		if len(tf) != 1 {
			return p.errf(line, "%q: expected TYPE LOCATION", s)
		}
		t, ok := lookupType(tf[0])
		if !ok {
			return p.errf(line, "unknown type %q", tf[0])
		}
		if ptr {
			t = Type{Name: t.Name + "*", Bytes: 8, Signed: false}
		}
		typ, typed = t, true
	} else if !hasValue {
		return p.errf(line, "%q: expected TYPE LOCATION, LOCATION=VALUE or T:REG=VALUE", s)
	}
	var val int64
	addrOf := ""
	if hasValue {
		v, a, err := parseValue(rhs)
		if err != nil {
			return p.errf(line, "%s: %v", s, err)
		}
		val, addrOf = v, a
		if th, label, ok := parseCodeLabel(a); ok {
			if th >= MaxThreads {
				return p.errf(line, "%s: thread P%d: a test has at most %d threads", s, th, MaxThreads)
			}
			_ = label // resolved by the layout, once the code is assembled
		} else if a != "" {
			if _, err := p.useVar(line, a); err != nil {
				return err
			}
		}
	}
	if th, reg, name, ok, err := parseReg(loc); ok || err != nil {
		if err != nil {
			return p.errf(line, "%v", err)
		}
		if reg == 0 {
			return p.errf(line, "%s: x0 is always 0", name)
		}
		for i := range p.t.Regs {
			r := &p.t.Regs[i]
			if r.Thread != th || r.Reg != reg {
				continue
			}
			// A declaration may give the type ("uint64_t 1:x7;") and
			// another the value, once each.
			if hasValue && r.set || typed && r.typed {
				return p.errf(line, "register %d:%s is set twice (first on line %d)", th, name, r.Line)
			}
			if typed {
				r.Type, r.typed = typ, true
			}
			if hasValue {
				r.Value, r.AddrOf, r.set, r.Line = val, addrOf, true, line
			}
			return nil
		}
		if !typed {
			typ = regType
		}
		p.t.Regs = append(p.t.Regs, RegInit{Thread: th, Reg: reg, Type: typ, Value: val, AddrOf: addrOf, Line: line, typed: typed, set: hasValue})
		return nil
	}
	name := strings.TrimSuffix(strings.TrimPrefix(loc, "["), "]")
	v, err := p.useVar(line, name)
	if err != nil {
		return err
	}
	if typed {
		v.Type = typ
	}
	if hasValue {
		v.Init, v.AddrOf, v.Line = val, addrOf, line
	}
	return nil
}

// parseCodeLabel reads "P1:LC00", the address of label LC00 in thread
// P1's code, as herd writes it in an initial state.
func parseCodeLabel(s string) (thread int, label string, ok bool) {
	ts, label, found := strings.Cut(s, ":")
	t, isP := strings.CutPrefix(ts, "P")
	if !found || !isP || !isLabel(label) {
		return 0, "", false
	}
	th, err := strconv.Atoi(t)
	if err != nil || th < 0 || strconv.Itoa(th) != t {
		return 0, "", false
	}
	return th, label, true
}

// useVar returns the memory location called name, adding it if new.
func (p *parser) useVar(line int, name string) (*Var, error) {
	if !isIdent(name) {
		return nil, p.errf(line, "%q is not a location name", name)
	}
	if v := p.t.Var(name); v != nil {
		return v, nil
	}
	if len(p.t.Vars) >= MaxVars {
		return nil, p.errf(line, "more than %d memory locations", MaxVars)
	}
	v := &Var{Name: name, Type: defaultType}
	p.t.Vars = append(p.t.Vars, v)
	return v, nil
}

// parseValue reads an integer (decimal, 0x hex, negative), the name of a
// location (its address; "&x" also) or a code label ("P1:LC00", its
// address; returned as the name).
func parseValue(s string) (int64, string, error) {
	if _, _, ok := parseCodeLabel(s); ok {
		return 0, s, nil
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return v, "", nil
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		return int64(v), "", nil
	}
	name := strings.TrimPrefix(s, "&")
	if isIdent(name) {
		return 0, name, nil
	}
	return 0, "", fmt.Errorf("%q is neither an integer nor a location name", s)
}

// parseReg reads "T:REG". ok is false (and err nil) when s has no colon.
func parseReg(s string) (thread, reg int, name string, ok bool, err error) {
	ts, rs, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, "", false, nil
	}
	th, e := strconv.Atoi(ts)
	if e != nil || th < 0 || th >= MaxThreads || strconv.Itoa(th) != ts {
		return 0, 0, "", false, fmt.Errorf("%q: thread %q is not a number below %d", s, ts, MaxThreads)
	}
	r, e2 := regNum(rs)
	if e2 != nil {
		return 0, 0, "", false, fmt.Errorf("%q: %v", s, e2)
	}
	return th, r, rs, true, nil
}

// abiNames are the integer registers' ABI names (Unprivileged ISA,
// "RISC-V Assembly Programmer's Handbook", table of register names).
var abiNames = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
}

// regNum returns the number of integer register s (x0..x31, an ABI name,
// or fp).
func regNum(s string) (int, error) {
	t := strings.ToLower(s)
	if t == "fp" {
		return 8, nil
	}
	for i, n := range abiNames {
		if t == n {
			return i, nil
		}
	}
	if n, ok := strings.CutPrefix(t, "x"); ok {
		if v, err := strconv.Atoi(n); err == nil && v >= 0 && v < 32 && strconv.Itoa(v) == n {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%q is not an integer register", s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && (r == '.' || (r >= '0' && r <= '9')):
		default:
			return false
		}
	}
	return true
}

// threads reads the "P0 | P1 ;" line and the instruction lines below it.
func (p *parser) threads() error {
	l, n := p.next()
	if n == 0 {
		return p.errf(p.lastLine(), "no threads: expected \"P0 | P1 ... ;\"")
	}
	cells := splitRow(l)
	for i, c := range cells {
		if c != "P"+strconv.Itoa(i) {
			return p.errf(n, "thread header %q: column %d should be P%d", l, i+1, i)
		}
	}
	if len(cells) > MaxThreads {
		return p.errf(n, "%d threads, more than %d", len(cells), MaxThreads)
	}
	p.t.Threads = make([]Thread, len(cells))
	// A row ends with ";" and may span lines (a comment in a cell can
	// push the ";" to the next line); each cell keeps the line its text
	// starts on.
	var row []byte
	var rowLines []int // per byte of row
	for {
		l, n := p.peek()
		if len(row) == 0 && (n == 0 || startsFinal(l)) {
			return nil
		}
		if n == 0 {
			return p.errf(rowLines[0], "%q: expected exists, ~exists or forall before a condition, or \";\" to end a row of instructions", strings.TrimSpace(string(row)))
		}
		if startsFinal(l) {
			return p.errf(rowLines[0], "%q: expected \";\" to end a row of instructions", strings.TrimSpace(string(row)))
		}
		p.next()
		for len(l) > 0 {
			end := strings.IndexByte(l, ';')
			seg := l
			if end >= 0 {
				seg = l[:end]
			}
			row = append(row, seg...)
			row = append(row, ' ')
			for range len(seg) + 1 {
				rowLines = append(rowLines, n)
			}
			if end < 0 {
				break
			}
			if err := p.row(row, rowLines, len(cells)); err != nil {
				return err
			}
			row, rowLines = row[:0], rowLines[:0]
			l = strings.TrimSpace(l[end+1:])
		}
	}
}

// row adds one row of instructions (its text without the ";", and the
// line of each byte) to the threads' columns.
func (p *parser) row(row []byte, lines []int, threads int) error {
	var cells [][2]int // start and end of each cell in row
	start := 0
	for i := 0; i <= len(row); i++ {
		if i == len(row) || row[i] == '|' {
			cells = append(cells, [2]int{start, i})
			start = i + 1
		}
	}
	if len(cells) > threads {
		return p.errf(lines[min(cells[threads][0], len(lines)-1)], "%d columns, but the test has %d threads", len(cells), threads)
	}
	for i, c := range cells {
		text := string(row[c[0]:c[1]])
		trimmed := strings.TrimSpace(text)
		if trimmed == "" {
			continue
		}
		line := lines[c[0]+strings.Index(text, trimmed)]
		sl := SrcLine{Line: line}
		if j := strings.IndexByte(trimmed, ':'); j > 0 && isLabel(trimmed[:j]) {
			sl.Label, trimmed = trimmed[:j], strings.TrimSpace(trimmed[j+1:])
		}
		sl.Text = strings.Join(strings.Fields(trimmed), " ")
		th := &p.t.Threads[i]
		if len(th.Lines) >= MaxLines {
			return p.errf(line, "P%d has more than %d lines", i, MaxLines)
		}
		th.Lines = append(th.Lines, sl)
	}
	return nil
}

func isLabel(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// splitRow splits "a | b | c ;" into trimmed cells.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimSpace(strings.TrimSuffix(l, ";"))
	cells := strings.Split(l, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func startsFinal(l string) bool {
	w := l
	if i := strings.IndexAny(w, " \t(["); i >= 0 {
		w = w[:i]
	}
	switch w {
	case "exists", "~exists", "forall", "locations", "filter", "~":
		return true
	}
	return false
}

// final reads an optional locations list and the condition.
func (p *parser) final() error {
	var toks []token
	for ; p.i < len(p.lines); p.i++ {
		ts, err := tokenize(p.lines[p.i], p.i+1)
		if err != nil {
			return p.errf(p.i+1, "%v", err)
		}
		toks = append(toks, ts...)
	}
	c := &condParser{p: p, toks: toks}
	return c.final()
}

// check validates cross references once everything is read.
func (p *parser) check() error {
	t := p.t
	for _, r := range t.Regs {
		if r.Thread >= len(t.Threads) {
			return p.errf(r.Line, "register %d:x%d belongs to no thread (the test has %d)", r.Thread, r.Reg, len(t.Threads))
		}
	}
	var bad error
	t.Cond.walk(func(a *Atom) {
		if bad == nil && a.Loc.Thread >= len(t.Threads) {
			bad = p.errf(t.CondLine, "%s belongs to no thread (the test has %d)", a.Loc, len(t.Threads))
		}
	})
	t.Filter.walk(func(a *Atom) {
		if bad == nil && a.Loc.Thread >= len(t.Threads) {
			bad = p.errf(t.FilterLine, "filter: %s belongs to no thread (the test has %d)", a.Loc, len(t.Threads))
		}
	})
	for _, l := range t.Locs {
		if bad == nil && l.Thread >= len(t.Threads) {
			bad = p.errf(t.CondLine, "locations: %s belongs to no thread (the test has %d)", l, len(t.Threads))
		}
	}
	for _, r := range t.Regs {
		if th, _, ok := parseCodeLabel(r.AddrOf); ok && bad == nil && th >= len(t.Threads) {
			bad = p.errf(r.Line, "%s: the test has no thread P%d", r.AddrOf, th)
		}
	}
	for _, v := range t.Vars {
		if th, _, ok := parseCodeLabel(v.AddrOf); ok && bad == nil && th >= len(t.Threads) {
			bad = p.errf(v.Line, "%s: the test has no thread P%d", v.AddrOf, th)
		}
	}
	return bad
}

// stripComments blanks out (* ... *) comments, keeping line breaks so that
// line numbers stay right.
func stripComments(s string) (string, error) {
	var b strings.Builder
	depth, line, start := 0, 1, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			line++
		}
		switch {
		case c == '(' && i+1 < len(s) && s[i+1] == '*':
			if depth == 0 {
				start = line
			}
			depth++
			b.WriteString("  ")
			i++
		case depth > 0 && c == '*' && i+1 < len(s) && s[i+1] == ')':
			depth--
			b.WriteString("  ")
			i++
		case depth > 0 && c != '\n':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	if depth > 0 {
		return "", &Error{Line: start, Msg: "comment \"(*\" is never closed"}
	}
	return b.String(), nil
}
