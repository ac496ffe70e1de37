package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const protocolExample = `{
  "nodes": [{"name": "n0", "addr": "10.0.0.1"}, {"name": "n1", "addr": "10.0.0.2"}],
  "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"],
  "processes": [
    {"name": "server", "argv": ["/usr/bin/server", "--port", "2379"],
     "env": ["K=V"], "dir": "/", "restart": "on-failure"},
    {"name": "client", "argv": ["client"]}
  ],
  "deadlock": {"check": true, "stall_ns": 0},
  "kills": false,
  "mounts": [{"dev": "/dev/vda", "dir": "/data", "fs": "ext4"}]
}`

func TestTheProtocolsExampleWorkloadParses(t *testing.T) {
	w, unknown, err := parseWorkload([]byte(protocolExample))
	if err != nil || unknown != "" {
		t.Fatalf("parseWorkload: %v (unknown %q)", err, unknown)
	}
	if len(w.Nodes) != 2 || w.Nodes[1].Addr != "10.0.0.2" || len(w.Processes) != 2 ||
		w.Processes[0].Restart != "on-failure" || !w.Deadlock.Check || w.Mounts[0].FS != "ext4" {
		t.Errorf("parsed %+v", w)
	}
}

func TestAnUnknownFieldIsReportedNotRefused(t *testing.T) {
	w, unknown, err := parseWorkload([]byte(`{"processes":[{"name":"a","argv":["/a"]}],"version":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if unknown != `"version"` || len(w.Processes) != 1 {
		t.Errorf("unknown %q, processes %v", unknown, w.Processes)
	}
}

func TestAWrongWorkloadIsRefusedNamingTheField(t *testing.T) {
	ok := `{"name":"a","argv":["/a"]}`
	for _, c := range []struct{ json, want string }{
		{`{"processes":[]}`, "processes: none listed"},
		{`{"processes":[` + ok + `,` + ok + `]}`, `processes[1].name: "a" is also processes[0]'s`},
		{`{"processes":[{"name":"","argv":["/a"]}]}`, "processes[0].name: empty"},
		{`{"processes":[{"name":"a b","argv":["/a"]}]}`, "processes[0].name: \"a b\" contains a space"},
		{`{"processes":[{"name":"a","argv":[]}]}`, "processes[0].argv: no program"},
		{`{"processes":[{"name":"a","argv":["/a"],"restart":"sometimes"}]}`, `processes[0].restart: "sometimes" is not one of`},
		{`{"processes":[{"name":"a","argv":["/a"],"env":["NOEQUALS"]}]}`, `processes[0].env: [0]: "NOEQUALS" is not KEY=VALUE`},
		{`{"processes":[{"name":"a","argv":["/a"],"dir":"rel"}]}`, `processes[0].dir: "rel" is not an absolute path`},
		{`{"nodes":[{"name":"n0","addr":"10.0.0.300"}],"processes":[` + ok + `]}`, `nodes[0].addr: "10.0.0.300" is not an IPv4 address`},
		{`{"nodes":[{"name":"n0","addr":"::1"}],"processes":[` + ok + `]}`, `nodes[0].addr: "::1" is not an IPv4 address`},
		{`{"env":["=x"],"processes":[` + ok + `]}`, `env: [0]: "=x" is not KEY=VALUE`},
		{`{"deadlock":{"stall_ns":-1},"processes":[` + ok + `]}`, "deadlock.stall_ns: -1 is negative"},
		{`{"mounts":[{"dev":"/dev/vda","dir":"data","fs":"ext4"}],"processes":[` + ok + `]}`, `mounts[0].dir: "data" is not an absolute path`},
		{`{"processes":[{"name":"a","argv":"/a"}]}`, "cannot unmarshal"},
		{`{"processes":`, "unexpected EOF"},
	} {
		_, _, err := parseWorkload([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseWorkload(%s) = %v; want an error with %q", c.json, err, c.want)
		}
	}
}

func TestTheNodeIndexComesFromTheKernelCommandLine(t *testing.T) {
	for _, c := range []struct {
		cmdline string
		want    int
		bad     bool
	}{
		{"console=ttyS0 quiet", 0, false},
		{"console=ttyS0 everett.node=2 quiet\n", 2, false},
		{"everett.node=x", 0, true},
		{"everett.node=-1", 0, true},
	} {
		got, err := nodeIndex(c.cmdline)
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("nodeIndex(%q) = %d, %v; want %d, error %v", c.cmdline, got, err, c.want, c.bad)
		}
	}
}

func TestANodeIndexBeyondTheNodesIsRefusedAndNoNodesIsOneNode(t *testing.T) {
	w := workload{Nodes: []nodeSpec{{Name: "n0"}, {Name: "n1"}}}
	if _, err := newUniverse(&w, 2); err == nil || !strings.Contains(err.Error(), "everett.node=2: the workload has 2 nodes") {
		t.Errorf("newUniverse(2 of 2) = %v", err)
	}
	u, err := newUniverse(&workload{}, 0)
	if err != nil || !u.oneNode() || u.self().Name != "everett" {
		t.Errorf("newUniverse(no nodes) = %+v, %v", u, err)
	}
}

func TestTheEnvironmentIsNodeThenProcessThenEverettsLaterWinningInPlace(t *testing.T) {
	u := universe{nodes: []nodeSpec{{"n0", "10.0.0.1"}, {"n1", "10.0.0.2"}, {"n2", "10.0.0.3"}}, index: 1}
	got := u.environ(
		[]string{"PATH=/bin", "A=node", "EVERETT_NODE=user"},
		[]string{"A=proc", "B=proc"},
		"EVERETT_SDK=off", "PATH=/init")
	want := []string{
		"EVERETT_SDK=off", "PATH=/bin", "A=proc", "EVERETT_NODE=1", "B=proc",
		"EVERETT_NODES=3", "EVERETT_NODE_NAME=n1", "EVERETT_ADDR=10.0.0.2",
		"EVERETT_PEERS=10.0.0.1,10.0.0.2,10.0.0.3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("environ =\n%q\nwant\n%q", got, want)
	}
}

func TestEtcHostsListsLocalhostAndEveryNodeWithAnAddress(t *testing.T) {
	u := universe{nodes: []nodeSpec{{"n0", "10.0.0.1"}, {"n1", ""}, {"n2", "10.0.0.3"}}}
	want := "127.0.0.1\tlocalhost\n10.0.0.1\tn0\n10.0.0.3\tn2\n"
	if got := string(u.hosts()); got != want {
		t.Errorf("hosts = %q; want %q", got, want)
	}
}

func TestArgv0IsLookedUpInThePathOfTheProcesssEnvironment(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(a, "data"), 0o644) // not executable: skipped
	write(filepath.Join(b, "data"), 0o755)
	write(filepath.Join(b, "prog"), 0o755)
	path := a + ":" + b
	for _, c := range []struct{ file, want, err string }{
		{"prog", filepath.Join(b, "prog"), ""},
		{"data", filepath.Join(b, "data"), ""},
		{"./x", "./x", ""},
		{"/abs/x", "/abs/x", ""},
		{"missing", "", "missing: not found in PATH (" + path + ")"},
	} {
		got, err := lookPath(c.file, path, "/")
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("lookPath(%q) = %q, %v; want %q, %q", c.file, got, err, c.want, c.err)
		}
	}
	// A relative PATH entry counts from the process's directory.
	if got, err := lookPath("prog", "b", dir); err != nil || got != filepath.Join("b", "prog") {
		t.Errorf("lookPath(prog, PATH=b, dir %s) = %q, %v", dir, got, err)
	}
}

func TestBuildSpecsNamesTheProcessWhoseProgramIsMissing(t *testing.T) {
	w := workload{Env: []string{"PATH=/nonexistent"}, Processes: []processSpec{
		{Name: "ok", Argv: []string{"/bin/sh"}},
		{Name: "lost", Argv: []string{"nowhere-to-be-found"}},
	}}
	u, _ := newUniverse(&w, 0)
	_, name, err := buildSpecs(&w, u, nil)
	if name != "lost" || err == nil || err.Error() != "exec nowhere-to-be-found: not found in PATH (/nonexistent)" {
		t.Errorf("buildSpecs = %q, %v", name, err)
	}
	w.Processes = w.Processes[:1]
	specs, _, err := buildSpecs(&w, u, nil)
	if err != nil || specs[0].dir != "/" || specs[0].path != "/bin/sh" || specs[0].restart != restartNo {
		t.Errorf("buildSpecs = %+v, %v", specs, err)
	}
}
