#!/bin/sh
# A/B of everett binaries on explorer universes/s (the kv example, 8
# universes, 2 workers, seed 1): ROUNDS rounds (default 6), the binaries'
# order rotated every round, and per round each binary's universes/s over
# the first's. Prints the first's median universes/s and, for the others,
# the median and range of their per-round ratios.
#   scripts/ab-explore.sh BASE_BINARY OTHER_BINARY...
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BASE OTHER..." >&2; exit 2; }
ROUNDS=${ROUNDS:-6}
SPEC=${SPEC:-guest-images/examples/kv/spec.yaml}
cd "$(dirname "$0")/.."
sh guest-images/examples/kv/build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=$#
for r in $(seq "$ROUNDS"); do
	for j in $(seq 0 $((n - 1))); do
		i=$(( (j + r) % n + 1 ))
		eval "b=\${$i}"
		rm -rf "$tmp/out"
		u=$("$b" explore "$SPEC" --seed 1 --universes 8 --workers 2 --out "$tmp/out" 2>/dev/null |
			sed -n 's/^explored .* (\([0-9.]*\) universes\/s.*/\1/p')
		echo "$r $i $u"
	done
done | awk -v n="$n" '
	{ u[$1, $2] = $3; rounds[$1] = 1 }
	END {
		for (i = 1; i <= n; i++) {
			m = 0
			for (r in rounds) v[++m] = (i == 1) ? u[r, 1] : u[r, i] / u[r, 1]
			for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (v[y] < v[x]) { t = v[x]; v[x] = v[y]; v[y] = t }
			if (i == 1) printf "binary 1: median %.3f universes/s\n", v[int((m + 1) / 2)]
			else printf "binary %d / binary 1: median %.3f, range %.3f-%.3f, %d rounds\n", i, v[int((m + 1) / 2)], v[1], v[m], m
		}
	}'
