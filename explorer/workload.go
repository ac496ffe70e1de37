package explorer

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"everett/emu"
)

// A node's workload: the user's own software, run by everett's init (PID
// 1 of an initramfs everett builds: guest-images/init). A node names
// programs to run (run), files and folders to add (files), and a root
// filesystem (rootfs: a folder, a tar archive or an OCI image); everett
// packs them with its init and a config (/everett/workload.json), and the
// init reports every exit, signal and deadlock back (devices/sdk ops 9
// and 10). See README.md, "Your program under everett".

// Process is one program of a node's workload.
type Process struct {
	// Name names the process in reports (default: argv[0]'s base name).
	Name string `yaml:"name" json:"name,omitempty"`
	// Cmd is argv. Without a rootfs, argv[0] is a host file (relative to
	// the spec's folder), packed as /everett/bin/NAME; with one, argv[0]
	// is a path in it (or a name looked up in PATH), unless it starts with
	// ./ or ../ (then a host file again). Empty with an OCI rootfs: the
	// image's entrypoint and cmd.
	Cmd []string `yaml:"cmd" json:"cmd,omitempty"`
	// Env adds to the node's environment.
	Env map[string]string `yaml:"env" json:"env,omitempty"`
	// Dir is the working directory (default: the image's, else /).
	Dir string `yaml:"dir" json:"dir,omitempty"`
	// Restart is no (a task: the run waits for it; the default),
	// on-failure or always (a service: restarted when it ends).
	Restart string `yaml:"restart" json:"restart,omitempty"`
}

// Mount is a file system everett's init mounts before it starts the
// workload: the node's disk, say ({dev: /dev/vda, dir: /data, fs: ext4}).
type Mount struct {
	Dev string `yaml:"dev" json:"dev"`
	Dir string `yaml:"dir" json:"dir"`
	FS  string `yaml:"fs" json:"fs"`
}

// mentionsIndex reports whether "{i}" appears in the node's run, env or
// mounts: then each of its count nodes gets an initramfs of its own.
func (n *NodeSpec) mentionsIndex() bool {
	has := func(v string) bool { return strings.Contains(v, "{i}") }
	for _, p := range n.Run {
		if slices.ContainsFunc(p.Cmd, has) || has(p.Dir) || has(p.Name) {
			return true
		}
		for _, v := range p.Env {
			if has(v) {
				return true
			}
		}
	}
	for _, v := range n.Env {
		if has(v) {
			return true
		}
	}
	return false
}

// forNode is the node spec with "{i}" replaced by node index idx in its
// run (cmd, env, dir, name) and env.
func (n *NodeSpec) forNode(idx int) *NodeSpec {
	if !n.mentionsIndex() {
		return n
	}
	i := strconv.Itoa(idx)
	sub := func(v string) string { return strings.ReplaceAll(v, "{i}", i) }
	subMap := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = sub(v)
		}
		return out
	}
	c := *n
	c.Env = subMap(n.Env)
	c.Run = make(Processes, len(n.Run))
	for k, p := range n.Run {
		q := p
		q.Name, q.Dir, q.Env = sub(p.Name), sub(p.Dir), subMap(p.Env)
		q.Cmd = make([]string, len(p.Cmd))
		for j, a := range p.Cmd {
			q.Cmd[j] = sub(a)
		}
		c.Run[k] = q
	}
	return &c
}

// Restart policies.
const (
	RestartNo        = "no"
	RestartOnFailure = "on-failure"
	RestartAlways    = "always"
)

// Limits of a workload.
const (
	MaxProcesses = 16
	maxArgs      = 256
)

// Processes is a node's run list. In YAML it is either one program as a
// list of strings (run: [./server, --port, "2379"]) or a list of
// processes (run: [{cmd: [./server]}, {cmd: [./client], restart: no}]).
type Processes []Process

// UnmarshalYAML implements yaml.Unmarshaler.
func (p *Processes) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: run: want a list: a program and its arguments, or processes {cmd: [...], env: {...}, restart: ...}", n.Line)
	}
	if len(n.Content) == 0 {
		*p = nil
		return nil
	}
	if n.Content[0].Kind == yaml.ScalarNode {
		var argv []string
		if err := n.Decode(&argv); err != nil {
			return fmt.Errorf("line %d: run: a program and its arguments are strings: %v", n.Line, err)
		}
		*p = Processes{{Cmd: argv}}
		return nil
	}
	var out Processes
	for _, c := range n.Content {
		if c.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: run: every entry of a process list is a mapping {cmd: [...], ...}", c.Line)
		}
		for i := 0; i+1 < len(c.Content); i += 2 {
			switch k := c.Content[i].Value; k {
			case "name", "cmd", "env", "dir", "restart":
			default:
				return fmt.Errorf("line %d: run: unknown field %q of a process (want name, cmd, env, dir, restart)", c.Content[i].Line, k)
			}
		}
		type plain Process
		var q plain
		if err := c.Decode(&q); err != nil {
			return fmt.Errorf("line %d: run: %v", c.Line, err)
		}
		out = append(out, Process(q))
	}
	*p = out
	return nil
}

// hasWorkload reports whether the node's guest is a workload everett's
// init runs (rather than an initrd of the user's own).
func (n *NodeSpec) hasWorkload() bool {
	return len(n.Run) > 0 || n.Rootfs != "" || len(n.Files) > 0
}

// validateWorkload checks the workload fields of node f (its index in
// messages).
func (n *NodeSpec) validateWorkload(f string) error {
	if !n.hasWorkload() {
		if len(n.Env) > 0 {
			return specErr(f+".env", "needs a workload (run, files or rootfs): an initrd of your own sets its own environment")
		}
		return nil
	}
	if n.ELF != "" {
		return specErr(f, "a bare-metal node (elf) takes no run, files or rootfs")
	}
	if n.Initrd != "" {
		return specErr(f, "give either initrd (an initramfs of your own, with your own init) or run/files/rootfs (everett builds the initramfs with its init), not both")
	}
	if len(n.Run) > MaxProcesses {
		return specErr(f+".run", "%d processes (at most %d)", len(n.Run), MaxProcesses)
	}
	if len(n.Run) == 0 && n.Rootfs == "" {
		return specErr(f+".run", "nothing to run: name a program (run: [./prog, args...]) or a rootfs whose image says what to run")
	}
	names := map[string]bool{}
	for i := range n.Run {
		p := &n.Run[i]
		pf := fmt.Sprintf("%s.run[%d]", f, i)
		if len(p.Cmd) > maxArgs {
			return specErr(pf+".cmd", "%d arguments (at most %d)", len(p.Cmd), maxArgs)
		}
		if len(p.Cmd) == 0 && n.Rootfs == "" {
			return specErr(pf+".cmd", "empty: name the program and its arguments")
		}
		if len(p.Cmd) > 0 && p.Cmd[0] == "" {
			return specErr(pf+".cmd", "the program's name is empty")
		}
		switch p.Restart {
		case "":
			p.Restart = RestartNo
		case RestartNo, RestartOnFailure, RestartAlways:
		default:
			return specErr(pf+".restart", "%q (want no, on-failure or always)", p.Restart)
		}
		if p.Name == "" && len(p.Cmd) > 0 {
			p.Name = path.Base(p.Cmd[0])
		}
		if p.Name != "" && names[p.Name] {
			return specErr(pf+".name", "%q names two processes of the node: give each its own name", p.Name)
		}
		names[p.Name] = true
		if p.Dir != "" && !path.IsAbs(p.Dir) {
			return specErr(pf+".dir", "%q is not an absolute guest path", p.Dir)
		}
		for k := range p.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return specErr(pf+".env", "%q is not a variable name", k)
			}
		}
	}
	for k := range n.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return specErr(f+".env", "%q is not a variable name", k)
		}
	}
	for k, m := range n.Mounts {
		mf := fmt.Sprintf("%s.mounts[%d]", f, k)
		if !path.IsAbs(m.Dev) || !path.IsAbs(m.Dir) || path.Clean(m.Dir) == "/" || m.FS == "" {
			return specErr(mf, "{dev: %q, dir: %q, fs: %q}: want an absolute device, an absolute folder other than / and a file system type", m.Dev, m.Dir, m.FS)
		}
	}
	for host, guest := range n.Files {
		if host == "" || !path.IsAbs(guest) || path.Clean(guest) == "/" {
			return specErr(f+".files", "%q: %q: want a host path and an absolute guest path other than /", host, guest)
		}
	}
	return nil
}

// sortedEnv returns m as KEY=VALUE strings in key order.
func sortedEnv(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// LinuxSpec is the spec of `everett explore --linux`: nodes identical
// Linux nodes of harts harts each, on the bundled kernel, each running
// argv under everett's init. argv[0] is a program on the host (a static
// riscv64 Linux binary), or a root filesystem — a folder, a tar archive,
// an OCI image — whose image's command runs, or the rest of argv when
// given (a command inside it).
func LinuxSpec(argv []string, harts, nodes int) (*Spec, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, specErr("run", "nothing to run: give a program (or a folder, tar or OCI image) and its arguments")
	}
	if nodes < 1 || nodes > MaxNodes {
		return nil, specErr("nodes", "%d (want 1..%d)", nodes, MaxNodes)
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	p, err := resolvePath(argv[0], dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, specErr("run", "%v", err)
	}
	n := NodeSpec{Name: "n{i}", Count: nodes, Harts: harts}
	if st.IsDir() || !isELF(p) {
		n.Rootfs = p
		if len(argv) > 1 {
			n.Run = Processes{{Cmd: argv[1:]}}
		}
	} else {
		n.Run = Processes{{Cmd: append([]string{p}, argv[1:]...)}}
	}
	s := &Spec{Name: filepath.Base(p), Nodes: []NodeSpec{n}, dir: dir, engine: emu.DefaultEngine}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// isELF reports whether file p starts with the ELF magic.
func isELF(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [4]byte
	_, err = io.ReadFull(f, m[:])
	return err == nil && string(m[:]) == "\x7fELF"
}
