#!/bin/sh
# Usage: check-versions.sh [VERSION...]
#
# Builds the etcd example's guest (build.sh) at each etcd release given
# (default: the oldest and the newest release of each minor line the README
# promises, as of 2026-12-04), prints one line per release, "ok" or
# "FAILED" with the end of its build log, and links the default release
# back into build/examples/etcd/ at the end. It builds, it does not run:
# explorer/etcd_test.go runs a universe of one release. Each build of a new
# release takes minutes (etcd's server, through the Go module proxy); builds
# are cached (build-server.sh). Not run by CI. Exits 1 if a build failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
	set -- v3.5.0 v3.5.36 v3.6.0 v3.6.17 v3.7.0 v3.7.3
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=0
for v in "$@"; do
	if ETCD_VERSION=$v sh "$here/build.sh" >"$logs/$v" 2>&1; then
		echo "$v ok"
	else
		echo "$v FAILED:"
		tail -n 20 "$logs/$v" | sed 's/^/    /'
		failed=1
	fi
done
if ! sh "$here/build.sh" >"$logs/default" 2>&1; then
	echo "linking the default release back failed:"
	tail -n 20 "$logs/default" | sed 's/^/    /'
	failed=1
fi
exit $failed
