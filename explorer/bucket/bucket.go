// Package bucket keeps a shared search (explorer.Share) in an object store
// bucket through gocloud.dev/blob: s3://, gs://, azblob:// or file://.
//
// Layout of a search, under the URL's prefix:
//
//	search.json                 the search's identity (Identity)
//	claims/BBBBBBBBBB/GGGG.json a claim of the universes from B on, generation G
//	done/BBBBBBBBBB.json        the record of those universes (explorer.BatchRecord)
//	failures/NAME.json          one report per failure signature (Report.FileName)
//	summary.json                the merged summary, when one was written
//
// A claim is held by a lease: its owner rewrites the claim object while it
// runs the universes, and a claim whose object has not been written for a
// lease is expired: any worker may take the range over with the next
// generation. A range is finished when its done object exists; the first
// done object written is the only one (see RATIONALE.md, "Why claims with
// leases, written if absent and read back?").
package bucket

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/fileblob"  // file://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/s3blob"    // s3://
	"gocloud.dev/gcerrors"

	"everett/emu"
	"everett/emu/board"
	"everett/explorer"
	"everett/internal/buildinfo"
)

// IdentityFormat names the identity format and its version. Version 2
// (2026-12-07): the ranges grow from one universe (rangeAt); a worker
// must not join a search tiled the old way, so it refuses version 1.
const IdentityFormat = "everett-shared/2"

// Defaults of a search's claims.
const (
	DefaultClaim = 32              // universes per claim
	DefaultLease = 2 * time.Minute // a claim not renewed for this long is expired
)

// Limits.
const (
	maxObjectBytes = 256 << 20 // any object read
	opTimeout      = 2 * time.Minute
)

// ErrIdentity is wrapped by the error of a worker that refuses to join a
// search of another spec, everett or images.
var ErrIdentity = errors.New("not the same search")

// Identity is what makes workers one search: the spec (its settings and
// images by content), the everett build and machine version, the root seed
// and the universe bound, and how universes are claimed.
type Identity struct {
	Format string `json:"format"`
	// Kind is what the workers run: "explore" (universes, claimed Claim
	// at a time) or "sweep" (the seeds of Seeds, claimed one shard of
	// Universes shards at a time).
	Kind      string   `json:"kind"`
	SeedRange string   `json:"seed_range,omitempty"` // a sweep's seeds A..B
	Spec      string   `json:"spec"`                 // its name (not compared)
	SpecHash  string   `json:"spec_sha256"`
	Everett   string   `json:"everett_version"`
	Machine   int      `json:"machine_version"`
	Images    []string `json:"images"` // "node 0 elf SHA256"
	Seed      uint64   `json:"seed"`
	Universes int      `json:"universes"` // 0: no bound (wall-time budgets end the workers)
	Claim     int      `json:"claim"`     // universes per claim
	LeaseMs   int64    `json:"lease_ms"`
	// CreatedUnixMs is when the first worker created the search (not
	// compared).
	CreatedUnixMs int64 `json:"created_unix_ms"`
}

// Kinds of shared searches.
const (
	KindExplore = "explore"
	KindSweep   = "sweep"
)

// NewSweepIdentity is the identity of a sweep of spec over seeds, cut into
// shards shards that workers claim one at a time.
func NewSweepIdentity(spec *explorer.Spec, name string, seeds explorer.SeedRange, shards int, lease time.Duration) Identity {
	id := NewIdentity(spec, name, seeds.From, shards, 1, lease)
	id.Kind, id.SeedRange = KindSweep, seeds.String()
	return id
}

// NewIdentity is the identity of a search of spec from seed over
// universes, claimed claim at a time with the given lease.
func NewIdentity(spec *explorer.Spec, name string, seed uint64, universes, claim int, lease time.Duration) Identity {
	id := Identity{Format: IdentityFormat, Kind: KindExplore, Spec: name, SpecHash: explorer.SpecHash(spec), Everett: buildinfo.Version(),
		Machine: emu.MachineVersion, Seed: seed, Universes: universes, Claim: claim, LeaseMs: lease.Milliseconds()}
	for i, b := range spec.Boards() {
		for _, im := range []struct {
			kind string
			sum  string
		}{{"elf", sumOf(b.ELF)}, {"bios", sumOf(b.BIOS)}, {"kernel", sumOf(b.Kernel)}, {"initrd", sumOf(b.Initrd)}, {"disk", sumOf(b.Disk)}} {
			if im.sum != "" {
				id.Images = append(id.Images, fmt.Sprintf("node %d %s %s", i, im.kind, im.sum))
			}
		}
	}
	return id
}

func sumOf(im *board.Image) string {
	if im == nil {
		return ""
	}
	return im.SHA256
}

// Differences lists, one phrase each, how id differs from the search's
// identity have: empty when they are the same search.
func (id Identity) Differences(have Identity) []string {
	var d []string
	diff := func(what string, mine, theirs any) {
		if fmt.Sprint(mine) != fmt.Sprint(theirs) {
			d = append(d, fmt.Sprintf("%s: %v here, %v in the search", what, mine, theirs))
		}
	}
	diff("format", id.Format, have.Format)
	diff("kind", id.Kind, have.Kind)
	diff("seeds", id.SeedRange, have.SeedRange)
	diff("everett version", id.Everett, have.Everett)
	diff("machine version", id.Machine, have.Machine)
	if id.SpecHash != have.SpecHash {
		d = append(d, fmt.Sprintf("spec: sha256 %.16s here (%s), %.16s in the search (%s)", id.SpecHash, id.Spec, have.SpecHash, have.Spec))
	}
	mine, theirs := map[string]bool{}, map[string]bool{}
	for _, s := range id.Images {
		mine[s] = true
	}
	for _, s := range have.Images {
		theirs[s] = true
	}
	for _, s := range id.Images {
		if !theirs[s] {
			d = append(d, "image "+s+" here, not in the search")
		}
	}
	for _, s := range have.Images {
		if !mine[s] {
			d = append(d, "image "+s+" in the search, not here")
		}
	}
	diff("seed", id.Seed, have.Seed)
	diff("universes", id.Universes, have.Universes)
	diff("claim", id.Claim, have.Claim)
	diff("lease", time.Duration(id.LeaseMs)*time.Millisecond, time.Duration(have.LeaseMs)*time.Millisecond)
	return d
}

// Search is one worker's handle on a shared search: it implements
// explorer.Share.
type Search struct {
	b      *blob.Bucket
	url    string
	id     Identity
	worker string
	// settle is how long a conditional write waits before reading its
	// object back (see RATIONALE.md).
	settle time.Duration
	// poll is how often Claim looks again while every remaining range is
	// held by another worker: at the end of a bounded search each worker
	// but the last waits there for the others' last claims, and stays
	// idle for up to a poll after they are done (2026-12-04: at 5 s, two
	// workers on 80 universes of a Linux spec spent 5.5 of 13.6 s so).
	poll  time.Duration
	lease time.Duration

	mu sync.Mutex
	// inHand are the claims taken and neither finished nor released, by
	// range base: the one being run and the one claimed ahead of it.
	inHand  map[int]*inHand
	read    map[string]bool // done objects already pulled
	Claims  int             // claims taken
	Retaken int             // of them, expired claims of other workers taken over
	// Isolated makes Pull return nothing: the worker shares the claims but
	// learns nothing from the others (to measure what sharing brings).
	Isolated bool
}

// inHand is a claim taken and its lease's renewals.
type inHand struct {
	c        *claim
	stop     chan struct{} // closed: stop renewing
	done     chan struct{} // closed when the renewals stopped
	stopOnce sync.Once
}

// claim is a claim object.
type claim struct {
	Base      int    `json:"base"`
	End       int    `json:"end"`
	Gen       int    `json:"generation"`
	Worker    string `json:"worker"`
	Nonce     string `json:"nonce"`
	ClaimedMs int64  `json:"claimed_unix_ms"`
}

// Open opens the bucket of URL (a file:// directory is created when
// missing).
func Open(ctx context.Context, rawURL string) (*blob.Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("bucket URL %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case "file", "s3", "gs", "azblob":
	default:
		return nil, fmt.Errorf("bucket URL %q: scheme %q (want s3://, gs://, azblob:// or file://)", rawURL, u.Scheme)
	}
	if u.Scheme == "file" {
		q := u.Query()
		if q.Get("create_dir") == "" {
			q.Set("create_dir", "1")
		}
		u.RawQuery = q.Encode()
	}
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", rawURL, err)
	}
	return b, nil
}

// Join joins the search at URL with identity id, creating it when the
// bucket holds none: a search of another identity is an error wrapping
// ErrIdentity that names every difference.
func Join(rawURL string, id Identity) (*Search, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	b, err := Open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	s := &Search{b: b, url: rawURL, worker: workerName(), settle: settleFor(rawURL), read: map[string]bool{}, inHand: map[int]*inHand{}}
	if id.Claim <= 0 || id.Claim > explorer.MaxClaim {
		return nil, fmt.Errorf("claim of %d universes (want 1..%d)", id.Claim, explorer.MaxClaim)
	}
	if id.LeaseMs <= 0 {
		return nil, fmt.Errorf("lease of %d ms", id.LeaseMs)
	}
	id.CreatedUnixMs = time.Now().UnixMilli()
	body, _ := json.MarshalIndent(id, "", "  ")
	created, err := s.createVerified(ctx, "search.json", append(body, '\n'))
	if err != nil {
		return nil, fmt.Errorf("bucket %s: creating the search: %w", rawURL, err)
	}
	have := id
	if !created {
		have, err = ReadIdentity(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("bucket %s: %w", rawURL, err)
		}
		if d := id.Differences(have); len(d) > 0 {
			return nil, fmt.Errorf("%w: refusing to join the search in %s: %s", ErrIdentity, rawURL, strings.Join(d, "; "))
		}
	}
	s.id = have
	s.lease = time.Duration(have.LeaseMs) * time.Millisecond
	s.poll = min(max(s.lease/240, 50*time.Millisecond), time.Second)
	return s, nil
}

// OpenSearch opens the search at URL to read it (everett report).
func OpenSearch(rawURL string) (*Search, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	b, err := Open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	id, err := ReadIdentity(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", rawURL, err)
	}
	return &Search{b: b, url: rawURL, id: id, worker: workerName(), read: map[string]bool{}}, nil
}

// ReadIdentity reads a bucket's search.json.
func ReadIdentity(ctx context.Context, b *blob.Bucket) (Identity, error) {
	var id Identity
	body, err := readAll(ctx, b, "search.json")
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return id, fmt.Errorf("no search here (no search.json): start one with everett explore --shared")
		}
		return id, fmt.Errorf("search.json: %w", err)
	}
	if err := json.Unmarshal(body, &id); err != nil {
		return id, fmt.Errorf("search.json: %w", err)
	}
	if id.Format != IdentityFormat {
		return id, fmt.Errorf("search.json: format %q, want %q", id.Format, IdentityFormat)
	}
	return id, nil
}

// Identity returns the search's identity.
func (s *Search) Identity() Identity { return s.id }

// Worker returns this worker's name (host, process and a random part).
func (s *Search) Worker() string { return s.worker }

// Bucket returns the search's bucket.
func (s *Search) Bucket() *blob.Bucket { return s.b }

// Close stops renewing the leases of the claims in hand, if any (they
// then expire), and closes the bucket.
func (s *Search) Close() error {
	s.mu.Lock()
	bases := make([]int, 0, len(s.inHand))
	for base := range s.inHand {
		bases = append(bases, base)
	}
	s.mu.Unlock()
	for _, base := range bases {
		s.stopRenewing(base)
	}
	return s.b.Close()
}

func workerName() string {
	host, _ := os.Hostname()
	var r [4]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(r[:]))
}

// settleFor is how long a conditional write waits before it reads back:
// long enough for every racing write that passed the existence check to
// have landed (a local rename, or an upload in flight).
func settleFor(rawURL string) time.Duration {
	if strings.HasPrefix(rawURL, "file:") {
		return 50 * time.Millisecond
	}
	return 500 * time.Millisecond
}

func readAll(ctx context.Context, b *blob.Bucket, key string) ([]byte, error) {
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Size() > maxObjectBytes {
		return nil, fmt.Errorf("%s: %d bytes (limit %d)", key, r.Size(), maxObjectBytes)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// createVerified writes key if it does not exist, and reports whether this
// write is the one that stands: the bucket's if-absent write refuses a key
// that exists, and reading the object back after a settling time catches
// the writes that raced past that check (fileblob checks within one
// process only; some S3 servers ignore If-None-Match).
func (s *Search) createVerified(ctx context.Context, key string, body []byte) (bool, error) {
	err := s.b.WriteAll(ctx, key, body, &blob.WriterOptions{IfNotExist: true, ContentType: "application/json"})
	switch {
	case gcerrors.Code(err) == gcerrors.FailedPrecondition:
		return false, nil
	case err != nil:
		return false, err
	}
	time.Sleep(s.settle)
	got, err := readAll(ctx, s.b, key)
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, body), nil
}

func claimKey(base, gen int) string { return fmt.Sprintf("claims/%010d/%04d.json", base, gen) }
func doneKey(base int) string       { return fmt.Sprintf("done/%010d.json", base) }

// state is what a listing of the bucket says of the claims.
type state struct {
	done   map[int]bool
	latest map[int]listed // the newest generation of each range's claims
	top    int            // the highest range base seen (−1: none)
}

type listed struct {
	gen int
	mod time.Time
}

func (s *Search) list(ctx context.Context) (*state, error) {
	st := &state{done: map[int]bool{}, latest: map[int]listed{}, top: -1}
	it := s.b.List(&blob.ListOptions{Prefix: "done/"})
	for {
		o, err := it.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if base, ok := parseBase(strings.TrimPrefix(o.Key, "done/")); ok {
			st.done[base] = true
			st.top = max(st.top, base)
		}
	}
	it = s.b.List(&blob.ListOptions{Prefix: "claims/"})
	for {
		o, err := it.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		dir, file, ok := strings.Cut(strings.TrimPrefix(o.Key, "claims/"), "/")
		if !ok {
			continue
		}
		base, ok1 := parseBase(dir + ".json")
		gen, ok2 := parseBase(file)
		if !ok1 || !ok2 {
			continue
		}
		if l, have := st.latest[base]; !have || gen > l.gen || gen == l.gen && o.ModTime.After(l.mod) {
			st.latest[base] = listed{gen, o.ModTime}
		}
		st.top = max(st.top, base)
	}
	return st, nil
}

// parseBase parses "0000000123.json".
func parseBase(name string) (int, bool) {
	n, ok := strings.CutSuffix(name, ".json")
	if !ok || n == "" {
		return 0, false
	}
	v, err := strconv.Atoi(n)
	return v, err == nil && v >= 0
}

// Claim implements explorer.Share: the lowest range that is neither done
// nor held by a live lease (this worker's claims in hand are held too).
// When every remaining range is held, it waits for one to be done or to
// expire (or for stop). It may run beside Finish, Release and Pull (the
// explorer claims its next range while it runs one), not beside another
// Claim.
func (s *Search) Claim(stop <-chan struct{}) (int, int, bool, error) {
	n, size := s.id.Universes, s.id.Claim
	for {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		st, err := s.list(ctx)
		if err != nil {
			cancel()
			return 0, 0, false, err
		}
		ranges := rangeCount(n, size)
		if n == 0 {
			ranges = rangeIndex(st.top, size) + 2 // no bound: one past the highest seen
		}
		left := false
		for r := 0; r < ranges; r++ {
			base, end := rangeAt(r, size)
			if st.done[base] {
				continue
			}
			left = true
			gen := 0
			if l, ok := st.latest[base]; ok {
				if time.Since(l.mod) < s.lease {
					continue // held
				}
				gen = l.gen + 1
			}
			if n > 0 {
				end = min(end, n)
			}
			c := &claim{Base: base, End: end, Gen: gen, Worker: s.worker, Nonce: nonce(), ClaimedMs: time.Now().UnixMilli()}
			body, _ := json.Marshal(c)
			ok, err := s.createVerified(ctx, claimKey(base, gen), body)
			if err != nil {
				cancel()
				return 0, 0, false, fmt.Errorf("claiming universes %d..%d: %w", base, end-1, err)
			}
			if ok {
				cancel()
				s.Claims++
				if gen > 0 {
					s.Retaken++
				}
				s.startHeartbeat(c, body)
				return base, end, true, nil
			}
		}
		cancel()
		if !left {
			return 0, 0, false, nil
		}
		select {
		case <-stop:
			return 0, 0, false, nil
		case <-time.After(s.poll):
		}
	}
}

// The ranges a search is claimed in: the first ones grow from 1 universe,
// two of each size (1, 1, 2, 2, 4, 4, ...), up to the search's claim size,
// and all later ones are of that size. Many bugs are found in a search's
// first universes; with ranges of the full size from the start, those
// universes all fell into the first worker's first claim and a second
// worker ran only later ones: two processes found the seqlock example's
// race (in universes 0-4 of seeds 1-5) no sooner than one (2026-12-07,
// 1.46 s against 1.25 s, claims of 4). A sweep's claim size is 1: its
// ranges are what they were.

// rampSizes is how many ranges the ramp of claim size size has.
func rampSizes(size int) int {
	k := 0
	for w := 1; w < size; w *= 2 {
		k += 2
	}
	return k
}

// rangeAt returns range r's universes base..end-1 (end not bounded by the
// search's universes).
func rangeAt(r, size int) (base, end int) {
	ramp := rampSizes(size)
	if r < ramp {
		// Pairs of ranges of 1, 2, 4, ...: range 2j and 2j+1 hold 2^j
		// universes each, after 2·(2^j − 1) of the smaller ones.
		w := 1 << (r / 2)
		base = 2*(w-1) + r%2*w
		return base, base + w
	}
	rampEnd := 2 * ((1 << (ramp / 2)) - 1)
	base = rampEnd + (r-ramp)*size
	return base, base + size
}

// rangeIndex returns the index of the range that begins at base (or, for
// a base inside a range, of that range).
func rangeIndex(base, size int) int {
	if base < 0 {
		return -1
	}
	for r := 0; r < rampSizes(size); r++ {
		if _, end := rangeAt(r, size); base < end {
			return r
		}
	}
	ramp := rampSizes(size)
	b0, _ := rangeAt(ramp, size)
	return ramp + (base-b0)/size
}

// rangeCount returns how many ranges n universes make (n > 0).
func rangeCount(n, size int) int {
	return rangeIndex(n-1, size) + 1
}

func nonce() string {
	var r [8]byte
	rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

// startHeartbeat puts the claim in hand and renews its lease every third
// of a lease until stopped or a newer generation of the claim appears.
func (s *Search) startHeartbeat(c *claim, body []byte) {
	h := &inHand{c: c, stop: make(chan struct{}), done: make(chan struct{})}
	s.mu.Lock()
	s.inHand[c.Base] = h
	s.mu.Unlock()
	go func() {
		defer close(h.done)
		t := time.NewTicker(max(s.lease/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			// Taken over (this worker was thought dead): stop renewing;
			// the first record of the range written stands.
			newer, err := s.b.Exists(ctx, claimKey(c.Base, c.Gen+1))
			if err == nil && newer {
				cancel()
				return
			}
			_ = s.b.WriteAll(ctx, claimKey(c.Base, c.Gen), body, &blob.WriterOptions{ContentType: "application/json"})
			cancel()
		}
	}()
}

// stopRenewing stops renewing the lease of the claim of base, which stays
// in hand; it returns the claim (nil: none in hand).
func (s *Search) stopRenewing(base int) *inHand {
	s.mu.Lock()
	h := s.inHand[base]
	s.mu.Unlock()
	if h != nil {
		h.stopOnce.Do(func() { close(h.stop) })
		<-h.done
	}
	return h
}

// letGo stops renewing the claim of base and takes it out of hand.
func (s *Search) letGo(base int) *inHand {
	h := s.stopRenewing(base)
	s.mu.Lock()
	delete(s.inHand, base)
	s.mu.Unlock()
	return h
}

// Release implements explorer.Share: it gives back a claim in hand that
// will not be run (claimed ahead, or cut off by the time budget) by
// deleting its claim object, so that another worker may take the range at
// once instead of after its lease.
func (s *Search) Release(base int) error {
	h := s.letGo(base)
	if h == nil {
		return fmt.Errorf("universes %d.. were not claimed", base)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	err := s.b.Delete(ctx, claimKey(base, h.c.Gen))
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

// Finish implements explorer.Share: it writes the range's done object if
// no other worker did, then each of its failures' reports under
// failures/ unless that signature's is there.
func (s *Search) Finish(rec *explorer.BatchRecord) (bool, error) {
	rec.Worker = s.worker
	body, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	return s.FinishBody(rec.Base, rec.End, body, rec.Failures)
}

// FinishBody is Finish for a record of any shape (a sweep shard's file):
// body is written as the done object of the claimed range base..end−1,
// then the failures' reports.
func (s *Search) FinishBody(base, end int, body []byte, failures []*explorer.Report) (bool, error) {
	h := s.letGo(base)
	if h == nil || h.c.End != end {
		return false, fmt.Errorf("%d..%d were not claimed", base, end-1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	ok, err := s.createVerified(ctx, doneKey(base), body)
	if err != nil || !ok {
		return false, err
	}
	s.mu.Lock()
	s.read[doneKey(base)] = true
	s.mu.Unlock()
	for _, r := range failures {
		if err := s.publishFailure(ctx, r); err != nil {
			return true, err
		}
	}
	return true, nil
}

// publishFailure writes a failure's report as failures/NAME unless a
// report of its signature is there.
func (s *Search) publishFailure(ctx context.Context, r *explorer.Report) error {
	c := *r
	name := c.FileName()
	c.Replay = "everett replay " + name
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return err
	}
	err = s.b.WriteAll(ctx, "failures/"+name, append(b, '\n'), &blob.WriterOptions{IfNotExist: true, ContentType: "application/json"})
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return nil
	}
	return err
}

// Pull implements explorer.Share: the done objects of other workers not
// read before.
func (s *Search) Pull() ([]*explorer.BatchRecord, error) {
	if s.Isolated {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	all, err := s.jsonKeys(ctx, "done/")
	if err != nil {
		return nil, err
	}
	var out []*explorer.BatchRecord
	for _, k := range all {
		s.mu.Lock()
		seen := s.read[k]
		s.mu.Unlock()
		if seen {
			continue
		}
		rec, err := s.readRecord(ctx, k)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.read[k] = true
		s.mu.Unlock()
		if rec.Worker != s.worker {
			out = append(out, rec)
		}
	}
	return out, nil
}

func (s *Search) readRecord(ctx context.Context, key string) (*explorer.BatchRecord, error) {
	b, err := readAll(ctx, s.b, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	rec := &explorer.BatchRecord{}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return rec, nil
}

// Records reads every done object of the search, by range.
func (s *Search) Records() ([]*explorer.BatchRecord, error) {
	bodies, err := s.RecordBodies()
	if err != nil {
		return nil, err
	}
	var out []*explorer.BatchRecord
	for _, b := range bodies {
		rec := &explorer.BatchRecord{}
		if err := json.Unmarshal(b.Body, rec); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Key, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// Body is an object's key and contents.
type Body struct {
	Key  string
	Body []byte
}

// RecordBodies reads every done object of the search, by key.
func (s *Search) RecordBodies() ([]Body, error) {
	return s.jsonBodies("done/")
}

// jsonKeys lists the keys of the JSON objects under prefix, in order.
func (s *Search) jsonKeys(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(o.Key, ".json") {
			keys = append(keys, o.Key)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// jsonBodies reads every JSON object under prefix, in key order.
func (s *Search) jsonBodies(prefix string) ([]Body, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	keys, err := s.jsonKeys(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]Body, 0, len(keys))
	for _, k := range keys {
		b, err := readAll(ctx, s.b, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out = append(out, Body{k, b})
	}
	return out, nil
}

// Progress counts the ranges of the search that are done, of how many
// (0 without a universe bound).
func (s *Search) Progress() (done, ranges int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	st, err := s.list(ctx)
	if err != nil {
		return 0, 0, err
	}
	if n := s.id.Universes; n > 0 {
		ranges = rangeCount(n, s.id.Claim)
	}
	return len(st.done), ranges, nil
}

// Failures reads the failure reports of the search: name → bytes.
func (s *Search) Failures() (map[string][]byte, error) {
	bodies, err := s.jsonBodies("failures/")
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(bodies))
	for _, b := range bodies {
		out[strings.TrimPrefix(b.Key, "failures/")] = b.Body
	}
	return out, nil
}

// Put writes an object (summary.json).
func (s *Search) Put(key string, body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return s.b.WriteAll(ctx, key, body, nil)
}

// Fetch reads one object named by a URL: the bucket's URL with the key as
// its path, e.g. s3://BUCKET/failures/NAME.json?region=R or
// file:///DIR/failures/NAME.json (for file://, the key is the last
// element of the path).
func Fetch(rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("object URL %q: %w", rawURL, err)
	}
	var key string
	if u.Scheme == "file" {
		dir, name := path.Split(u.Path)
		u.Path, key = dir, name
	} else {
		key = strings.TrimPrefix(u.Path, "/")
		u.Path = ""
	}
	if key == "" {
		return nil, fmt.Errorf("object URL %q names no object", rawURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	b, err := Open(ctx, u.String())
	if err != nil {
		return nil, err
	}
	defer b.Close()
	body, err := readAll(ctx, b, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	return body, nil
}
