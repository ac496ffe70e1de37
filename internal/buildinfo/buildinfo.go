// Package buildinfo says which everett build is running: what sweep files,
// reports and shared-search identities record as the everett that wrote
// them.
package buildinfo

import "runtime/debug"

// Version returns the version of the running everett build: the module
// version and VCS revision when known ("v1.2.3 0123456789ab", with
// "+dirty" when the work tree had changes), else "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return version(bi)
}

// version formats a build's version.
func version(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + dirty
	}
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return v
}
