package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"everett/explorer"
	"everett/explorer/bucket"
)

// A sweep shared through a bucket (README, "Many machines"): the seed
// range is cut into shards of about --claim seeds (the round-robin shards
// of --shard), and every worker claims shards from the bucket until none
// is left, publishing each shard's sweep file as its record. The records
// merge with the same code as `everett report merge` into exactly the
// unsharded sweep.

// runSharedSweep runs this process as a worker of the shared sweep of
// f.shared: o is the sweep's options, Shard aside.
func runSharedSweep(spec *explorer.Spec, name string, f sweepFlags, o explorer.SweepOptions, stdout io.Writer) (*explorer.SweepFile, error) {
	if f.shard != "0/1" {
		return nil, usageErr("--shared and --shard: the shared sweep deals its shards itself")
	}
	if f.claim < 1 {
		return nil, usageErr("--claim %d: want at least 1 seed", f.claim)
	}
	shards := int(min(uint64(explorer.MaxShards), (o.Seeds.Count()+uint64(f.claim)-1)/uint64(f.claim)))
	s, err := bucket.Join(f.shared, bucket.NewSweepIdentity(spec, name, o.Seeds, shards, f.lease))
	if errors.Is(err, bucket.ErrIdentity) {
		return nil, usageErr("%v", err)
	}
	if err != nil {
		return nil, fmt.Errorf("--shared: %w", err)
	}
	defer s.Close()
	var files []*explorer.SweepFile
	for {
		base, _, ok, err := s.Claim(nil)
		if err != nil {
			return nil, fmt.Errorf("--shared: claim: %w", err)
		}
		if !ok {
			break
		}
		o.Shard = explorer.Shard{Index: base, Count: shards}
		var reports []*explorer.Report
		inner := o.OnOutcome
		o.OnOutcome = func(so *explorer.SeedOutcome, isNew bool) (string, error) {
			if isNew && so.Report != nil {
				reports = append(reports, so.Report)
			}
			return inner(so, isNew)
		}
		sf, err := explorer.RunSweep(spec, o)
		o.OnOutcome = inner
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(sf)
		if err != nil {
			return nil, err
		}
		kept, err := s.FinishBody(base, base+1, body, reports)
		if err != nil {
			return nil, fmt.Errorf("--shared: publishing shard %s: %w", o.Shard, err)
		}
		if kept {
			files = append(files, sf)
		}
	}
	fmt.Fprintf(stdout, "worker %s: %d shard(s) of %d (%d taken over from expired leases)\n", s.Worker(), len(files), shards, s.Retaken)
	// The whole sweep when the bucket has all of it (this worker ended
	// last), else nothing: the report Job writes it.
	done, _, err := s.Progress()
	if err != nil || done < shards {
		fmt.Fprintf(stdout, "the shared sweep is not complete yet (%d of %d shards): everett report --shared writes it\n", done, shards)
		return nil, nil
	}
	return mergeSharedSweep(s)
}

// mergeSharedSweep merges a shared sweep's shard files from the bucket.
func mergeSharedSweep(s *bucket.Search) (*explorer.SweepFile, error) {
	bodies, err := s.RecordBodies()
	if err != nil {
		return nil, fmt.Errorf("reading the sweep: %w", err)
	}
	var files []*explorer.SweepFile
	var names []string
	for _, b := range bodies {
		sf, err := explorer.ParseSweep(b.Body, b.Key)
		if err != nil {
			return nil, err
		}
		files, names = append(files, sf), append(names, b.Key)
	}
	m, err := explorer.MergeSweeps(files, names)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return m, nil
}

// sharedSweepReport is `everett report --shared` of a shared sweep: its
// shards' files merged, as `everett report merge` does, into DIR/merged.json,
// merged.xml and index.html.
func sharedSweepReport(s *bucket.Search, dir string, w io.Writer) error {
	m, err := mergeSharedSweep(s)
	if err != nil {
		return err
	}
	// The failures' reports from the bucket, beside the merged files,
	// and the groups pointing at them (not at a worker's disk).
	reps, err := s.Failures()
	if err != nil {
		return fmt.Errorf("reading the failures: %w", err)
	}
	bySig := map[string]string{}
	for name, b := range reps {
		var r struct {
			Signature string `json:"signature"`
		}
		if json.Unmarshal(b, &r) != nil {
			continue
		}
		p := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		bySig[r.Signature] = p
	}
	for i := range m.Failures {
		if p, ok := bySig[m.Failures[i].Signature]; ok {
			m.Failures[i].Report, m.Failures[i].Replay = p, "everett replay "+p
		}
	}
	printSweepSummary(w, m, s.Identity().Spec)
	if err := writeSweepOutputs(w, m, filepath.Join(dir, "merged.json"), filepath.Join(dir, "merged.xml"), filepath.Join(dir, "index.html")); err != nil {
		return err
	}
	if m.Totals.Failed > 0 {
		return &exitError{code: 1}
	}
	return nil
}
