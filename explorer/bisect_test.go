package explorer

import (
	"testing"

	"everett/emu"
)

// raceReport explores the racy program and returns its failure's report.
func raceReport(t *testing.T) *Report {
	t.Helper()
	s := elfSpec(t, "racy", 2)
	res, err := Explore(s, Options{Seed: 1, Universes: 200, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) == 0 {
		t.Fatal("no failure to bisect")
	}
	return res.Failures[0]
}

func TestBisectNamesACountWhereReplayingToNMinus1IsFalseAndToNTrue(t *testing.T) {
	r := raceReport(t)
	e, err := emu.ParseELF(r.Spec.Boards[0].ELF.Data)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"failure", "mem32:counter!=0", "mem32:counter==2", "pc:hart_main", "reg:1:x10==1", "console:/never printed/"} {
		t.Run(text, func(t *testing.T) {
			var p *Predicate
			if text != "failure" {
				if p, err = ParsePredicate(text, e.Symbol); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Bisect(r, BisectOptions{Predicate: p})
			if err != nil {
				t.Fatal(err)
			}
			if text == "console:/never printed/" {
				if res.Found {
					t.Fatal("found a predicate that never holds")
				}
				return
			}
			if !res.Found {
				t.Fatal("not found")
			}
			if res.At.ICount != res.First {
				t.Fatalf("the traced instruction is %d, the answer %d", res.At.ICount, res.First)
			}
			// Check by hand: replay to N-1 and to N.
			for _, c := range []struct {
				n    uint64
				want bool
			}{{res.First - 1, false}, {res.First, true}} {
				rp, err := newReplayer(r, nil)
				if err != nil {
					t.Fatal(err)
				}
				pp := p
				if pp == nil {
					pp = &Predicate{kind: "failure"}
				}
				rp.advanceExact(c.n)
				if got := pp.holds(rp.u, r.Signature); got != c.want {
					t.Fatalf("at %d the predicate is %v, want %v", c.n, got, c.want)
				}
			}
		})
	}
}

func TestShrinkKeepsTheFailureAndDropsDecisions(t *testing.T) {
	r := raceReport(t)
	// Make decisions to drop: the same failure with synthetic decisions
	// recorded cannot be made without a cluster, so shrink a report whose
	// failure needs none and check that it reproduces after shrinking.
	res, err := Shrink(r, 20)
	if err != nil {
		t.Fatal(err)
	}
	if res.After > res.Before {
		t.Fatalf("shrinking grew the decisions: %d -> %d", res.Before, res.After)
	}
	got, err := Replay(res.Report, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reproduced {
		t.Fatal("the shrunk report does not replay exactly")
	}
}

func TestDivergenceFindsTheFirstDifferingState(t *testing.T) {
	r := raceReport(t)
	d, err := Diverge(r, r.Path[len(r.Path)-1].Seed+1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Components) == 0 {
		t.Fatal("no differing component named")
	}
	// Just before the first difference, the runs agree.
	if d.First > d.From {
		a, _ := newReplayer(r, nil)
		a.advanceExact(d.First - 1)
		b, _ := newReplayer(r, nil)
		b.u.forkAtTime0(r.Path[len(r.Path)-1].Seed + 1)
		b.advanceExact(d.First - 1)
		if len(r.Path) == 1 {
			if parts, _ := compare(a.u, b.u); len(parts) != 0 {
				t.Fatalf("the runs already differ at %d: %v", d.First-1, parts)
			}
		}
	}
}
