package litmus

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Result is what the runs of one test saw.
type Result struct {
	Test     *Test
	Model    string
	Runs     int
	Seed     uint64
	Locs     []Loc   // the observed locations, in the order states print them
	States   []State // distinct final states, sorted by their values
	Pos, Neg int     // runs whose final state satisfies the condition's proposition, and the others
	// Filtered counts the runs the test's filter discarded: they are in
	// neither States nor Pos and Neg.
	Filtered int

	types []Type // per observed location
}

// State is one final state and how many runs ended in it.
type State struct {
	Values []uint64 // per observed location, extended to 64 bits by its type
	Count  int
	Sat    bool // satisfies the condition's proposition
}

// finish evaluates the condition on every state, counts witnesses and
// sorts the states.
func (r *Result) finish(p *Program) {
	t := r.Test
	r.types = make([]Type, len(r.Locs))
	for i, l := range r.Locs {
		if l.Thread >= 0 {
			r.types[i] = t.regTypeOf(l.Thread, l.Reg)
		} else {
			r.types[i] = t.Var(l.Var).Type
		}
	}
	kept := r.States[:0]
	for _, s := range r.States {
		holds := func(a *Atom) bool {
			i := slices.Index(r.Locs, a.Loc)
			want := uint64(a.Value)
			if a.AddrOf != "" {
				want = p.addrOf(a.AddrOf)
			}
			return s.Values[i] == extend(want, r.types[i])
		}
		if t.Filter != nil && !t.Filter.Eval(holds) {
			r.Filtered += s.Count
			continue
		}
		kept = append(kept, s)
	}
	r.States = kept
	for si := range r.States {
		s := &r.States[si]
		s.Sat = t.Cond.Eval(func(a *Atom) bool {
			i := slices.Index(r.Locs, a.Loc)
			want := uint64(a.Value)
			if a.AddrOf != "" {
				want = p.addrOf(a.AddrOf)
			}
			return s.Values[i] == extend(want, r.types[i])
		})
		if s.Sat {
			r.Pos += s.Count
		} else {
			r.Neg += s.Count
		}
	}
	slices.SortFunc(r.States, func(a, b State) int {
		for i := range a.Values {
			var c int
			if r.types[i].Signed {
				c = cmp.Compare(int64(a.Values[i]), int64(b.Values[i]))
			} else {
				c = cmp.Compare(a.Values[i], b.Values[i])
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
}

// Validated reports whether the condition holds of the runs: exists, some
// run satisfies the proposition; ~exists, none does; forall, all do.
func (r *Result) Validated() bool {
	switch r.Test.Quant {
	case NotExists:
		return r.Pos == 0
	case Forall:
		return r.Neg == 0
	}
	return r.Pos > 0
}

// Observation is Never, Sometimes or Always: how many runs satisfied the
// proposition.
func (r *Result) Observation() string {
	switch {
	case r.Pos == 0:
		return "Never"
	case r.Neg == 0:
		return "Always"
	}
	return "Sometimes"
}

func (r *Result) formatValue(i int, v uint64) string {
	if r.types[i].Signed {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}

// stateString prints a state's values: "1:x5=1; x=2;".
func (r *Result) stateString(s State) string {
	var b strings.Builder
	for i, l := range r.Locs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s;", l, r.formatValue(i, s.Values[i]))
	}
	return b.String()
}

// Write prints the result in the style of litmus7:
//
//	Test MP Allowed
//	States 4
//	25012 :>1:x5=0; 1:x7=0;
//	...
//	No
//	Witnesses
//	Positive: 0 Negative: 100000
//	Condition exists (1:x5=1 /\ 1:x7=0) is NOT validated
//	Observation MP Never 0 100000
//
// "Allowed" is for exists, "Forbidden" for ~exists, "Required" for forall.
// A state that satisfies the proposition is marked "*>", others ":>". Ok or
// No says whether the condition is validated. A test with a filter lists
// only the states that satisfy it and says, after the witnesses, how many
// runs it discarded ("Filter (0:x8=0) discarded 12 of 100 runs"). No host time is printed:
// two runs with the same seed print the same bytes.
func (r *Result) Write(w io.Writer) error {
	t := r.Test
	kind := "Allowed"
	switch t.Quant {
	case NotExists:
		kind = "Forbidden"
	case Forall:
		kind = "Required"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Test %s %s\n", t.Name, kind)
	fmt.Fprintf(&b, "States %d\n", len(r.States))
	for _, s := range r.States {
		mark := ":>"
		if s.Sat {
			mark = "*>"
		}
		fmt.Fprintf(&b, "%-6d%s%s\n", s.Count, mark, r.stateString(s))
	}
	if r.Validated() {
		b.WriteString("Ok\n")
	} else {
		b.WriteString("No\n")
	}
	b.WriteString("Witnesses\n")
	fmt.Fprintf(&b, "Positive: %d Negative: %d\n", r.Pos, r.Neg)
	if t.Filter != nil {
		fmt.Fprintf(&b, "Filter (%s) discarded %d of %d runs\n", t.Filter, r.Filtered, r.Runs)
	}
	v := "is validated"
	if !r.Validated() {
		v = "is NOT validated"
	}
	fmt.Fprintf(&b, "Condition %s (%s) %s\n", t.Quant, t.Cond, v)
	fmt.Fprintf(&b, "Observation %s %s %d %d\n", t.Name, r.Observation(), r.Pos, r.Neg)
	_, err := io.WriteString(w, b.String())
	return err
}

// ErrVerdict is wrapped by Check's errors when a result contradicts the
// test's verdict.
var ErrVerdict = fmt.Errorf("verdict contradicted")

// ErrNoVerdict is wrapped by Check's error for a test that gives no
// verdict for the result's model: there is nothing to check it against.
var ErrNoVerdict = fmt.Errorf("no verdict")

// Check compares the result with the test's verdict for its model
// ("Verdict=" metadata): Forbidden means no run satisfies the proposition,
// Allowed that some run does (the runner must show every allowed
// behaviour), Required that every run does. A test without a verdict for
// the model (or whose Verdict= line does not parse) fails with
// ErrNoVerdict: a check that checks nothing must not pass.
func (r *Result) Check() error {
	v := r.Test.Verdict(r.Model)
	if v == NoVerdict {
		return fmt.Errorf("%w: %s: %s gives no Verdict= for %s", ErrNoVerdict, r.Test.Name, r.Test.File, r.Model)
	}
	bad := ""
	switch v {
	case Forbidden:
		if r.Pos > 0 {
			bad = fmt.Sprintf("%d of %d runs satisfy the condition", r.Pos, r.Pos+r.Neg)
		}
	case Allowed:
		if r.Pos == 0 {
			bad = fmt.Sprintf("no run of %d satisfies the condition", r.Pos+r.Neg)
		}
	case Required:
		if r.Neg > 0 {
			bad = fmt.Sprintf("%d of %d runs do not satisfy the condition", r.Neg, r.Pos+r.Neg)
		}
	}
	if bad != "" && r.Filtered > 0 {
		bad += fmt.Sprintf(" (the filter discarded %d more)", r.Filtered)
	}
	if bad == "" {
		return nil
	}
	return fmt.Errorf("%w: %s: %s says %s under %s, but %s", ErrVerdict, r.Test.Name, r.Test.File, v, r.Model, bad)
}
