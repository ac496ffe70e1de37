package explorer

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"everett/devices/sdk"
)

// The HTML report of a sweep is one self-contained file: the template,
// its style sheet and its script are compiled into the binary and inlined,
// the coverage chart and the confidence-interval bars are inline SVG drawn
// here, so the page needs no network and reads the same with scripts off
// (the script only adds the chart's hover readout, sortable tables and
// copy buttons).

//go:embed html/report.tmpl
var reportTemplate string

//go:embed html/report.css
var reportCSS string

//go:embed html/report.js
var reportJS string

// HTML report limits.
const (
	htmlSeedsPerFailure = 100 // failing seeds listed per signature
	htmlSignatureMarks  = 100 // first-seen marks on the coverage chart
)

// reportTmpl is parsed when a report is first rendered, not when the
// program starts: every everett command would pay for it.
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":   pct,
		"short": func(s string) string { return s[:min(len(s), 12)] },
		"base":  filepath.Base,
		"dur":   func(d Duration) string { return time.Duration(d).String() },
	}).Parse(reportTemplate))
})

// htmlReport is what the template renders.
type htmlReport struct {
	F          *SweepFile
	CSS        template.CSS
	JS         template.JS
	Status     string // "pass" or "fail"
	Failures   []htmlFailure
	Assertions []htmlAssertion
	Chart      htmlChart
	Nodes      []htmlNode
	Settings   string // the spec's settings as indented JSON
	HostTime   string
	Workers    int
}

type htmlFailure struct {
	FailureGroup
	Rerun string
	List  []SweepOutcome // the first htmlSeedsPerFailure failing seeds
	More  int            // failing seeds not listed
	Where string         // node and hart of the first seed's failure
	// Process is what everett's init reported with the first seed's
	// failure (threads, a Go crash report or goroutine dumps, output).
	Process *sdk.Event
}

type htmlAssertion struct {
	AssertionRate
	Failing bool
	What    string // "failed" or "reached"
	Bar     htmlBar
}

// htmlBar is a confidence interval drawn on a 0..100 % scale of Width
// pixels.
type htmlBar struct {
	Width, Low, Span, P float64
}

type htmlNode struct {
	Index  int
	Board  string
	Harts  int
	RAMMiB uint64
	Images []string // "kind name (sha256 prefix)"
}

// htmlChart is the coverage chart, drawn in a Width×Height box.
type htmlChart struct {
	Width, Height         float64
	Left, Right, Top, Bot float64 // plot area
	Path                  string  // the step line
	Area                  string  // the area under it
	XTicks, YTicks        []htmlTick
	Marks                 []htmlMark
	Points                template.JS // JSON of [seeds, seed, edges, x, y] for the readout
	Seeds, Edges          int
}

type htmlTick struct {
	Pos   float64
	Label string
}

type htmlMark struct {
	X         float64
	Signature string
	Seed      uint64
}

// HTML renders the sweep as a self-contained HTML page.
func (f *SweepFile) HTML() ([]byte, error) {
	d := htmlReport{F: f, CSS: template.CSS(reportCSS), JS: template.JS(reportJS), Status: "pass"}
	if f.Totals.Failed > 0 {
		d.Status = "fail"
	}
	bySig := map[string]*htmlFailure{}
	for _, g := range f.Failures {
		d.Failures = append(d.Failures, htmlFailure{FailureGroup: g, Rerun: f.RerunCommand(g.FirstSeed, "repro")})
	}
	for i := range d.Failures {
		bySig[d.Failures[i].Signature] = &d.Failures[i]
	}
	for _, o := range f.Outcomes {
		h := bySig[o.Signature]
		if o.Outcome != "fail" || h == nil {
			continue
		}
		if o.Seed == h.FirstSeed && o.Failure != nil {
			h.Where = fmt.Sprintf("node %d, hart %d", o.Failure.Node, o.Failure.Hart)
			h.Process = o.Failure.Process
		}
		if len(h.List) < htmlSeedsPerFailure {
			h.List = append(h.List, o)
		} else {
			h.More++
		}
	}
	const barW = 160
	for _, a := range f.Assertions {
		ha := htmlAssertion{AssertionRate: a, Failing: a.Failing(), What: "failed",
			Bar: htmlBar{Width: barW, Low: round2(a.Rate.Low * barW), Span: max(1, round2((a.Rate.High-a.Rate.Low)*barW)), P: round2(a.Rate.P * barW)}}
		if a.Kind == "sometimes" || a.Kind == "reachable" {
			ha.What = "reached"
		}
		d.Assertions = append(d.Assertions, ha)
	}
	d.Chart = coverageChart(f)
	for i, b := range f.Spec.Boards {
		n := htmlNode{Index: i, Board: b.Board, Harts: b.Harts, RAMMiB: b.RAMBytes >> 20}
		add := func(kind string, path, sum string) {
			n.Images = append(n.Images, fmt.Sprintf("%s %s (%s)", kind, filepath.Base(path), sum[:min(len(sum), 12)]))
		}
		if b.ELF != nil {
			add("elf", b.ELF.Path, b.ELF.SHA256)
		}
		if b.Kernel != nil {
			add("kernel", b.Kernel.Path, b.Kernel.SHA256)
		}
		if b.Initrd != nil {
			add("initrd", b.Initrd.Path, b.Initrd.SHA256)
		}
		if b.Disk != nil {
			add("disk", b.Disk.Path, b.Disk.SHA256)
		}
		if b.BIOS != nil {
			add("bios", b.BIOS.Path, b.BIOS.SHA256)
		}
		d.Nodes = append(d.Nodes, n)
	}
	set, err := json.MarshalIndent(f.Spec.Settings, "", "  ")
	if err != nil {
		return nil, err
	}
	d.Settings = string(set)
	var host float64
	for _, h := range f.Host {
		host += h.ElapsedSeconds
		d.Workers += h.Workers
	}
	d.HostTime = (time.Duration(host * float64(time.Second))).Round(time.Millisecond).String()
	var buf bytes.Buffer
	if err := reportTmpl().Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteHTML writes the sweep's HTML report atomically.
func (f *SweepFile) WriteHTML(path string) error {
	b, err := f.HTML()
	if err != nil {
		return err
	}
	return writeAtomic(path, b)
}

// coverageChart draws cumulative distinct edges against seeds run as a
// step line, with a mark where each failure signature was first seen.
func coverageChart(f *SweepFile) htmlChart {
	c := htmlChart{Width: 760, Height: 300, Left: 64, Right: 740, Top: 16, Bot: 252}
	n := len(f.Outcomes)
	c.Seeds, c.Edges = n, f.Totals.Edges
	xmax := float64(max(n, 1))
	ystep := tickStep(float64(max(c.Edges, 1)))
	ymax := ystep * math.Ceil(float64(max(c.Edges, 1))/ystep)
	x := func(v float64) float64 { return round2(c.Left + v/xmax*(c.Right-c.Left)) }
	y := func(v float64) float64 { return round2(c.Bot - v/ymax*(c.Bot-c.Top)) }
	var p strings.Builder
	fmt.Fprintf(&p, "M%g %g", x(0), y(0))
	var pts [][5]float64
	for _, pt := range f.Coverage {
		fmt.Fprintf(&p, "H%g V%g", x(float64(pt.Seeds)), y(float64(pt.Edges)))
		pts = append(pts, [5]float64{float64(pt.Seeds), float64(pt.Seed), float64(pt.Edges), x(float64(pt.Seeds)), y(float64(pt.Edges))})
	}
	fmt.Fprintf(&p, "H%g", x(xmax))
	c.Path = p.String()
	c.Area = c.Path + fmt.Sprintf(" V%g H%g Z", y(0), x(0))
	for _, t := range ticks(xmax, tickStep(xmax)) {
		c.XTicks = append(c.XTicks, htmlTick{x(t), strconv.FormatFloat(t, 'f', -1, 64)})
	}
	for _, t := range ticks(ymax, ystep) {
		c.YTicks = append(c.YTicks, htmlTick{y(t), strconv.FormatFloat(t, 'f', -1, 64)})
	}
	pos := map[uint64]int{}
	for i, o := range f.Outcomes {
		pos[o.Seed] = i + 1
	}
	for _, g := range f.Failures {
		if len(c.Marks) == htmlSignatureMarks {
			break
		}
		c.Marks = append(c.Marks, htmlMark{X: x(float64(pos[g.FirstSeed])), Signature: g.Signature, Seed: g.FirstSeed})
	}
	b, _ := json.Marshal(pts)
	if pts == nil {
		b = []byte("[]")
	}
	c.Points = template.JS(b)
	return c
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// tickStep returns a round step that cuts 0..vmax into about five parts.
func tickStep(vmax float64) float64 { return max(1, niceCeil(vmax/5)) }

// ticks returns the multiples of step from 0 to vmax.
func ticks(vmax, step float64) []float64 {
	var out []float64
	for t := 0.0; t <= vmax+step/1e9 && len(out) < 12; t += step {
		out = append(out, t)
	}
	return out
}

// pct formats a proportion as a percentage.
func pct(p float64) string {
	switch {
	case p == 0:
		return "0%"
	case p == 1:
		return "100%"
	case p < 0.001:
		return strconv.FormatFloat(p*100, 'g', 2, 64) + "%"
	}
	return strconv.FormatFloat(p*100, 'f', 1, 64) + "%"
}
