package explorer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	"everett/emu"
	"everett/emu/board"
	"everett/internal/buildinfo"
	"everett/snapshot"
)

// ReportFormat names the report format and its version.
const ReportFormat = "everett-report/1"

// Report is everything needed to replay one failure exactly: the spec with
// its images (paths and SHA-256), the root seed of the search, the
// universe's fork path (a root seed, then the seeds it was forked with and
// when), the fault plan, the decisions it made, where it failed, and what
// the guest said.
type Report struct {
	Format  string `json:"format"`
	Version string `json:"everett_version,omitempty"` // of the everett that wrote it
	// Machine is the emu.MachineVersion the report's universe ran on
	// (absent: 1, before it was recorded).
	Machine int `json:"machine_version,omitempty"`
	// WMO is the emu.WMOVersion of the rvwmo model the universe ran
	// under (absent: it ran under sc, or it was written before the
	// model's versions were recorded).
	WMO int `json:"rvwmo_version,omitempty"`
	// HashFormat is the snapshot format (snapshot.Version) whose encoding
	// of the machine StateHash hashed (absent: not recorded). A replay by
	// an everett of another format cannot compare state hashes: the same
	// state hashes differently.
	HashFormat int              `json:"state_hash_format,omitempty"`
	Signature  string           `json:"signature"`
	Failure    Failure          `json:"failure"`
	RootTrap   *RootTrap        `json:"root_trap,omitempty"`
	Spec       ReportSpec       `json:"spec"`
	RootSeed   uint64           `json:"root_seed"`
	Universe   int              `json:"universe"`
	Path       []Fork           `json:"fork_path"`
	Plan       Plan             `json:"plan"`
	Decisions  []Decision       `json:"decisions"`
	Suppressed []int            `json:"suppressed,omitempty"`
	ICount     uint64           `json:"instructions"`
	Time       uint64           `json:"virtual_time_ns"`
	StateHash  string           `json:"state_hash"`
	Console    []string         `json:"console_tails"`
	Assertions []AssertionState `json:"assertions"`
	Replay     string           `json:"replay"`
}

// ReportSpec is a spec as a report stores it: the settings, and every
// node's machine with its images resolved to paths and hashes.
type ReportSpec struct {
	Spec
	Boards []*board.Spec `json:"boards"`
	// Workload says per node whether everett's init runs a workload
	// there (1: with tasks, 2: services only; absent: none).
	Workload []workloadKind `json:"workload,omitempty"`
	// SyncRanges are per node the pc ranges of its workload's own code,
	// where LRs and AMOs are preemption points (syncranges.go; absent or
	// null: every one in user mode).
	SyncRanges [][][2]uint64 `json:"sync_ranges,omitempty"`
}

func newReport(s *Spec, root uint64, index int, u *Universe) *Report {
	r := &Report{
		Format:     ReportFormat,
		Version:    buildinfo.Version(),
		Machine:    emu.MachineVersion,
		WMO:        wmoVersionOf(u.plan),
		HashFormat: snapshot.Version,
		Signature:  u.failure.Signature(),
		Failure:    *u.failure,
		RootTrap:   u.root,
		Spec:       ReportSpec{Spec: *s, Boards: s.nodes, Workload: workloadOrNil(s), SyncRanges: syncRangesOrNil(s)},
		RootSeed:   root,
		Universe:   index,
		Path:       append([]Fork(nil), u.path...),
		Plan:       u.plan,
		Decisions:  append([]Decision(nil), u.decisions...),
		ICount:     u.icountEnd,
		Time:       u.failTime,
		StateHash:  fmt.Sprintf("%016x", u.hash),
		Console:    u.tails,
		Assertions: u.asserts.list(),
	}
	for k := range u.suppress {
		r.Suppressed = append(r.Suppressed, k)
	}
	sort.Ints(r.Suppressed) // map order must not reach the report
	return r
}

// FileName is the report's file name: derived from its signature, so that
// a failure found again overwrites its own report.
func (r *Report) FileName() string {
	sum := sha256.Sum256([]byte(r.Signature))
	slug := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			return c
		}
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return '-'
	}, r.Failure.Kind+"-"+r.Failure.Message)
	if len(slug) > 40 {
		slug = slug[:40]
	}
	return fmt.Sprintf("failure-%s-%s.json", strings.Trim(slug, "-"), hex.EncodeToString(sum[:4]))
}

// Write saves the report into dir atomically (temporary file and rename).
func (r *Report) Write(dir string) (string, error) { return r.WriteAs(dir, r.FileName()) }

// WriteAs saves the report as dir/name atomically.
func (r *Report) WriteAs(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	r.Replay = "everett replay " + path
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	return path, writeAtomic(path, append(b, '\n'))
}

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ErrReport is wrapped by errors about a report file.
var ErrReport = errors.New("invalid report")

// MaxReportBytes bounds a report file.
const MaxReportBytes = 64 << 20

// LoadReport reads a report and the images it names (checking their
// hashes).
func LoadReport(path string) (*Report, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxReportBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrReport, path, st.Size(), MaxReportBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrReport, path, err)
	}
	if r.Format != ReportFormat {
		return nil, fmt.Errorf("%w: %s: format %q, want %q", ErrReport, path, r.Format, ReportFormat)
	}
	if len(r.Path) == 0 || r.Path[0].At != 0 {
		return nil, fmt.Errorf("%w: %s: empty or malformed fork path", ErrReport, path)
	}
	if err := r.checkMachine(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for k, f := range r.Path {
		if !(f.Plan == "" || k == 0 && f.Plan == PlanBoot || k > 0 && f.Plan == PlanSeed) {
			return nil, fmt.Errorf("%w: %s: fork_path[%d].plan %q (want %q first, %q later, or none)", ErrReport, path, k, f.Plan, PlanBoot, PlanSeed)
		}
	}
	if len(r.Spec.Boards) == 0 || len(r.Spec.Boards) > MaxNodes {
		return nil, fmt.Errorf("%w: %s: %d nodes", ErrReport, path, len(r.Spec.Boards))
	}
	if len(r.Spec.Workload) > len(r.Spec.Boards) {
		return nil, fmt.Errorf("%w: %s: workload of %d nodes, but %d boards", ErrReport, path, len(r.Spec.Workload), len(r.Spec.Boards))
	}
	for i, w := range r.Spec.Workload {
		if w > workloadServices {
			return nil, fmt.Errorf("%w: %s: workload[%d] is %d (want 0, 1 or 2)", ErrReport, path, i, w)
		}
	}
	if len(r.Spec.SyncRanges) > len(r.Spec.Boards) {
		return nil, fmt.Errorf("%w: %s: sync_ranges of %d nodes, but %d boards", ErrReport, path, len(r.Spec.SyncRanges), len(r.Spec.Boards))
	}
	for i, rs := range r.Spec.SyncRanges {
		if err := checkSyncRanges(rs); err != nil {
			return nil, fmt.Errorf("%w: %s: sync_ranges[%d]: %v", ErrReport, path, i, err)
		}
	}
	for i, b := range r.Spec.Boards {
		if b == nil {
			return nil, fmt.Errorf("%w: %s: node %d missing", ErrReport, path, i)
		}
		if b.Board != board.BoardBareMetal && b.Board != board.BoardVirt {
			return nil, fmt.Errorf("%w: %s: node %d: unknown board %q", ErrReport, path, i, b.Board)
		}
		if b.Harts < 1 || b.Harts > emu.MaxHarts || b.RAMBytes == 0 || b.RAMBytes%4096 != 0 || b.RAMBytes > 1<<40 {
			return nil, fmt.Errorf("%w: %s: node %d: %d harts, %d bytes of RAM", ErrReport, path, i, b.Harts, b.RAMBytes)
		}
		if err := b.Load(); err != nil {
			return nil, fmt.Errorf("%w: node %d: %v", ErrReport, i, err)
		}
	}
	s := r.spec()
	if err := s.validateSettings(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrReport, path, err)
	}
	_ = s.loadSymbols(false) // names only: a missing file leaves them out
	s.engine = emu.DefaultEngine
	r.Spec.Spec = *s
	return r, nil
}

// spec rebuilds the report's spec.
func (r *Report) spec() *Spec {
	s := r.Spec.Spec
	s.nodes = r.Spec.Boards
	s.workload = make([]workloadKind, len(s.nodes))
	copy(s.workload, r.Spec.Workload)
	s.syncRanges = make([][][2]uint64, len(s.nodes))
	copy(s.syncRanges, r.Spec.SyncRanges)
	return &s
}

// workloadOrNil is s.workload when a node has a workload (reports of
// other specs stay as they were).
func workloadOrNil(s *Spec) []workloadKind {
	if !s.hasWorkload() {
		return nil
	}
	return s.workload
}

// ReplayResult is what a replay did.
type ReplayResult struct {
	Failure   *Failure
	RootTrap  *RootTrap // the exception that led to the failure, if known
	ICount    uint64
	Time      uint64
	StateHash string
	// Reproduced: the same failure at the same instruction count, with
	// the same state hash unless HashUncompared.
	Reproduced bool
	// HashUncompared: the report's state hash was computed over another
	// snapshot format than this everett's (or one not recorded), so it
	// was not compared.
	HashUncompared bool
	Console        []string
	Universe       *Universe
	suppressed     []int
}

// ReplayOptions direct a replay.
type ReplayOptions struct {
	// Until stops the replay at this universe instruction count (0: run
	// to the end).
	Until uint64
	// Echo gives each node's console to a writer as it is produced.
	Echo func(node int) io.Writer
	// Suppress replays with these decisions suppressed (shrinking).
	Suppress []int
}

// ErrReportVersion is wrapped by a replay's error when the report was
// written by an everett that draws other plans from the same seeds: its
// universe cannot be run again by this one.
var ErrReportVersion = errors.New("report from another everett")

// machine returns the machine version the report's universe ran on.
func (r *Report) machine() int {
	if r.Machine == 0 {
		return 1
	}
	return r.Machine
}

// wmoVersionOf is the rvwmo model version a universe of plan p runs
// under: 0 under sc.
func wmoVersionOf(p Plan) int {
	if p.Model == emu.ModelRVWMO {
		return emu.WMOVersion
	}
	return 0
}

// checkMachine returns an error wrapping ErrReportVersion if the report's
// universe ran on another machine version than this everett's, or under
// another version of the rvwmo model: what its guests saw differed, so it
// would not run again as it did.
func (r *Report) checkMachine() error {
	by := r.Version
	if by == "" {
		by = "an earlier version"
	}
	if r.Plan.Model == emu.ModelRVWMO && r.WMO != emu.WMOVersion {
		return fmt.Errorf("%w: it ran under rvwmo model version %d (%s), this everett (%s) has version %d (%s): it was written by everett %s, which can replay it",
			ErrReportVersion, r.WMO, emu.WMOChange(r.WMO), buildinfo.Version(), emu.WMOVersion, emu.WMOChange(emu.WMOVersion), by)
	}
	v := r.machine()
	if v == emu.MachineVersion {
		return nil
	}
	return fmt.Errorf("%w: it ran on machine version %d (%s), this everett (%s) emulates machine version %d (%s): it was written by everett %s, which can replay it",
		ErrReportVersion, v, emu.MachineChange(v), buildinfo.Version(), emu.MachineVersion, emu.MachineChange(emu.MachineVersion), by)
}

// derivedPlan is the plan this everett draws along the report's fork path.
func (r *Report) derivedPlan(s *Spec) Plan {
	p := drawPlan(s, r.Path[0].Seed)
	if r.Path[0].Plan == PlanBoot {
		p = bootPlan(s)
	}
	for _, f := range r.Path[1:] {
		p = planOf(s, f, p)
	}
	return p
}

// checkPlan returns an error wrapping ErrReportVersion if the report's
// plan is not the one this everett draws along its fork path: the report
// was written by an everett that draws plans otherwise, and its universe
// would not run again as it did. The error names both versions and the
// first field of the plan that differs.
func (r *Report) checkPlan(s *Spec) error {
	p := r.derivedPlan(s)
	if p == r.Plan {
		return nil
	}
	by := r.Version
	if by == "" {
		by = "an earlier version"
	}
	field, have, want := planDiff(r.Plan, p)
	return fmt.Errorf("%w: written by everett %s; this is %s; the plan differs at %s (the report's %v, this everett draws %v): everett %s can replay it",
		ErrReportVersion, by, buildinfo.Version(), field, have, want, by)
}

// planDiff names the first field where plans a and b differ ("Sched.Depth")
// and its two values.
func planDiff(a, b Plan) (field string, av, bv any) {
	var walk func(prefix string, x, y reflect.Value) bool
	walk = func(prefix string, x, y reflect.Value) bool {
		if x.Kind() != reflect.Struct {
			if !x.Equal(y) {
				field, av, bv = prefix, fmt.Sprint(x), fmt.Sprint(y)
				return true
			}
			return false
		}
		for i := range x.NumField() {
			name := x.Type().Field(i).Name
			if prefix != "" {
				name = prefix + "." + name
			}
			if walk(name, x.Field(i), y.Field(i)) {
				return true
			}
		}
		return false
	}
	if !walk("", reflect.ValueOf(a), reflect.ValueOf(b)) {
		return "no field", nil, nil
	}
	return field, av, bv
}

// Replay runs the report's universe again along its fork path. A report
// whose plan is not the one this everett draws from its seeds (another
// version wrote it) is an error wrapping ErrReportVersion.
//
// A universe that panics (a bug in everett) gives a result whose failure
// is of kind KindEverettBug: reproduced when the report is of that failure.
func Replay(r *Report, o ReplayOptions) (res *ReplayResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			f := &Failure{Kind: KindEverettBug, Message: fmt.Sprint(p), Stack: string(debug.Stack())}
			res, err = &ReplayResult{Failure: f, Reproduced: f.Signature() == r.Signature}, nil
		}
	}()
	if err := r.checkMachine(); err != nil {
		return nil, err
	}
	s := r.spec()
	if err := r.checkPlan(s); err != nil {
		return nil, err
	}
	sup := append(append([]int(nil), o.Suppress...), r.Suppressed...)
	var u *Universe
	// Start from the cached boot (bootcache.go) unless the consoles are
	// echoed (the user sees the boot) or the replay stops before its end.
	e := cachedBoot(r, suppressSet(sup))
	if e != nil && o.Echo == nil && (o.Until == 0 || e.snap.ICount < o.Until) {
		if u, err = fromBoot(s, e, suppressSet(sup)); err != nil {
			bootNote("boot cache entry unusable, booting instead: %v", err)
			forget(r)
		}
	}
	if u == nil {
		u, err = newUniverseEcho(s, r.Path[0], o.Echo, sup)
		if err == nil && r.Path[0].Plan == PlanBoot {
			replayBoots.Add(1)
		}
	}
	if err != nil {
		return nil, err
	}
	if testHookUniverse != nil {
		testHookUniverse(r.Universe, u)
	}
	for k := 1; k < len(r.Path); k++ {
		if u.t < r.Path[k].At {
			u.runUntilCount(r.Path[k].At, o.Until)
		}
		if u.failure != nil || u.finished || (o.Until != 0 && u.ICount() >= o.Until) {
			break
		}
		if u.t != r.Path[k].At {
			return nil, fmt.Errorf("%w: the universe ended at %d ns, before its fork at %d ns", ErrReport, u.t, r.Path[k].At)
		}
		if k == 1 {
			keepBoot(r, u)
		}
		u.forkAt(r.Path[k])
	}
	if u.failure == nil && !u.finished && (o.Until == 0 || u.ICount() < o.Until) {
		u.runUntilCount(0, o.Until)
	}
	res = &ReplayResult{
		Failure:   u.failure,
		RootTrap:  u.root,
		ICount:    u.ICount(),
		Time:      u.failTime,
		StateHash: fmt.Sprintf("%016x", u.StateHash()),
		Console:   u.ConsoleTails(),
		Universe:  u,
	}
	same := u.failure != nil && u.failure.Signature() == r.Signature && res.ICount == r.ICount
	res.HashUncompared = same && res.StateHash != r.StateHash && r.HashFormat != snapshot.Version
	res.Reproduced = same && (res.StateHash == r.StateHash || res.HashUncompared)
	return res, nil
}

// newUniverseEcho is newUniverse with console echo and suppressed decisions.
func newUniverseEcho(s *Spec, root Fork, echo func(int) io.Writer, suppress []int) (*Universe, error) {
	u, err := newUniverseWith(s, root, nil, func(u *Universe) {
		u.echo = echo
		u.maxSnaps = 0
		if len(suppress) > 0 {
			u.suppress = map[int]bool{}
			for _, k := range suppress {
				u.suppress[k] = true
			}
		}
	})
	return u, err
}
