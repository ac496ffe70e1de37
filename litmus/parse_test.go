package litmus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mpSrc = `RISCV MP
"doc line"
Verdict=rvwmo:Allowed sc:Forbidden
(* a comment
   over two lines *)
{
0:x5=1; 0:x6=x; 0:t2=y;
1:a0=y; uint64_t 1:x8=x; uint64_t y; x=3;
}
 P0          | P1          ;
 sw x5,0(x6) | LC00: lw x5,0(a0) ;
 sw x5,0(x7) | lw x7,0(x8) ;
locations [x; 1:x8;]
exists (1:x5=1 /\ ~(1:x7=0 \/ [y]=2))
`

func TestLitmusParseReadsEveryPartOfATest(t *testing.T) {
	tt, err := Parse("mp.litmus", []byte(mpSrc))
	if err != nil {
		t.Fatal(err)
	}
	if tt.Name != "MP" || tt.Arch != "RISCV" || len(tt.Doc) != 1 || tt.Doc[0] != "doc line" {
		t.Errorf("header: %+v", tt)
	}
	if tt.Verdict("sc") != Forbidden || tt.Verdict("rvwmo") != Allowed || tt.Verdict("tso") != NoVerdict {
		t.Errorf("verdicts: sc %v rvwmo %v", tt.Verdict("sc"), tt.Verdict("rvwmo"))
	}
	if len(tt.Vars) != 2 || tt.Vars[0].Name != "x" || tt.Vars[0].Init != 3 || tt.Vars[1].Type.Name != "uint64_t" {
		t.Errorf("vars: %+v %+v", tt.Vars[0], tt.Vars[1])
	}
	want := []RegInit{
		{Thread: 0, Reg: 5, Value: 1}, {Thread: 0, Reg: 6, AddrOf: "x"}, {Thread: 0, Reg: 7, AddrOf: "y"},
		{Thread: 1, Reg: 10, AddrOf: "y"}, {Thread: 1, Reg: 8, AddrOf: "x"},
	}
	if len(tt.Regs) != len(want) {
		t.Fatalf("regs: %+v", tt.Regs)
	}
	for i, w := range want {
		g := tt.Regs[i]
		if g.Thread != w.Thread || g.Reg != w.Reg || g.Value != w.Value || g.AddrOf != w.AddrOf {
			t.Errorf("reg %d: got %+v, want %+v", i, g, w)
		}
	}
	if tt.Regs[4].Type.Name != "uint64_t" {
		t.Errorf("1:x8 type %q", tt.Regs[4].Type.Name)
	}
	if len(tt.Threads) != 2 || len(tt.Threads[1].Lines) != 2 || tt.Threads[1].Lines[0].Label != "LC00" || tt.Threads[1].Lines[0].Text != "lw x5,0(a0)" || tt.Threads[1].Lines[0].Line != 11 {
		t.Errorf("threads: %+v", tt.Threads)
	}
	if len(tt.Locs) != 2 || tt.Locs[0].Var != "x" || tt.Locs[1] != (Loc{Thread: 1, Reg: 8}) {
		t.Errorf("locations: %+v", tt.Locs)
	}
	if tt.Quant != Exists || tt.Cond.String() != `1:x5=1 /\ ~(1:x7=0 \/ y=2)` || tt.CondLine != 14 {
		t.Errorf("condition %v %q line %d", tt.Quant, tt.Cond, tt.CondLine)
	}
}

func TestLitmusParseQuantifiers(t *testing.T) {
	for _, c := range []struct {
		cond string
		q    Quantifier
		str  string
	}{
		{"exists 0:x5=1", Exists, "0:x5=1"},
		{"~exists (0:x5=1 /\\ x=0)", NotExists, "0:x5=1 /\\ x=0"},
		{"~ exists (x=-1)", NotExists, "x=-1"},
		{"forall (x=2 \\/ x=0x3)", Forall, "x=2 \\/ x=3"},
		{"exists\n(0:x5=1 /\\\n 0:x6=x)", Exists, "0:x5=1 /\\ 0:x6=x"},
		{"exists (a /\\ b \\/ c)", Exists, ""},
	} {
		src := "RISCV T\n{ 0:x6=x; }\n P0 ;\n lw x5,0(x6) ;\n" + c.cond + "\n"
		if c.str == "" {
			src = strings.Replace(src, "(a /\\ b \\/ c)", "(0:x5=1 /\\ 0:x5=2 \\/ x=1)", 1)
			c.str = "(0:x5=1 /\\ 0:x5=2) \\/ x=1"
		}
		tt, err := Parse("q.litmus", []byte(src))
		if err != nil {
			t.Errorf("%q: %v", c.cond, err)
			continue
		}
		if tt.Quant != c.q || tt.Cond.String() != c.str {
			t.Errorf("%q: got %v %q, want %v %q", c.cond, tt.Quant, tt.Cond, c.q, c.str)
		}
	}
}

func TestLitmusParseErrorsNameTheLine(t *testing.T) {
	good := strings.Split("RISCV T\n{ 0:x6=x; }\n P0 | P1 ;\n lw x5,0(x6) | sw x0,0(x6) ;\nexists (0:x5=1)", "\n")
	for _, c := range []struct {
		name      string
		line      int
		replace   string
		wantLine  int
		wantInMsg string
	}{
		{"wrong architecture", 0, "ARM T", 1, "only RISCV"},
		{"no name", 0, "RISCV", 1, "RISCV NAME"},
		{"unknown type", 1, "{ foo_t x; 0:x6=x; }", 2, "unknown type"},
		{"bad register", 1, "{ 0:x32=x; }", 2, "not an integer register"},
		{"x0 in the initial state", 1, "{ 0:x0=1; }", 2, "x0"},
		{"register of no thread", 1, "{ 7:x6=x; }", 2, "no thread"},
		{"unclosed state", 1, "{ 0:x6=x;", 2, "never closed"},
		{"bad value", 1, "{ 0:x6=1x; }", 2, "neither an integer"},
		{"thread header", 2, " P0 | P2 ;", 3, "should be P1"},
		{"too many columns", 3, " lw x5,0(x6) | nop | nop ;", 4, "columns"},
		{"no quantifier", 4, "(0:x5=1)", 5, "expected exists"},
		{"unbalanced parenthesis", 4, "exists (0:x5=1", 5, "expected \")\""},
		{"trailing tokens", 4, "exists (0:x5=1) 0:x6=1", 5, "unexpected"},
		{"missing value", 4, "exists (0:x5=)", 5, "expected a value"},
		{"two filters", 4, "filter (0:x5=1) filter (0:x5=2) exists (0:x5=1)", 5, "a second filter"},
		{"a row without its semicolon", 3, " lw x5,0(x6) | sw x0,0(x6)", 4, "to end a row"},
		{"condition on no thread", 4, "exists (3:x5=1)", 5, "no thread"},
		{"bad verdict", 0, "RISCV T\nVerdict=sc:Maybe", 2, "Verdict"},
		{"stray metadata", 0, "RISCV T\nhello world", 2, "expected a quoted doc line"},
		{"bad character", 4, "exists (0:x5=1 # x)", 5, "unexpected character"},
	} {
		lines := append([]string(nil), good...)
		lines[c.line] = c.replace
		_, err := Parse("t.litmus", []byte(strings.Join(lines, "\n")))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: %v is not a *Error wrapping ErrSyntax", c.name, err)
			continue
		}
		msg := err.Error()
		if pe.Line != c.wantLine || !strings.HasPrefix(msg, "t.litmus:") || !strings.Contains(msg, c.wantInMsg) || strings.Contains(msg, "\n") {
			t.Errorf("%s: got %q (line %d), want line %d and %q on one line", c.name, msg, pe.Line, c.wantLine, c.wantInMsg)
		}
	}
}

func TestLitmusEveryTestdataFileParsesAndHasVerdicts(t *testing.T) {
	files, err := filepath.Glob("../testdata/litmus/*.litmus")
	if err != nil || len(files) < 30 {
		t.Fatalf("%d test files (%v)", len(files), err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tt, err := Parse(filepath.Base(f), src)
		if err != nil {
			t.Error(err)
			continue
		}
		if tt.Name+".litmus" != filepath.Base(f) {
			t.Errorf("%s: test is called %s", f, tt.Name)
		}
		if tt.Verdict(ModelSC) == NoVerdict || tt.Verdict(ModelRVWMO) == NoVerdict || tt.InfoValue("Source") == "" {
			t.Errorf("%s: needs Verdict= for sc and rvwmo and a Source=", f)
		}
		if _, err := Layout(tt); err != nil {
			t.Error(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(mpSrc))
	files, _ := filepath.Glob("../testdata/litmus/*.litmus")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("RISCV X\n{\n}\n P0 ;\nexists (~~~(x=1))"))
	f.Add([]byte("RISCV F\n\"two\nlines\"\n{ uint64_t 0:x7; 0:x9=P0:L; 0:x6=x; }\n P0 ;\n L: lw.aq x7,0(x6) (* a\n *) ;\n jalr x0,x9,0 ;\nlocations [x;]\nfilter not (0:x7=1)\nforall (x=0 \\/ not(x=1))"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tt, err := Parse("fuzz.litmus", b)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		// Whatever parses must lay out or fail with a line-naming error.
		if _, err := Layout(tt); err != nil && !errors.Is(err, ErrSyntax) {
			t.Fatalf("layout error %v does not wrap ErrSyntax", err)
		}
		_ = tt.Cond.String()
		if tt.Filter != nil {
			_ = tt.Filter.String()
		}
	})
}

// The condition and initial-state forms of the public RISC-V litmus suite
// (surveyed over its 7,925 files on 2026-12-04): not and ~, nesting,
// filter, a missing condition, addresses as values, typed registers
// without a value, code labels, doc strings over several lines, and rows
// whose ";" a comment pushes to the next line.
func TestLitmusParseReadsTheFormsThePublicSuiteUses(t *testing.T) {
	head := "RISCV T\n{ 0:x6=x; 1:x6=y; }\n P0 | P1 ;\n lw x5,0(x6) | sw x5,0(x6) ;\n"
	for _, c := range []struct {
		name, src string
		check     func(tt *Test) string
	}{
		{"not before a parenthesis", head + "exists (not (x=2 /\\ (1:x5=4 \\/ 1:x5=3) \\/ x=1))", func(tt *Test) string {
			return cond(tt, Exists, `~((x=2 /\ (1:x5=4 \/ 1:x5=3)) \/ x=1)`)
		}},
		{"not glued to its parenthesis, without outer parentheses", head + "exists 0:x5=x /\\ not(1:x5=0)", func(tt *Test) string {
			return cond(tt, Exists, `0:x5=x /\ ~1:x5=0`)
		}},
		{"~exists over a negation", head + "~exists (~(0:x5=1) \\/ [x]=0)", func(tt *Test) string {
			return cond(tt, NotExists, `~0:x5=1 \/ x=0`)
		}},
		{"parentheses at any depth", head + "forall ((((0:x5=1))) \\/ ((x=1 /\\ (y=0))))", func(tt *Test) string {
			return cond(tt, Forall, `0:x5=1 \/ (x=1 /\ y=0)`)
		}},
		{"a filter without parentheses before the quantifier", head + "locations[0:x7;]\nfilter 0:x5=0 /\\ 1:x5=0\nforall\n(x=1) \\/ (y=2)", func(tt *Test) string {
			if tt.Filter == nil || tt.Filter.String() != `0:x5=0 /\ 1:x5=0` || tt.FilterLine != 6 || len(tt.Locs) != 1 {
				return fmt.Sprintf("filter %v on line %d, locations %v", tt.Filter, tt.FilterLine, tt.Locs)
			}
			return cond(tt, Forall, `x=1 \/ y=2`)
		}},
		{"no condition at all is forall true", head + "locations [x;1:x5;]\n", func(tt *Test) string {
			return cond(tt, Forall, "true")
		}},
		{"a register typed in one declaration and set in another", strings.Replace(head, "{ 0:x6=x;", "{ uint64_t 1:x7; int *1:a0; 0:x6=x; 1:x7=3; 1:a0=x;", 1) + "exists (1:x7=3)", func(tt *Test) string {
			var x7, a0 RegInit
			for _, r := range tt.Regs {
				switch {
				case r.Thread == 1 && r.Reg == 7:
					x7 = r
				case r.Thread == 1 && r.Reg == 10:
					a0 = r
				}
			}
			if x7.Type.Name != "uint64_t" || x7.Value != 3 || x7.Line != 2 || a0.Type.Name != "int*" || a0.AddrOf != "x" || len(tt.Regs) != 4 {
				return fmt.Sprintf("registers %+v", tt.Regs)
			}
			return ""
		}},
		{"a register holding a code label's address", strings.Replace(head, "1:x6=y;", "1:x6=y; 1:x9=P1:LC00;", 1) + "exists (0:x5=1)", func(tt *Test) string {
			for _, r := range tt.Regs {
				if r.Thread == 1 && r.Reg == 9 && r.AddrOf == "P1:LC00" {
					return ""
				}
			}
			return fmt.Sprintf("registers %+v", tt.Regs)
		}},
		{"a doc string over two lines", strings.Replace(head, "RISCV T\n", "RISCV T\n\"first line\nsecond line\"\n", 1) + "exists (x=1)", func(tt *Test) string {
			if len(tt.Doc) != 1 || tt.Doc[0] != "first line second line" {
				return fmt.Sprintf("doc %q", tt.Doc)
			}
			return ""
		}},
		{"a row whose semicolon a comment pushes to the next line", "RISCV T\n{ 0:x6=x; }\n P0 | P1 ;\n lw x5,0(x6) | amoadd.w.rl x1,x7,(x6) (* R x=0 /\\\n W x=1 *) ;\n sw x5,0(x6) | ;\nexists (1:x1=0)", func(tt *Test) string {
			p1 := tt.Threads[1].Lines
			if len(tt.Threads[0].Lines) != 2 || len(p1) != 1 || p1[0].Text != "amoadd.w.rl x1,x7,(x6)" || p1[0].Line != 4 || tt.Threads[0].Lines[1].Line != 6 {
				return fmt.Sprintf("threads %+v", tt.Threads)
			}
			return ""
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tt, err := Parse("s.litmus", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if msg := c.check(tt); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// cond says what is wrong with a test's quantifier and condition, or "".
func cond(tt *Test, q Quantifier, want string) string {
	if tt.Quant != q || tt.Cond.String() != want {
		return fmt.Sprintf("got %v %q, want %v %q", tt.Quant, tt.Cond, q, want)
	}
	return ""
}

func TestLitmusLayoutRejectsALabelTheThreadDoesNotHave(t *testing.T) {
	src := "RISCV T\n{ 0:x6=x;\n 1:x9=P1:LC07; }\n P0 | P1 ;\n lw x5,0(x6) | LC00: sw x5,0(x6) ;\nexists (x=1)"
	tt, err := Parse("l.litmus", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Layout(tt); err == nil || !strings.HasPrefix(err.Error(), "l.litmus:3: P1:LC07: P1 has no label LC07") {
		t.Errorf("got %v", err)
	}
	src = strings.Replace(src, "1:x9=P1:LC07", "1:x9=P2:LC00", 1)
	if _, err := Parse("l.litmus", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), "l.litmus:3: P2:LC00: the test has no thread P2") {
		t.Errorf("got %v", err)
	}
}
