# shellcheck shell=sh
# Shared by the Go examples' recipes (gobuild.sh, etcd/build.sh); sourced,
# not run. Defines: go_sources ROOT DIR PKG...

# go_sources ROOT DIR PKG...: the files, relative to ROOT and sorted, of the
# packages PKG... (named as from DIR) and of every package they import from
# inside ROOT: Go and assembly sources and embedded files, for the GOOS and
# GOARCH of the environment, without tests. A build of PKG changes only when
# one of these, a go.mod or go.sum, or the toolchain does, so the Go
# recipes hash them into their cache keys: a change to an SDK package the
# program imports rebuilds it, and no list of folders has to be kept in step
# with the imports.
go_sources() {
	gs_root=$1
	gs_dir=$2
	shift 2
	# shellcheck disable=SC2016 # a Go template, not a shell expansion
	gs_tmpl='{{if not .Standard}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}
{{end}}{{range .SFiles}}{{$d}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}
{{end}}{{end}}'
	gs_list=$(cd "$gs_dir" && "${GO:-go}" list -deps -f "$gs_tmpl" "$@") || return 1
	printf '%s\n' "$gs_list" | while IFS= read -r f; do
		case "$f" in "$gs_root"/*) printf '%s\n' "${f#"$gs_root"/}" ;; esac
	done | LC_ALL=C sort -u | grep . || {
		echo "go_sources: go list found no sources of $* under $gs_root" >&2
		return 1
	}
}
