package explorer

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// JUnit XML, the test-result format CI systems read (Jenkins, GitLab,
// GitHub Actions reporters, Buildkite, ...): <testsuites> holds
// <testsuite> elements that hold <testcase> elements; a failed case holds a
// <failure message=... type=...> with text. A sweep is one suite, each seed
// one case named "seed N" of class "everett.sweep.<spec name>", so that CI
// history tracks a seed across nights. A case's time is the seed's
// virtual time in seconds, not host time: the file is a function of the
// sweep's results, and a merged file equals the unsharded one.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// seconds formats virtual nanoseconds as seconds.
func seconds(ns uint64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', 6, 64) }

// junitClass makes a spec name into a dotted class name.
func junitClass(name string) string {
	c := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
	if c == "" {
		c = "spec"
	}
	return "everett.sweep." + c
}

// RerunCommand is the command that runs seed again as a sweep of one seed
// (writing its report into out).
func (f *SweepFile) RerunCommand(seed uint64, out string) string {
	args := append([]string{"everett", "sweep"}, f.Spec.Args...)
	args = append(args, "--seeds", fmt.Sprintf("%d..%d", seed, seed))
	if out != "" {
		args = append(args, "--out", out)
	}
	return shellJoin(args)
}

// shellJoin quotes arguments for a POSIX shell where needed.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// JUnit returns the sweep as a JUnit XML document.
func (f *SweepFile) JUnit() ([]byte, error) {
	groups := map[string]*FailureGroup{}
	for i := range f.Failures {
		groups[f.Failures[i].Signature] = &f.Failures[i]
	}
	class := junitClass(f.Spec.Name)
	suite := junitSuite{
		Name:  fmt.Sprintf("%s seeds %s", f.Spec.Name, f.Seeds),
		Tests: len(f.Outcomes),
		Properties: []junitProperty{
			{"spec", f.Spec.Name},
			{"spec_hash", f.Spec.Hash},
			{"seeds", f.Seeds.String()},
			{"shard", f.Shard.String()},
			{"everett", f.Everett},
			{"edges", strconv.Itoa(f.Totals.Edges)},
		},
	}
	var total uint64
	for _, o := range f.Outcomes {
		total += o.VirtualTimeNs
		c := junitCase{Name: fmt.Sprintf("seed %d", o.Seed), Classname: class, Time: seconds(o.VirtualTimeNs)}
		if o.Outcome == "fail" {
			suite.Failures++
			fl := &junitFailure{Message: o.Signature}
			var b strings.Builder
			fmt.Fprintf(&b, "failing check: %s\n", o.Signature)
			if o.Failure != nil {
				fl.Type = o.Failure.Kind
				fmt.Fprintf(&b, "where: node %d, hart %d\n", o.Failure.Node, o.Failure.Hart)
				if o.Failure.Line != "" {
					fmt.Fprintf(&b, "console line: %s\n", o.Failure.Line)
				}
			}
			fmt.Fprintf(&b, "at instruction %d, virtual time %d ns, state hash %s\n", o.Instructions, o.VirtualTimeNs, o.StateHash)
			if g := groups[o.Signature]; g != nil && g.FirstSeed == o.Seed && g.Replay != "" {
				fmt.Fprintf(&b, "reproduce with: %s\n", g.Replay)
			} else {
				if g != nil && g.Replay != "" {
					fmt.Fprintf(&b, "same signature as seed %d: %s\n", g.FirstSeed, g.Replay)
				}
				fmt.Fprintf(&b, "reproduce with: %s\n", f.RerunCommand(o.Seed, "repro"))
			}
			fl.Text = b.String()
			c.Failure = fl
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Time = seconds(total)
	doc := junitSuites{Name: "everett sweep " + f.Spec.Name, Tests: suite.Tests, Failures: suite.Failures,
		Time: suite.Time, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// WriteJUnit writes the sweep's JUnit XML file atomically.
func (f *SweepFile) WriteJUnit(path string) error {
	b, err := f.JUnit()
	if err != nil {
		return err
	}
	return writeAtomic(path, b)
}
