package explorer

import (
	"bytes"
	"context"
	"errors"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"everett/devices/sdk"
	"everett/internal/hosttool"
)

// chromium returns Debian's Chromium, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	hosttool.Missing(t, "chromium", errors.New("no chromium or chromium-browser in PATH, no /usr/bin/chromium"))
	return ""
}

// headless runs Chromium on a local file with networking off and returns
// its standard output.
func headless(t *testing.T, browser, page string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
	}, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, browser, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return out
}

// reportFile writes the HTML report of a sweep of the sweep program.
func reportFile(t *testing.T) (*SweepFile, string) {
	t.Helper()
	s := sweepSpec(t)
	f := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 80}, Workers: 2, Args: []string{"--elf", "sweep.elf", "--smp", "2"},
		OnOutcome: func(o *SeedOutcome, isNew bool) (string, error) {
			if isNew {
				return "everett-out/" + o.Report.FileName(), nil
			}
			return "", nil
		}})
	if f.Totals.Signatures < 2 {
		t.Fatalf("%d signatures; the test wants two", f.Totals.Signatures)
	}
	p := filepath.Join(t.TempDir(), "report.html")
	if err := f.WriteHTML(p); err != nil {
		t.Fatal(err)
	}
	return f, p
}

func TestTheHTMLReportIsSelfContained(t *testing.T) {
	_, p := reportFile(t)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing is loaded from elsewhere: no src or href but in-page
	// anchors, no @import or url() in the style sheet.
	for _, re := range []string{`\ssrc\s*=`, `href="[^#]`, `@import`, `url\(`, `<link\b`, `<iframe\b`} {
		if m := regexp.MustCompile(re).Find(b); m != nil {
			t.Errorf("the report references an outside resource: %q", m)
		}
	}
}

func TestTheHTMLReportShowsTheFailuresAndTheChartInChromium(t *testing.T) {
	browser := chromium(t)
	f, p := reportFile(t)
	dom := string(headless(t, browser, p, "--dump-dom"))

	// The script ran: it marks the page and adds the chart's cursor and
	// readout.
	if !strings.Contains(dom, `data-js="ready"`) {
		t.Fatalf("the page's script did not run; DOM:\n%.2000s", dom)
	}
	for _, want := range []string{
		`<svg id="coverage-chart"`,
		`class="coverage-line" d="M`,
		`class="cursor"`,
		`class="cursor-dot"`,
		`class="signature-mark"`,
		`class="copy"`,
		`class="cibar"`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %s", want)
		}
	}
	readout := regexp.MustCompile(`<figcaption id="coverage-readout">([^<]*)</figcaption>`).FindStringSubmatch(dom)
	if readout == nil || !strings.Contains(readout[1], "after 80 seeds") || !strings.Contains(readout[1], "distinct edges") {
		t.Errorf("coverage readout %q, want the last point's seeds and edges", readout)
	}
	// Every failure signature with its count and replay command.
	for _, g := range f.Failures {
		sig := html.EscapeString(g.Signature)
		if !strings.Contains(dom, `<span class="sig">`+sig+`</span>`) {
			t.Errorf("the failure %q is not shown", g.Signature)
		}
		if !strings.Contains(dom, html.EscapeString(g.Replay)) {
			t.Errorf("the replay command %q is not shown", g.Replay)
		}
	}
	// One step per point of the coverage curve.
	d := regexp.MustCompile(`class="coverage-line" d="([^"]*)"`).FindStringSubmatch(dom)
	if d == nil || strings.Count(d[1], "V") != len(f.Coverage) {
		t.Errorf("the coverage line %q does not have the curve's %d steps", d, len(f.Coverage))
	}
	for _, a := range f.Assertions {
		if !strings.Contains(dom, html.EscapeString(a.Message)) {
			t.Errorf("assertion %q is not shown", a.Message)
		}
	}

	// And it renders: a screenshot of a reasonable size with more than a
	// blank page in it. (EVERETT_KEEP_SCREENSHOT=FILE keeps it to look at.)
	shot := filepath.Join(t.TempDir(), "report.png")
	headless(t, browser, p, "--screenshot="+shot, "--window-size=1100,1800", "--hide-scrollbars")
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 1100 || r.Dy() != 1800 {
		t.Fatalf("screenshot is %v", r)
	}
	colors := map[uint32]bool{}
	for y := 0; y < 1800; y += 7 {
		for x := 0; x < 1100; x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[r>>11<<10|g>>11<<5|b>>11] = true
		}
	}
	if len(colors) < 8 {
		t.Fatalf("the screenshot has %d colours: a blank page?", len(colors))
	}
	if keep := os.Getenv("EVERETT_KEEP_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAPassingSweepRendersWithoutFailures(t *testing.T) {
	s := elfSpec(t, "racy", 2)
	s.Faults.Schedule = "fixed"
	f := sweep(t, s, SweepOptions{Seeds: SeedRange{1, 4}, Workers: 1})
	if f.Totals.Failed != 0 {
		t.Fatalf("the fixed schedule failed %d seeds", f.Totals.Failed)
	}
	b, err := f.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-status="pass"`, "No failures.", "all 4 seeds passed", `id="coverage-chart"`, "The guest made no SDK assertions."} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

func TestTheHTMLReportShowsWhatTheInitReportedWithTheFirstSeedsFailure(t *testing.T) {
	code := 2
	proc := &sdk.Event{Event: sdk.EventExit, Name: "srv", Code: &code, Output: "last <line>\n",
		Crash:      "panic: lost quorum\n\ngoroutine 1 [running]:\nmain.main()\n",
		Threads:    []sdk.Thread{{Name: "srv", PID: 4, TID: 5, State: "S", Syscall: "futex"}},
		Goroutines: []sdk.GoroutineDump{{Name: "srv", PID: 4, Dump: "SIGQUIT: quit\n\ngoroutine 7 [sync.Mutex.Lock]:\n"}}}
	sig := "exit: srv exited with code 2: panic: lost quorum"
	f := &SweepFile{Format: SweepFormat, Seeds: SeedRange{1, 2}, Totals: SweepTotals{Seeds: 2, Failed: 1, Signatures: 1},
		Outcomes: []SweepOutcome{{Seed: 1, Outcome: "pass"}, {Seed: 2, Outcome: "fail", Signature: sig, Failure: &Failure{Kind: "exit", Process: proc}}},
		Failures: []FailureGroup{{Signature: sig, Kind: "exit", Seeds: 1, FirstSeed: 2}}}
	b, err := f.HTML()
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"Where each thread waits", html.EscapeString(proc.Threads[0].String()),
		"Goroutines of srv (pid 4)", "goroutine 7 [sync.Mutex.Lock]:",
		"Go's crash report of srv", "panic: lost quorum\n\ngoroutine 1 [running]:",
		"Last output of srv", "last &lt;line&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
