// Package workload is the etcd example's client: workers (one per member)
// run puts, gets, deletes and compare-and-swap transactions against the
// cluster, and the client checks what they saw: the history of every key
// is linearizable (check.go, with porcupine), a watch reports every write
// (watch.go), and the members agree on HashKV. Both the example's PID-1
// init (../init) and its ordinary client program (../client) run it.
package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"everett/guest-images/sdk/go/everett"
)

// The workload: workers (one per member, each talking to its member only)
// run puts, gets, deletes and compare-and-swap transactions on a few keys,
// with random pauses, all drawn from the universe's PRNG. Every operation's
// invocation and completion (the guest's monotonic clock, virtual time on
// everett) and its result are recorded; check.go decides whether the
// history is linearizable.

const (
	numKeys   = 3
	opTimeout = 2 * time.Second
	// statusTimeout bounds one Status call of waitForCluster: a member
	// that answers does so in milliseconds.
	statusTimeout = time.Second
	formWait      = 60 * time.Second
	watchWait     = 30 * time.Second
	hashWait      = 5 * time.Second
)

// kind of operation.
type kind int

const (
	opGet kind = iota
	opPut
	opDelete
	opCAS  // put value if the key holds expect (absent: expect "")
	opInit // what the key held before the workload (found, got)
)

func (k kind) String() string { return [...]string{"get", "put", "delete", "cas", "initially"}[k] }

// record is one operation of the history.
type record struct {
	worker    int
	kind      kind
	key       string
	value     string // put, cas: the value written
	expect    string // cas: the value compared
	call, ret int64  // ns since the workload began; ret < 0: no known outcome
	// Results, when known.
	got     string // get: the value read
	found   bool   // get: the key existed
	swapped bool   // cas: the comparison held
	deleted int64  // delete: keys deleted
	rev     int64  // the revision of the response header
	member  uint64 // the member that answered
	err     string
}

func (r *record) String() string {
	if r.kind == opInit {
		v := "absent"
		if r.found {
			v = fmt.Sprintf("%q", r.got)
		}
		return fmt.Sprintf("%s held %s before the workload (revision %d, member %x)", r.key, v, r.rev, r.member)
	}
	s := fmt.Sprintf("worker %d %s %s", r.worker, r.kind, r.key)
	switch r.kind {
	case opPut:
		s += "=" + r.value
	case opCAS:
		s += fmt.Sprintf(" %q->%q", r.expect, r.value)
	}
	end := "never (no known outcome)"
	if r.ret >= 0 {
		end = fmt.Sprintf("%.6f s", float64(r.ret)/1e9)
	}
	s += fmt.Sprintf(" called %.6f s, returned %s", float64(r.call)/1e9, end)
	switch {
	case r.err != "":
		s += ": " + r.err
	case r.kind == opGet && r.found:
		s += fmt.Sprintf(": %q", r.got)
	case r.kind == opGet:
		s += ": absent"
	case r.kind == opCAS:
		s += fmt.Sprintf(": swapped=%v", r.swapped)
	}
	if r.ret >= 0 && r.err == "" {
		s += fmt.Sprintf(" (revision %d, member %x)", r.rev, r.member)
	}
	return s
}

// Config is what the client is told: where the members are and what the
// workload does.
type Config struct {
	// Endpoints are the members' client URLs (http://ADDR:2379), one
	// worker each.
	Endpoints []string
	// Ops is the number of operations of the workload, all workers
	// together.
	Ops int
	// PauseMax bounds the pause before each operation, drawn uniformly
	// below it (0: no pause).
	PauseMax time.Duration
	// Serializable makes reads serializable (the member's local state)
	// while the check still expects linearizable results: the
	// deliberately broken client.
	Serializable bool
	// Say prints one line of the client's report (nil: standard output).
	Say func(format string, args ...any)
	// Drain is called before a failing assertion, so that the lines that
	// explain it reach the console before the run ends (nil: nothing).
	Drain func()
}

// DefaultPauseMax is the pause bound the example has always used.
const DefaultPauseMax = 20 * time.Millisecond

var say = func(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// newClient connects to eps. gRPC's reconnection backoff grows to two
// minutes by default: after a long partition a client would sit out the
// healing, so it is bounded to a second here.
func newClient(eps []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   eps,
		DialTimeout: opTimeout,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: time.Second,
		})},
	})
}

// waitForCluster waits until a majority of the members answer and report
// the same leader (a restarted client's node may find a member cut off for
// good), then reads what every key holds: the workload's starting state.
// Every round asks all members at once, each for at most statusTimeout: a
// member cut off or still starting costs a round that long, not a round
// as long as all of them in turn (with opTimeout each, a round with one
// member cut off and two starting took 6.2 s, and a cluster that had
// elected its leader went unnoticed for longer than the liveness budget).
func waitForCluster(cli *clientv3.Client, eps []string) ([]*record, bool) {
	deadline := time.Now().Add(formWait)
	for time.Now().Before(deadline) {
		leaders := make([]uint64, len(eps))
		var wg sync.WaitGroup
		for i, ep := range eps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
				defer cancel()
				if st, err := cli.Status(ctx, ep); err == nil {
					leaders[i] = st.Leader
				}
			}()
		}
		wg.Wait()
		votes := map[uint64]int{}
		for _, l := range leaders {
			if l != 0 {
				votes[l]++
			}
		}
		for _, leader := range leaders {
			if leader != 0 && 2*votes[leader] > len(eps) {
				// The cluster is available: the client is making
				// progress, even while its reads wait for a member.
				everett.Progress(leader)
				if initial, ok := readInitial(cli, deadline); ok {
					return initial, true
				}
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil, false
}

// readInitial reads every key, linearizably, before the workload begins.
func readInitial(cli *clientv3.Client, deadline time.Time) ([]*record, bool) {
	var out []*record
	for k := 0; k < numKeys; k++ {
		r := &record{kind: opInit, key: fmt.Sprintf("k%d", k), worker: -1, call: -2, ret: -1}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			resp, err := cli.Get(ctx, r.key)
			cancel()
			if err == nil {
				r.rev, r.member = resp.Header.Revision, resp.Header.MemberId
				if len(resp.Kvs) > 0 {
					r.found, r.got = true, string(resp.Kvs[0].Value)
				}
				break
			}
			if time.Now().After(deadline) {
				say("client: reading %s: %v", r.key, err)
				return nil, false
			}
			time.Sleep(100 * time.Millisecond)
		}
		out = append(out, r)
	}
	return out, true
}

// Run waits for the cluster, marks the setup point (the SDK's
// setup_complete), runs the workload and checks its history. It returns
// the exit code: 0 every check passed, 1 a violation, 2 the cluster did
// not form (or cfg is unusable).
func Run(cfg Config) int {
	if cfg.Say != nil {
		say = cfg.Say
	}
	drain := cfg.Drain
	if drain == nil {
		drain = func() {}
	}
	eps := cfg.Endpoints
	if len(eps) == 0 || cfg.Ops < 1 || cfg.PauseMax < 0 {
		say("client: want at least one endpoint, one operation and a pause bound of 0 or more (got %d, %d, %v)", len(eps), cfg.Ops, cfg.PauseMax)
		return 2
	}
	cli, err := newClient(eps)
	if err != nil {
		say("client: %v", err)
		return 2
	}
	defer cli.Close()
	say("client: waiting for the cluster")
	initial, ok := waitForCluster(cli, eps)
	if !ok {
		say("client: the cluster did not form within %v", formWait)
		return 2
	}
	say("client: the cluster formed; %d operations on %d keys by %d workers%s",
		cfg.Ops, numKeys, len(eps), map[bool]string{true: ", reading with serializable consistency"}[cfg.Serializable])
	everett.SetupComplete()

	wctx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	watched := watch(wctx, eps, firstRev(initial)+1)
	seed := everett.Random()
	// Values name this incarnation of the client: a client whose node
	// crashed and restarted must not write what the earlier one wrote.
	inc := fmt.Sprintf("%04x", seed>>48)
	start := time.Now()
	var (
		mu      sync.Mutex
		history = initial
		wg      sync.WaitGroup
		next    int
	)
	for w := range eps {
		wc, err := newClient([]string{eps[w]})
		if err != nil {
			say("client: worker %d: %v", w, err)
			return 2
		}
		defer wc.Close()
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= cfg.Ops {
					return
				}
				if us := cfg.PauseMax.Microseconds(); us > 0 {
					time.Sleep(time.Duration(rng.Int64N(us)) * time.Microsecond)
				}
				r := do(wc, w, i, inc, rng, start, cfg.Serializable)
				mu.Lock()
				history = append(history, r)
				mu.Unlock()
				everett.Progress(uint64(i))
			}
		}()
	}
	wg.Wait()
	done, unknown := 0, 0
	for _, r := range history {
		switch {
		case r.kind == opInit:
		case r.ret < 0:
			unknown++
		case r.err == "":
			done++
		}
	}
	say("client: %d operations completed, %d without a known outcome; checking the history", done, unknown)
	if v := checkHistory(history); v != nil {
		say("client: NOT LINEARIZABLE: %s", v.summary)
		for _, r := range v.ops {
			say("  %s", r)
		}
		drain()
		everett.Always(false, "etcd: the history of every key is linearizable")
		return 1
	}
	everett.Always(true, "etcd: the history of every key is linearizable")
	say("client: the history is linearizable")

	top := maxRev(history)
	if !watched.caughtUp(top, watchWait) {
		say("client: the watch reported revisions up to %d within %v, the writes reached %d", watched.last, watchWait, top)
		drain()
		everett.Always(false, "etcd: the watch reports every write")
		return 1
	}
	if msg := checkWatch(watched, history); msg != "" {
		say("client: WATCH: %s", msg)
		drain()
		everett.Always(false, "etcd: the watch reports every write")
		return 1
	}
	everett.Always(true, "etcd: the watch reports every write")
	say("client: the watch reported every write up to revision %d (%d broken streams resumed)", top, watched.errs)

	msg, n := checkHashes(cli, eps, top)
	if msg != "" {
		say("client: HASH: %s", msg)
		drain()
		everett.Always(false, "etcd: the members agree on HashKV")
		return 1
	}
	everett.Always(true, "etcd: the members agree on HashKV")
	say("client: %d members agree on HashKV at revision %d", n, top)
	return 0
}

// do runs operation i of worker w.
func do(cli *clientv3.Client, w, i int, inc string, rng *rand.Rand, start time.Time, serializable bool) *record {
	r := &record{worker: w, key: fmt.Sprintf("k%d", rng.IntN(numKeys))}
	val := fmt.Sprintf("%s.%d", inc, i)
	switch p := rng.IntN(100); {
	case p < 40:
		r.kind = opGet
	case p < 75:
		r.kind, r.value = opPut, val
	case p < 85:
		r.kind = opDelete
	default:
		r.kind, r.value = opCAS, val
		if rng.IntN(4) > 0 {
			r.expect = fmt.Sprintf("%s.%d", inc, rng.IntN(i+1))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	r.call = time.Since(start).Nanoseconds()
	var err error
	switch r.kind {
	case opGet:
		var opts []clientv3.OpOption
		if serializable {
			opts = append(opts, clientv3.WithSerializable())
		}
		var resp *clientv3.GetResponse
		if resp, err = cli.Get(ctx, r.key, opts...); err == nil {
			r.rev, r.member = resp.Header.Revision, resp.Header.MemberId
			if len(resp.Kvs) > 0 {
				r.found, r.got = true, string(resp.Kvs[0].Value)
			}
		}
	case opPut:
		var resp *clientv3.PutResponse
		if resp, err = cli.Put(ctx, r.key, r.value); err == nil {
			r.rev, r.member = resp.Header.Revision, resp.Header.MemberId
		}
	case opDelete:
		var resp *clientv3.DeleteResponse
		if resp, err = cli.Delete(ctx, r.key); err == nil {
			r.rev, r.member, r.deleted = resp.Header.Revision, resp.Header.MemberId, resp.Deleted
		}
	case opCAS:
		cmp := clientv3.Compare(clientv3.Value(r.key), "=", r.expect)
		if r.expect == "" {
			cmp = clientv3.Compare(clientv3.CreateRevision(r.key), "=", 0) // absent
		}
		var resp *clientv3.TxnResponse
		if resp, err = cli.Txn(ctx).If(cmp).Then(clientv3.OpPut(r.key, r.value)).Commit(); err == nil {
			r.rev, r.member, r.swapped = resp.Header.Revision, resp.Header.MemberId, resp.Succeeded
		}
	}
	r.ret = time.Since(start).Nanoseconds()
	if err != nil {
		// A write that failed may still have been applied, and a read
		// that failed says nothing: neither has a known outcome.
		r.err = err.Error()
		r.ret = -1
	}
	return r
}
