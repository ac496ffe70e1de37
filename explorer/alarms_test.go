package explorer

import (
	"strings"
	"testing"
	"time"

	"everett/emu"
)

// No false alarms: the oracles judge the guest, never the state the fault
// model left the nodes in (powered off, down waiting for a restart). Each
// test here is a case where an oracle fired on a correct guest, or could.
// They drive the run loop of a universe of the correct two-hart program
// (testdata/atomic) and set up the nodes' state and the fault schedule by
// hand, so that every case is exact and needs no kernel; the Linux versions
// are in control_test.go.

// calmUniverse is a universe of testdata/atomic with a hang oracle and the
// given number of nodes; it has not run.
func calmUniverse(t *testing.T, nodes int, hang time.Duration) *Universe {
	t.Helper()
	s := elfSpec(t, "atomic", 2)
	s.Nodes[0].Count = nodes
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	s.Oracles.Hang = Duration(hang)
	u, err := newUniverse(s, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// schedule replaces the universe's fault schedule with a crash of node at
// at and its restart after down.
func schedule(u *Universe, node int, at, down uint64) {
	u.faults = []faultEvent{
		{At: at, Kind: "crash", Node: node, Seq: 1001},
		{At: at + down, Kind: "restart", Node: node, Seq: 1002, Pair: 1001},
	}
	u.faultSq = 1002
}

func TestAUniverseWhoseNodesAllPoweredOffEndsThoughACrashAndRestartAreStillDue(t *testing.T) {
	// A false alarm once seen: the node had powered off, the plan held a
	// crash and its restart due later, the universe kept running with no
	// node alive, and the hang oracle fired.
	u := calmUniverse(t, 1, 3*time.Second)
	u.nodes[0].done = true // powered off
	schedule(u, 0, 500_000_000, 400_000_000)
	u.runTo(0)
	if u.failure != nil {
		t.Fatalf("failure %q in a universe whose only node powered off", u.failure.Signature())
	}
	if !u.finished || u.reason != "every node powered off" {
		t.Fatalf("finished %v (%q), want ended because every node powered off", u.finished, u.reason)
	}
	if u.t > 10*u.window {
		t.Fatalf("the universe ran %d ns past the power-off", u.t)
	}
	for _, d := range u.decisions {
		if d.Kind == "crash" {
			t.Fatalf("decided %q on a powered-off node", d.What)
		}
	}
}

func TestACrashOfAPoweredOffNodeIsNotScheduledAndTheDrawsStayAligned(t *testing.T) {
	u := calmUniverse(t, 2, 0)
	u.plan.Crashes, u.plan.Chaos = 8, 2_000_000_000
	draw := func(done bool) ([]faultEvent, string) {
		u.nodes[1].done = done
		u.fltRNG.Reseed(7)
		u.drawFaults()
		u.fltRNG.Uint64()
		return append([]faultEvent(nil), u.faults...), strings.Repeat("x", int(u.fltRNG.Uint64()%7))
	}
	all, afterAll := draw(false)
	some, afterSome := draw(true)
	for _, f := range some {
		if f.Node == 1 {
			t.Fatalf("a %s of powered-off node 1 was scheduled", f.Kind)
		}
	}
	var want []uint64
	for _, f := range all {
		if f.Node == 0 {
			want = append(want, f.At)
		}
	}
	var got []uint64
	for _, f := range some {
		got = append(got, f.At)
	}
	if len(got) == 0 || len(got) != len(want) || afterAll != afterSome {
		t.Fatalf("node 0's faults at %v with node 1 powered off, %v without: the draws moved", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("node 0's faults at %v with node 1 powered off, %v without", got, want)
		}
	}
}

func TestARestartOfANodeThatIsNotDownByItsCrashDoesNothing(t *testing.T) {
	u := calmUniverse(t, 1, 0)
	b := u.nodes[0].b
	// A restart whose crash never happened (suppressed, or skipped).
	u.faults = []faultEvent{{At: 1000, Kind: "restart", Node: 0, Seq: 5, Pair: 4}}
	u.applyFaults(2000)
	if u.nodes[0].b != b || u.nodes[0].down {
		t.Fatal("a restart rebooted a node that was running")
	}
	// A node down by one crash comes back with that crash's restart only.
	u.faults = []faultEvent{
		{At: 1000, Kind: "crash", Node: 0, Seq: 10},
		{At: 2000, Kind: "crash", Node: 0, Seq: 11}, // down already: not applied
		{At: 3000, Kind: "restart", Node: 0, Seq: 12, Pair: 11},
		{At: 4000, Kind: "restart", Node: 0, Seq: 13, Pair: 10},
	}
	u.applyFaults(3500)
	if !u.nodes[0].down {
		t.Fatal("the restart of a crash that was not applied brought the node back")
	}
	if !u.anyRestartPending() {
		t.Fatal("the node's own restart is not seen as pending")
	}
	u.applyFaults(4500)
	if u.nodes[0].down || u.nodes[0].b == nil {
		t.Fatal("the crash's own restart did not bring the node back")
	}
}

func TestTheHangOracleDoesNotCountTheTimeEveryNodeIsDown(t *testing.T) {
	// The only node loses power for 2.5 s; the hang budget is 1 s. The
	// guest cannot progress while it is off: that is the fault model's
	// doing, not a hang. After the restart the program runs to its end.
	u := calmUniverse(t, 1, time.Second)
	schedule(u, 0, 100_000, 2_500_000_000)
	u.runTo(0)
	if u.failure != nil {
		t.Fatalf("failure %q while the only node was down", u.failure.Signature())
	}
	if !u.finished || u.reason != "the program exited 0" {
		t.Fatalf("finished %v (%q), want the restarted program's exit", u.finished, u.reason)
	}
	if u.t < 2_500_000_000 {
		t.Fatalf("ended at %d ns, before the restart", u.t)
	}
}

func TestTheHangOracleStillFiresAndSaysItsBudgetInUnits(t *testing.T) {
	u := calmUniverse(t, 1, 3*time.Second)
	u.t = 3_000_000_001
	u.checkHang()
	if u.failure == nil || u.failure.Signature() != "hang: no progress for 3s of virtual time" {
		t.Fatalf("failure %v, want a hang naming 3s", u.failure)
	}
}

func TestLivenessRequiresNothingOfAQuorumThatPoweredOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		done []bool
		fail bool
	}{
		{"a quorum that all powered off", []bool{true, true, false}, false},
		{"a quorum with a node still running", []bool{true, false, true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := calmUniverse(t, 3, 0)
			u.spec.Oracles.Liveness = Duration(time.Second)
			for i, d := range tc.done {
				u.nodes[i].done = d
			}
			u.liveStart, u.progressAt = 5_000_000_000, 5_000_000_000
			u.t = 6_000_000_001
			u.checkHang()
			if failed := u.failure != nil; failed != tc.fail {
				t.Fatalf("liveness failure %v, want %v", u.failure, tc.fail)
			}
		})
	}
}

func TestAPowerOffIsProgress(t *testing.T) {
	// Three nodes, hang budget 1 s: node 1 powers off at 2 s, after a
	// silent second. The hang clock restarts there.
	u := calmUniverse(t, 3, time.Second)
	u.t = 2_000_000_000
	u.progressAt = 1_500_000_000
	for _, n := range u.nodes {
		n.b.SkipTo(u.t)
	}
	u.nodes[1].b.PowerOff(0)
	u.nodeStopped(u.nodes[1], emu.StopPowerOff)
	if u.progressAt != u.t {
		t.Fatalf("progress at %d after a power-off at %d", u.progressAt, u.t)
	}
}

func TestAWallTimeBudgetAloneRunsUntilTheTimeIsSpent(t *testing.T) {
	s := elfSpec(t, "atomic", 2)
	// No universe budget in the spec or the options: the wall time ends
	// the search, not a default cap.
	s.Budgets.Universes = 0
	res, err := Explore(s, Options{Seed: 1, Wall: 2 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ended != "wall" || res.Limit != "2s" || res.Elapsed < 2*time.Second {
		t.Fatalf("ended by %q (%s) after %v and %d universes, want the 2s wall budget", res.Ended, res.Limit, res.Elapsed, res.Universes)
	}
	t.Logf("%d universes in %v", res.Universes, res.Elapsed)
	if res.Universes <= defaultUniverses {
		t.Logf("only %d universes: this host is too slow to show that there is no cap of %d", res.Universes, defaultUniverses)
	}
	// With a universe budget as well, whichever comes first ends it.
	res, err = Explore(s, Options{Seed: 1, Universes: 16, Wall: time.Hour, Workers: 2})
	if err != nil || res.Ended != "universes" || res.Limit != "16" || res.Universes != 16 {
		t.Fatalf("ended by %q (%s) after %d universes (%v), want the budget of 16", res.Ended, res.Limit, res.Universes, err)
	}
}

func TestAForkInTheLivenessPhaseDoesNotStartItAgain(t *testing.T) {
	u := calmUniverse(t, 3, 0)
	u.spec.Oracles.Liveness = Duration(time.Second)
	u.t = 2_000_000_000
	u.faults = []faultEvent{{At: 2_000_000_000, Kind: "liveness", Seq: 1}}
	u.applyFaults(2_000_000_001)
	if u.liveStart != 2_000_000_000 {
		t.Fatalf("liveness started at %d", u.liveStart)
	}
	// A fork reseeds and draws the rest of a chaos phase, liveness event
	// included; the phase that began stays the one that began.
	u.t, u.progressAt = 4_000_000_000, 2_000_000_000
	u.faults = []faultEvent{{At: 4_000_000_000, Kind: "liveness", Seq: 2}}
	u.applyFaults(4_000_000_001)
	if u.liveStart != 2_000_000_000 || u.progressAt != 2_000_000_000 {
		t.Fatalf("a second liveness event moved the phase to %d (progress at %d)", u.liveStart, u.progressAt)
	}
	u.checkHang()
	if u.failure == nil || u.failure.Kind != "liveness" {
		t.Fatalf("no progress 2 s into a 1 s liveness budget: %v", u.failure)
	}
}

func TestTheLivenessPhaseStopsNetworkFaultsButTheReportKeepsThePlan(t *testing.T) {
	u := calmUniverse(t, 3, 0)
	u.spec.Oracles.Liveness = Duration(time.Second)
	u.plan.Drop = 1 // every frame of the chaos phase is lost
	frame := make([]byte, 64)
	u.sw.forward(0, 1, frame, u.t)
	if u.sw.Dropped != 1 {
		t.Fatalf("chaos phase: %d frames dropped, want 1", u.sw.Dropped)
	}
	u.t = 2_000_000_000
	u.faults = []faultEvent{{At: 2_000_000_000, Kind: "liveness", Seq: 1}}
	u.applyFaults(2_000_000_001)
	u.sw.forward(0, 1, frame, u.t) // nodes 0 and 1 form the healed quorum
	if u.sw.Dropped != 1 {
		t.Fatalf("liveness phase: %d frames dropped, want still 1", u.sw.Dropped)
	}
	u.failure = &Failure{Kind: "liveness"}
	if r := newReport(u.spec, 1, 0, u); r.Plan.Drop != 1 {
		t.Fatalf("the report's plan says drop %v, want the 1 the chaos phase ran with", r.Plan.Drop)
	}
}
