package explorer

import (
	"fmt"
	"sort"

	"everett/devices/virtio/blk"
	"everett/emu"
)

// The fault stream: partitions, crashes and restarts, disk faults, the
// liveness phase, and the decisions they record.

// Decision is a fault the universe chose (and applied unless suppressed).
type Decision struct {
	Index int    `json:"index"`
	Time  uint64 `json:"time"`
	Kind  string `json:"kind"`
	What  string `json:"what"`
}

// MaxDecisions bounds the recorded decisions of one universe.
const MaxDecisions = 10_000

type faultEvent struct {
	At   uint64
	Kind string // partition, heal, crash, restart
	A, B []int  // partition: frames from A to B are lost
	Node int
	Seq  int
	Pair int // restart: the Seq of the crash it ends
}

// drawFaults schedules partitions and crashes in [t, t+chaos).
func (u *Universe) drawFaults() {
	u.faults = u.faults[:0]
	r := u.fltRNG
	chaos := u.plan.Chaos
	if chaos == 0 {
		return
	}
	n := len(u.nodes)
	at := func() uint64 { return u.t + r.Uint64()%chaos }
	for k := 0; k < u.plan.Partitions && n > 1; k++ {
		a, b := split(r, n)
		t := at()
		asym := r.Uint64()%3 == 0
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: t, Kind: "partition", A: a, B: b, Seq: u.faultSq})
		if !asym {
			u.faultSq++
			u.faults = append(u.faults, faultEvent{At: t, Kind: "partition", A: b, B: a, Seq: u.faultSq})
		}
		if r.Uint64()%100 >= 15 { // 15%: permanent
			heal := t + 100_000_000 + r.Uint64()%1_900_000_000
			u.faultSq++
			u.faults = append(u.faults, faultEvent{At: heal, Kind: "heal", Seq: u.faultSq})
		}
	}
	for k := 0; k < u.plan.Crashes; k++ {
		node := int(r.Uint64() % uint64(n))
		t := at()
		down := 200_000_000 + r.Uint64()%800_000_000
		if u.nodes[node].done {
			continue // a powered-off node cannot crash (the draws stay aligned)
		}
		u.faultSq++
		crash := u.faultSq
		u.faults = append(u.faults, faultEvent{At: t, Kind: "crash", Node: node, Seq: crash})
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: t + down, Kind: "restart", Node: node, Seq: u.faultSq, Pair: crash})
	}
	if u.spec.Oracles.Liveness > 0 {
		u.faultSq++
		u.faults = append(u.faults, faultEvent{At: u.t + chaos, Kind: "liveness", Seq: u.faultSq})
	}
	sortFaults(u.faults)
}

func sortFaults(f []faultEvent) {
	sort.SliceStable(f, func(i, j int) bool {
		if f[i].At != f[j].At {
			return f[i].At < f[j].At
		}
		return f[i].Seq < f[j].Seq
	})
}

// split draws a non-trivial split of n nodes into two groups.
func split(r *emu.PRNG, n int) (a, b []int) {
	mask := 1 + r.Uint64()%(1<<uint(n)-2)
	for i := 0; i < n; i++ {
		if mask>>uint(i)&1 != 0 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	return a, b
}

// candidate records a fault decision and reports whether to apply it
// (false when shrinking suppressed it).
func (u *Universe) candidate(kind, what string) bool {
	idx := u.nextDecision
	u.nextDecision++
	if u.suppress[idx] {
		return false
	}
	if len(u.decisions) < MaxDecisions {
		u.decisions = append(u.decisions, Decision{Index: idx, Time: u.now(), Kind: kind, What: what})
	}
	return true
}

// applyFaults applies the scheduled faults due before end.
func (u *Universe) applyFaults(end uint64) {
	for len(u.faults) > 0 && u.faults[0].At < end {
		f := u.faults[0]
		u.faults = u.faults[1:]
		switch f.Kind {
		case "partition":
			if u.liveStart == 0 && u.candidate("partition", fmt.Sprintf("frames from %v to %v lost", f.A, f.B)) {
				for _, a := range f.A {
					for _, b := range f.B {
						u.sw.blocked[a][b] = true
					}
				}
			}
		case "heal":
			if u.liveStart == 0 && u.candidate("heal", "partitions healed") {
				u.sw.heal()
			}
		case "crash":
			n := u.nodes[f.Node]
			if !n.down && !n.done && u.liveStart == 0 && u.candidate("crash", fmt.Sprintf("node %d loses power", f.Node)) {
				u.crash(f.Node)
				n.downBy = f.Seq
			}
		case "restart":
			// Only the crash's own restart brings a node back: a restart
			// whose crash was not applied (the node was powered off, down
			// already, suppressed, or in the liveness phase) does nothing.
			if u.restartDue(f) {
				u.restart(f.Node)
			}
		case "liveness":
			if u.liveStart == 0 { // a fork in the liveness phase draws one again
				u.startLiveness()
			}
		}
	}
}

// restartDue reports whether restart event f would bring its node back:
// the node is down, by f's crash.
func (u *Universe) restartDue(f faultEvent) bool {
	n := u.nodes[f.Node]
	return f.Kind == "restart" && n.down && n.downBy == f.Pair
}

// crash powers node i off: unflushed disk writes are lost or torn.
func (u *Universe) crash(i int) {
	n := u.nodes[i]
	if n.b.Virt != nil && n.b.Virt.Blk != nil {
		d := n.b.Virt.Blk
		d.CrashLoseUnflushed(u.fltRNG)
		// The restart boots on the same image with what the crash left
		// stable laid over it: a copy of the whole disk per crash would
		// cost its size in memory.
		spec := *n.spec
		spec.DiskStable = d.Flushed()
		n.spec = &spec
	}
	n.icount += n.b.ICount()
	addJIT(&u.jit, n.b.JITStats())
	n.b = nil
	n.down = true
}

// restart boots node i again, from its (crash-consistent) disk.
func (u *Universe) restart(i int) {
	n := u.nodes[i]
	// A node's spec may be shared with snapshots and with the universes
	// forked from them: the new incarnation gets its own copy.
	spec := *n.spec
	spec.Seed = derive(spec.Seed, 7)
	n.spec = &spec
	if err := u.boot(i, false, nil); err != nil {
		u.fail(&Failure{Kind: "restart", Message: err.Error(), Node: i})
		return
	}
	n.down = false
	n.downBy = 0
	// A fresh incarnation: the time it was down is not the guest's lack of
	// progress.
	u.progressAt = max(u.progressAt, u.t)
	// The new incarnation starts at the universe's time.
	sc := u.plan.Sched
	sc.Seed = derive(n.spec.Seed, streamSched)
	_ = n.b.SetMemoryModel(u.plan.Model)
	_ = n.b.SetSchedule(sc)
	_ = n.b.SetSyncRanges(u.spec.syncRangesOf(i, sc))
	n.b.SkipTo(u.t)
}

// startLiveness ends the chaos phase: heal a quorum, make the other faults
// permanent, and require progress within the liveness budget. The plan
// stays as drawn (the report shows it); its network faults stop because
// the switch asks liveStart.
func (u *Universe) startLiveness() {
	u.liveStart = u.t
	n := len(u.nodes)
	quorum := n/2 + 1
	u.sw.heal()
	for i := quorum; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				u.sw.blocked[i][j] = true
				u.sw.blocked[j][i] = true
			}
		}
	}
	u.progressAt = u.t
}

// diskFaults is the fault model of one node's disk.
type diskFaults struct {
	u    *Universe
	node int
}

func (d *diskFaults) DiskFault(write bool, off, n uint64) blk.Fault {
	u := d.u
	p := &u.plan
	var f blk.Fault
	op := "read"
	if write {
		op = "write"
	}
	if p.DiskErrors > 0 && chance(u.fltRNG, p.DiskErrors) && u.liveStart == 0 &&
		u.candidate("disk", fmt.Sprintf("node %d: %s at %#x fails", d.node, op, off)) {
		f.IOErr = true
	}
	if p.DiskCorrupt > 0 && chance(u.fltRNG, p.DiskCorrupt) && u.liveStart == 0 {
		bit := u.fltRNG.Uint64()
		if u.candidate("disk", fmt.Sprintf("node %d: %s at %#x corrupted", d.node, op, off)) {
			f.Corrupt, f.Bit = true, bit
		}
	}
	return f
}
