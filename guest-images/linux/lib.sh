# shellcheck shell=sh
# Shared by the scripts in this folder; sourced, not run.
# Defines: cache_root, need_debs PKG..., key_of ITEM..., log MSG...

# The cache lives outside the repository clone so that `git clean` and fresh
# clones keep it, and several clones share it.
# shellcheck disable=SC2034 # used by the scripts that source this file
cache_root="${EVERETT_CACHE:-${XDG_CACHE_HOME:-${HOME:?set HOME or EVERETT_CACHE}/.cache}/everett}"

log() { echo "$(basename "$0"): $*" >&2; }

# need_debs PKG...: installs the Debian packages that are not installed yet.
# Quiet, and touches nothing, when all are present.
need_debs() {
	missing=""
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing Debian packages:$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# key_of ITEM...: a short hex key over the given files (contents and names)
# and literal strings given as "str:TEXT". Changing any item changes the key.
key_of() {
	for item in "$@"; do
		case "$item" in
		str:*) printf '%s\n' "${item#str:}" ;;
		*) printf 'file %s\n' "$(basename "$item")"; cat "$item" ;;
		esac
	done | sha256sum | cut -c1-16
}
