package explorer

import (
	"fmt"
	"sync/atomic"

	"everett/emu"
)

// The run loop: windows of virtual time, the nodes in turn, and the
// oracles that judge a universe between windows.

func (u *Universe) fail(f *Failure) {
	if u.failure != nil || u.finished {
		return
	}
	u.failure = f
	running := -1
	if f.Node >= 0 && f.Node < len(u.nodes) {
		if n := u.nodes[f.Node]; n.b != nil && !n.down {
			if h := n.b.Running(); h != nil {
				running = h.ID
			}
		}
	}
	u.root = u.explain(f, running)
	u.failTime = u.now()
	u.stopAll()
}

func (u *Universe) finish() {
	if u.failure != nil || u.finished {
		return
	}
	u.finished = true
	u.reason = "the guest reported success (sdk exit 0)"
	u.stopAll()
}

func (u *Universe) stopAll() {
	for _, n := range u.nodes {
		if n.b != nil {
			n.b.Stop()
		}
	}
}

func (u *Universe) interesting(why string) {
	if len(u.wantSnap) < 8 {
		u.wantSnap = append(u.wantSnap, why)
	}
}

// setCancel makes the universe stop, and count as cancelled, once c is
// true: every node's machine checks c at its round boundaries (see
// emu.Machine.SetCancel), the run loop at its windows'. Nothing else reads
// c, so a universe that is not cancelled runs exactly as without it.
func (u *Universe) setCancel(c *atomic.Bool) {
	u.cancel = c
	for _, n := range u.nodes {
		if n.b != nil {
			n.b.SetCancel(c)
		}
	}
}

// runTo runs the universe until virtual time stop (0: until it ends). It
// returns when the universe has ended (failure, success, budget), the time
// is reached, or it was cancelled (setCancel).
func (u *Universe) runTo(stop uint64) { u.runUntilCount(stop, 0) }

// runUntilCount is runTo that also stops when the universe's instruction
// count reaches count (0: no bound), exactly, even inside a window.
func (u *Universe) runUntilCount(stop, count uint64) {
	s := u.spec
	for u.failure == nil && !u.finished {
		if u.cancel != nil && u.cancel.Load() {
			u.cancelled = true
			return
		}
		if stop != 0 && u.t >= stop || u.stopAtSetup && u.setupReached() {
			return
		}
		end := u.t + u.window
		if stop != 0 && end > stop {
			end = stop
		}
		u.applyFaults(end)
		alive := false
		for _, n := range u.nodes {
			if n.down || n.done {
				continue
			}
			alive = true
			var lim uint64
			if count != 0 {
				total := u.ICount()
				if total >= count {
					return
				}
				lim = n.b.ICount() + (count - total)
			}
			r := n.b.RunUntil(lim, end)
			if r == emu.StopCancel {
				u.cancelled = true
				return // thrown away: where it stopped does not matter
			}
			if r == emu.StopLimit {
				return // the instruction count was reached inside the window
			}
			if w := u.watch; r.Debugger() || w != nil && w.breakHit {
				if w != nil { // always: only a replayer sets breakpoints and debuggers
					w.breakHit, w.breakReason = true, r
				}
				return
			}
			u.nodeStopped(n, r)
			if u.failure != nil || u.finished {
				return
			}
		}
		u.t = end
		u.sw.deliver(end)
		if !alive {
			if !u.anyRestartPending() {
				// Every node is powered off, or down for good: nothing
				// can happen any more, whatever faults are still due.
				u.finished = true
				u.reason = "every node powered off"
				if u.anyDown() {
					u.reason = "every node powered off or down"
				}
				return
			}
			// Every node is down, waiting for a restart: the guests are
			// not failing to progress, the fault model keeps them off.
			u.progressAt = u.t
		}
		u.checkHang()
		if u.failure != nil {
			return
		}
		if u.ICount() >= s.Budgets.Instructions || u.t >= s.Budgets.Time.Ns() {
			u.budgetSpent()
			return
		}
		u.checkCoverage()
		if len(u.wantSnap) > 0 {
			u.takeSnapshot(u.wantSnap[0])
			u.wantSnap = u.wantSnap[:0]
		}
	}
}

// anyRestartPending reports whether a node that is down will come back.
func (u *Universe) anyRestartPending() bool {
	for _, f := range u.faults {
		if u.restartDue(f) {
			return true
		}
	}
	return false
}

func (u *Universe) anyDown() bool {
	for _, n := range u.nodes {
		if n.down {
			return true
		}
	}
	return false
}

// nodeStopped handles why a node's run returned.
func (u *Universe) nodeStopped(n *node, r emu.StopReason) {
	idx := u.indexOf(n)
	switch r {
	case emu.StopPowerOff:
		n.done = true
		if code := n.b.ExitCode(); code != 0 {
			u.fail(&Failure{Kind: "exit", Message: fmt.Sprintf("exit code %d", code), Node: idx})
			return
		}
		u.progressAt = u.now() // a node that finished its work progressed
		if u.spec.bareMetal() {
			u.finished = true
			u.reason = "the program exited 0"
		}
	case emu.StopReset:
		u.fail(&Failure{Kind: "reboot", Message: "the guest rebooted", Node: idx})
	case emu.StopHalted:
		u.fail(&Failure{Kind: "hang", Message: "every hart halted", Node: idx})
	case emu.StopIdle:
		u.fail(&Failure{Kind: "hang", Message: "every hart waits for an interrupt that cannot come", Node: idx})
	}
	if r == emu.StopTime && u.spec.bareMetal() && n.b.Idle() {
		u.fail(&Failure{Kind: "hang", Message: "every hart waits for an interrupt that cannot come", Node: idx})
	}
}

func (u *Universe) indexOf(n *node) int {
	for i, x := range u.nodes {
		if x == n {
			return i
		}
	}
	return -1
}

// checkHang fails a universe without progress for the hang budget, or
// without progress in the liveness phase.
func (u *Universe) checkHang() {
	s := u.spec
	if h := s.Oracles.Hang.Ns(); h > 0 && u.t > u.progressAt+h {
		u.fail(&Failure{Kind: "hang", Message: fmt.Sprintf("no progress for %v of virtual time", s.Oracles.Hang)})
		return
	}
	if l := s.Oracles.Liveness.Ns(); l > 0 && u.liveStart != 0 && u.t > u.progressAt+l && u.progressAt <= u.liveStart+l && u.quorumRunning() {
		u.fail(&Failure{Kind: "liveness", Message: fmt.Sprintf("no progress within %v after healing a quorum", s.Oracles.Liveness)})
	}
}

// quorumRunning reports whether a node of the liveness phase's quorum has
// not powered off: when all of them have, their work is done and there is
// no progress left to require.
func (u *Universe) quorumRunning() bool {
	for _, n := range u.nodes[:len(u.nodes)/2+1] {
		if !n.done {
			return true
		}
	}
	return false
}

func (u *Universe) budgetSpent() {
	s := u.spec
	hang := s.bareMetal()
	if s.Oracles.BudgetIsHang != nil {
		hang = *s.Oracles.BudgetIsHang
	}
	if s.Oracles.BudgetIsHang == nil && s.hasTasks() {
		// A workload's tasks that have not ended by the budget: a timeout.
		for i, n := range u.nodes {
			if s.workload[i] == workloadTasks && !n.tasksDone {
				u.fail(&Failure{Kind: "timeout", Message: "the workload's tasks did not finish within the budget", Node: i})
				return
			}
		}
	}
	if hang {
		u.fail(&Failure{Kind: "hang", Message: "did not finish within its budget"})
		return
	}
	u.finished = true
	u.reason = "budget spent"
}
