package explorer

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"everett/internal/guestimg"
)

// Boot once, explore after: root universes start from the boot snapshot,
// each with its own seed and its own seed's plan, and everything that
// follows a fork path (replay, shrinking, sweeps) agrees with them.

func setupSpec(t *testing.T, at string) *Spec {
	t.Helper()
	s := elfSpec(t, "setup", 2)
	s.Setup.At = at
	return s
}

// describe lists what a search found, for comparing searches.
func describe(res *Result) string {
	out := []string{fmt.Sprintf("universes %d coverage %d corpus %d icount %d", res.Universes, res.Coverage, res.Corpus, res.ICount)}
	for _, f := range res.Failures {
		out = append(out, fmt.Sprintf("%s universe %d %v %d %s", f.Signature, f.Universe, f.Path, f.ICount, f.StateHash))
	}
	return strings.Join(out, "\n")
}

func TestRootUniversesStartFromTheBootSnapshotAndTheirFailuresReplay(t *testing.T) {
	s := setupSpec(t, SetupSDK)
	res, err := Explore(s, Options{Seed: 1, Universes: 48, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Boot
	if b == nil || b.Snap == nil {
		t.Fatalf("no boot snapshot: %v", b)
	}
	if !b.Snap.setupDone || b.Time <= b.Snap.setupAt || b.Time-b.Snap.setupAt > 1_000_000 {
		t.Fatalf("boot snapshot at %d ns, setup_complete at %d ns: want the first window boundary after it", b.Time, b.Snap.setupAt)
	}
	if len(res.Failures) == 0 {
		t.Fatal("the lost update after set-up was not found in 48 universes")
	}
	for _, r := range res.Failures {
		if len(r.Path) < 2 || r.Path[0] != (Fork{At: 0, Seed: 0, Plan: PlanBoot}) || r.Path[1].At != b.Time || r.Path[1].Plan != PlanSeed {
			t.Fatalf("fork path %v: want [{0 0 boot} {%d <seed> seed} ...]", r.Path, b.Time)
		}
		if len(r.Path) == 2 && r.Plan != drawPlan(s, r.Path[1].Seed) {
			t.Fatalf("root universe of seed %d has plan %+v, want its seed's %+v", r.Path[1].Seed, r.Plan, drawPlan(s, r.Path[1].Seed))
		}
		got, err := Replay(r, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Reproduced {
			t.Fatalf("fork path %v: replay %v at %d (%s); report %s at %d (%s)", r.Path,
				got.Failure, got.ICount, got.StateHash, r.Signature, r.ICount, r.StateHash)
		}
	}
	// Bisection and divergence follow the same path: the first failing
	// instruction comes after the boot, and a run forked with another seed
	// departs from the boot snapshot.
	r := res.Failures[0]
	t.Logf("first failure: universe %d, fork path %v", r.Universe, r.Path)
	bi, err := Bisect(r, BisectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bi.Found || bi.First <= b.ICount || bi.First > r.ICount {
		t.Fatalf("bisect: found %v at %d; boot ends at %d, the failure at %d", bi.Found, bi.First, b.ICount, r.ICount)
	}
	if len(r.Path) == 2 {
		d, err := Diverge(r, r.Path[1].Seed+1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.From != b.ICount {
			t.Fatalf("diverge starts at %d instructions, the boot snapshot is at %d", d.From, b.ICount)
		}
	}
	one, err := Explore(s, Options{Seed: 1, Universes: 48, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if describe(one) != describe(res) {
		t.Fatalf("with 1 worker:\n%s\nwith 2:\n%s", describe(one), describe(res))
	}
}

func TestTheBootRunsTheFixedScheduleUnlessPerturbed(t *testing.T) {
	s := setupSpec(t, SetupSDK)
	plain, err := BootOnce(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Snap == nil || plain.Snap.plan != bootPlan(s) || len(plain.Snap.decisions) != 0 {
		t.Fatalf("plain boot: %v, plan %+v", plain, plain.Snap.plan)
	}
	s.Setup.Seed = 7
	again, err := BootOnce(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Time != plain.Time || again.ICount != plain.ICount {
		t.Fatalf("a plain boot changed with the boot seed: %d ns %d insns, then %d ns %d insns", plain.Time, plain.ICount, again.Time, again.ICount)
	}
	s.Setup.Perturb = true
	pert, err := BootOnce(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pert.Snap == nil || pert.Snap.plan != drawPlan(s, 7) || !reflect.DeepEqual(pert.Snap.Path, []Fork{{Seed: 7}}) {
		t.Fatalf("perturbed boot: %v, plan %+v, path %v; want seed 7's plan", pert, pert.Snap.plan, pert.Snap.Path)
	}
	res, err := Explore(s, Options{Seed: 3, Universes: 24, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) == 0 {
		t.Fatal("no failure after a perturbed boot in 24 universes")
	}
	for _, r := range res.Failures {
		if r.Path[0] != (Fork{Seed: 7}) {
			t.Fatalf("fork path %v: want a boot that is the root of seed 7 with its own plan", r.Path)
		}
		got, err := Replay(r, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Reproduced {
			t.Fatalf("perturbed boot, fork path %v: the failure does not replay", r.Path)
		}
	}
}

func TestASetupPointThatIsNeverReachedBootsEveryUniverse(t *testing.T) {
	// The program never enters user mode: "init" never comes.
	s := setupSpec(t, SetupInit)
	res, err := Explore(s, Options{Seed: 1, Universes: 16, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Boot.Snap != nil || !strings.Contains(res.Boot.String(), "not reached") {
		t.Fatalf("boot: %v", res.Boot)
	}
	off := setupSpec(t, SetupOff)
	want, err := Explore(off, Options{Seed: 1, Universes: 16, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if describe(res) != describe(want) {
		t.Fatalf("unreached setup point:\n%s\nsetup off:\n%s", describe(res), describe(want))
	}
}

func TestASweepFromTheBootSnapshotGivesEachSeedItsOwnOutcome(t *testing.T) {
	s := setupSpec(t, SetupSDK)
	sw, err := RunSweep(s, SweepOptions{Seeds: SeedRange{From: 1, To: 8}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	for _, o := range sw.Outcomes {
		alone, err := RunSeed(s, o.Seed) // boots by itself
		if err != nil {
			t.Fatal(err)
		}
		if alone.Outcome != o.Outcome || alone.StateHash != o.StateHash || alone.ICount != o.Instructions {
			t.Fatalf("seed %d: in the sweep %s %s %d, alone %s %s %d", o.Seed, o.Outcome, o.StateHash, o.Instructions, alone.Outcome, alone.StateHash, alone.ICount)
		}
		if alone.Report != nil {
			fails++
			if got, err := Replay(alone.Report, ReplayOptions{}); err != nil || !got.Reproduced {
				t.Fatalf("seed %d: the sweep's report does not replay (%v)", o.Seed, err)
			}
		}
	}
	t.Logf("%d of %d seeds fail", fails, len(sw.Outcomes))
}

func TestALinuxSearchBootsOnceToInitAndItsReportsReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("boots Linux")
	}
	im := guestimg.Linux(t)
	// The smoke init's marker, as a failure pattern: every universe "fails"
	// once init has done its work, so there is a report to replay.
	y := fmt.Sprintf("nodes: [{kernel: %s, initrd: %s, disk: %s, harts: 2}]\noracles: {console: ['EVERETT-SMOKE-OK']}\n",
		im.Kernel, im.Initrd, im.Disk)
	s, err := ParseSpec([]byte(y), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s.Setup.At != SetupInit {
		t.Fatalf("a Linux spec's setup point defaults to %q, want init", s.Setup.At)
	}
	res, err := Explore(s, Options{Seed: 1, Universes: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Boot
	if b.Snap == nil {
		t.Fatalf("boot: %v", b)
	}
	if tail := string(b.Snap.nodes[0].tail); !strings.Contains(tail, "Run /init as init process") || strings.Contains(tail, "EVERETT-SMOKE-OK") {
		t.Fatalf("the boot snapshot is not at the start of init; console ends:\n%s", tail)
	}
	if len(res.Failures) != 1 {
		t.Fatalf("%d failures, want the marker once", len(res.Failures))
	}
	r := res.Failures[0]
	if len(r.Path) != 2 || r.Path[0].Plan != PlanBoot || r.Path[1].At != b.Time {
		t.Fatalf("fork path %v, want [{0 0 boot} {%d <seed> seed}]", r.Path, b.Time)
	}
	got, err := Replay(r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reproduced {
		t.Fatalf("replay %v at %d (%s); report %s at %d (%s)", got.Failure, got.ICount, got.StateHash, r.Signature, r.ICount, r.StateHash)
	}
	one, err := Explore(s, Options{Seed: 1, Universes: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if describe(one) != describe(res) {
		t.Fatalf("with 1 worker:\n%s\nwith 2:\n%s", describe(one), describe(res))
	}
}
