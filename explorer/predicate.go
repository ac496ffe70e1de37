package explorer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"everett/emu"
)

// The predicate language of bisection (everett bisect --predicate): a
// condition on a replayed universe's state.

// ErrPredicate is wrapped by predicate syntax errors.
var ErrPredicate = errors.New("invalid predicate")

// Predicate is a condition on a universe's state.
type Predicate struct {
	Text  string
	kind  string // failure, mem, console, pc, reg, trap
	addr  uint64
	value uint64
	neg   bool
	trap  trapWatch
	size  int
	re    *regexp.Regexp
	hart  int
	reg   int
	node  int
}

// ParsePredicate parses one of:
//
//	failure               the report's own failure has happened
//	mem:ADDR==V, mem:ADDR!=V   the 64-bit word at guest physical ADDR
//	                      (mem8:, mem16:, mem32: for narrower words); ADDR
//	                      may be a symbol of a bare-metal program
//	console:/REGEX/       some node's console has printed a matching line
//	pc:ADDR, pc:SYMBOL    some hart is about to execute ADDR
//	reg:HART:xN==V        integer register xN of hart HART (also !=)
//	trap:CAUSE            some hart has taken an exception of this cause
//	trap:CAUSE@TVAL       ... with this trap value (hex); CAUSE is a name
//	                      (load-page-fault, illegal-instruction, ...) or
//	                      a number
//
// A predicate applies to node 0 unless prefixed by "nodeK/".
func ParsePredicate(text string, sym func(string) (uint64, bool)) (*Predicate, error) {
	p := &Predicate{Text: text, size: 8}
	t := text
	if rest, ok := strings.CutPrefix(t, "node"); ok {
		n, after, ok := strings.Cut(rest, "/")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 0 || k >= MaxNodes {
			return nil, fmt.Errorf("%w: %q: bad node prefix", ErrPredicate, text)
		}
		p.node, t = k, after
	}
	bad := func(why string) error { return fmt.Errorf("%w: %q: %s", ErrPredicate, text, why) }
	num := func(s string) (uint64, error) {
		s = strings.TrimSpace(s)
		if v, err := strconv.ParseUint(s, 0, 64); err == nil {
			return v, nil
		}
		if v, err := strconv.ParseInt(s, 0, 64); err == nil {
			return uint64(v), nil
		}
		if sym != nil {
			name, off := s, uint64(0)
			if i := strings.LastIndex(s, "+"); i > 0 {
				o, err := strconv.ParseUint(s[i+1:], 0, 64)
				if err == nil {
					name, off = s[:i], o
				}
			}
			if v, ok := sym(name); ok {
				return v + off, nil
			}
		}
		return 0, fmt.Errorf("%q is neither a number nor a known symbol", s)
	}
	cmp := func(s string) (lhs string, v uint64, neg bool, err error) {
		op := "=="
		i := strings.Index(s, "==")
		if j := strings.Index(s, "!="); j >= 0 {
			i, op = j, "!="
		}
		if i < 0 {
			return "", 0, false, fmt.Errorf("want == or !=")
		}
		v, err = num(s[i+2:])
		return s[:i], v, op == "!=", err
	}
	head, rest, _ := strings.Cut(t, ":")
	switch head {
	case "failure":
		p.kind = "failure"
	case "mem", "mem8", "mem16", "mem32", "mem64":
		p.kind = "mem"
		p.size = map[string]int{"mem": 8, "mem8": 1, "mem16": 2, "mem32": 4, "mem64": 8}[head]
		lhs, v, neg, err := cmp(rest)
		if err != nil {
			return nil, bad(err.Error())
		}
		if p.addr, err = num(lhs); err != nil {
			return nil, bad(err.Error())
		}
		p.value, p.neg = v, neg
	case "console":
		p.kind = "console"
		if len(rest) < 2 || rest[0] != '/' || rest[len(rest)-1] != '/' {
			return nil, bad("want console:/REGEX/")
		}
		re, err := regexp.Compile(rest[1 : len(rest)-1])
		if err != nil {
			return nil, bad(err.Error())
		}
		p.re = re
	case "pc":
		p.kind = "pc"
		v, err := num(rest)
		if err != nil {
			return nil, bad(err.Error())
		}
		p.addr = v
	case "reg":
		p.kind = "reg"
		hs, r, ok := strings.Cut(rest, ":")
		if !ok {
			return nil, bad("want reg:HART:xN==V")
		}
		h, err := strconv.Atoi(hs)
		if err != nil || h < 0 || h >= emu.MaxHarts {
			return nil, bad("bad hart number")
		}
		lhs, v, neg, err := cmp(r)
		if err != nil {
			return nil, bad(err.Error())
		}
		x, err := strconv.Atoi(strings.TrimPrefix(lhs, "x"))
		if !strings.HasPrefix(lhs, "x") || err != nil || x < 0 || x > 31 {
			return nil, bad("want a register x0..x31")
		}
		p.hart, p.reg, p.value, p.neg = h, x, v, neg
	case "trap":
		p.kind = "trap"
		c, v, has, err := parseTrapPredicate(rest)
		if err != nil {
			return nil, bad(err.Error())
		}
		p.trap = trapWatch{node: p.node, cause: c, tval: v, hasTval: has}
	default:
		return nil, bad("want failure, mem:, console:, pc:, reg: or trap:")
	}
	return p, nil
}

// holds evaluates a state predicate on u (pc predicates are evaluated by
// breakpoints, console predicates by the console watch).
func (p *Predicate) holds(u *Universe, sig string) bool {
	if p.node >= len(u.nodes) {
		return false
	}
	n := u.nodes[p.node]
	switch p.kind {
	case "failure":
		return u.failure != nil && (sig == "" || u.failure.Signature() == sig)
	case "console":
		return u.watch != nil && u.watch.consoleHit
	case "trap":
		return u.watch != nil && u.watch.trapHit
	case "pc":
		if n.b == nil || n.down {
			return false
		}
		for _, h := range n.b.Harts() {
			if h.PC() == p.addr && !h.Halted() {
				return true
			}
		}
		return false
	case "mem":
		if n.b == nil || n.down {
			return false
		}
		var b [8]byte
		if n.b.ReadPhys(p.addr, b[:p.size]) != nil {
			return false
		}
		return (binary.LittleEndian.Uint64(b[:]) == p.value) != p.neg
	case "reg":
		if n.b == nil || n.down || p.hart >= len(n.b.Harts()) {
			return false
		}
		return (n.b.Hart(p.hart).X(p.reg) == p.value) != p.neg
	}
	return false
}
