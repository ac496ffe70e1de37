package litmus

import (
	"fmt"
	"strconv"
	"strings"
)

// PropOp is the kind of a proposition node.
type PropOp uint8

// Proposition nodes.
const (
	PropAtom PropOp = iota
	PropTrue
	PropFalse
	PropNot
	PropAnd
	PropOr
)

// Prop is a proposition over a final state: an atom, true, false, or ~
// (also written not), /\ and \/ of sub-propositions.
type Prop struct {
	Op   PropOp
	L, R *Prop
	Atom Atom
}

// Atom compares one location with a value (or with the address of a
// location, AddrOf).
type Atom struct {
	Loc    Loc
	Value  int64
	AddrOf string
}

func (l Loc) String() string {
	if l.Thread >= 0 {
		return fmt.Sprintf("%d:x%d", l.Thread, l.Reg)
	}
	return l.Var
}

func (a Atom) String() string {
	if a.AddrOf != "" {
		return a.Loc.String() + "=" + a.AddrOf
	}
	return a.Loc.String() + "=" + strconv.FormatInt(a.Value, 10)
}

// String prints the proposition in the file syntax, fully parenthesised
// where /\ and \/ mix.
func (p *Prop) String() string {
	switch p.Op {
	case PropAtom:
		return p.Atom.String()
	case PropTrue:
		return "true"
	case PropFalse:
		return "false"
	case PropNot:
		return "~" + p.L.paren()
	case PropAnd:
		return p.L.parenUnless(PropAnd) + ` /\ ` + p.R.parenUnless(PropAnd)
	case PropOr:
		return p.L.parenUnless(PropOr) + ` \/ ` + p.R.parenUnless(PropOr)
	}
	return "?"
}

func (p *Prop) paren() string {
	if p.Op == PropAnd || p.Op == PropOr {
		return "(" + p.String() + ")"
	}
	return p.String()
}

func (p *Prop) parenUnless(op PropOp) string {
	if p.Op == op {
		return p.String()
	}
	return p.paren()
}

// Eval evaluates the proposition; val returns the value an atom's location
// holds, already compared the way the atom's type says.
func (p *Prop) Eval(holds func(a *Atom) bool) bool {
	switch p.Op {
	case PropAtom:
		return holds(&p.Atom)
	case PropTrue:
		return true
	case PropNot:
		return !p.L.Eval(holds)
	case PropAnd:
		return p.L.Eval(holds) && p.R.Eval(holds)
	case PropOr:
		return p.L.Eval(holds) || p.R.Eval(holds)
	}
	return false
}

// walk calls fn for every atom, left to right.
func (p *Prop) walk(fn func(a *Atom)) {
	if p == nil {
		return
	}
	if p.Op == PropAtom {
		fn(&p.Atom)
		return
	}
	p.L.walk(fn)
	p.R.walk(fn)
}

type token struct {
	text string
	line int
}

// tokenize splits one line of the final section into tokens: ( ) [ ] ; =
// ~ /\ \/ and words (locations, values, keywords).
func tokenize(l string, line int) ([]token, error) {
	var out []token
	for i := 0; i < len(l); {
		c := l[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(l[i:], `/\`), strings.HasPrefix(l[i:], `\/`):
			out = append(out, token{l[i : i+2], line})
			i += 2
		case strings.IndexByte("()[];=~,", c) >= 0:
			out = append(out, token{l[i : i+1], line})
			i++
		case isWordByte(c):
			j := i
			for j < len(l) && isWordByte(l[j]) {
				j++
			}
			out = append(out, token{l[i:j], line})
			i = j
		default:
			return nil, fmt.Errorf("unexpected character %q", c)
		}
	}
	return out, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == ':' || c == '.' || c == '-' || c == '+' || c == '&' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// condParser reads "locations [...]" and the condition from tokens.
type condParser struct {
	p    *parser
	toks []token
	i    int
}

func (c *condParser) peek() token {
	if c.i < len(c.toks) {
		return c.toks[c.i]
	}
	return token{"", c.p.lastLine()}
}

func (c *condParser) take() token {
	t := c.peek()
	if c.i < len(c.toks) {
		c.i++
	}
	return t
}

func (c *condParser) errf(t token, format string, a ...any) error {
	return c.p.errf(t.line, format, a...)
}

func (c *condParser) final() error {
	t := c.p.t
	if c.peek().text == "locations" {
		c.take()
		if tk := c.take(); tk.text != "[" {
			return c.errf(tk, "locations: expected \"[\", got %q", tk.text)
		}
		for {
			tk := c.peek()
			if tk.text == "]" {
				c.take()
				break
			}
			if tk.text == ";" {
				c.take()
				continue
			}
			if tk.text == "" {
				return c.errf(tk, "locations: \"[\" is never closed")
			}
			l, err := c.loc()
			if err != nil {
				return err
			}
			t.Locs = append(t.Locs, l)
		}
	}
	if c.peek().text == "filter" {
		t.FilterLine = c.take().line
		p, err := c.or(0)
		if err != nil {
			return err
		}
		t.Filter = p
	}
	if c.peek().text == "" {
		// No condition: herd reads it as "forall (true)", which every
		// run satisfies.
		t.Quant, t.Cond, t.CondLine = Forall, &Prop{Op: PropTrue}, c.p.lastLine()
		return nil
	}
	q := c.take()
	t.CondLine = q.line
	switch q.text {
	case "exists":
		t.Quant = Exists
	case "~":
		if n := c.take(); n.text != "exists" {
			return c.errf(n, "expected \"exists\" after \"~\", got %q", n.text)
		}
		t.Quant = NotExists
	case "forall":
		t.Quant = Forall
	case "filter":
		return c.errf(q, "a second filter: expected exists, ~exists or forall")
	default:
		return c.errf(q, "expected exists, ~exists or forall, got %q", q.text)
	}
	p, err := c.or(0)
	if err != nil {
		return err
	}
	if tk := c.peek(); tk.text != "" {
		return c.errf(tk, "unexpected %q after the condition", tk.text)
	}
	t.Cond = p
	return nil
}

// maxDepth bounds the nesting of a condition (parentheses, ~).
const maxDepth = 100

func (c *condParser) or(depth int) (*Prop, error) {
	l, err := c.and(depth)
	if err != nil {
		return nil, err
	}
	for c.peek().text == `\/` {
		c.take()
		r, err := c.and(depth)
		if err != nil {
			return nil, err
		}
		l = &Prop{Op: PropOr, L: l, R: r}
	}
	return l, nil
}

func (c *condParser) and(depth int) (*Prop, error) {
	l, err := c.unary(depth)
	if err != nil {
		return nil, err
	}
	for c.peek().text == `/\` {
		c.take()
		r, err := c.unary(depth)
		if err != nil {
			return nil, err
		}
		l = &Prop{Op: PropAnd, L: l, R: r}
	}
	return l, nil
}

func (c *condParser) unary(depth int) (*Prop, error) {
	if depth > maxDepth {
		return nil, c.errf(c.peek(), "condition nested more than %d deep", maxDepth)
	}
	tk := c.peek()
	switch tk.text {
	case "~", "not":
		c.take()
		p, err := c.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Prop{Op: PropNot, L: p}, nil
	case "(":
		c.take()
		p, err := c.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if cl := c.take(); cl.text != ")" {
			return nil, c.errf(cl, "expected \")\", got %q", cl.text)
		}
		return p, nil
	case "true":
		c.take()
		return &Prop{Op: PropTrue}, nil
	case "false":
		c.take()
		return &Prop{Op: PropFalse}, nil
	case "":
		return nil, c.errf(tk, "the condition ends early: expected an atom such as 0:x5=1")
	}
	l, err := c.loc()
	if err != nil {
		return nil, err
	}
	if eq := c.take(); eq.text != "=" {
		return nil, c.errf(eq, "after %s: expected \"=\", got %q", l, eq.text)
	}
	vt := c.take()
	if vt.text == "" || !isWordByte(vt.text[0]) {
		return nil, c.errf(vt, "after %s=: expected a value, got %q", l, vt.text)
	}
	v, addr, err := parseValue(vt.text)
	if err != nil {
		return nil, c.errf(vt, "%v", err)
	}
	if addr != "" {
		if _, err := c.p.useVar(vt.line, addr); err != nil {
			return nil, err
		}
	}
	return &Prop{Op: PropAtom, Atom: Atom{Loc: l, Value: v, AddrOf: addr}}, nil
}

// loc reads T:REG, x or [x].
func (c *condParser) loc() (Loc, error) {
	tk := c.take()
	if tk.text == "[" {
		n := c.take()
		if cl := c.take(); cl.text != "]" {
			return Loc{}, c.errf(cl, "expected \"]\" after [%s, got %q", n.text, cl.text)
		}
		if _, err := c.p.useVar(n.line, n.text); err != nil {
			return Loc{}, err
		}
		return Loc{Thread: -1, Var: n.text}, nil
	}
	th, reg, _, ok, err := parseReg(tk.text)
	if err != nil {
		return Loc{}, c.errf(tk, "%v", err)
	}
	if ok {
		return Loc{Thread: th, Reg: reg}, nil
	}
	if !isIdent(tk.text) {
		return Loc{}, c.errf(tk, "expected a location (T:REG or a name), got %q", tk.text)
	}
	if _, err := c.p.useVar(tk.line, tk.text); err != nil {
		return Loc{}, err
	}
	return Loc{Thread: -1, Var: tk.text}, nil
}
