package explorer

import (
	"strings"
)

// The spec reference: every field of a universe spec, its type, its
// default and what it means, as data. `everett spec` prints it, and a
// misspelt field's error takes its suggestion from it. specref_test.go
// walks Spec's yaml tags and fails when a field has no entry here or an
// entry names no field, so a new field cannot go undocumented.

// SpecField documents one field of a universe spec.
type SpecField struct {
	// Path is the field's place in the YAML: "budgets.time", "nodes[].harts"
	// ("[]": in each element of a list).
	Path    string
	Type    string
	Default string
	Meaning string
}

// Section returns the part of the path before its last component
// ("nodes[]" for "nodes[].harts"; "" for a top-level field).
func (f SpecField) Section() string {
	if i := strings.LastIndexByte(f.Path, '.'); i >= 0 {
		return f.Path[:i]
	}
	return ""
}

// Name returns the field's key: the last component of its path.
func (f SpecField) Name() string { return f.Path[strings.LastIndexByte(f.Path, '.')+1:] }

// SpecSection is one section of the reference: a top-level key of a spec.
type SpecSection struct {
	Name    string // "nodes[]", "faults"; a top-level scalar is a section of its own
	Meaning string
}

// SpecSections are the reference's sections in the order `everett spec`
// prints them.
var SpecSections = []SpecSection{
	{"name", ""},
	{"nodes[]", "the machines of a universe, one entry per node (or per count identical nodes)"},
	{"network", "the simulated switch between the nodes"},
	{"memory_model", ""},
	{"faults", "which faults each universe draws, and how strongly; a kind left unset is drawn per seed (swarm testing)"},
	{"oracles", "what fails a universe, beside SDK assertions, exit codes and kernel panics"},
	{"budgets", "bounds of each universe and of the whole search"},
	{"search", "the multiverse search: coverage and forking"},
	{"setup", "boot once to a setup point and start every root universe from its snapshot"},
}

// Group returns the section of the reference the field is listed in: its
// path's first component ("nodes[]" for "nodes[].harts").
func (f SpecField) Group() string {
	if i := strings.IndexByte(f.Path, '.'); i >= 0 {
		return f.Path[:i]
	}
	return f.Path
}

// SpecReference lists every field of a spec, section by section.
var SpecReference = []SpecField{
	{"name", "string", `""`, "the spec's name, kept in reports and sweep files"},

	{"nodes[].name", "string", `""`, `the node's name; "{i}" is replaced by the node's index`},
	{"nodes[].count", "int", "1", `this many identical nodes (at most 16 in all); "{i}" in name and append is each one's index`},
	{"nodes[].elf", "path", "none", "a bare-metal program (not with kernel, run or rootfs); paths are relative to the spec's folder, ${VAR} is replaced by an environment variable that must be set"},
	{"nodes[].kernel", "path", "the bundled kernel (built and cached on first use)", "a Linux kernel Image (not with elf)"},
	{"nodes[].initrd", "path", "none", "an initramfs of your own, with your own init (not with run, files or rootfs: everett then builds the initramfs)"},
	{"nodes[].run", "list", "[]", `what everett's init runs on the node ("{i}" in cmd, env, dir and name is the node's index): one program and its arguments ([./prog, arg, ...]; a host file, relative to the spec's folder, a static riscv64 Linux program), or a list of processes {name, cmd, env, dir, restart}; every exit, signal and deadlock is reported to the explorer`},
	{"nodes[].run[].name", "string", "the program's base name", "the process's name in reports"},
	{"nodes[].run[].cmd", "list of strings", "the rootfs image's entrypoint and cmd", "argv: without a rootfs argv[0] is a host file; with one, a path in it or a name found in PATH (./ or ../ still name host files)"},
	{"nodes[].run[].env", "map", "{}", "environment variables of this process, over the node's env"},
	{"nodes[].run[].dir", "path", "the image's working directory, else /", "the working directory (a guest path)"},
	{"nodes[].run[].restart", "string", "no", "no: a task, the run waits for it to exit 0; on-failure or always: a service, restarted 100ms after it ends (at most 10 times)"},
	{"nodes[].files", "map", "{}", "host files and folders to add: {host path: guest path}"},
	{"nodes[].rootfs", "path", "none", "the root filesystem: a folder, a tar archive, or an OCI image (docker save archive, OCI layout or its tar; linux/riscv64), whose entrypoint, cmd, env and working directory are used unless run says otherwise"},
	{"nodes[].mounts[].dev", "path", "none", "a block device everett's init mounts before it starts the workload (the node's disk is /dev/vda); an I/O error is tried again, 5 attempts in all"},
	{"nodes[].mounts[].dir", "path", "none", "where it is mounted (created when missing)"},
	{"nodes[].mounts[].fs", "string", "none", "its file system type (ext4)"},
	{"nodes[].env", "map", "{}", "environment variables of every process of the node (beside EVERETT_NODE, EVERETT_NODES, EVERETT_NODE_NAME, EVERETT_ADDR and EVERETT_PEERS, which everett sets)"},
	{"nodes[].bios", "path", "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin", "the firmware of a Linux node (OpenSBI fw_dynamic)"},
	{"nodes[].append", "string", `"console=ttyS0"`, `the kernel command line; "{i}" is replaced by the node's index`},
	{"nodes[].harts", "int", "1", "harts of the node: 1..64 for a bare-metal program, 1..8 for Linux"},
	{"nodes[].memory", "size", "256MiB (Linux), 128MiB (bare metal)", "RAM of the node: 4096, 64K, 64KiB, 256M, 1GiB, ..."},
	{"nodes[].disk", "path", "none", "a raw disk image (virtio-blk; a positive multiple of 512 bytes); a universe's writes go to its own overlay, never to the file"},
	{"nodes[].symbols", "list of paths", "[]", "ELF files whose symbols name this node's pcs in reports and traces (a Linux guest's user programs, its vmlinux); a bare-metal program's own symbols are always used"},

	{"network.latency_min", "duration", "50us", "least one-way delay of a packet (at least 1us); with several nodes, also how often the nodes take turns"},
	{"network.latency_max", "duration", "the larger of latency_min and 500us", "greatest one-way delay of a packet"},

	{"memory_model", "string", "sc", "every node's memory model: sc, rvwmo (store buffers and deferred loads drawn from the seed), or swarm (drawn per seed: half the universes rvwmo)"},

	{"faults.swarm", "bool", "true", "swarm testing: a fault kind left unset is drawn per seed (on or off, and how strongly); false: unset kinds are off"},
	{"faults.drop", "probability", "swarm: 0, 0, 0.01, 0.05 or 0.2", "probability that a packet is lost (clusters only)"},
	{"faults.duplicate", "probability", "swarm: 0, 0, 0.01 or 0.05", "probability that a packet is delivered twice (clusters only)"},
	{"faults.reorder", "probability", "swarm: 0, 0, 0.05 or 0.2", "probability that a packet is held back past later ones (clusters only)"},
	{"faults.partitions", "int", "swarm: 0, 1, 2 or 4", "network partitions per universe, 0..100: symmetric, one-way, healing or permanent (clusters only)"},
	{"faults.crashes", "int", "swarm: 0, 0, 1 or 2", "node crashes per universe, 0..100: power loss, unflushed disk writes lost or torn, then a restart (not for bare-metal programs)"},
	{"faults.disk_errors", "probability", "swarm: 0, 0, 0.001 or 0.01", "probability that a disk request fails with an I/O error (nodes with a disk)"},
	{"faults.disk_corruption", "probability", "swarm: 0, 0, 0 or 0.001", "probability that a disk request silently corrupts data (nodes with a disk)"},
	{"faults.clock_skew", "duration", "swarm: 0, 0, 1ms, 50ms or 500ms (clusters)", "greatest skew between the nodes' clocks"},
	{"faults.schedule", "string", "swarm", "the hart schedule: fixed, random (random quanta and stalls), pct, or swarm (drawn per seed)"},
	{"faults.preemptions", "int", "swarm: 0 in a third of the seeds, else 1..32", "preemptions where harts communicate, per universe (0..65536; multi-hart nodes, schedules other than fixed)"},
	{"faults.kills", "int", "swarm: 0, 0, 1, 2 or 4 (workloads with services)", "services of a workload killed with SIGKILL at drawn instants, per universe, and restarted by their policy (the kernel and page cache untouched)"},
	{"faults.chaos", "duration", "budgets.time", "virtual time from the start (from the setup point when root universes start from the boot snapshot) during which faults are injected"},

	{"oracles.console", "list of regexps", "[]", "console patterns that fail a universe (at most 64), beside the built-in ones"},
	{"oracles.hang", "duration", "0 (off)", "fail a universe that makes no progress (SDK progress or console output) for this much virtual time"},
	{"oracles.deadlock", "duration", "0 (only proven deadlocks)", "also fail a workload none of whose threads ran for this much virtual time (a program that waits on a peer or spins); everett's init always fails one whose threads all wait with nothing that can wake them"},
	{"oracles.liveness", "duration", "0 (off)", "after the chaos phase, heal a quorum and fail a universe without progress within this much virtual time"},
	{"oracles.budget_is_hang", "bool", "true (bare metal), false (Linux)", "report a universe that spends its budgets without finishing as a hang (a workload whose tasks have not ended is a timeout unless this is set)"},
	{"oracles.default_console", "bool", "true", "the built-in console patterns: kernel panic, oops, BUG, a process killed by a signal"},

	{"budgets.time", "duration", "20s (Linux), 10s (bare metal)", "virtual time per universe"},
	{"budgets.instructions", "int", "50000000000 (Linux), 200000000 (bare metal)", "instructions per universe, all nodes (--max-insns overrides it)"},
	{"budgets.universes", "int", "1000, or none with a wall budget", "universes of a search (--universes overrides it)"},
	{"budgets.wall", "duration", "none", "host time for the whole search; when spent, the universes still running are cancelled (--time overrides it)"},
	{"budgets.memory", "size or none", "1536MiB", "host memory the search aims to stay under: the corpus may hold a quarter of it beyond the boot snapshot (entries past that are evicted to their fork paths and rebuilt when picked again), and everett sets Go's soft memory limit to it less 256 MiB for the JIT's code; results never depend on it (--memory-limit overrides it)"},

	{"search.coverage", "string", "all code", `the pcs whose edges count as coverage: "lo-hi" (hex), "sym:NAME" (a bare-metal program's symbol: its size, or up to NAME_end), or "off"`},
	{"search.corpus", "int", "32", "snapshots of interesting states kept to fork from, 1..1024"},
	{"search.fork_percent", "int", "50", "percent of universes forked from a corpus snapshot rather than started as roots, 1..100 (0: the default)"},

	{"setup.at", "string", "init (Linux), sdk (workloads: everett's init marks it on every node just before it starts the workload; given explicitly, the workload's own setup_complete marks it), off (bare metal)", `the setup point: init (every node has entered user mode), sdk (the guest's setup_complete), or off (every universe boots); "setup: sdk" alone means {at: sdk}`},
	{"setup.perturb", "bool", "false", "apply faults and schedule perturbation during the boot (the boot universe draws its plan from setup.seed)"},
	{"setup.seed", "int", "0", "the boot universe's seed"},
}

// specFieldsIn returns the keys the reference lists in section: "" for
// the top level, "nodes[]", "faults", ... in the reference's order.
func specFieldsIn(section string) []string {
	var out []string
	for _, f := range SpecReference {
		k := ""
		switch {
		case section == "":
			k = strings.TrimSuffix(f.Group(), "[]")
		case f.Section() == section:
			k = f.Name()
		}
		if k != "" && (len(out) == 0 || out[len(out)-1] != k) {
			out = append(out, k)
		}
	}
	return out
}
