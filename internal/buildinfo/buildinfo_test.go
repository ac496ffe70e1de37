package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionNamesTheModuleVersionAndTheShortRevision(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := version(bi), "v1.2.3 0123456789ab+dirty"; got != want {
		t.Fatalf("version %q, want %q", got, want)
	}
}

func TestAnUnversionedBuildIsDevel(t *testing.T) {
	for _, v := range []string{"", "(devel)"} {
		if got := version(&debug.BuildInfo{Main: debug.Module{Version: v}}); got != "devel" {
			t.Fatalf("module version %q: version %q, want devel", v, got)
		}
	}
	if got := Version(); got == "" {
		t.Fatal("the running build has an empty version")
	}
}
