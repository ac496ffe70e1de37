package emu_test

import (
	"everett/emu"
	"everett/emu/enginecheck"
)

// The hook compare_test.go describes: this package's internal tests reach
// the lockstep harness through it.
func init() {
	emu.SetEngineCheck(
		func(build func() (*emu.Machine, error), every, limit uint64) (emu.StopReason, uint64, error, error) {
			c, d, err := enginecheck.CompareEngines(build, every, limit)
			if d != nil {
				return c.Reason, c.HostInsns, d, err
			}
			return c.Reason, c.HostInsns, nil, err
		},
		func(a, b *emu.Machine, every, limit uint64) (emu.StopReason, error) {
			r, d := enginecheck.CompareRuns(a, b, every, limit)
			if d != nil {
				return r, d
			}
			return r, nil
		})
}
