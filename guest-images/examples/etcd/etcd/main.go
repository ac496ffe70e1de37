// Command etcd is the etcd server, unmodified: a main that calls etcd's own
// entry point, built from the release that go.mod pins (build.sh's
// ETCD_VERSION). Nothing of etcd is copied here.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
