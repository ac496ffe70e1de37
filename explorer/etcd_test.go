package explorer

import (
	"strings"
	"testing"
)

// The etcd example (guest-images/examples/etcd): etcd's own server on three
// Linux nodes, a client whose history is checked with porcupine. At CI size:
// two universes of the correct client, and the broken one (serializable
// reads expected to be linearizable) found, replayed and shrunk. README.md
// gives the longer runs.

const etcdLinearizable = "assertion: always: etcd: the history of every key is linearizable"

func TestTheEtcdExampleKeepsItsHistoryLinearizable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd and boots three Linux nodes")
	}
	s := linuxExample(t, "etcd", "spec.yaml")
	res, err := Explore(s, Options{Seed: 1, Universes: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 0 {
		t.Fatalf("failures of the correct client: %v", signatures(res))
	}
	checked := false
	for _, a := range res.Assertions {
		if strings.Contains(a.Message, "history of every key is linearizable") {
			checked = a.Hits > 0 && !a.Failed
		}
	}
	if !checked {
		t.Fatalf("no universe checked its history: assertions %+v", res.Assertions)
	}
}

func TestTheEtcdExampleCatchesAClientThatExpectsSerializableReadsToBeLinearizable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd and boots three Linux nodes")
	}
	s := linuxExample(t, "etcd", "spec-serializable.yaml")
	// README: seed 1 finds it in universe 9.
	res, err := Explore(s, Options{Seed: 1, Universes: 12, Workers: 2, StopOnFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	var r *Report
	for _, f := range res.Failures {
		if f.Signature == etcdLinearizable {
			r = f
		}
	}
	if r == nil {
		t.Fatalf("the stale reads were not caught; failures: %v", signatures(res))
	}
	sh := requireReplaysAndShrinks(t, r, 3)
	t.Logf("caught in universe %d; decisions %d -> %d after %d replays", r.Universe, sh.Before, sh.After, sh.Replays)
}
