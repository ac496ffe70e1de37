package workload

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"everett/guest-images/sdk/go/everett"
)

// A watch on every key of the workload, from the revision the workload
// starts at, must report every write exactly once, in revision order, with
// what was written: no gap, no reordering, no duplicate, no value nobody
// wrote. The watch resumes from the revision after its last event when its
// stream breaks (a partition, a member down), as etcd's clients do.

type event struct {
	rev   int64
	key   string
	value string
	del   bool
}

type watchLog struct {
	mu     sync.Mutex
	events []event
	last   int64 // the revision of the last event
	errs   int   // streams that ended in an error
}

// watch follows the keys from revision from on, until ctx ends. Each
// stream goes to one member, the next one in turn after a stream ends: a
// member cut off from the others, whose connection stays up, costs one
// silent stream, not every stream a balancer might send it.
func watch(ctx context.Context, eps []string, from int64) *watchLog {
	w := &watchLog{last: from - 1}
	clients := make([]*clientv3.Client, len(eps))
	go func() {
		for k := 0; ctx.Err() == nil; k++ {
			w.mu.Lock()
			next := w.last + 1
			w.mu.Unlock()
			i := k % len(eps)
			if clients[i] == nil {
				c, err := newClient(eps[i : i+1])
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				clients[i] = c
			}
			// A stream that stays silent for long is started again: it
			// may hang on a member cut off from the others.
			wctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), 3*time.Second)
			for resp := range clients[i].Watch(wctx, "k", clientv3.WithPrefix(), clientv3.WithRev(next)) {
				if resp.Err() != nil {
					if wctx.Err() == nil {
						w.mu.Lock()
						w.errs++
						w.mu.Unlock()
					}
					break
				}
				w.mu.Lock()
				for _, ev := range resp.Events {
					e := event{rev: ev.Kv.ModRevision, key: string(ev.Kv.Key), value: string(ev.Kv.Value), del: ev.Type == clientv3.EventTypeDelete}
					w.events = append(w.events, e)
					w.last = max(w.last, e.rev)
				}
				w.mu.Unlock()
			}
			cancel()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return w
}

// caughtUp waits until the watch has reported revision rev, or d passed.
func (w *watchLog) caughtUp(rev int64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	seen := int64(-1)
	for {
		w.mu.Lock()
		last := w.last
		w.mu.Unlock()
		if last >= rev {
			return true
		}
		if last > seen {
			seen = last
			everett.Progress(uint64(last)) // the watch moves on
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkWatch compares the watch's events with the writes of the history.
// It returns what is wrong, or "".
func checkWatch(w *watchLog, history []*record) string {
	w.mu.Lock()
	events := append([]event(nil), w.events...)
	w.mu.Unlock()
	written := map[string]map[string]bool{} // key -> values any write wrote
	known := map[int64]*record{}            // revision -> the write that made it
	for _, r := range history {
		if r.kind != opPut && r.kind != opCAS {
			if r.kind == opDelete && r.err == "" && r.ret >= 0 && r.deleted > 0 {
				known[r.rev] = r
			}
			continue
		}
		if written[r.key] == nil {
			written[r.key] = map[string]bool{}
		}
		written[r.key][r.value] = true
		if r.err == "" && r.ret >= 0 && (r.kind == opPut || r.swapped) {
			known[r.rev] = r
		}
	}
	seen := map[int64]bool{}
	for i, e := range events {
		if i > 0 && e.rev <= events[i-1].rev {
			return fmt.Sprintf("event %d (revision %d, %s) came after revision %d: reordered or duplicated", i, e.rev, e.key, events[i-1].rev)
		}
		seen[e.rev] = true
		if !e.del && !written[e.key][e.value] {
			return fmt.Sprintf("event at revision %d puts %s=%q, which no operation wrote", e.rev, e.key, e.value)
		}
		if r := known[e.rev]; r != nil {
			if r.key != e.key || (r.kind == opDelete) != e.del || (!e.del && r.value != e.value) {
				return fmt.Sprintf("event at revision %d (%s %q, delete %v) is not the write acknowledged at that revision: %s", e.rev, e.key, e.value, e.del, r)
			}
		}
	}
	for rev, r := range known {
		if !seen[rev] && rev > firstRev(history) {
			return fmt.Sprintf("no event for the write acknowledged at revision %d: %s", rev, r)
		}
	}
	return ""
}

// firstRev is the revision the workload started after.
func firstRev(history []*record) int64 {
	var rev int64
	for _, r := range history {
		if r.kind == opInit {
			rev = max(rev, r.rev)
		}
	}
	return rev
}

// maxRev is the highest revision an acknowledged operation reported.
func maxRev(history []*record) int64 {
	var rev int64
	for _, r := range history {
		if r.err == "" && r.ret >= 0 {
			rev = max(rev, r.rev)
		}
	}
	return rev
}

// checkHashes asks every member for the hash of its key-value store at
// revision rev, for up to hashWait (a member may be cut off for good), and
// compares the answers (compareHashes). It returns what is wrong, or "",
// and how many members answered.
func checkHashes(cli *clientv3.Client, eps []string, rev int64) (string, int) {
	hashes := map[string]uint32{}
	deadline := time.Now().Add(hashWait)
	for len(hashes) < len(eps) && time.Now().Before(deadline) {
		for _, ep := range eps {
			if _, ok := hashes[ep]; ok {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			resp, err := cli.HashKV(ctx, ep, rev)
			cancel()
			if err == nil {
				hashes[ep] = resp.Hash
				everett.Progress(uint64(rev))
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return compareHashes(eps, hashes, rev), len(hashes)
}

// compareHashes checks the members' answers to HashKV at revision rev
// (endpoint -> hash; a member that did not answer is absent): at least two
// members of eps answered, and every one that did has the hash of the
// first of them in eps's order. It returns what is wrong, or "".
func compareHashes(eps []string, hashes map[string]uint32, rev int64) string {
	var first string
	answered := 0
	for _, ep := range eps {
		h, ok := hashes[ep]
		if !ok {
			continue
		}
		answered++
		if first == "" {
			first = ep
		} else if h != hashes[first] {
			return fmt.Sprintf("HashKV at revision %d: %s has %08x, %s has %08x", rev, first, hashes[first], ep, h)
		}
	}
	if answered < 2 {
		return fmt.Sprintf("HashKV at revision %d: %d of %d members answered within %v, too few to compare (want at least 2)", rev, answered, len(eps), hashWait)
	}
	return ""
}
