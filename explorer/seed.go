package explorer

import (
	"fmt"
	"time"
)

// SeedOutcome is what the root universe of one seed did: the unit of a
// sweep.
type SeedOutcome struct {
	Seed       uint64           `json:"seed"`
	Outcome    string           `json:"outcome"` // "pass" or "fail"
	Signature  string           `json:"signature,omitempty"`
	Failure    *Failure         `json:"failure,omitempty"`
	ICount     uint64           `json:"instructions"`
	Time       uint64           `json:"virtual_time_ns"`
	StateHash  string           `json:"state_hash"`
	Reason     string           `json:"reason,omitempty"` // why a passing universe ended
	Assertions []AssertionState `json:"assertions,omitempty"`
	Edges      []uint32         `json:"-"` // covered edges (bitmap indices), for coverage over time
	Report     *Report          `json:"-"` // the full report of a failure
	Elapsed    time.Duration    `json:"-"`
}

// RunSeed runs the root universe of seed to its end (no forking): a sweep
// runs one per seed. With a setup point in the spec it boots first (see
// BootOnce); RunSeedFrom reuses one boot for many seeds.
func RunSeed(spec *Spec, seed uint64) (*SeedOutcome, error) {
	boot, err := BootOnce(spec, nil)
	if err != nil {
		return nil, err
	}
	return RunSeedFrom(spec, boot, seed)
}

// RunSeedFrom is RunSeed starting from boot, the spec's boot universe
// (nil: the root universe boots). The outcome is the same as RunSeed's:
// the boot does not depend on the seed.
func RunSeedFrom(spec *Spec, boot *Boot, seed uint64) (*SeedOutcome, error) {
	start := time.Now()
	var u *Universe
	var err error
	if snap, f := boot.rootFork(seed); snap != nil {
		u, err = restoreUniverse(spec, snap, restoreOpts{})
		if err == nil {
			u.forkAt(f)
		}
	} else {
		u, err = newUniverse(spec, seed, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	u.maxSnaps = 0
	u.runTo(0)
	end := u.now()
	u.release(true)
	o := &SeedOutcome{
		Seed:       seed,
		Outcome:    "pass",
		ICount:     u.icountEnd,
		Time:       end,
		StateHash:  fmt.Sprintf("%016x", u.hash),
		Reason:     u.reason,
		Assertions: u.asserts.list(),
		Elapsed:    time.Since(start),
	}
	o.Edges = u.coveredEdges()
	if u.failure != nil {
		o.Outcome = "fail"
		o.Failure = u.failure
		o.Signature = u.failure.Signature()
		o.Time = u.failTime
		o.Report = newReport(spec, seed, -1, u)
	}
	return o, nil
}
