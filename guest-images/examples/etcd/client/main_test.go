package main

import (
	"reflect"
	"testing"
	"time"
)

func TestTheEndpointsDefaultToEveryPeerOnPort2379(t *testing.T) {
	cfg, err := config("", "10.0.0.1,10.0.0.2,10.0.0.3", 120, 20*time.Millisecond, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://10.0.0.3:2379"}
	if !reflect.DeepEqual(cfg.Endpoints, want) {
		t.Fatalf("endpoints %v, want %v", cfg.Endpoints, want)
	}
}

func TestExplicitEndpointsWinOverThePeers(t *testing.T) {
	cfg, err := config("http://a:1,http://b:2", "10.0.0.1", 5, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Endpoints, []string{"http://a:1", "http://b:2"}) || cfg.Ops != 5 || !cfg.Serializable {
		t.Fatalf("config %+v", cfg)
	}
}

func TestWrongKnobsAreErrorsNamingTheKnob(t *testing.T) {
	for _, c := range []struct {
		eps, peers string
		ops        int
		pause      time.Duration
		want       string
	}{
		{"", "", 120, 0, "no -endpoints and no EVERETT_PEERS: where is the cluster?"},
		{"10.0.0.1:2379", "", 120, 0, `endpoint "10.0.0.1:2379": want http://HOST:PORT`},
		{"", "10.0.0.1", 0, 0, "-ops=0: want 1..10000"},
		{"", "10.0.0.1", 120, -time.Second, "-pause-max=-1s: want 0 or more"},
	} {
		_, err := config(c.eps, c.peers, c.ops, c.pause, false)
		if err == nil || err.Error() != c.want {
			t.Errorf("config(%q, %q, %d, %v): error %v, want %q", c.eps, c.peers, c.ops, c.pause, err, c.want)
		}
	}
}

func TestABadFlagExitsWithCode2(t *testing.T) {
	if code := run([]string{"-ops", "many"}, "10.0.0.1"); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
}
