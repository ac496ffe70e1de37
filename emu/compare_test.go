package emu

import "testing"

// The engine-agreement tests of this package compare the JIT with the
// interpreter through package enginecheck. They set machines up through
// the hart's unexported state, so they are internal tests, and an internal
// test cannot import enginecheck (it imports emu): enginecheck_test.go, an
// external test file of the same test binary, sets these two hooks from
// enginecheck at init.

// compared is enginecheck.Compared.
type compared struct {
	Reason    StopReason
	HostInsns uint64
}

// engineCheck holds enginecheck.CompareEngines and CompareRuns; a nil
// divergence comes back as a nil error.
var engineCheck struct {
	compareEngines func(build func() (*Machine, error), every, limit uint64) (compared, error, error)
	compareRuns    func(a, b *Machine, every, limit uint64) (StopReason, error)
}

// SetEngineCheck is how enginecheck_test.go fills engineCheck (test builds
// only).
func SetEngineCheck(
	engines func(build func() (*Machine, error), every, limit uint64) (reason StopReason, hostInsns uint64, div, err error),
	runs func(a, b *Machine, every, limit uint64) (StopReason, error),
) {
	engineCheck.compareEngines = func(build func() (*Machine, error), every, limit uint64) (compared, error, error) {
		r, n, d, err := engines(build, every, limit)
		return compared{r, n}, d, err
	}
	engineCheck.compareRuns = runs
}

// compareEngines is enginecheck.CompareEngines.
func compareEngines(t *testing.T, build func() (*Machine, error), every, limit uint64) (compared, error, error) {
	t.Helper()
	if engineCheck.compareEngines == nil {
		t.Fatal("enginecheck_test.go did not set the engine check")
	}
	return engineCheck.compareEngines(build, every, limit)
}

// compareRuns is enginecheck.CompareRuns.
func compareRuns(t *testing.T, a, b *Machine, every, limit uint64) (StopReason, error) {
	t.Helper()
	if engineCheck.compareRuns == nil {
		t.Fatal("enginecheck_test.go did not set the engine check")
	}
	return engineCheck.compareRuns(a, b, every, limit)
}
