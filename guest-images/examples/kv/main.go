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

	"everett/guest-images/sdk/go/everett"
	"everett/guest-images/sdk/go/nodeinit"
)

// config is what the kernel command line says.
type config struct {
	node, nodes, client, ops int
	safe                     int
}

// parseConfig reads the node's settings from its kernel command line.
func parseConfig(args nodeinit.Cmdline) (config, error) {
	var c config
	var err error
	if c.node, c.nodes, err = args.Node(3, 9); err != nil {
		return c, err
	}
	if c.client, err = args.Int("everett.client", min(1, c.nodes-1), 0, c.nodes-1); err != nil {
		return c, err
	}
	if c.ops, err = args.Int("kv.ops", defaultOps, 0, 100000); err != nil {
		return c, err
	}
	if c.safe, err = args.Int("kv.safe", 0, 0, 1); err != nil {
		return c, err
	}
	return c, nil
}

func main() {
	say := func(format string, args ...any) {
		fmt.Printf("kv: "+format+"\n", args...)
	}
	if os.Getpid() != 1 {
		say("not running as init; this program is a guest's /init")
	}
	args, err := nodeinit.Start(say)
	if err != nil {
		halt(say, "%v", err)
	}
	cfg, err := parseConfig(args)
	if err != nil {
		halt(say, "kernel command line: %v", err)
	}
	nodeSay := func(format string, args ...any) { say("node %d: "+format, append([]any{cfg.node}, args...)...) }

	if err := nodeinit.Network(cfg.node); err != nil {
		halt(nodeSay, "%v", err)
	}
	ip := nodeinit.IP(cfg.node)
	nodeSay("eth0 is 10.0.0.%d/24; %d nodes, the client on node %d", ip[3], cfg.nodes, cfg.client)

	addrs := make([]*net.UDPAddr, cfg.nodes)
	for i := range addrs {
		a := nodeinit.IP(i)
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
	nodeinit.Finish(nodeSay, code)
}

// halt reports a set-up failure and stops the machine.
func halt(say func(string, ...any), format string, args ...any) {
	nodeinit.Halt(say, "kv: node set-up failed", format, args...)
}
