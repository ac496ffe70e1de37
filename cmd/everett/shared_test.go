package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"everett/explorer"
)

// everettBinary builds the CLI into a temporary directory: the shared
// search tests run real worker processes.
func everettBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everett")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sharedWorker is a worker process of a shared search.
type sharedWorker struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
	done     chan error
}

func startWorker(t *testing.T, bin string, env []string, args ...string) *sharedWorker {
	t.Helper()
	w := &sharedWorker{cmd: exec.Command(bin, args...), done: make(chan error, 1)}
	w.cmd.Env = env
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.err
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// wait waits for the worker to end and returns its exit code.
func (w *sharedWorker) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case err := <-w.done:
		w.done <- err // for the cleanup
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode()
			}
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		t.Fatalf("worker %d did not end within %v:\n%s\n%s", w.cmd.Process.Pid, limit, w.out.String(), w.err.String())
	}
	return -1
}

// claimObj is a claim object as the bucket holds it.
type claimObj struct {
	Base, End, Gen int
	Worker         string
}

// claimsIn reads every claim of a file:// bucket directory.
func claimsIn(t *testing.T, dir string) []claimObj {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "claims", "*", "*.json"))
	var out []claimObj
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // being renamed into place
		}
		var c struct {
			Base   int    `json:"base"`
			End    int    `json:"end"`
			Gen    int    `json:"generation"`
			Worker string `json:"worker"`
		}
		if json.Unmarshal(b, &c) == nil {
			out = append(out, claimObj{Base: c.Base, End: c.End, Gen: c.Gen, Worker: c.Worker})
		}
	}
	return out
}

// records reads the done records of a file:// bucket directory.
func records(t *testing.T, dir string) []*explorer.BatchRecord {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "done", "*.json"))
	var out []*explorer.BatchRecord
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r := &explorer.BatchRecord{}
		if err := json.Unmarshal(b, r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, r)
	}
	return out
}

// runSharedSearch runs three workers on one shared search of the race
// example at url (whose objects are visible in dir when it is a file://
// bucket's, else dir is ""), kills the first mid-run with SIGKILL, and
// checks the search: every universe counted exactly once, the failure in
// the merged summary once, and its report from the bucket replaying in a
// fresh process, read by its URL in the bucket.
func runSharedSearch(t *testing.T, bin, url string, env []string, list func() ([]claimObj, []*explorer.BatchRecord)) {
	elf := raceELF(t)
	const universes = 160
	args := func(i int) []string {
		return []string{"explore", "--elf", elf, "--smp", "2", "--universes", strconv.Itoa(universes), "--workers", "1",
			"--claim", "8", "--lease", "2s", "--shared", url, "--out", filepath.Join(t.TempDir(), fmt.Sprint("w", i))}
	}
	var ws []*sharedWorker
	for i := 0; i < 3; i++ {
		w := startWorker(t, bin, env, args(i)...)
		ws = append(ws, w)
	}
	// Kill the first worker while it holds a claim it has not finished.
	victim := ws[0]
	tag := fmt.Sprintf("-%d-", victim.cmd.Process.Pid)
	var held claimObj
	deadline := time.Now().Add(2 * time.Minute)
	for held.Worker == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the first worker never held an unfinished claim:\n%s", victim.err.String())
		}
		claims, recs := list()
		done := map[int]bool{}
		for _, r := range recs {
			done[r.Base] = true
		}
		for _, c := range claims {
			if strings.Contains(c.Worker, tag) && !done[c.Base] && c.Base > 0 {
				held = c
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.wait(t, time.Minute)
	for i, w := range ws[1:] {
		if code := w.wait(t, 5*time.Minute); code != 0 {
			t.Fatalf("worker %d: exit code %d:\n%s\n%s", i+1, code, w.out.String(), w.err.String())
		}
	}

	// No universe ran twice, nothing claimed was lost.
	claims, recs := list()
	count := map[int]int{}
	byBase := map[int]*explorer.BatchRecord{}
	for _, r := range recs {
		byBase[r.Base] = r
		for _, u := range r.Universes {
			count[u.Index]++
		}
	}
	for i := 0; i < universes; i++ {
		if count[i] != 1 {
			t.Errorf("universe %d is in %d records, want 1", i, count[i])
		}
	}
	if len(count) != universes {
		t.Errorf("%d universes in the records, want %d", len(count), universes)
	}
	// The killed worker's claim was taken over by another, unless it had
	// finished it in the instant before the kill.
	if r := byBase[held.Base]; r == nil {
		t.Fatalf("universes %d.. have no record", held.Base)
	} else if strings.Contains(r.Worker, tag) {
		t.Logf("the killed worker finished universes %d.. just before the kill", held.Base)
	} else {
		retaken := false
		for _, c := range claims {
			retaken = retaken || c.Base == held.Base && c.Gen > held.Gen && !strings.Contains(c.Worker, tag)
		}
		if !retaken {
			t.Errorf("universes %d.. (claimed by the killed worker) were finished by %s without a newer claim", held.Base, r.Worker)
		}
	}
	pulled := false
	for _, w := range ws[1:] {
		pulled = pulled || !strings.Contains(w.out.String(), " 0 corpus entries pulled")
	}
	if !pulled {
		t.Errorf("no worker pulled another's corpus entries:\n%s\n%s", ws[1].out.String(), ws[2].out.String())
	}

	// The merged summary has the failure once; its report in the bucket
	// replays in a fresh process.
	dir := t.TempDir()
	rep := exec.Command(bin, "report", "--shared", url, "--out", dir)
	rep.Env = env
	out, err := rep.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("report --shared: %v (want exit code 1, failures found):\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum explorer.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Universes != universes || sum.EndedBy != "universes" || sum.Cancelled != 0 {
		t.Errorf("merged summary: %d universes, ended by %s, %d cancelled; want %d, universes, 0", sum.Universes, sum.EndedBy, sum.Cancelled, universes)
	}
	if len(sum.Failures) != 1 || sum.Failures[0].Signature != "assertion: always: transfers conserve money" {
		t.Fatalf("merged failures %+v, want the race once", sum.Failures)
	}
	if ff := sum.FirstFailure; ff == nil || ff.Signature != sum.Failures[0].Signature || ff.Seconds <= 0 {
		t.Fatalf("merged first failure %+v", ff)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Error(err)
	}
	obj := url + "/failures/" + filepath.Base(sum.Failures[0].Report)
	if bucketURL, query, ok := strings.Cut(url, "?"); ok {
		obj = bucketURL + "/failures/" + filepath.Base(sum.Failures[0].Report) + "?" + query
	}
	replay := exec.Command(bin, "replay", obj)
	replay.Env = env
	out, err = replay.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "reproduced: assertion: always: transfers conserve money") {
		t.Fatalf("replay of the bucket's report: %v\n%s", err, out)
	}
}

func TestThreeWorkersOnAFileBucketRunEveryUniverseOnceWhenOneIsKilled(t *testing.T) {
	bin := everettBinary(t)
	dir := filepath.Join(t.TempDir(), "bucket")
	list := func() ([]claimObj, []*explorer.BatchRecord) { return claimsIn(t, dir), records(t, dir) }
	runSharedSearch(t, bin, "file://"+dir, os.Environ(), list)
}

func TestAWorkerOfAnotherSearchRefusesToJoinNamingWhatDiffers(t *testing.T) {
	elf := raceELF(t)
	url := "file://" + filepath.Join(t.TempDir(), "bucket")
	base := []string{"explore", "--elf", elf, "--smp", "2", "--universes", "8", "--workers", "1", "--claim", "8", "--shared", url, "--out", t.TempDir()}
	if code, _, stderr := runCLI(t, base...); code != 0 {
		t.Fatalf("first worker: exit code %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"another root seed", []string{"--seed", "2"}, "seed: 2 here, 1 in the search"},
		{"another spec", []string{"--max-insns", "12345"}, "spec: sha256"},
		{"another program", []string{"--smp", "3"}, "spec: sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(append([]string(nil), base...), tc.extra...)...)
			if code != 2 || !strings.Contains(stderr, "refusing to join") || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit code %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestTwoWorkersOfASharedSweepMergeIntoExactlyTheUnshardedSweep(t *testing.T) {
	elf := raceELF(t)
	bin := everettBinary(t)
	url := "file://" + filepath.Join(t.TempDir(), "bucket")
	var ws []*sharedWorker
	for i := 0; i < 2; i++ {
		ws = append(ws, startWorker(t, bin, os.Environ(), "sweep", "--elf", elf, "--smp", "2", "--seeds", "1..48", "--workers", "1",
			"--claim", "6", "--lease", "2s", "--shared", url, "--out", t.TempDir()))
	}
	for i, w := range ws {
		if code := w.wait(t, 5*time.Minute); code != 0 {
			t.Fatalf("worker %d: exit code %d:\n%s\n%s", i, code, w.out.String(), w.err.String())
		}
	}
	dir := t.TempDir()
	if code, out, stderr := runCLI(t, "report", "--shared", url, "--out", dir); code != 1 {
		t.Fatalf("report --shared: exit code %d (want 1: the race fails some seeds):\n%s%s", code, out, stderr)
	}
	whole := filepath.Join(t.TempDir(), "whole.json")
	if code, _, stderr := runCLI(t, "sweep", "--elf", elf, "--smp", "2", "--seeds", "1..48", "--json", whole, "--out", t.TempDir()); code != 1 {
		t.Fatalf("sweep: exit code %d: %s", code, stderr)
	}
	merged, err := explorer.LoadSweep(filepath.Join(dir, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	one, err := explorer.LoadSweep(whole)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Totals != one.Totals || len(merged.Outcomes) != len(one.Outcomes) {
		t.Fatalf("merged totals %+v, unsharded %+v", merged.Totals, one.Totals)
	}
	for i := range one.Outcomes {
		a, b := merged.Outcomes[i], one.Outcomes[i]
		if a.Seed != b.Seed || a.Outcome != b.Outcome || a.StateHash != b.StateHash || a.Instructions != b.Instructions {
			t.Fatalf("seed %d: merged %s %s, unsharded %s %s", b.Seed, a.Outcome, a.StateHash, b.Outcome, b.StateHash)
		}
	}
	if len(merged.Failures) != 1 || !strings.HasPrefix(merged.Failures[0].Report, dir) {
		t.Fatalf("merged failures %+v: want the race's, its report in %s", merged.Failures, dir)
	}
}
