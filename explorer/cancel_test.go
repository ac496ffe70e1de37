package explorer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"everett/internal/testelf"
)

// asmSpec is the spec of one bare-metal program of the given assembly
// lines (at 0x8000_0000, with tohost at 0x8000_1000) on one hart, with
// budgets no test waits for: a universe that does not end by itself runs
// for hours.
func asmSpec(t *testing.T, lines ...string) *Spec {
	t.Helper()
	const base = 0x8000_0000
	code, err := testelf.Assemble(base, lines...)
	if err != nil {
		t.Fatal(err)
	}
	b := testelf.Build(base, code, 0x2000,
		testelf.Symbol{Name: "tohost", Value: base + 0x1000},
		testelf.Symbol{Name: "fromhost", Value: base + 0x1040})
	p := filepath.Join(t.TempDir(), "prog.elf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ELFSpec(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Budgets.Time = Duration(time.Hour) // 3.6e12 instructions
	s.Budgets.Instructions = 1 << 60
	s.Budgets.Universes = 0
	return s
}

// loopForever never ends: at about 10^9 instructions a second, an hour of
// virtual time.
var loopForever = []string{"j 80000000"}

// loopOrFail draws a random number from the SDK: on odd draws it loops
// forever, on even ones it exits through the SDK with code 1 + (r>>1 & 3),
// a failure of one of four signatures.
var loopOrFail = []string{
	"addi a0,zero,5", // 80000000: random
	"hypercall",
	"andi a1,a0,1",
	"bne a1,zero,80000028",
	"srli a1,a0,1", // 80000010
	"andi a1,a1,3",
	"addi a1,a1,1",
	"addi a0,zero,8", // exit
	"hypercall",      // 80000020
	"j 80000024",
	"j 80000028", // 80000028: forever
}

func TestTheWallTimeBudgetCancelsUniversesThatWouldRunForHours(t *testing.T) {
	s := asmSpec(t, loopForever...)
	res, err := Explore(s, Options{Seed: 1, Wall: time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Every universe of the first batch would run for an hour of virtual
	// time: that the search returned at all says the two in flight were
	// stopped; none of them counts, and none of their coverage does.
	if res.Ended != "wall" || res.Universes != 0 || res.Cancelled != batchSize || res.ICount != 0 || res.Coverage != 0 || len(res.Failures) != 0 {
		t.Fatalf("ended by %q after %v: %d universes, %d cancelled, %d instructions, %d edges, failures %v; want the wall budget, 0 universes and the first batch of %d cancelled",
			res.Ended, res.Elapsed, res.Universes, res.Cancelled, res.ICount, res.Coverage, signatures(res), batchSize)
	}
	t.Logf("returned after %v", res.Elapsed)
}

func TestTheWallTimeBudgetCancelsABootThatWouldRunForHours(t *testing.T) {
	s := asmSpec(t, loopForever...)
	if err := s.SetSetupPoint(SetupSDK); err != nil { // never reached
		t.Fatal(err)
	}
	res, err := Explore(s, Options{Seed: 1, Wall: time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ended != "wall" || res.Universes != 0 || res.Cancelled != 0 || res.Boot.Snap != nil {
		t.Fatalf("ended by %q after %v: %d universes, %d cancelled, boot %s; want the wall budget spent in the boot",
			res.Ended, res.Elapsed, res.Universes, res.Cancelled, res.Boot)
	}
}

func TestUniversesThatEndUnderAWallTimeBudgetAreWhatTheirSeedMakesThem(t *testing.T) {
	s := asmSpec(t, loopOrFail...)
	// Seed 7: universes 0 and 1 exit at once (codes 4 and 2), universe 2
	// loops; with one worker it holds the worker until the budget is
	// spent, with two the other worker goes on past it.
	found := map[int]string{}
	for _, w := range []int{1, 2} {
		res, err := Explore(s, Options{Seed: 7, Wall: 2 * time.Second, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if res.Ended != "wall" || res.Cancelled == 0 || (res.Universes+res.Cancelled)%batchSize != 0 {
			t.Fatalf("%d workers: ended by %q: %d universes, %d cancelled; want the wall budget with whole batches planned, some cancelled",
				w, res.Ended, res.Universes, res.Cancelled)
		}
		if len(res.Failures) == 0 {
			t.Fatalf("%d workers: no failure in %d universes: universes 0 and 1 of seed 7 exit at once", w, res.Universes)
		}
		for _, r := range res.Failures {
			got := fmt.Sprintf("%s at %d (%s)", r.Signature, r.ICount, r.StateHash)
			if prev, ok := found[r.Universe]; ok && prev != got {
				t.Fatalf("universe %d: %s with %d workers, %s before", r.Universe, got, w, prev)
			}
			found[r.Universe] = got
			rep, err := Replay(r, ReplayOptions{})
			if err != nil || !rep.Reproduced || rep.StateHash != r.StateHash {
				t.Fatalf("universe %d (%s) does not replay: %+v, %v", r.Universe, got, rep, err)
			}
		}
		if ff := res.FirstFailure; ff == nil || ff.Universe != res.Failures[0].Universe || ff.Signature != res.Failures[0].Signature ||
			ff.Instructions != res.Failures[0].ICount || ff.Seconds <= 0 || ff.Seconds > res.Elapsed.Seconds() {
			t.Fatalf("first failure %+v; failures %v, elapsed %v", ff, signatures(res), res.Elapsed)
		}
		t.Logf("%d workers: %d universes, %d cancelled, failures %v", w, res.Universes, res.Cancelled, signatures(res))
	}
}

func TestStopOnFailureEndsAtTheLowestFailingUniverseWhateverTheWorkers(t *testing.T) {
	s := elfSpec(t, "racy", 2)
	// The independent route: without stopping, the first failure found is
	// the lowest failing universe (failures are merged in universe order).
	full, err := Explore(s, Options{Seed: 42, Universes: 60, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Failures) == 0 {
		t.Fatal("no failure in 60 universes of seed 42")
	}
	first := full.Failures[0]
	var want string
	for _, w := range []int{1, 2, 3} {
		res, err := Explore(s, Options{Seed: 42, Universes: 60, Workers: w, StopOnFailure: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Ended != "failure" || len(res.Failures) != 1 || res.Universes != first.Universe+1 {
			t.Fatalf("%d workers: ended by %q after %d universes, failures %v; want the failure of universe %d and %d universes",
				w, res.Ended, res.Universes, signatures(res), first.Universe, first.Universe+1)
		}
		r, ff := res.Failures[0], res.FirstFailure
		if r.Universe != first.Universe || r.StateHash != first.StateHash || ff == nil || ff.Universe != first.Universe ||
			ff.Instructions != first.ICount || ff.VirtualTimeNs != first.Time || ff.Signature != first.Signature {
			t.Fatalf("%d workers: %s at %d (%s), first failure %+v; want %s of universe %d at %d (%s)",
				w, r.Signature, r.ICount, r.StateHash, ff, first.Signature, first.Universe, first.ICount, first.StateHash)
		}
		got := fmt.Sprintf("universes %d cancelled %d coverage %d pairs %d corpus %d icount %d",
			res.Universes, res.Cancelled, res.Coverage, res.Pairs, res.Corpus, res.ICount)
		if want == "" {
			want = got
		} else if got != want {
			t.Fatalf("with %d workers: %s; with 1: %s", w, got, want)
		}
	}
}
