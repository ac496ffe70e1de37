package emu

// CompareEngines is the lockstep harness: it builds two machines from the
// same inputs with build, runs one under the interpreter and one under the
// JIT side by side, and compares their state hashes every `every`
// instructions until both stop or reach limit (0: no limit). It returns the
// stop reason and nil, or the first divergence. Any divergence is a bug in
// the JIT (the interpreter is the reference).
func CompareEngines(build func() (*Machine, error), every, limit uint64) (StopReason, *Divergence, error) {
	a, err := build()
	if err != nil {
		return StopNone, nil, err
	}
	b, err := build()
	if err != nil {
		return StopNone, nil, err
	}
	if err := a.SetEngine(EngineInterp); err != nil {
		return StopNone, nil, err
	}
	if err := b.SetEngine(EngineJIT); err != nil {
		return StopNone, nil, err
	}
	r, d := CompareRuns(a, b, every, limit)
	return r, d, nil
}
