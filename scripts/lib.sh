# Functions the bench scripts share. Source it from the repository's root:
#   . scripts/lib.sh

# linux_spec FILE: writes to FILE the one-node Linux spec the benches run
# (the smoke-test guest of guest-images/linux, 2 harts), its images built
# or taken from the cache outside the clone.
linux_spec() {
	lk=$(sh guest-images/linux/build-kernel.sh)
	li=$(sh guest-images/linux/build-initramfs.sh)
	ld=$(sh guest-images/linux/build-disk.sh)
	cat >"$1" <<YAML
name: linux-1node
nodes:
  - name: n0
    kernel: $lk
    initrd: $li
    disk: $ld
    harts: 2
YAML
}

# base_everett REV: prints the path of everett as built at REV (a commit
# of this clone's history), building it once into the cache outside the
# clone. Fails when the history has no REV.
base_everett() {
	bc=$(git rev-parse -q --verify "$1^{commit}" 2>/dev/null) || return 1
	bb=${XDG_CACHE_HOME:-$HOME/.cache}/everett/base/$bc/everett
	if [ ! -x "$bb" ]; then
		bsrc=$(mktemp -d)
		git archive "$bc" | tar -x -C "$bsrc"
		mkdir -p "$(dirname "$bb")"
		(cd "$bsrc" && go build -o "$bb.tmp" ./cmd/everett) >&2 && mv "$bb.tmp" "$bb"
		rm -rf "$bsrc"
	fi
	echo "$bb"
}
