#!/bin/sh
# Rebuilds a /proc tree from a console dump of record.c: every
# "=== PATH" ... "=== end" block becomes the file PATH (the bytes between,
# the last newline being the file's own), every "=== link PATH -> TARGET"
# line a symbolic link, all under DIR.
# Usage: unpack.sh console.txt DIR
set -eu
in=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
awk -v out="$out" '
/^=== end/ { if (file != "") { printf "%s", body > file; close(file) } file = ""; next }
/^=== done/ { next }
/^=== link / {
	path = $3; target = $5; sub(/^\/proc/, "", path)
	cmd = "mkdir -p \"" out "/" path "\" && rmdir \"" out "/" path "\" && ln -s \"" target "\" \"" out path "\""
	system(cmd); next
}
/^=== / {
	path = $2; sub(/^\/proc/, "", path); file = out path
	dir = file; sub(/\/[^\/]*$/, "", dir); system("mkdir -p \"" dir "\"")
	body = ""; first = 1; next
}
file != "" {
	# A file without a final newline (wchan) has "=== end" glued to its last line.
	if (index($0, "=== end") > 1) {
		body = body substr($0, 1, index($0, "=== end") - 1)
		printf "%s", body > file; close(file); file = ""; next
	}
	body = body $0 "\n"
}
' "$in"
