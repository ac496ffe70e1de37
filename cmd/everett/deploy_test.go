package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"everett/explorer"
)

// The files under deploy/ cannot run here (no Kubernetes, no CI service):
// these tests parse them, check the fields that make sharding work, and
// check that every everett command line in them is accepted by the CLI.

func deployFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// yamlDocs decodes every document of a YAML stream.
func yamlDocs(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// at follows a path of map keys and list indices.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not a map", path, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at %v: not a list of %d", path, k+1)
			}
			v = l[k]
		}
	}
	return v
}

// everettCommands returns the everett command lines of a shell script,
// each as the arguments after "everett": commands are split at ';', '&&',
// '||' and newlines; a command is everett's when its first word (after
// then, else or do) is everett or a path ending in /everett; redirections
// end it; quotes are removed.
func everettCommands(script string) [][]string {
	var cmds [][]string
	for _, part := range regexp.MustCompile(`;|\|\||&&|\n`).Split(script, -1) {
		f := strings.Fields(part)
		for len(f) > 0 && (f[0] == "then" || f[0] == "else" || f[0] == "do") {
			f = f[1:]
		}
		if len(f) == 0 || f[0] != "everett" && !strings.HasSuffix(f[0], "/everett") {
			continue
		}
		var args []string
		for _, a := range f[1:] {
			if strings.HasPrefix(a, ">") || a == "|" {
				break
			}
			args = append(args, strings.Trim(a, `"'`))
		}
		cmds = append(cmds, args)
	}
	return cmds
}

// parseCLI checks that args are an everett command line the CLI accepts
// (the command exists, its flags parse, its arguments are allowed) and
// returns the command's name and its flags' values.
func parseCLI(t *testing.T, args []string) (string, map[string]string) {
	t.Helper()
	root := newRoot()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		t.Fatalf("everett %s: no such command (%v)", strings.Join(args, " "), err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("everett %s: %v", strings.Join(args, " "), err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Fatalf("everett %s: %v", strings.Join(args, " "), err)
	}
	vals := map[string]string{}
	for _, name := range []string{"shard", "seeds", "json", "out", "shared", "universes", "wait"} {
		if f := cmd.Flags().Lookup(name); f != nil {
			vals[name] = f.Value.String()
		}
	}
	return cmd.CommandPath(), vals
}

func TestTheKubernetesJobShardsByCompletionIndexAndMerges(t *testing.T) {
	docs := yamlDocs(t, deployFile(t, "k8s/sweep-job.yaml"))
	jobs := map[string]map[string]any{}
	for _, d := range docs {
		if d["kind"] == "Job" {
			jobs[at(t, d, "metadata", "name").(string)] = d
		}
	}
	sweep, merge := jobs["everett-sweep"], jobs["everett-merge"]
	if sweep == nil || merge == nil {
		t.Fatalf("jobs %v: want everett-sweep and everett-merge", jobs)
	}
	if m := at(t, sweep, "spec", "completionMode"); m != "Indexed" {
		t.Fatalf("completionMode %v, want Indexed", m)
	}
	n := at(t, sweep, "spec", "completions").(int)
	if p := at(t, sweep, "spec", "parallelism").(int); n < 1 || p < 1 || p > n {
		t.Fatalf("completions %d, parallelism %d", n, p)
	}
	if r := at(t, sweep, "spec", "template", "spec", "restartPolicy"); r != "Never" {
		t.Fatalf("restartPolicy %v: a podFailurePolicy needs Never", r)
	}
	c := at(t, sweep, "spec", "template", "spec", "containers", 0)
	script := at(t, c, "args", 0).(string)
	if !strings.Contains(script, fmt.Sprintf("--shard $(JOB_COMPLETION_INDEX)/%d", n)) {
		t.Fatalf("the sweep's command does not take its shard from the completion index as I/%d:\n%s", n, script)
	}
	env := map[string]string{}
	for _, e := range at(t, c, "env").([]any) {
		if v, ok := e.(map[string]any)["value"].(string); ok {
			env[e.(map[string]any)["name"].(string)] = v
		}
	}
	// Expand as the kubelet does for completion index 3, then parse.
	expand := strings.NewReplacer("$(JOB_COMPLETION_INDEX)", "3", "$(SEEDS)", env["SEEDS"], "$(WORKERS)", "4")
	cmds := everettCommands(expand.Replace(script))
	if len(cmds) != 1 {
		t.Fatalf("%d everett commands in the sweep job", len(cmds))
	}
	name, flags := parseCLI(t, cmds[0])
	sh, err := explorer.ParseShard(flags["shard"])
	if name != "everett sweep" || err != nil || sh != (explorer.Shard{Index: 3, Count: n}) {
		t.Fatalf("%s --shard %q (%v): want everett sweep, shard 3/%d", name, flags["shard"], err, n)
	}
	if _, err := explorer.ParseSeedRange(flags["seeds"]); err != nil {
		t.Fatal(err)
	}
	if flags["json"] != "/results/shard-3.json" {
		t.Fatalf("--json %q: the merge reads /results/shard-*.json", flags["json"])
	}

	// The merge waits for N shards and merges them.
	initc := at(t, merge, "spec", "template", "spec", "initContainers", 0)
	if v := at(t, initc, "env", 0, "value"); v != strconv.Itoa(n) {
		t.Fatalf("the merge waits for SHARDS=%v shards, the job has %d", v, n)
	}
	mc := everettCommands(at(t, merge, "spec", "template", "spec", "containers", 0, "args", 0).(string))
	var names []string
	for _, cmd := range mc {
		name, _ := parseCLI(t, cmd)
		names = append(names, name)
	}
	if strings.Join(names, ",") != "everett report merge,everett report compare" {
		t.Fatalf("merge job commands %v", names)
	}
}

func TestTheNightlyWorkflowRunsAShardMatrixAndMerges(t *testing.T) {
	docs := yamlDocs(t, deployFile(t, "ci/nightly.yml"))
	if len(docs) != 1 {
		t.Fatalf("%d documents", len(docs))
	}
	wf := docs[0]
	shards, err := strconv.Atoi(at(t, wf, "env", "SHARDS").(string))
	if err != nil {
		t.Fatal(err)
	}
	matrix := at(t, wf, "jobs", "sweep", "strategy", "matrix", "shard").([]any)
	if len(matrix) != shards {
		t.Fatalf("matrix of %d shards, SHARDS=%d", len(matrix), shards)
	}
	for i, v := range matrix {
		if v != i {
			t.Fatalf("matrix shard %d is %v: shards count from 0", i, v)
		}
	}
	if f := at(t, wf, "jobs", "sweep", "strategy", "fail-fast"); f != false {
		t.Fatal("fail-fast must be off: one shard's failure must not cancel the others")
	}
	expand := func(s string, shard int) string {
		return strings.NewReplacer("${{ matrix.shard }}", strconv.Itoa(shard), "$SPEC", "spec.yaml", "$SEEDS", "1..20000").Replace(s)
	}
	var sweepRuns int
	for _, st := range at(t, wf, "jobs", "sweep", "steps").([]any) {
		run, _ := st.(map[string]any)["run"].(string)
		for _, cmd := range everettCommands(expand(run, shards-1)) {
			name, flags := parseCLI(t, cmd)
			sh, err := explorer.ParseShard(flags["shard"])
			if name != "everett sweep" || err != nil || sh != (explorer.Shard{Index: shards - 1, Count: shards}) {
				t.Fatalf("%s --shard %q: want shard %d/%d", name, flags["shard"], shards-1, shards)
			}
			sweepRuns++
		}
	}
	if sweepRuns != 1 {
		t.Fatalf("%d everett sweep commands in the sweep job", sweepRuns)
	}
	var names []string
	for _, st := range at(t, wf, "jobs", "merge", "steps").([]any) {
		run, _ := st.(map[string]any)["run"].(string)
		for _, cmd := range everettCommands(run) {
			name, _ := parseCLI(t, cmd)
			names = append(names, name)
		}
	}
	if strings.Join(names, ",") != "everett report merge,everett report compare" {
		t.Fatalf("merge job commands %v", names)
	}
	if needs := at(t, wf, "jobs", "merge", "needs"); needs != "sweep" {
		t.Fatalf("merge needs %v", needs)
	}
}

func TestTheContainerfileAndTheExampleSpec(t *testing.T) {
	cf := string(deployFile(t, "Containerfile"))
	for _, want := range []string{"FROM debian:bookworm", "opensbi", "go build", "COPY deploy/universe/"} {
		if !strings.Contains(cf, want) {
			t.Errorf("Containerfile lacks %q", want)
		}
	}
	if strings.Contains(cf, "qemu") {
		t.Error("the Containerfile installs QEMU, which sweeps do not need")
	}
	// The example spec has only fields a spec has (its images are
	// placeholders, so it is decoded, not validated).
	var s explorer.Spec
	dec := yaml.NewDecoder(bytes.NewReader(deployFile(t, "universe/spec.yaml")))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("deploy/universe/spec.yaml: %v", err)
	}
	if len(s.Nodes) == 0 {
		t.Fatal("the example spec has no nodes")
	}
}

func TestTheKubernetesExploreJobRunsWorkersOnOneSharedSearchAndAReportJob(t *testing.T) {
	docs := yamlDocs(t, deployFile(t, "k8s/explore-shared.yaml"))
	jobs := map[string]map[string]any{}
	var secret map[string]any
	for _, d := range docs {
		switch d["kind"] {
		case "Job":
			jobs[at(t, d, "metadata", "name").(string)] = d
		case "Secret":
			secret = d
		}
	}
	explore, report := jobs["everett-explore"], jobs["everett-shared-report"]
	if explore == nil || report == nil || secret == nil {
		t.Fatalf("jobs %v, secret %v: want everett-explore, everett-shared-report and a Secret", jobs, secret)
	}
	if m := at(t, explore, "spec", "completionMode"); m != "Indexed" {
		t.Fatalf("completionMode %v, want Indexed", m)
	}
	if r := at(t, explore, "spec", "template", "spec", "restartPolicy"); r != "Never" {
		t.Fatalf("restartPolicy %v: a podFailurePolicy needs Never", r)
	}
	url, ok := at(t, secret, "stringData", "EVERETT_BUCKET").(string)
	if !ok || !strings.HasPrefix(url, "s3://") {
		t.Fatalf("the Secret's EVERETT_BUCKET is %v", url)
	}
	name := at(t, secret, "metadata", "name")
	for _, j := range []map[string]any{explore, report} {
		c := at(t, j, "spec", "template", "spec", "containers", 0)
		if ref := at(t, c, "envFrom", 0, "secretRef", "name"); ref != name {
			t.Fatalf("%v takes its environment from %v, not the Secret %v", at(t, j, "metadata", "name"), ref, name)
		}
	}
	c := at(t, explore, "spec", "template", "spec", "containers", 0)
	env := map[string]string{}
	for _, e := range at(t, c, "env").([]any) {
		if v, ok := e.(map[string]any)["value"].(string); ok {
			env[e.(map[string]any)["name"].(string)] = v
		}
	}
	expand := strings.NewReplacer("$EVERETT_BUCKET", url, "$(UNIVERSES)", env["UNIVERSES"], "$(WORKERS)", "2")
	cmds := everettCommands(expand.Replace(at(t, c, "args", 0).(string)))
	if len(cmds) != 1 {
		t.Fatalf("%d everett commands in the explore job", len(cmds))
	}
	cmd, flags := parseCLI(t, cmds[0])
	if cmd != "everett explore" || flags["shared"] != url || flags["universes"] != env["UNIVERSES"] {
		t.Fatalf("%s --shared %q --universes %q: want everett explore on the Secret's bucket with UNIVERSES", cmd, flags["shared"], flags["universes"])
	}
	rc := at(t, report, "spec", "template", "spec", "containers", 0)
	cmds = everettCommands(strings.ReplaceAll(at(t, rc, "args", 0).(string), "$EVERETT_BUCKET", url))
	if len(cmds) != 1 {
		t.Fatalf("%d everett commands in the report job", len(cmds))
	}
	cmd, flags = parseCLI(t, cmds[0])
	if cmd != "everett report" || flags["shared"] != url || flags["wait"] == "0s" {
		t.Fatalf("%s --shared %q --wait %s: want everett report on the Secret's bucket, waiting", cmd, flags["shared"], flags["wait"])
	}
}

func TestTheSharedNightlyWorkflowRunsAWorkerMatrixOnOneSearchAndReports(t *testing.T) {
	docs := yamlDocs(t, deployFile(t, "ci/nightly-shared.yml"))
	if len(docs) != 1 {
		t.Fatalf("%d documents", len(docs))
	}
	wf := docs[0]
	if f := at(t, wf, "jobs", "explore", "strategy", "fail-fast"); f != false {
		t.Fatal("fail-fast must be off: one worker's end must not cancel the others")
	}
	if len(at(t, wf, "jobs", "explore", "strategy", "matrix", "worker").([]any)) < 2 {
		t.Fatal("fewer than two workers")
	}
	search := at(t, wf, "env", "SEARCH").(string)
	if !strings.Contains(search, "${{ github.run_id }}") {
		t.Fatalf("SEARCH %q: one search per run needs the run's id in it", search)
	}
	expand := strings.NewReplacer("$SPEC", "spec.yaml", "$SEARCH", "s3://b?prefix=x/", "$UNIVERSES", "20000")
	var names []string
	for _, job := range []string{"explore", "report"} {
		for _, st := range at(t, wf, "jobs", job, "steps").([]any) {
			run, _ := st.(map[string]any)["run"].(string)
			for _, cmd := range everettCommands(expand.Replace(run)) {
				name, flags := parseCLI(t, cmd)
				if flags["shared"] != "s3://b?prefix=x/" {
					t.Fatalf("%s --shared %q: want $SEARCH", name, flags["shared"])
				}
				names = append(names, name)
			}
		}
	}
	if strings.Join(names, ",") != "everett explore,everett report" {
		t.Fatalf("commands %v", names)
	}
	if needs := at(t, wf, "jobs", "report", "needs"); needs != "explore" {
		t.Fatalf("report needs %v", needs)
	}
}
