package explorer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"everett/emu"
	"everett/internal/buildinfo"
	"everett/snapshot"
)

// The boot cache on disk: a replay in a fresh process restores the boot
// another process kept, instead of booting. An entry is a directory named
// by a hash of the boot's key (bootKeyOf), this everett (its version and the
// bytes of its executable: a build that runs differently is another
// everett) and the entry format; in it, one snapshot file per node
// (snapshot.Write: checksummed) and boot.json, the rest of the universe,
// whose first line is the SHA-256 of what follows. An entry is written to a
// temporary directory and renamed into place whole; one that does not
// verify (truncated, corrupted, of another format) is never trusted: the
// replay boots, says so in one line, and replaces it.

// bootFormat names the on-disk entry format.
const bootFormat = "everett-boot/1"

var bootDisk struct {
	sync.Mutex
	dir  string    // "" : off
	note io.Writer // one-line notes (a bad entry); nil: none
	self string    // hash of this everett (version and executable)
}

// SetBootCacheDir keeps boots on disk under dir ("" turns it off), and
// sends one-line notes (an entry that did not verify) to note.
func SetBootCacheDir(dir string, note io.Writer) {
	bootDisk.Lock()
	defer bootDisk.Unlock()
	bootDisk.dir, bootDisk.note = dir, note
}

// DefaultBootCacheDir is the boot cache's default place: everett/boot
// under the user's cache directory ("" when there is none).
func DefaultBootCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "everett", "boot")
}

// everettID identifies this everett: its version and its executable's
// bytes (a dirty build keeps its version string but not its bytes).
func everettID() string {
	if bootDisk.self != "" {
		return bootDisk.self
	}
	h := sha256.New()
	h.Write([]byte(buildinfo.Version()))
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			io.Copy(h, f)
			f.Close()
		}
	}
	bootDisk.self = hex.EncodeToString(h.Sum(nil))
	return bootDisk.self
}

// bootDiskDir is the entry directory of key k ("" when the disk cache is off).
func bootDiskDir(k bootKey) string {
	bootDisk.Lock()
	defer bootDisk.Unlock()
	if bootDisk.dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(bootFormat + "\x00" + everettID() + "\x00" + hex.EncodeToString(k[:])))
	return filepath.Join(bootDisk.dir, hex.EncodeToString(sum[:16]))
}

func bootNote(format string, args ...any) {
	bootDisk.Lock()
	w := bootDisk.note
	bootDisk.Unlock()
	if w != nil {
		fmt.Fprintf(w, "everett: "+format+"\n", args...)
	}
}

// bootFile is boot.json: a universe snapshot but for its machines.
type bootFile struct {
	Format     string           `json:"format"`
	Key        string           `json:"key"`
	T          uint64           `json:"t"`
	ICount     uint64           `json:"icount"`
	Path       []Fork           `json:"path"`
	Why        string           `json:"why"`
	Plan       Plan             `json:"plan"`
	Nodes      []bootNode       `json:"nodes"`
	Switch     bootSwitch       `json:"switch"`
	Net        []byte           `json:"net"`
	Flt        []byte           `json:"flt"`
	Faults     []faultEvent     `json:"faults"`
	FaultSq    int              `json:"fault_sq"`
	Kills      int              `json:"kills"`
	ChaosAt    uint64           `json:"chaos_at"`
	Asserts    []AssertionState `json:"asserts"`
	SetupDone  bool             `json:"setup_done"`
	SetupAt    uint64           `json:"setup_at"`
	ProgressAt uint64           `json:"progress_at"`
	LiveStart  uint64           `json:"live_start"`
	Decisions  []Decision       `json:"decisions"`
	Next       int              `json:"next"`
	NewEdges   int              `json:"new_edges"`
	Cov        *bootCov         `json:"cov,omitempty"`
}

type bootNode struct {
	Seed      uint64            `json:"seed"` // the machine spec's (the report's board with it)
	File      string            `json:"file"` // the machine snapshot ("": down)
	Down      bool              `json:"down"`
	DownBy    int               `json:"down_by"`
	Done      bool              `json:"done"`
	ICount    uint64            `json:"icount"`
	Tail      []byte            `json:"tail"`
	Line      []byte            `json:"line"`
	Written   uint64            `json:"written"`
	Traps     [][]bootTrap      `json:"traps"`
	Diverted  []bootTrap        `json:"diverted"`
	LastUser  map[uint64]uint64 `json:"last_user"`
	TrapSeq   uint64            `json:"trap_seq"`
	TasksDone bool              `json:"tasks_done"`
	Ready     bool              `json:"ready"`
}

type bootTrap struct {
	Trap          emu.Trap
	At, Satp, Seq uint64
}

type bootSwitch struct {
	Blocked            [][]bool     `json:"blocked"`
	Queue              []bootPacket `json:"queue"`
	Seq, Sent, Dropped uint64
}

type bootPacket struct {
	At, Seq uint64
	Dst     int
	Frame   []byte
}

type bootCov struct {
	Edges, Pairs               []uint8
	TouchedEdges, TouchedPairs []uint32
	NewEdges, NewPairs         int
}

func trapsOut(ts []trapEntry) []bootTrap {
	out := make([]bootTrap, len(ts))
	for i, t := range ts {
		out[i] = bootTrap{Trap: t.Trap, At: t.at, Satp: t.satp, Seq: t.seq}
	}
	return out
}

func trapsIn(ts []bootTrap) []trapEntry {
	out := make([]trapEntry, len(ts))
	for i, t := range ts {
		out[i] = trapEntry{Trap: t.Trap, at: t.At, satp: t.Satp, seq: t.Seq}
	}
	return out
}

// saveBootDisk writes e, the boot of key k of report r, as an entry on
// disk (replacing one that did not verify). Errors are notes: the cache is
// an optimisation.
func saveBootDisk(r *Report, k bootKey, e *bootEntry) {
	dir := bootDiskDir(k)
	if dir == "" {
		return
	}
	if err := writeBootDisk(r, k, e, dir); err != nil {
		bootNote("boot cache: not kept on disk: %v", err)
		return
	}
	bootNote("boot cache: booted, and kept the boot (fork point at instruction %d) in %s", e.snap.ICount, dir)
}

func writeBootDisk(r *Report, k bootKey, e *bootEntry, dir string) error {
	s := e.snap
	f := bootFile{
		Format: bootFormat, Key: hex.EncodeToString(k[:]), T: s.T, ICount: s.ICount, Path: s.Path, Why: s.Why,
		Plan: s.plan, Net: s.net, Flt: s.flt, Faults: s.faults, FaultSq: s.faultSq, Kills: s.kills, ChaosAt: s.chaosAt,
		Asserts: s.asserts, SetupDone: s.setupDone, SetupAt: s.setupAt, ProgressAt: s.progressAt, LiveStart: s.liveStart,
		Decisions: s.decisions, Next: s.next, NewEdges: s.newEdges,
		Switch: bootSwitch{Blocked: s.sw.blocked, Seq: s.sw.seq, Sent: s.sw.Sent, Dropped: s.sw.Dropped},
	}
	for _, p := range s.sw.queue {
		f.Switch.Queue = append(f.Switch.Queue, bootPacket{At: p.at, Seq: p.seq, Dst: p.dst, Frame: p.frame})
	}
	if c := e.cov; c != nil {
		f.Cov = &bootCov{Edges: c.Edges, Pairs: c.Pairs, TouchedEdges: c.TouchedEdges, TouchedPairs: c.TouchedPairs, NewEdges: c.NewEdges, NewPairs: c.NewPairs}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-"+filepath.Base(dir))
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for i, ns := range s.nodes {
		if ns.spec.Seed != derive(r.Path[0].Seed, streamGuest+uint64(i)) {
			return fmt.Errorf("node %d's machine is not the report's board", i) // a boot has no restarts
		}
		n := bootNode{Seed: ns.spec.Seed, Down: ns.down, DownBy: ns.downBy, Done: ns.done, ICount: ns.icount,
			Tail: ns.tail, Line: ns.line, Written: ns.written, Diverted: trapsOut(ns.diverted), LastUser: ns.lastUser,
			TrapSeq: ns.trapSeq, TasksDone: ns.tasksDone, Ready: ns.ready}
		for _, c := range ns.traps {
			n.Traps = append(n.Traps, trapsOut(c))
		}
		if !ns.down {
			n.File = fmt.Sprintf("node%d.snap", i)
			if _, err := snapshot.Write(filepath.Join(tmp, n.File), ns.spec, ns.snap, nil); err != nil {
				return fmt.Errorf("node %d: %w", i, err)
			}
		}
		f.Nodes = append(f.Nodes, n)
	}
	body, err := json.Marshal(&f)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	out := append([]byte(hex.EncodeToString(sum[:])+"\n"), body...)
	if err := os.WriteFile(filepath.Join(tmp, "boot.json"), out, 0o644); err != nil {
		return err
	}
	if err := syncFile(filepath.Join(tmp, "boot.json")); err != nil {
		return err
	}
	if _, err := os.Stat(dir); err == nil {
		// A bad entry (a good one is never replaced: it was read first).
		old := dir + ".old"
		os.RemoveAll(old)
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		defer os.RemoveAll(old)
	}
	return os.Rename(tmp, dir)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// errNoEntry: the disk has no entry for the boot (not worth a note).
var errNoEntry = errors.New("no entry")

// loadBootDisk reads the entry of key k for report r's spec s, or says why
// it cannot.
func loadBootDisk(r *Report, s *Spec, k bootKey) (*bootEntry, error) {
	dir := bootDiskDir(k)
	if dir == "" {
		return nil, errNoEntry
	}
	b, err := os.ReadFile(filepath.Join(dir, "boot.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoEntry
	}
	if err != nil {
		return nil, err
	}
	head, body, ok := bytes.Cut(b, []byte("\n"))
	sum := sha256.Sum256(body)
	if !ok || string(head) != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%s: boot.json does not match its checksum", dir)
	}
	var f bootFile
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, fmt.Errorf("%s: boot.json: %v", dir, err)
	}
	if f.Format != bootFormat || f.Key != hex.EncodeToString(k[:]) || len(f.Nodes) != len(s.nodes) ||
		len(f.Switch.Blocked) != len(s.nodes) || f.T != r.Path[1].At {
		return nil, fmt.Errorf("%s: boot.json is not this boot's", dir)
	}
	snap := &UniverseSnapshot{
		T: f.T, ICount: f.ICount, Path: f.Path, Why: f.Why, plan: f.Plan, net: f.Net, flt: f.Flt, faults: f.Faults,
		faultSq: f.FaultSq, kills: f.Kills, chaosAt: f.ChaosAt, asserts: f.Asserts, setupDone: f.SetupDone, setupAt: f.SetupAt,
		progressAt: f.ProgressAt, liveStart: f.LiveStart, decisions: f.Decisions, next: f.Next, newEdges: f.NewEdges,
	}
	macs := make([][6]byte, len(s.nodes))
	for i, bs := range s.nodes {
		if bs.MAC != "" {
			fmt.Sscanf(bs.MAC, "%x:%x:%x:%x:%x:%x", &macs[i][0], &macs[i][1], &macs[i][2], &macs[i][3], &macs[i][4], &macs[i][5])
		}
	}
	snap.sw = &Switch{macs: macs, blocked: f.Switch.Blocked, seq: f.Switch.Seq, Sent: f.Switch.Sent, Dropped: f.Switch.Dropped}
	for i, row := range f.Switch.Blocked {
		if len(row) != len(s.nodes) {
			return nil, fmt.Errorf("%s: boot.json: switch row %d", dir, i)
		}
	}
	for _, p := range f.Switch.Queue {
		if p.Dst < 0 || p.Dst >= len(s.nodes) {
			return nil, fmt.Errorf("%s: boot.json: a packet for node %d", dir, p.Dst)
		}
		snap.sw.queue = append(snap.sw.queue, packet{at: p.At, seq: p.Seq, dst: p.Dst, frame: p.Frame})
	}
	for i, n := range f.Nodes {
		spec := *s.nodes[i]
		spec.Seed = derive(r.Path[0].Seed, streamGuest+uint64(i))
		if n.Seed != spec.Seed {
			return nil, fmt.Errorf("%s: boot.json: node %d is not this boot's", dir, i)
		}
		ns := nodeState{spec: &spec, down: n.Down, downBy: n.DownBy, done: n.Done, icount: n.ICount, tail: n.Tail, line: n.Line,
			written: n.Written, diverted: trapsIn(n.Diverted), lastUser: n.LastUser, trapSeq: n.TrapSeq, tasksDone: n.TasksDone, ready: n.Ready}
		for _, c := range n.Traps {
			ns.traps = append(ns.traps, trapsIn(c))
		}
		if !n.Down {
			if n.File != fmt.Sprintf("node%d.snap", i) {
				return nil, fmt.Errorf("%s: boot.json: node %d's file %q", dir, i, n.File)
			}
			sf, err := snapshot.LoadWith(filepath.Join(dir, n.File), snapshot.LoadOptions{SkipImages: true})
			if err != nil {
				return nil, fmt.Errorf("node %d: %w", i, err)
			}
			if sf.Incremental() {
				return nil, fmt.Errorf("%s: node %d's snapshot is incremental", dir, i)
			}
			ns.snap = sf.Snap
		}
		snap.nodes = append(snap.nodes, ns)
	}
	e := &bootEntry{snap: snap}
	if c := f.Cov; c != nil {
		for _, i := range c.TouchedEdges {
			if int(i) >= len(c.Edges) {
				return nil, fmt.Errorf("%s: boot.json: edge slot %d of %d", dir, i, len(c.Edges))
			}
		}
		for _, i := range c.TouchedPairs {
			if int(i) >= len(c.Pairs) {
				return nil, fmt.Errorf("%s: boot.json: pair slot %d of %d", dir, i, len(c.Pairs))
			}
		}
		e.cov = &emu.Coverage{Edges: c.Edges, Pairs: c.Pairs, TouchedEdges: c.TouchedEdges, TouchedPairs: c.TouchedPairs, NewEdges: c.NewEdges, NewPairs: c.NewPairs}
	}
	return e, nil
}

// bootDiskNoted: whether a bad entry's note was given, per entry (once).
var bootDiskNoted sync.Map

// fromDisk is the boot of key k read from disk, or nil (with a note when
// an entry was there but did not verify; it is then rewritten after the
// replay boots).
func fromDisk(r *Report, k bootKey) *bootEntry {
	e, err := loadBootDisk(r, r.spec(), k)
	if err == nil {
		bootNote("boot cache: restored the boot (fork point at instruction %d) from %s", e.snap.ICount, bootDiskDir(k))
		return e
	}
	if !errors.Is(err, errNoEntry) {
		if _, done := bootDiskNoted.LoadOrStore(k, true); !done {
			bootNote("boot cache entry unusable, booting instead: %s", strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}
	return nil
}
