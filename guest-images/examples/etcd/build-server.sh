#!/bin/sh
# Usage: build-server.sh [VERSION]
#
# Builds etcd's server, unmodified, at release VERSION (default
# $ETCD_VERSION) for linux/riscv64, and prints the binary's path. The
# server is built in a throw-away Go module of its own: a main that calls
# etcd's own entry point, etcdmain.Main, and a go.mod that requires
# go.etcd.io/etcd/server/v3 at VERSION and nothing else; go mod tidy
# (through the Go module proxy) fills in the rest by minimal version
# selection, so the server builds against exactly the modules its release
# asks for, not against the newer ones this example's client or everett
# require (etcd 3.5.0's github.com/golang/protobuf does not build with
# everett's google.golang.org/protobuf).
#
# Cache: $EVERETT_CACHE/etcd-server/<key>/etcd, <key> hashing the Go
# toolchain version, VERSION and this script. Two builds with the same key
# are byte-identical (no build id, no VCS stamp, no local paths).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
. "$root/guest-images/linux/lib.sh"
GO=${GO:-go}
version=${1:-${ETCD_VERSION:?usage: build-server.sh VERSION}}

gover=$("$GO" env GOVERSION)
key=$(key_of "str:$gover" "str:etcd $version" "$here/build-server.sh")
out="$cache_root/etcd-server/$key"
bin="$out/etcd"
if [ -f "$bin" ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [ -f "$bin" ]; then
	echo "$bin"
	exit 0
fi
tmp="$out/tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

log "building etcd $version's server (go mod tidy through the module proxy, then go build)"
cat >"$tmp/main.go" <<'GO'
// Command etcd is etcd's server, unmodified: etcd's own entry point.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
cat >"$tmp/go.mod" <<GOMOD
module etcd-server

go ${gover#go}

require go.etcd.io/etcd/server/v3 $version
GOMOD
cd "$tmp"
GOFLAGS=-mod=mod "$GO" mod tidy
CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 "$GO" build -trimpath -buildvcs=false \
	-ldflags="-s -w -buildid=" -o "$tmp/etcd" .
cp "$tmp/go.mod" "$tmp/go.sum" "$out/"
mv "$tmp/etcd" "$bin"
echo "$bin"
