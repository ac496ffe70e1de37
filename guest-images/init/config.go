package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The files and limits of the configuration.
const (
	workloadPath = "/everett/workload.json"
	cmdlinePath  = "/proc/cmdline"

	// defaultPath is where argv[0] is looked up when the process's
	// environment has no PATH.
	defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

	workloadBytesMax = 1 << 20 // a workload.json larger than this is refused
	processesMax     = 256
	nameBytesMax     = 64 // a process's or node's name (also HOST_NAME_MAX)
)

// workload is /everett/workload.json, written by the host (the protocol in
// README.md).
type workload struct {
	Nodes     []nodeSpec    `json:"nodes"`
	Env       []string      `json:"env"`
	Processes []processSpec `json:"processes"`
	Deadlock  deadlockSpec  `json:"deadlock"`
	Kills     bool          `json:"kills"`
	Mounts    []mountSpec   `json:"mounts"`
	// SetupComplete: the init calls the SDK's setup_complete just before
	// it starts the processes (absent: true); false when the workload
	// marks its own setup point (a spec's explicit setup: sdk).
	SetupComplete *bool `json:"setup_complete"`
}

// nodeSpec is one node of the universe.
type nodeSpec struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
}

// processSpec is one process of the node's workload.
type processSpec struct {
	Name    string   `json:"name"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
	Restart string   `json:"restart"`
}

// deadlockSpec configures the deadlock watch.
type deadlockSpec struct {
	Check   bool  `json:"check"`
	StallNs int64 `json:"stall_ns"`
}

// mountSpec is a file system the init mounts for the workload.
type mountSpec struct {
	Dev string `json:"dev"`
	Dir string `json:"dir"`
	FS  string `json:"fs"`
}

// policy is a process's restart policy.
type policy int

const (
	restartNo        policy = iota // a task: the run waits for it
	restartOnFailure               // a service restarted when it fails
	restartAlways                  // a service restarted whenever it ends
)

func (p policy) String() string {
	switch p {
	case restartOnFailure:
		return "on-failure"
	case restartAlways:
		return "always"
	}
	return "no"
}

func parsePolicy(s string) (policy, error) {
	switch s {
	case "", "no":
		return restartNo, nil
	case "on-failure":
		return restartOnFailure, nil
	case "always":
		return restartAlways, nil
	}
	return 0, fmt.Errorf("%q is not one of \"no\", \"on-failure\", \"always\"", s)
}

// parseWorkload decodes and checks workload.json. Unknown fields are not an
// error (a newer host may add some); the first one is returned in unknown
// so that the init can say it ignored it.
func parseWorkload(b []byte) (w workload, unknown string, err error) {
	if len(b) > workloadBytesMax {
		return w, "", fmt.Errorf("%d bytes, more than the %d the init reads", len(b), workloadBytesMax)
	}
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&w); err != nil {
		if !strings.HasPrefix(err.Error(), "json: unknown field ") {
			return w, "", err
		}
		unknown = strings.TrimPrefix(err.Error(), "json: unknown field ")
		w = workload{}
		if err := json.Unmarshal(b, &w); err != nil {
			return w, "", err
		}
	}
	return w, unknown, w.check()
}

// check reports the first thing wrong with w, naming the field.
func (w *workload) check() error {
	for i, n := range w.Nodes {
		if err := checkName(n.Name); err != nil {
			return fmt.Errorf("nodes[%d].name: %w", i, err)
		}
		if n.Addr != "" {
			if a, err := netip.ParseAddr(n.Addr); err != nil || !a.Is4() {
				return fmt.Errorf("nodes[%d].addr: %q is not an IPv4 address", i, n.Addr)
			}
		}
	}
	if err := checkEnv(w.Env); err != nil {
		return fmt.Errorf("env: %w", err)
	}
	if len(w.Processes) == 0 {
		return errors.New("processes: none listed")
	}
	if len(w.Processes) > processesMax {
		return fmt.Errorf("processes: %d listed, more than %d", len(w.Processes), processesMax)
	}
	seen := map[string]int{}
	for i, p := range w.Processes {
		field := fmt.Sprintf("processes[%d]", i)
		if err := checkName(p.Name); err != nil {
			return fmt.Errorf("%s.name: %w", field, err)
		}
		if j, dup := seen[p.Name]; dup {
			return fmt.Errorf("%s.name: %q is also processes[%d]'s", field, p.Name, j)
		}
		seen[p.Name] = i
		if len(p.Argv) == 0 || p.Argv[0] == "" {
			return fmt.Errorf("%s.argv: no program", field)
		}
		for j, a := range p.Argv {
			if strings.IndexByte(a, 0) >= 0 {
				return fmt.Errorf("%s.argv[%d]: contains a NUL byte", field, j)
			}
		}
		if err := checkEnv(p.Env); err != nil {
			return fmt.Errorf("%s.env: %w", field, err)
		}
		if p.Dir != "" && !filepath.IsAbs(p.Dir) {
			return fmt.Errorf("%s.dir: %q is not an absolute path", field, p.Dir)
		}
		if _, err := parsePolicy(p.Restart); err != nil {
			return fmt.Errorf("%s.restart: %w", field, err)
		}
	}
	if w.Deadlock.StallNs < 0 {
		return fmt.Errorf("deadlock.stall_ns: %d is negative", w.Deadlock.StallNs)
	}
	for i, m := range w.Mounts {
		switch {
		case m.Dev == "":
			return fmt.Errorf("mounts[%d].dev: empty", i)
		case !filepath.IsAbs(m.Dir):
			return fmt.Errorf("mounts[%d].dir: %q is not an absolute path", i, m.Dir)
		case m.FS == "":
			return fmt.Errorf("mounts[%d].fs: empty", i)
		}
	}
	return nil
}

func checkName(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case len(s) > nameBytesMax:
		return fmt.Errorf("%q is longer than %d bytes", s, nameBytesMax)
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return fmt.Errorf("%q contains a space or a control character", s)
		}
	}
	return nil
}

func checkEnv(env []string) error {
	for i, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("[%d]: %q is not KEY=VALUE", i, kv)
		}
		if strings.IndexByte(kv, 0) >= 0 {
			return fmt.Errorf("[%d]: contains a NUL byte", i)
		}
	}
	return nil
}

// nodeIndex reads everett.node=I from the kernel command line (default 0).
func nodeIndex(cmdline string) (int, error) {
	i := 0
	for _, f := range strings.Fields(cmdline) {
		v, ok := strings.CutPrefix(f, "everett.node=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("everett.node=%q: not a node number", v)
		}
		i = n
	}
	return i, nil
}

// universe is what the init knows of the cluster and of its own node.
type universe struct {
	nodes []nodeSpec
	index int // this node's
}

// newUniverse picks node index of w. A workload without nodes is a
// one-node universe whose node is called "everett" and has no address.
func newUniverse(w *workload, index int) (universe, error) {
	nodes := w.Nodes
	if len(nodes) == 0 {
		nodes = []nodeSpec{{Name: "everett"}}
	}
	if index >= len(nodes) {
		return universe{}, fmt.Errorf("everett.node=%d: the workload has %d nodes", index, len(nodes))
	}
	return universe{nodes: nodes, index: index}, nil
}

func (u universe) self() nodeSpec { return u.nodes[u.index] }

// oneNode reports whether no other node could wake a thread of this one.
func (u universe) oneNode() bool { return len(u.nodes) == 1 }

// hosts is /etc/hosts for the universe: localhost and every node with an
// address.
func (u universe) hosts() []byte {
	var b bytes.Buffer
	b.WriteString("127.0.0.1\tlocalhost\n")
	for _, n := range u.nodes {
		if n.Addr != "" {
			fmt.Fprintf(&b, "%s\t%s\n", n.Addr, n.Name)
		}
	}
	return b.Bytes()
}

// environ is a process's environment: the node-wide env, then the
// process's own (a later KEY replaces an earlier one in place), then
// everett's variables, which replace the user's.
func (u universe) environ(node, proc []string, extra ...string) []string {
	var peers []string
	for _, n := range u.nodes {
		if n.Addr != "" {
			peers = append(peers, n.Addr)
		}
	}
	ours := []string{
		"EVERETT_NODE=" + strconv.Itoa(u.index),
		"EVERETT_NODES=" + strconv.Itoa(len(u.nodes)),
		"EVERETT_NODE_NAME=" + u.self().Name,
		"EVERETT_ADDR=" + u.self().Addr,
		"EVERETT_PEERS=" + strings.Join(peers, ","),
	}
	var env []string
	at := map[string]int{}
	for _, list := range [][]string{extra, node, proc, ours} {
		for _, kv := range list {
			k, _, _ := strings.Cut(kv, "=")
			if i, ok := at[k]; ok {
				env[i] = kv
				continue
			}
			at[k] = len(env)
			env = append(env, kv)
		}
	}
	return env
}

// getenv is the value of key in env ("" when absent) and whether it is set.
func getenv(env []string, key string) (string, bool) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// lookPath finds the program file names: file itself when it contains a
// slash (relative to dir, where the process starts), otherwise the first
// regular, executable file of that name in the directories of path (a
// relative or empty directory counts from dir).
func lookPath(file, path, dir string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	for _, d := range filepath.SplitList(path) {
		cand := filepath.Join(d, file)
		if d == "" {
			cand = "./" + file
		}
		at := cand
		if !filepath.IsAbs(at) {
			at = filepath.Join(dir, at)
		}
		if fi, err := os.Stat(at); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return cand, nil
		}
	}
	return "", fmt.Errorf("%s: not found in PATH (%s)", file, path)
}
