#!/bin/sh
# Builds the gotest example's test binaries for linux/riscv64 with go test -c:
# build/examples/gotest/gotest.test (the bug) and gotest-fixed.test (build
# tag "fixed"), at the top of the repository. Deterministic: no build id, no
# VCS stamp, no paths of this machine. Run one with
#   everett explore --linux --smp 2 build/examples/gotest/gotest.test -test.count=5
# or, outside everett,
#   GOMAXPROCS=2 qemu-riscv64-static build/examples/gotest/gotest.test -test.v
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
GO=${GO:-go}
cd "$root"
mkdir -p build/examples/gotest
for v in gotest: gotest-fixed:fixed; do
	out=${v%%:*}
	tags=${v#*:}
	CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 "$GO" test -c -tags="$tags" -trimpath -buildvcs=false \
		-ldflags=-buildid= -o "build/examples/gotest/$out.test" ./guest-images/examples/gotest/
done
