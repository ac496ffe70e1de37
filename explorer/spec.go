// Package explorer searches the space of schedules, faults and timings of a
// universe — one or more emulated machines on one goroutine, connected by a
// simulated network — for failures, and hands back reports that replay
// exactly. See design.md §5.
package explorer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/bundle"
)

// Spec is a universe spec, as written in YAML. Every field is validated by
// Load before anything runs.
type Spec struct {
	Name    string      `yaml:"name" json:"name"`
	Nodes   []NodeSpec  `yaml:"nodes" json:"nodes"`
	Network NetworkSpec `yaml:"network" json:"network"`
	Faults  FaultSpec   `yaml:"faults" json:"faults"`
	Oracles OracleSpec  `yaml:"oracles" json:"oracles"`
	Budgets BudgetSpec  `yaml:"budgets" json:"budgets"`
	Search  SearchSpec  `yaml:"search" json:"search"`
	Setup   SetupSpec   `yaml:"setup" json:"setup"`
	// MemoryModel is every node's memory model: sc (the default), rvwmo
	// (emu/wmo.go: store buffers and deferred loads drawn from the seed),
	// or swarm (drawn per seed: half the universes rvwmo).
	MemoryModel string         `yaml:"memory_model" json:"memory_model,omitempty"`
	dir         string         // directory paths are relative to
	nodes       []*board.Spec  // resolved, one per node
	symtabs     [][]*symtab    // per node (see loadSymbols); read-only once built
	engine      emu.Engine     // runs every node's guest code (SetEngine)
	workload    []workloadKind // per node: run by everett's init?
	syncRanges  [][][2]uint64  // per node: its workload's own code (syncranges.go; nil: all of user mode)
	// initSetup: the setup point is everett's init's setup_complete on
	// every workload node (setup.at was not given).
	initSetup bool
}

// workloadKind says whether a node runs a workload under everett's init,
// and whether the run waits for it.
type workloadKind uint8

const (
	workloadNone     workloadKind = iota // the node's own initrd, or bare metal
	workloadTasks                        // at least one task: the node finishes
	workloadServices                     // services only: it runs until the budgets end
)

// hasWorkload reports whether any node runs a workload under everett's
// init.
func (s *Spec) hasWorkload() bool {
	for _, w := range s.workload {
		if w != workloadNone {
			return true
		}
	}
	return false
}

// hasTasks reports whether any node's workload has a task to wait for.
func (s *Spec) hasTasks() bool { return slices.Contains(s.workload, workloadTasks) }

// SetEngine selects the engine that runs the guest code of every machine
// built, restored or forked from the spec: every node of every universe,
// and those of replays, bisections, shrinking and sweeps. It is a host
// setting, not part of the spec: it is not in the spec file, a report,
// SpecHash or any state hash, and it never changes a result. Specs from
// LoadSpec, ParseSpec, ELFSpec and LoadReport start with emu.DefaultEngine.
func (s *Spec) SetEngine(e emu.Engine) { s.engine = e }

// SetMemoryModel sets the spec's memory_model (sc, rvwmo or swarm), as
// the spec file would.
func (s *Spec) SetMemoryModel(model string) error {
	switch model {
	case "", "sc", "rvwmo", "swarm":
		s.MemoryModel = model
		return nil
	}
	return specErr("memory_model", "%q (want sc, rvwmo or swarm)", model)
}

// Engine returns the engine set by SetEngine.
func (s *Spec) Engine() emu.Engine { return s.engine }

// NodeSpec describes one node, or Count identical nodes: "{i}" in Name and
// Append is replaced by the node's index.
type NodeSpec struct {
	Name   string `yaml:"name" json:"name"`
	Count  int    `yaml:"count" json:"count,omitempty"`
	ELF    string `yaml:"elf" json:"elf,omitempty"`
	Kernel string `yaml:"kernel" json:"kernel,omitempty"`
	Initrd string `yaml:"initrd" json:"initrd,omitempty"`
	BIOS   string `yaml:"bios" json:"bios,omitempty"`
	Append string `yaml:"append" json:"append,omitempty"`
	Harts  int    `yaml:"harts" json:"harts"`
	Memory string `yaml:"memory" json:"memory,omitempty"`
	Disk   string `yaml:"disk" json:"disk,omitempty"`
	// Symbols lists ELF files whose symbol tables name this node's program
	// counters in reports and traces (a Linux guest's user programs, its
	// vmlinux); a bare-metal program's own symbols are always used.
	Symbols []string `yaml:"symbols" json:"symbols,omitempty"`
	// Run, Files, Rootfs and Env make the node's guest a workload of the
	// user's own software, run by everett's init (workload.go).
	Run    Processes         `yaml:"run" json:"run,omitempty"`
	Files  map[string]string `yaml:"files" json:"files,omitempty"`   // host path: guest path
	Rootfs string            `yaml:"rootfs" json:"rootfs,omitempty"` // a folder, a tar archive, or an OCI image
	Env    map[string]string `yaml:"env" json:"env,omitempty"`
	Mounts []Mount           `yaml:"mounts" json:"mounts,omitempty"`
}

// NetworkSpec is the simulated switch.
type NetworkSpec struct {
	LatencyMin Duration `yaml:"latency_min" json:"latency_min"`
	LatencyMax Duration `yaml:"latency_max" json:"latency_max"`
}

// FaultSpec says which fault kinds may be used and how strongly. A kind left
// unset is decided per seed by swarm testing (when Swarm is true, the
// default); "off" disables it; a value forces it.
type FaultSpec struct {
	Swarm       *bool     `yaml:"swarm" json:"swarm,omitempty"`
	Drop        *float64  `yaml:"drop" json:"drop,omitempty"`             // per-packet probability
	Duplicate   *float64  `yaml:"duplicate" json:"duplicate,omitempty"`   // per-packet probability
	Reorder     *float64  `yaml:"reorder" json:"reorder,omitempty"`       // per-packet probability of extra delay
	Partitions  *int      `yaml:"partitions" json:"partitions,omitempty"` // partition events per universe
	Crashes     *int      `yaml:"crashes" json:"crashes,omitempty"`       // node crashes per universe
	DiskErrors  *float64  `yaml:"disk_errors" json:"disk_errors,omitempty"`
	DiskCorrupt *float64  `yaml:"disk_corruption" json:"disk_corruption,omitempty"`
	ClockSkew   *Duration `yaml:"clock_skew" json:"clock_skew,omitempty"` // maximum skew between nodes
	Schedule    string    `yaml:"schedule" json:"schedule,omitempty"`     // fixed, random, pct, or swarm ("")
	// Preemptions bounds the preemptions at communication events between
	// harts per universe (0: none; unset: drawn per seed).
	Preemptions *int `yaml:"preemptions" json:"preemptions,omitempty"`
	// Kills bounds the processes of a workload's services everett's init
	// kills with SIGKILL (and restarts by their policy) per universe
	// (unset: drawn per seed; 0: none).
	Kills *int `yaml:"kills" json:"kills,omitempty"`
	// Chaos is the virtual time from the start (from the setup point when
	// root universes start from a boot snapshot, see SetupSpec) during
	// which faults are injected.
	Chaos Duration `yaml:"chaos" json:"chaos"`
}

// OracleSpec lists the checks beyond the always-on ones (SDK assertions,
// exit codes, kernel panics).
type OracleSpec struct {
	Console []string `yaml:"console" json:"console,omitempty"` // regexps that mean failure
	// Hang fails a universe with no progress (SDK progress or console
	// output) for this much virtual time (0: off).
	Hang Duration `yaml:"hang" json:"hang,omitempty"`
	// Liveness: after the chaos phase, heal a quorum and require progress
	// within this much virtual time (0: off).
	Liveness Duration `yaml:"liveness" json:"liveness,omitempty"`
	// BudgetIsHang reports a universe that exhausts its budgets without
	// finishing as a hang (the default for bare-metal programs).
	BudgetIsHang *bool `yaml:"budget_is_hang" json:"budget_is_hang,omitempty"`
	// Deadlock fails a workload none of whose threads ran for this much
	// virtual time (0: only the deadlocks everett's init proves: every
	// thread waits with nothing that can wake it).
	Deadlock Duration `yaml:"deadlock" json:"deadlock,omitempty"`
	// DefaultConsole enables the built-in console patterns (kernel panic,
	// oops, BUG, a process killed by a signal); default true.
	DefaultConsole *bool `yaml:"default_console" json:"default_console,omitempty"`
}

// BudgetSpec bounds universes and the whole search.
type BudgetSpec struct {
	Time         Duration `yaml:"time" json:"time"`                 // virtual time per universe
	Instructions uint64   `yaml:"instructions" json:"instructions"` // per universe, all nodes
	Universes    int      `yaml:"universes" json:"universes"`       // 0: none with a wall budget, else 1000
	Wall         Duration `yaml:"wall" json:"wall,omitempty"`       // host time for the whole search
	// Memory is the search's host memory target (ParseMemoryLimit: a
	// size, or "none"; "": DefaultMemoryLimit). Like Wall it is the
	// host's, and changes no result.
	Memory string `yaml:"memory" json:"memory,omitempty"`
}

// SearchSpec tunes the multiverse search.
type SearchSpec struct {
	Coverage    string `yaml:"coverage" json:"coverage,omitempty"` // "lo-hi" address range, an ELF symbol prefix ("sym:name"), or "off"
	Corpus      int    `yaml:"corpus" json:"corpus,omitempty"`     // max snapshots kept
	ForkPercent int    `yaml:"fork_percent" json:"fork_percent,omitempty"`
}

// SetupSpec says when a universe's setup (its boot) is over. When it is
// on, the explorer boots one universe to that point, snapshots it, and
// starts every root universe from the snapshot with its own seed, instead
// of booting each one.
type SetupSpec struct {
	// At is the setup point: "init" (every node has entered user mode: for
	// Linux, init has started), "sdk" (the guest's setup_complete
	// hypercall, from any node), or "off" (every universe boots). Default:
	// init for Linux nodes, off for bare-metal programs.
	At string `yaml:"at" json:"at,omitempty"`
	// Perturb applies faults and schedule perturbation during the boot: the
	// boot universe's plan is drawn from Seed as a root's is. Default
	// false: the boot runs the fixed schedule without faults.
	Perturb bool `yaml:"perturb" json:"perturb,omitempty"`
	// Seed is the boot universe's seed (default 0). The boot is the same for
	// every seed of a search or sweep; another Seed boots differently.
	Seed uint64 `yaml:"seed" json:"seed,omitempty"`
}

// UnmarshalYAML implements yaml.Unmarshaler: a mapping, or the setup
// point alone ("setup: sdk" is "setup: {at: sdk}").
func (s *SetupSpec) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*s = SetupSpec{At: n.Value}
		return nil
	case yaml.MappingNode:
		// Node.Decode does not refuse unknown fields: check them here.
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i].Value; k {
			case "at", "perturb", "seed":
			default:
				return fmt.Errorf("line %d: setup: field %s not found (want at, perturb, seed)", n.Content[i].Line, k)
			}
		}
		type plain SetupSpec // without this method
		var p plain
		if err := n.Decode(&p); err != nil {
			return fmt.Errorf("setup: %v", err)
		}
		*s = SetupSpec(p)
		return nil
	}
	return fmt.Errorf("line %d: setup: want a setup point (init, sdk, off) or a mapping like {at: init, perturb: true}", n.Line)
}

// Setup points.
const (
	SetupInit = "init"
	SetupSDK  = "sdk"
	SetupOff  = "off"
)

// Duration is a time.Duration read from YAML as "100us", "2s", ...
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. 100us, 2s)", s)
	}
	if v < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// String formats the duration as time.Duration does ("3s").
func (d Duration) String() string { return time.Duration(d).String() }

// Ns returns the duration in virtual nanoseconds (= instruction slots).
func (d Duration) Ns() uint64 { return uint64(time.Duration(d).Nanoseconds()) }

// ErrSpec is wrapped by every spec validation error.
var ErrSpec = errors.New("invalid universe spec")

// Limits of a spec.
const (
	MaxNodes        = 16
	MaxConsoleRules = 64
)

func specErr(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrSpec, field, fmt.Sprintf(format, a...))
}

// LoadSpec reads and validates a YAML spec file.
func LoadSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir, _ := filepath.Abs(filepath.Dir(path))
	s, err := ParseSpec(b, dir)
	return s, inFile(err, path)
}

// ParseSpec parses and validates a YAML spec; relative paths are relative
// to dir.
func ParseSpec(b []byte, dir string) (*Spec, error) {
	s := &Spec{engine: emu.DefaultEngine}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		if uf := unknownFields(b); uf != nil {
			return nil, uf // they name the field, its line and section
		}
		return nil, fmt.Errorf("%w: %v", ErrSpec, err)
	}
	s.dir = dir
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// ELFSpec is the smallest spec: one bare-metal program on harts harts.
func ELFSpec(path string, harts int) (*Spec, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	s := &Spec{
		Name:   filepath.Base(path),
		Nodes:  []NodeSpec{{Name: "node", ELF: abs, Harts: harts}},
		dir:    filepath.Dir(abs),
		engine: emu.DefaultEngine,
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Defaults.
const (
	defaultLatencyMin       = 50 * time.Microsecond
	defaultLatencyMax       = 500 * time.Microsecond
	defaultBareInstructions = 200_000_000
	defaultLinuxTime        = 20 * time.Second
	defaultBareTime         = 10 * time.Second
	defaultUniverses        = 1000
	defaultCorpus           = 32
	defaultForkPercent      = 50
	defaultNodeMemory       = 256 << 20
	defaultBareMemory       = 128 << 20
)

func (s *Spec) validate() error {
	if len(s.Nodes) == 0 {
		return specErr("nodes", "at least one node is needed")
	}
	s.nodes = nil
	var names []string // every node's, for the workloads' /etc/hosts
	var workloads []workloadNodes
	s.workload = make([]workloadKind, 0, MaxNodes)
	for i := range s.Nodes {
		n := &s.Nodes[i]
		f := fmt.Sprintf("nodes[%d]", i)
		count := n.Count
		if count == 0 {
			count = 1
		}
		if count < 0 || len(s.nodes)+count > MaxNodes {
			return specErr(f+".count", "%d nodes in all exceeds the limit of %d", len(s.nodes)+count, MaxNodes)
		}
		bare := n.ELF != ""
		if bare && n.Kernel != "" {
			return specErr(f, "give one of elf (a bare-metal program) or kernel, not both")
		}
		if !bare && n.Kernel == "" && n.Initrd == "" && !n.hasWorkload() {
			return specErr(f, "nothing to run: give run (a program of yours), rootfs, elf (a bare-metal program) or kernel")
		}
		if err := n.validateWorkload(f); err != nil {
			return err
		}
		if bare && (n.Initrd != "" || n.Disk != "" || n.Append != "" || n.BIOS != "") {
			return specErr(f, "a bare-metal node (elf) takes no initrd, disk, append or bios")
		}
		if n.Harts == 0 {
			n.Harts = 1
		}
		maxHarts := emu.MaxHarts
		if !bare {
			maxHarts = 8
		}
		if n.Harts < 1 || n.Harts > maxHarts {
			return specErr(f+".harts", "%d harts (want 1..%d)", n.Harts, maxHarts)
		}
		mem := uint64(defaultNodeMemory)
		if bare {
			mem = defaultBareMemory
		}
		if n.Memory != "" {
			v, err := ParseSize(n.Memory)
			if err != nil {
				return specErr(f+".memory", "%v", err)
			}
			mem = v
		}
		img := func(field, p string) (*board.Image, error) {
			if p == "" {
				return nil, nil
			}
			// ${VAR} in a path names an image built outside the spec
			// (the recipes' caches): an unset variable is an error.
			var missing []string
			p = os.Expand(p, func(v string) string {
				val, ok := os.LookupEnv(v)
				if !ok || val == "" {
					missing = append(missing, v)
				}
				return val
			})
			if len(missing) > 0 {
				return nil, specErr(f+"."+field, "environment variable %s is not set", strings.Join(missing, ", "))
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(s.dir, p)
			}
			im, err := board.NewImage(p)
			if err != nil {
				return nil, specErr(f+"."+field, "%v", err)
			}
			return im, nil
		}
		var images [5]*board.Image
		for j, x := range []struct{ field, path string }{
			{"elf", n.ELF}, {"kernel", n.Kernel}, {"initrd", n.Initrd}, {"disk", n.Disk}, {"bios", n.BIOS},
		} {
			im, err := img(x.field, x.path)
			if err != nil {
				return err
			}
			images[j] = im
		}
		if !bare && images[1] == nil {
			// The bundled kernel, built on first use.
			p, err := bundle.Kernel(BuildProgress)
			if err != nil {
				return specErr(f+".kernel", "not given, and the bundled kernel: %v", err)
			}
			if images[1], err = board.NewImage(p); err != nil {
				return specErr(f+".kernel", "the bundled kernel: %v", err)
			}
		}
		if n.hasWorkload() {
			workloads = append(workloads, workloadNodes{spec: n, field: f, first: len(s.nodes), count: count})
		}
		if bare {
			if _, err := emu.ParseELF(images[0].Data); err != nil {
				return specErr(f+".elf", "%v", err)
			}
		} else if images[4] == nil {
			im, err := board.NewImage(board.DefaultBIOS)
			if err != nil {
				return specErr(f+".bios", "not given, and OpenSBI is not installed at %s (apt-get install opensbi)", board.DefaultBIOS)
			}
			images[4] = im
		}
		for k, p := range n.Symbols {
			abs, err := resolvePath(p, s.dir)
			if err != nil {
				return specErr(fmt.Sprintf("%s.symbols[%d]", f, k), "%v", err)
			}
			n.Symbols[k] = abs
		}
		if images[3] != nil && (len(images[3].Data) == 0 || len(images[3].Data)%512 != 0) {
			return specErr(f+".disk", "size %d is not a positive multiple of 512 bytes", len(images[3].Data))
		}
		for k := 0; k < count; k++ {
			idx := len(s.nodes)
			bs := &board.Spec{Harts: n.Harts, RAMBytes: mem}
			if bare {
				bs.Board = board.BoardBareMetal
				bs.ELF = images[0]
			} else {
				bs.Board = board.BoardVirt
				bs.Kernel, bs.Initrd, bs.Disk, bs.BIOS = images[1], images[2], images[3], images[4]
				bs.Append = strings.ReplaceAll(n.Append, "{i}", strconv.Itoa(idx))
				if bs.Append == "" {
					bs.Append = "console=ttyS0"
					if n.hasWorkload() {
						// everett's init reports what matters itself.
						bs.Append = "console=ttyS0 quiet"
					}
				}
				if n.hasWorkload() {
					bs.Append += fmt.Sprintf(" everett.node=%d", idx)
				}
				bs.MAC = fmt.Sprintf("52:54:00:00:00:%02x", idx+1)
			}
			s.nodes = append(s.nodes, bs)
			s.workload = append(s.workload, workloadNone)
			name := strings.ReplaceAll(n.Name, "{i}", strconv.Itoa(idx))
			if name == "" {
				name = fmt.Sprintf("n%d", idx)
			}
			names = append(names, name)
		}
	}
	s.initSetup = len(workloads) > 0 && s.Setup.At == ""
	s.syncRanges = make([][][2]uint64, len(s.nodes))
	for _, w := range workloads {
		// One image for the nodes of a NodeSpec, or one per node when
		// its workload says "{i}".
		perNode := w.spec.mentionsIndex()
		var im *board.Image
		var syms []string
		for k := 0; k < w.count; k++ {
			if k > 0 && !perNode {
				s.nodes[w.first+k].Initrd = im
				continue
			}
			var err error
			im, syms, err = s.workloadImage(w.field, w.spec.forNode(w.first+k), names)
			if err != nil {
				return err
			}
			s.nodes[w.first+k].Initrd = im
			rs, err := nodeSyncRanges(syms)
			if err != nil {
				return specErr(w.field, "%v", err)
			}
			s.syncRanges[w.first+k] = rs
		}
		for k := 1; k < w.count && !perNode; k++ {
			s.syncRanges[w.first+k] = s.syncRanges[w.first]
		}
		for _, p := range syms {
			if !slices.Contains(w.spec.Symbols, p) {
				w.spec.Symbols = append(w.spec.Symbols, p)
			}
		}
		tasks := len(w.spec.Run) == 0 // an image's own command is a task
		for _, p := range w.spec.Run {
			tasks = tasks || p.Restart == RestartNo
		}
		for k := 0; k < w.count; k++ {
			s.workload[w.first+k] = workloadServices
			if tasks {
				s.workload[w.first+k] = workloadTasks
			}
		}
	}
	if err := s.loadSymbols(true); err != nil {
		return err
	}
	return s.validateSettings()
}

// workloadNodes are the nodes of one NodeSpec with a workload: nodes
// first..first+count-1 share its initramfs.
type workloadNodes struct {
	spec         *NodeSpec
	field        string
	first, count int
}

// validateSettings checks (and defaults) everything but the nodes' images:
// the network, faults, oracles, budgets and search.
func (s *Spec) validateSettings() error {
	if len(s.nodes) == 0 {
		return specErr("nodes", "at least one node is needed")
	}
	if s.Network.LatencyMin == 0 {
		s.Network.LatencyMin = Duration(defaultLatencyMin)
	}
	if s.Network.LatencyMax == 0 {
		s.Network.LatencyMax = max(s.Network.LatencyMin, Duration(defaultLatencyMax))
	}
	if s.Network.LatencyMax < s.Network.LatencyMin {
		return specErr("network.latency_max", "%v is below latency_min %v", time.Duration(s.Network.LatencyMax), time.Duration(s.Network.LatencyMin))
	}
	if s.Network.LatencyMin < Duration(time.Microsecond) {
		return specErr("network.latency_min", "%v is below 1us", time.Duration(s.Network.LatencyMin))
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"drop", s.Faults.Drop}, {"duplicate", s.Faults.Duplicate}, {"reorder", s.Faults.Reorder}, {"disk_errors", s.Faults.DiskErrors}, {"disk_corruption", s.Faults.DiskCorrupt}} {
		if p.v != nil && (*p.v < 0 || *p.v > 1) {
			return specErr("faults."+p.name, "%v is not a probability in [0, 1]", *p.v)
		}
	}
	for _, p := range []struct {
		name string
		v    *int
	}{{"partitions", s.Faults.Partitions}, {"crashes", s.Faults.Crashes}} {
		if p.v != nil && (*p.v < 0 || *p.v > 100) {
			return specErr("faults."+p.name, "%d is not in 0..100", *p.v)
		}
	}
	if p := s.Faults.Preemptions; p != nil && (*p < 0 || *p > emu.MaxPreemptions) {
		return specErr("faults.preemptions", "%d (want 0..%d)", *p, emu.MaxPreemptions)
	}
	switch s.Faults.Schedule {
	case "", "swarm", "fixed", "random", "pct":
	default:
		return specErr("faults.schedule", "%q (want fixed, random, pct or swarm)", s.Faults.Schedule)
	}
	if err := s.SetMemoryModel(s.MemoryModel); err != nil {
		return err
	}
	if len(s.Oracles.Console) > MaxConsoleRules {
		return specErr("oracles.console", "%d patterns exceed the limit of %d", len(s.Oracles.Console), MaxConsoleRules)
	}
	for i, p := range s.Oracles.Console {
		if _, err := regexp.Compile(p); err != nil {
			return specErr(fmt.Sprintf("oracles.console[%d]", i), "%v", err)
		}
	}
	bare := s.nodes[0].Board == board.BoardBareMetal
	if s.Budgets.Time == 0 {
		s.Budgets.Time = Duration(defaultLinuxTime)
		if bare {
			s.Budgets.Time = Duration(defaultBareTime)
		}
	}
	if s.Budgets.Instructions == 0 {
		s.Budgets.Instructions = 50_000_000_000
		if bare {
			s.Budgets.Instructions = defaultBareInstructions
		}
	}
	if s.Budgets.Universes < 0 {
		return specErr("budgets.universes", "%d is negative", s.Budgets.Universes)
	}
	if s.Budgets.Memory != "" {
		if _, err := ParseMemoryLimit(s.Budgets.Memory); err != nil {
			return specErr("budgets.memory", "%v", err)
		}
	}
	if s.Faults.Chaos == 0 {
		s.Faults.Chaos = s.Budgets.Time
	}
	if s.Search.Corpus == 0 {
		s.Search.Corpus = defaultCorpus
	}
	if s.Search.Corpus < 0 || s.Search.Corpus > 1024 {
		return specErr("search.corpus", "%d (want 1..1024)", s.Search.Corpus)
	}
	if s.Search.ForkPercent == 0 {
		s.Search.ForkPercent = defaultForkPercent
	}
	if s.Search.ForkPercent < 0 || s.Search.ForkPercent > 100 {
		return specErr("search.fork_percent", "%d (want 0..100)", s.Search.ForkPercent)
	}
	if _, _, err := s.coverageRange(); err != nil {
		return specErr("search.coverage", "%v", err)
	}
	switch s.Setup.At {
	case "":
		s.Setup.At = SetupInit
		if bare {
			s.Setup.At = SetupOff
		}
		if s.hasWorkload() {
			// everett's init calls setup_complete just before it starts
			// the workload: every universe runs the whole workload.
			s.Setup.At = SetupSDK
		}
	case SetupInit, SetupSDK, SetupOff:
	default:
		return specErr("setup.at", "%q (want init, sdk or off)", s.Setup.At)
	}
	if s.Setup.At == SetupOff && s.Setup.Perturb {
		return specErr("setup.perturb", "needs a setup point (at: init or sdk): with at: off every universe boots perturbed")
	}
	if s.Setup.At == SetupOff && s.Setup.Seed != 0 {
		return specErr("setup.seed", "needs a setup point (at: init or sdk): with at: off there is no boot universe")
	}
	return nil
}

// SetSetupPoint overrides the spec's setup.at (a command-line flag): init,
// sdk or off. Off also clears setup.perturb and setup.seed.
func (s *Spec) SetSetupPoint(at string) error {
	switch at {
	case SetupInit, SetupSDK:
	case SetupOff:
		s.Setup.Perturb, s.Setup.Seed = false, 0
	default:
		return specErr("setup.at", "%q (want init, sdk or off)", at)
	}
	s.Setup.At = at
	return nil
}

// NodeCount returns the number of nodes after expanding counts.
func (s *Spec) NodeCount() int { return len(s.nodes) }

// Boards returns the resolved machine specs, one per node.
func (s *Spec) Boards() []*board.Spec { return s.nodes }

// bareMetal reports whether the universe is one bare-metal program.
func (s *Spec) bareMetal() bool { return s.nodes[0].Board == board.BoardBareMetal }

// coverageRange returns the pc range that coverage records, or ok=false
// when coverage is off.
func (s *Spec) coverageRange() (lo, hi uint64, err error) {
	c := s.Search.Coverage
	switch {
	case c == "off":
		return 0, 0, nil
	case c == "":
		return 0, ^uint64(0), nil
	case strings.HasPrefix(c, "sym:"):
		name := strings.TrimPrefix(c, "sym:")
		if !s.bareMetal() {
			return 0, 0, fmt.Errorf("symbol ranges need a bare-metal program")
		}
		e, err := emu.ParseELF(s.nodes[0].ELF.Data)
		if err != nil {
			return 0, 0, err
		}
		lo, ok := e.Symbol(name)
		if !ok {
			return 0, 0, fmt.Errorf("symbol %s not found in %s", name, s.nodes[0].ELF.Path)
		}
		if hi, ok := e.Symbol(name + "_end"); ok && hi > lo {
			return lo, hi, nil
		}
		if n := e.SymbolSize(name); n > 0 {
			return lo, lo + n, nil // a function: its own code
		}
		return 0, 0, fmt.Errorf("symbol %s has no size and there is no %s_end symbol", name, name)
	}
	a, b, ok := strings.Cut(c, "-")
	if !ok {
		return 0, 0, fmt.Errorf("%q (want lo-hi, sym:NAME or off)", c)
	}
	lo, err1 := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
	hi, err2 := strconv.ParseUint(strings.TrimPrefix(b, "0x"), 16, 64)
	if err1 != nil || err2 != nil || hi <= lo {
		return 0, 0, fmt.Errorf("%q is not a hex range lo-hi", c)
	}
	return lo, hi, nil
}

// ParseSize parses sizes like 4096, 64K, 64KiB, 256M, 256MiB, 1G, 1GiB.
func ParseSize(s string) (uint64, error) { return board.ParseSize(s) }
