// Package nodeinit is what the init (PID 1) of every node of a multi-node
// example does before its own work and after it: mount /proc, /sys and
// /dev, read the node's settings from the kernel command line, bring up
// lo and eth0 at the node's address, and end the run, with the SDK's exit
// on everett and by powering off elsewhere. The kv and etcd examples'
// inits use it; a node of a user's own workload runs under everett's init
// (guest-images/init) instead and needs none of it.
//
// The command line helpers are portable (and tested on the host); the rest
// is for linux.
package nodeinit

import (
	"fmt"
	"strconv"
	"strings"
)

// Cmdline holds the key=value words of a kernel command line. Words
// without '=' are not in it; of a key given twice, the last value counts.
type Cmdline map[string]string

// ParseCmdline splits a kernel command line (the contents of
// /proc/cmdline) into its key=value words.
func ParseCmdline(s string) Cmdline {
	c := Cmdline{}
	for _, f := range strings.Fields(s) {
		if k, v, ok := strings.Cut(f, "="); ok {
			c[k] = v
		}
	}
	return c
}

// Int returns the value of key as an integer in [lo, hi], or def when the
// command line does not set key (def need not be in the range). An error
// names the key and its value.
func (c Cmdline) Int(key string, def, lo, hi int) (int, error) {
	v, ok := c[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def, fmt.Errorf("%s=%q: not a number", key, v)
	}
	if n < lo || n > hi {
		return def, fmt.Errorf("%s=%d: want %d..%d", key, n, lo, hi)
	}
	return n, nil
}

// Node returns the node's number (everett.node, default 0) and the
// cluster's size (everett.nodes, default nodesDef, at most nodesMax): the
// settings everett's multi-node specs give every node.
func (c Cmdline) Node(nodesDef, nodesMax int) (node, nodes int, err error) {
	if nodes, err = c.Int("everett.nodes", nodesDef, 1, nodesMax); err != nil {
		return 0, 0, err
	}
	if node, err = c.Int("everett.node", 0, 0, nodes-1); err != nil {
		return 0, 0, err
	}
	return node, nodes, nil
}

// IP is the IPv4 address of node i of a cluster: 10.0.0.(i+1), in the
// /24 that Network configures.
func IP(i int) [4]byte { return [4]byte{10, 0, 0, byte(i + 1)} }
