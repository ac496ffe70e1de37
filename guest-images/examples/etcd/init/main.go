// Command init is PID 1 of every node of the etcd example: it mounts the
// node's disk at /data, brings up eth0, and runs the etcd server (/bin/etcd,
// unmodified) as one member of the cluster, restarting it when it exits, as
// an init system would. The client's node also runs the workload and checks
// its history for linearizability (package workload, which the ordinary
// client program ../client runs too).
//
// Kernel command line:
//
//	everett.node=N   this node, 0..nodes-1 (default 0)
//	everett.nodes=M  the cluster's size, 1..7 (default 3)
//	etcd.client=C    the node that runs the client (default 0)
//	etcd.ops=K       operations of the workload (default 120)
//	etcd.reads=serializable
//	                 the deliberately broken client: it reads with
//	                 serializable consistency (any member's local state)
//	                 and still expects linearizable results
//	etcd.log=LEVEL   etcd's --log-level (default error): debug, info,
//	                 warn or error; every line it logs reaches the console
//	                 (and counts as progress for everett's liveness
//	                 oracle: keep error when that oracle matters)
//
// Node N is 10.0.0.(N+1)/24 on eth0; etcd listens on 2379 (clients) and
// 2380 (peers).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"everett/guest-images/examples/etcd/workload"
	"everett/guest-images/sdk/go/everett"
	"everett/guest-images/sdk/go/netconf"
	"everett/guest-images/sdk/go/nodeinit"
)

type config struct {
	node, nodes, client, ops int
	serializable             bool
	logLevel                 string // etcd's --log-level
}

// parseConfig reads the node's settings from its kernel command line.
func parseConfig(args nodeinit.Cmdline) (config, error) {
	c := config{logLevel: "error"}
	var err error
	if c.node, c.nodes, err = args.Node(3, 7); err != nil {
		return c, err
	}
	if c.client, err = args.Int("etcd.client", 0, 0, c.nodes-1); err != nil {
		return c, err
	}
	if c.ops, err = args.Int("etcd.ops", 120, 1, 10000); err != nil {
		return c, err
	}
	if v, ok := args["etcd.reads"]; ok {
		if v != "serializable" && v != "linearizable" {
			return c, fmt.Errorf("etcd.reads=%q: want linearizable or serializable", v)
		}
		c.serializable = v == "serializable"
	}
	if v, ok := args["etcd.log"]; ok {
		switch v {
		case "debug", "info", "warn", "error":
		default:
			return c, fmt.Errorf("etcd.log=%q: want debug, info, warn or error", v)
		}
		c.logLevel = v
	}
	return c, nil
}

func nodeURL(i, port int) string {
	ip := nodeinit.IP(i)
	return fmt.Sprintf("http://%d.%d.%d.%d:%d", ip[0], ip[1], ip[2], ip[3], port)
}

var say = func(format string, args ...any) { fmt.Printf("etcd-init: "+format+"\n", args...) }

func main() {
	args, err := nodeinit.Start(say)
	if err != nil {
		halt("%v", err)
	}
	cfg, err := parseConfig(args)
	if err != nil {
		halt("kernel command line: %v", err)
	}
	node := cfg.node
	say = func(format string, args ...any) {
		fmt.Printf("etcd-init: node %d: "+format+"\n", append([]any{node}, args...)...)
	}
	if err := nodeinit.Network(cfg.node); err != nil {
		halt("%v", err)
	}
	if err := os.MkdirAll("/data", 0o755); err != nil {
		halt("mkdir /data: %v", err)
	}
	// The data directory is on the node's own disk, so that fsync, power
	// loss and torn writes reach etcd's WAL and database. A read error the
	// fault model injects may fail the mount: try again, as an operator
	// would, and leave the node without etcd if the disk stays unreadable.
	mounted := false
	for try := 1; try <= 5 && !mounted; try++ {
		err := syscall.Mount("/dev/vda", "/data", "ext4", 0, "")
		if mounted = err == nil; !mounted {
			say("mount /dev/vda on /data (try %d): %v", try, err)
			time.Sleep(time.Second)
		}
	}
	if mounted {
		go runServer(cfg)
	} else {
		say("the disk stays unreadable: no etcd member on this node")
	}
	if cfg.node != cfg.client {
		select {} // init never exits
	}
	var eps []string
	for i := 0; i < cfg.nodes; i++ {
		eps = append(eps, nodeURL(i, 2379))
	}
	finish(workload.Run(workload.Config{
		Endpoints:    eps,
		Ops:          cfg.ops,
		PauseMax:     workload.DefaultPauseMax,
		Serializable: cfg.serializable,
		Say:          say,
		Drain:        netconf.DrainConsole,
	}))
}

// runServer runs the etcd member of this node, again whenever it exits: a
// member that stops on a disk error comes back as an init system would
// bring it back, and must then recover from what its disk holds.
func runServer(cfg config) {
	var peers []string
	for i := 0; i < cfg.nodes; i++ {
		peers = append(peers, fmt.Sprintf("n%d=%s", i, nodeURL(i, 2380)))
	}
	state := "new"
	if _, err := os.Stat("/data/etcd/member"); err == nil {
		state = "existing" // a restart after a crash: recover from the disk
	}
	args := []string{
		"--name", fmt.Sprintf("n%d", cfg.node),
		"--data-dir", "/data/etcd",
		"--listen-peer-urls", nodeURL(cfg.node, 2380),
		"--initial-advertise-peer-urls", nodeURL(cfg.node, 2380),
		"--listen-client-urls", nodeURL(cfg.node, 2379),
		"--advertise-client-urls", nodeURL(cfg.node, 2379),
		"--initial-cluster", strings.Join(peers, ","),
		"--initial-cluster-state", state,
		"--initial-cluster-token", "everett-etcd",
		"--log-level", cfg.logLevel,
	}
	args = append(args, corruptCheckFlags()...)
	for run := 1; ; run++ {
		cmd := exec.Command("/bin/etcd", args...)
		// etcd releases before riscv64 was supported refuse to start
		// without this.
		cmd.Env = append(os.Environ(), "ETCD_UNSUPPORTED_ARCH=riscv64")
		cmd.Stdout = os.Stdout
		logs, err := cmd.StderrPipe()
		if err != nil {
			halt("etcd's log: %v", err)
		}
		if err := cmd.Start(); err != nil {
			halt("start etcd: %v", err)
		}
		corrupt := scanLog(logs)
		err = cmd.Wait()
		if <-corrupt {
			say("etcd (run %d) found its data inconsistent with its peers' (initial corruption check)", run)
			netconf.DrainConsole()
			everett.Unreachable("etcd: a restarted member fails its initial corruption check")
		}
		say("etcd (run %d) exited: %v; restarting it in 1 s", run, err)
		time.Sleep(time.Second)
		args = replaceFlag(args, "--initial-cluster-state", "existing")
	}
}

// scanLog copies etcd's log to the console and reports, once the log ends,
// whether etcd said at error level or above that its data is corrupt or
// inconsistent with its peers' (below it, with etcd.log=info, etcd says
// that it runs the corruption check and that it passed).
func scanLog(r io.Reader) <-chan bool {
	ch := make(chan bool, 1)
	go func() {
		found := false
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(os.Stderr, line)
			if belowError(line) {
				continue
			}
			l := strings.ToLower(line)
			if strings.Contains(l, "data inconsistency") || strings.Contains(l, "corrupt") {
				found = true
			}
		}
		ch <- found
	}()
	return ch
}

// belowError reports whether line is one of etcd's JSON log lines at debug,
// info or warn level.
func belowError(line string) bool {
	for _, l := range []string{"debug", "info", "warn"} {
		if strings.Contains(line, `"level":"`+l+`"`) {
			return true
		}
	}
	return false
}

// corruptCheckFlags turn on etcd's own initial corruption check, whose flag
// the releases renamed: a file next to the binary says which (build.sh).
func corruptCheckFlags() []string {
	b, err := os.ReadFile("/etc/etcd-flags")
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func replaceFlag(args []string, flag, v string) []string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			args[i+1] = v
		}
	}
	return args
}

// finish ends the run with code: the SDK's exit on everett, a power-off
// elsewhere (init must not exit).
func finish(code int) { nodeinit.Finish(say, code) }

// halt reports a set-up failure and stops the machine.
func halt(format string, args ...any) {
	nodeinit.Halt(say, "etcd example: node set-up failed", format, args...)
}
