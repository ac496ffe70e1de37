// Command kv is a small replicated key-value store and its test workload:
// the guest of everett's cluster example. It runs as init (PID 1) of every
// node of the cluster; README.md describes the service, its protocol, and
// how to explore it with everett.
//
// Kernel command line:
//
//	everett.node=N    this node's number, 0..nodes-1 (default 0)
//	everett.nodes=M   the cluster's size, 1..9 (default 3)
//	everett.client=C  the node that also runs the client (default 1, or 0
//	                  in a one-node cluster)
//	kv.ops=K          operations of the workload (default 300)
//	kv.safe=1         the fixed protocol (safe.go): acknowledge only what a
//	                  majority holds; the default (0) is the buggy one
//
// Node N has the IPv4 address 10.0.0.(N+1)/24 on eth0; every node serves
// UDP port 7000. The client's node ends the run when the workload is done:
// with everett's SDK exit on everett (code 0: no lost write seen, 1: a
// read missed an acknowledged write, 2: the cluster was unavailable), and
// elsewhere by powering the machine off.
package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"everett/guest-images/sdk/go/everett"
)

// config is what the kernel command line says.
type config struct {
	node, nodes, client, ops int
	safe                     int
}

func parseCmdline(cmdline string) (config, error) {
	c := config{node: 0, nodes: 3, client: -1, ops: defaultOps}
	for _, f := range strings.Fields(cmdline) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		var dst *int
		switch k {
		case "everett.node":
			dst = &c.node
		case "everett.nodes":
			dst = &c.nodes
		case "everett.client":
			dst = &c.client
		case "kv.ops":
			dst = &c.ops
		case "kv.safe":
			dst = &c.safe
		default:
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: not a number", k, v)
		}
		*dst = n
	}
	if c.client < 0 {
		c.client = min(1, c.nodes-1)
	}
	switch {
	case c.nodes < 1 || c.nodes > 9:
		return c, fmt.Errorf("everett.nodes=%d: want 1..9", c.nodes)
	case c.node < 0 || c.node >= c.nodes:
		return c, fmt.Errorf("everett.node=%d: want 0..%d", c.node, c.nodes-1)
	case c.client >= c.nodes:
		return c, fmt.Errorf("everett.client=%d: want 0..%d", c.client, c.nodes-1)
	case c.ops < 0 || c.ops > 100000:
		return c, fmt.Errorf("kv.ops=%d: want 0..100000", c.ops)
	case c.safe != 0 && c.safe != 1:
		return c, fmt.Errorf("kv.safe=%d: want 0 or 1", c.safe)
	}
	return c, nil
}

// nodeIP is node i's address.
func nodeIP(i int) [4]byte { return [4]byte{10, 0, 0, byte(i + 1)} }

func main() {
	say := func(format string, args ...any) {
		fmt.Printf("kv: "+format+"\n", args...)
	}
	if os.Getpid() != 1 {
		say("not running as init; this program is a guest's /init")
	}
	for _, m := range []struct{ src, dst, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
	} {
		if err := syscall.Mount(m.src, m.dst, m.fstype, 0, ""); err != nil {
			say("mount %s: %v", m.dst, err)
		}
	}
	cmdline, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		halt(say, "read /proc/cmdline: %v", err)
	}
	cfg, err := parseCmdline(string(cmdline))
	if err != nil {
		halt(say, "kernel command line: %v", err)
	}
	nodeSay := func(format string, args ...any) { say("node %d: "+format, append([]any{cfg.node}, args...)...) }

	if err := ifUp("lo", nil); err != nil {
		halt(nodeSay, "lo: %v", err)
	}
	ip := nodeIP(cfg.node)
	if err := ifUp("eth0", &ifAddr{ip: ip, mask: [4]byte{255, 255, 255, 0}}); err != nil {
		halt(nodeSay, "eth0: %v", err)
	}
	nodeSay("eth0 is 10.0.0.%d/24; %d nodes, the client on node %d", ip[3], cfg.nodes, cfg.client)

	addrs := make([]*net.UDPAddr, cfg.nodes)
	for i := range addrs {
		a := nodeIP(i)
		addrs[i] = &net.UDPAddr{IP: net.IPv4(a[0], a[1], a[2], a[3]), Port: port}
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{Port: port})
	if err != nil {
		halt(nodeSay, "listen: %v", err)
	}
	srv := newServer(cfg.node, cfg.nodes, conn, addrs, nodeSay)
	srv.safe = cfg.safe == 1
	if srv.safe {
		nodeSay("the fixed protocol (kv.safe=1)")
	}
	go srv.serve()

	if cfg.node != cfg.client {
		select {} // init never exits
	}
	cconn, err := net.ListenUDP("udp4", &net.UDPAddr{})
	if err != nil {
		halt(nodeSay, "client socket: %v", err)
	}
	// The workload's choices come from the universe's PRNG on everett, so
	// that every seed runs a different workload.
	seed := everett.Random()
	rng := rand.New(rand.NewPCG(seed, seed^0x6b76))
	id := uint32(clientIDBase + cfg.node)
	if srv.safe {
		// A client id of its own per incarnation: a restarted node's
		// client numbers its requests from 1 again, and the servers must
		// not take them for retries of the earlier incarnation's.
		id += uint32(1+rng.IntN(1<<20)) << 4
	}
	cl := newClient(id, cconn, addrs, nodeSay)
	cl.learn = srv.safe
	code := cl.run(cfg.ops, rng)
	nodeSay("server: %v", srv)
	finish(nodeSay, code)
}

// finish ends the run with code: the SDK's exit on everett, a power-off
// elsewhere (init must not exit).
func finish(say func(string, ...any), code int) {
	if everett.Enabled() {
		everett.Exit(code)
	}
	say("exit code %d; powering off", code)
	drainConsole()
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}

// halt reports a set-up failure and stops the machine.
func halt(say func(string, ...any), format string, args ...any) {
	say(format, args...)
	everett.Unreachable("kv: node set-up failed")
	finish(say, 2)
}
