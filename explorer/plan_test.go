package explorer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"everett/emu/board"
)

var updatePlans = flag.Bool("update-plans", false, "rewrite testdata/plans.golden")

// planSpecs are specs whose plans the golden file pins: a bare-metal
// program on two harts, and a cluster of three Linux nodes with disks, a
// workload and a drawn memory model (every draw of drawPlan taken).
func planSpecs(t *testing.T) map[string]*Spec {
	bare := elfSpec(t, "racy", 2)
	cluster := &Spec{Name: "cluster", MemoryModel: "swarm"}
	cluster.Network.LatencyMin = Duration(50 * time.Microsecond)
	cluster.Network.LatencyMax = Duration(2 * time.Millisecond)
	cluster.Faults.Chaos = Duration(10 * time.Second)
	cluster.Budgets.Instructions = 50_000_000_000
	for range 3 {
		cluster.nodes = append(cluster.nodes, &board.Spec{Board: board.BoardVirt, Harts: 2, Disk: &board.Image{}})
	}
	cluster.workload = []workloadKind{workloadTasks, workloadServices, workloadNone}
	return map[string]*Spec{"bare": bare, "cluster": cluster}
}

// TestPlansDrawnFromSeedsStayWhatTheyWere pins the plans drawn for a few
// seeds: a change to the order or the choices of drawPlan's draws changes
// every universe a seed names (and every report's plan), so it must be
// deliberate (go test -run PlansDrawn -update-plans, and say so).
func TestPlansDrawnFromSeedsStayWhatTheyWere(t *testing.T) {
	var b strings.Builder
	specs := planSpecs(t)
	for _, name := range []string{"bare", "cluster"} {
		for _, seed := range []uint64{0, 1, 2, 3, 42, 1000, 0xdeadbeef, 1<<64 - 1} {
			fmt.Fprintf(&b, "%s seed %d: %+v\n", name, seed, drawPlan(specs[name], seed))
		}
	}
	path := filepath.Join("testdata", "plans.golden")
	if *updatePlans {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(b.String(), "\n")
	for i, w := range strings.Split(string(want), "\n") {
		if i >= len(got) || got[i] != w {
			g := ""
			if i < len(got) {
				g = got[i]
			}
			t.Fatalf("%s line %d: the plan drawn is\n  %s\nwant\n  %s", path, i+1, g, w)
		}
	}
}

func TestPlanDiffNamesTheFirstFieldThatDiffers(t *testing.T) {
	a := drawPlan(planSpecs(t)["cluster"], 7)
	b := a
	b.Sched.YieldMax++
	b.Kills++
	field, av, bv := planDiff(a, b)
	if field != "Sched.YieldMax" || av != fmt.Sprint(a.Sched.YieldMax) || bv != fmt.Sprint(b.Sched.YieldMax) {
		t.Fatalf("planDiff: %s %v %v", field, av, bv)
	}
}
