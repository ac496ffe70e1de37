package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"everett/explorer"
	"everett/explorer/bucket"
)

// addSharedFlags adds the flags of a shared search to explore.
func addSharedFlags(fl *pflag.FlagSet, f *exploreFlags) {
	fl.StringVar(&f.shared, "shared", "", "join (or start) the search shared through this bucket: s3://BUCKET, gs://BUCKET, azblob://CONTAINER or file:///DIR (README, \"Many machines\")")
	fl.IntVar(&f.claim, "claim", bucket.DefaultClaim, "with --shared: universes a worker claims at once (part of the search's identity)")
	fl.DurationVar(&f.lease, "lease", bucket.DefaultLease, "with --shared: a claim not renewed for this long is taken over by another worker (part of the search's identity)")
	fl.BoolVar(&f.isolated, "shared-isolated", false, "with --shared: claim universes but take no corpus, coverage or failures from the other workers (to measure what sharing brings)")
	_ = fl.MarkHidden("shared-isolated")
}

// joinShared joins the search of --shared, when given, and makes o run
// as its worker. The search's universe bound is what a search of one
// process would run: --universes, else the spec's, else (without a
// wall-time budget) the default.
func joinShared(f exploreFlags, spec *explorer.Spec, name string, o *explorer.Options) (*bucket.Search, error) {
	if f.shared == "" {
		return nil, nil
	}
	n := f.universes
	if n == 0 {
		n = spec.Budgets.Universes
	}
	if n == 0 && f.wall == 0 && spec.Budgets.Wall == 0 {
		n = 1000
	}
	if f.claim < 1 || f.claim > explorer.MaxClaim {
		return nil, usageErr("--claim %d: want 1..%d", f.claim, explorer.MaxClaim)
	}
	if f.lease <= 0 {
		return nil, usageErr("--lease %v: want a positive duration", f.lease)
	}
	s, err := bucket.Join(f.shared, bucket.NewIdentity(spec, name, f.seed, n, f.claim, f.lease))
	if errors.Is(err, bucket.ErrIdentity) {
		return nil, usageErr("%v", err)
	}
	if err != nil {
		return nil, fmt.Errorf("--shared: %w", err)
	}
	s.Isolated = f.isolated
	o.Universes, o.Share = n, s
	return s, nil
}

// printWorker says what this worker of a shared search did.
func printWorker(w io.Writer, s *bucket.Search, res *explorer.Result) {
	fmt.Fprintf(w, "worker %s: %d claim(s) (%d taken over from expired leases), %d universes counted, %d lost to another worker, %d corpus entries pulled (%d rebuilt to fork from, replaying %d instructions; %d did not rebuild)\n",
		s.Worker(), s.Claims, s.Retaken, res.Universes, res.Lost, res.Pulled, res.Rebuilt, res.ReplayedICount, res.Rejected)
}

// mergedSearch reads a shared search's records and puts them together
// into the summary one search writes; the failures' reports (each
// signature's of its lowest universe) go to dir.
func mergedSearch(s *bucket.Search, dir string) (explorer.Summary, *explorer.MergedSearch, error) {
	recs, err := s.Records()
	if err != nil {
		return explorer.Summary{}, nil, fmt.Errorf("reading the search: %w", err)
	}
	id := s.Identity()
	m, err := explorer.MergeShared(recs, id.Universes)
	if err != nil {
		return explorer.Summary{}, nil, fmt.Errorf("merging the search: %w", err)
	}
	res := m.Result
	if m.LastUnixMs > 0 {
		res.Elapsed = time.Duration(m.LastUnixMs-id.CreatedUnixMs) * time.Millisecond
	}
	if ff := res.FirstFailure; ff != nil && m.FirstFailureUnixMs > 0 {
		ff.Seconds = float64(m.FirstFailureUnixMs-id.CreatedUnixMs) / 1000
	}
	paths := map[string]string{}
	for _, r := range res.Failures {
		p, err := r.Write(dir)
		if err != nil {
			return explorer.Summary{}, nil, fmt.Errorf("writing %s's report: %w", r.Signature, err)
		}
		paths[r.Signature] = p
	}
	sum := explorer.NewSummary(id.Spec, id.Seed, res, m.Boot, paths)
	return sum, m, nil
}

// writeSharedSummary writes the shared search's merged summary to
// dir/summary.json (with the reports beside it) and to the bucket.
func writeSharedSummary(s *bucket.Search, dir string, w io.Writer) (explorer.Summary, error) {
	sum, m, err := mergedSearch(s, dir)
	if err != nil {
		return sum, err
	}
	if err := sum.Write(dir); err != nil {
		return sum, err
	}
	b, err := sum.JSON()
	if err != nil {
		return sum, err
	}
	if err := s.Put(explorer.SummaryFile, b); err != nil {
		return sum, fmt.Errorf("summary.json in the bucket: %w", err)
	}
	state := "complete"
	if !m.Complete {
		state = fmt.Sprintf("%d universes not done yet (first: %v)", sum.Cancelled, m.Missing[:min(len(m.Missing), 5)])
	}
	fmt.Fprintf(w, "shared search: %d universes by %d worker(s), %s: %d distinct failure(s), %d edges covered; merged summary in %s\n",
		sum.Universes, len(m.Workers), state, len(sum.Failures), sum.Coverage, filepath.Join(dir, explorer.SummaryFile))
	if len(m.Twice) > 0 {
		return sum, fmt.Errorf("shared search: universes counted twice: %v (a fault of the claims)", m.Twice)
	}
	return sum, nil
}

// runSharedReport is `everett report --shared URL --out DIR`: with wait,
// it first waits up to that long for every universe of the search to be
// in a record (the search must have a universe bound).
func runSharedReport(url, dir string, wait time.Duration, w io.Writer) error {
	if dir == "" {
		return usageErr("--shared needs --out DIR")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("--out: %v", err)
	}
	var s *bucket.Search
	var err error
	for deadline := time.Now().Add(wait); ; {
		// The search may not exist yet when a report Job starts first.
		if s, err = bucket.OpenSearch(url); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(min(30*time.Second, wait/10))
	}
	if err != nil {
		return usageErr("--shared: %v", err)
	}
	defer s.Close()
	if wait > 0 {
		if err := waitComplete(s, wait, w); err != nil {
			return err
		}
	}
	if s.Identity().Kind == bucket.KindSweep {
		return sharedSweepReport(s, dir, w)
	}
	sum, err := writeSharedSummary(s, dir, w)
	if err != nil {
		return err
	}
	page, err := sharedHTML(s.Identity(), sum)
	if err != nil {
		return fmt.Errorf("HTML report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), page, 0o644); err != nil {
		return fmt.Errorf("HTML report: %w", err)
	}
	if err := s.Put("report/index.html", page); err != nil {
		return fmt.Errorf("HTML report in the bucket: %w", err)
	}
	if err := writeCurve(s, dir); err != nil {
		return err
	}
	for _, f := range sum.Failures {
		fmt.Fprintf(w, "  %s (universe %d): %s\n", f.Signature, f.Universe, f.Replay)
	}
	fmt.Fprintf(w, "HTML report in %s\n", filepath.Join(dir, "index.html"))
	if len(sum.Failures) > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// writeCurve writes dir/coverage-curve.json: the shared search's distinct
// edges as its records came in, seconds from the search's creation.
func writeCurve(s *bucket.Search, dir string) error {
	recs, err := s.Records()
	if err != nil {
		return fmt.Errorf("reading the search: %w", err)
	}
	m, err := explorer.MergeShared(recs, s.Identity().Universes)
	if err != nil {
		return fmt.Errorf("merging the search: %w", err)
	}
	type point struct {
		Seconds   float64 `json:"seconds"`
		Universes int     `json:"universes"`
		Edges     int     `json:"edges"`
	}
	curve := []point{}
	for _, p := range m.Curve {
		curve = append(curve, point{float64(p.UnixMs-s.Identity().CreatedUnixMs) / 1000, p.Universes, p.Edges})
	}
	b, _ := json.MarshalIndent(curve, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "coverage-curve.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("coverage curve: %w", err)
	}
	return nil
}

// waitComplete waits up to limit for every range of the search to be
// done.
func waitComplete(s *bucket.Search, limit time.Duration, w io.Writer) error {
	if s.Identity().Universes == 0 {
		return usageErr("--wait: the search has no universe bound (its workers end by their wall-time budgets)")
	}
	poll := min(30*time.Second, max(limit/20, 100*time.Millisecond))
	for deadline := time.Now().Add(limit); ; {
		done, ranges, err := s.Progress()
		if err != nil {
			return fmt.Errorf("reading the search: %w", err)
		}
		if done >= ranges {
			return nil
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(w, "everett: waited %v: %d of %d claims done; reporting what there is\n", limit, done, ranges)
			return nil
		}
		time.Sleep(poll)
	}
}

// sharedPage is the HTML page of a shared search.
var sharedPage = template.Must(template.New("shared").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>everett: {{.ID.Spec}}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.fail{color:#b00}code{background:#f4f4f4}</style></head>
<body><h1>everett: {{.ID.Spec}}</h1>
<p>Shared search from root seed {{.ID.Seed}}, {{.S.Universes}} universes ({{.S.EndedBy}}; {{.S.Cancelled}} not run), spec sha256 <code>{{printf "%.16s" .ID.SpecHash}}</code>, everett {{.ID.Everett}}, engine {{.S.Engine}}, {{.S.Elapsed}} from the search's start to its last record.</p>
<p>{{.S.Coverage}} edges covered ({{printf "%.1f" .Fill}}% of the map), {{.S.Pairs}} interleaving pairs. {{.S.Boot}}.</p>
<h2 class="{{if .S.Failures}}fail{{end}}">{{len .S.Failures}} distinct failure(s)</h2>
{{if .S.Failures}}<table><tr><th>signature</th><th>universe</th><th>replay</th></tr>
{{range .S.Failures}}<tr><td class="fail">{{.Signature}}</td><td>{{.Universe}}</td><td><code>{{.Replay}}</code></td></tr>
{{end}}</table>{{end}}
<h2>Assertions</h2>
<table><tr><th>kind</th><th>message</th><th>hits</th><th>true</th><th>failed</th><th>reached</th></tr>
{{range .S.Assertions}}<tr><td>{{.Kind}}</td><td>{{.Message}}</td><td>{{.Hits}}</td><td>{{.True}}</td><td>{{if .Failed}}<span class="fail">yes</span>{{end}}</td><td>{{if .Reached}}yes{{end}}</td></tr>
{{end}}</table>
</body></html>
`))

// sharedHTML renders a shared search's merged summary as one page.
func sharedHTML(id bucket.Identity, sum explorer.Summary) ([]byte, error) {
	sort.SliceStable(sum.Failures, func(i, j int) bool { return sum.Failures[i].Universe < sum.Failures[j].Universe })
	var buf bytes.Buffer
	err := sharedPage.Execute(&buf, struct {
		ID   bucket.Identity
		S    explorer.Summary
		Fill float64
	}{id, sum, 100 * sum.CoverageFill})
	return buf.Bytes(), err
}

// addSharedReport makes `everett report --shared URL --out DIR` run on the
// report command itself.
func addSharedReport(cmd *cobra.Command) {
	var url, out string
	var wait time.Duration
	cmd.Flags().DurationVar(&wait, "wait", 0, "with --shared: first wait up to this long for every universe of the search to be done")
	cmd.Flags().StringVar(&url, "shared", "", "the bucket of a shared search (everett explore --shared): write its merged summary.json, failure reports and index.html to --out")
	cmd.Flags().StringVar(&out, "out", "", "with --shared: the directory to write to")
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if url == "" {
			return cmd.Help()
		}
		return runSharedReport(url, out, wait, cmd.OutOrStdout())
	}
}

// localReport returns the path of a report given as a path or as the URL
// of an object in a bucket (a shared search's failures/NAME.json), which
// it downloads into a temporary folder first.
func localReport(arg string, w io.Writer) (string, error) {
	if !strings.Contains(arg, "://") {
		return arg, nil
	}
	b, err := bucket.Fetch(arg)
	if err != nil {
		return "", err
	}
	if len(b) > explorer.MaxReportBytes {
		return "", fmt.Errorf("%s: %d bytes (limit %d)", arg, len(b), explorer.MaxReportBytes)
	}
	dir, err := os.MkdirTemp("", "everett-report-")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, path.Base(strings.SplitN(arg, "?", 2)[0]))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return "", err
	}
	fmt.Fprintf(w, "everett: %s downloaded to %s\n", arg, p)
	return p, nil
}
