// Command client is the etcd example's client as an ordinary program, for
// a spec that runs the etcd servers and this client under everett's own
// init (spec-workload.yaml): it waits for the cluster, marks the setup
// point (the SDK's setup_complete), runs the workload, checks its history
// (package workload) and exits 0 when every check passed, 1 on a
// violation, 2 when the cluster did not form or a flag is wrong.
//
//	client [-endpoints URL,URL,...] [-ops K] [-pause-max D] [-serializable]
//
// The endpoints default to http://ADDR:2379 for every address in
// EVERETT_PEERS, which everett's init sets.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"everett/guest-images/examples/etcd/workload"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv("EVERETT_PEERS")))
}

// run parses args (peers: EVERETT_PEERS) and runs the workload; it returns
// the exit code.
func run(args []string, peers string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	endpoints := fs.String("endpoints", "", "the members' client URLs, comma-separated (default: http://ADDR:2379 for each address in EVERETT_PEERS)")
	ops := fs.Int("ops", 120, "operations of the workload, all workers together (1..10000)")
	pause := fs.Duration("pause-max", workload.DefaultPauseMax, "bound of the random pause before each operation")
	serializable := fs.Bool("serializable", false, "the deliberately broken client: read with serializable consistency and still expect linearizable results")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := config(*endpoints, peers, *ops, *pause, *serializable)
	if err != nil {
		fmt.Fprintf(os.Stderr, "client: %v\n", err)
		return 2
	}
	return workload.Run(cfg)
}

// config checks the flags and builds the workload's configuration.
func config(endpoints, peers string, ops int, pause time.Duration, serializable bool) (workload.Config, error) {
	var eps []string
	switch {
	case endpoints != "":
		eps = strings.Split(endpoints, ",")
	case peers != "":
		for _, a := range strings.Split(peers, ",") {
			eps = append(eps, "http://"+a+":2379")
		}
	default:
		return workload.Config{}, fmt.Errorf("no -endpoints and no EVERETT_PEERS: where is the cluster?")
	}
	for _, e := range eps {
		if !strings.HasPrefix(e, "http://") || len(e) == len("http://") {
			return workload.Config{}, fmt.Errorf("endpoint %q: want http://HOST:PORT", e)
		}
	}
	switch {
	case ops < 1 || ops > 10000:
		return workload.Config{}, fmt.Errorf("-ops=%d: want 1..10000", ops)
	case pause < 0:
		return workload.Config{}, fmt.Errorf("-pause-max=%v: want 0 or more", pause)
	}
	return workload.Config{
		Endpoints:    eps,
		Ops:          ops,
		PauseMax:     pause,
		Serializable: serializable,
		Say:          func(format string, args ...any) { fmt.Printf("etcd-client: "+format+"\n", args...) },
		// The init copies this program's output to the console line by
		// line: give it a moment to do so before an assertion fails.
		Drain: func() { time.Sleep(100 * time.Millisecond) },
	}, nil
}
