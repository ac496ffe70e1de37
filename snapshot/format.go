// Package snapshot saves machines to files and loads them back, and forks
// many universes from one snapshot across host cores.
//
// An in-memory snapshot (emu.Snapshot) is a frozen machine: its component
// state as bytes and its RAM as copy-on-write pages. This package gives it a
// file format, so that a machine can be stopped in one process and continued
// or forked in another, and a board.Spec, so that the machine's structure
// (and the images it was built from) can be rebuilt exactly.
//
// # File layout
//
// All integers are little-endian. A file is a fixed header, seven sections
// in a fixed order, and a trailer:
//
//	header (96 bytes)
//	  off len
//	    0   8  magic "EVSNAP\r\n"
//	    8   4  format version (Version = 5)
//	   12   4  flags: bit 0 = incremental (the file has a parent); other bits 0
//	   16   8  architecture, ASCII padded with NULs: "rv64gc"
//	   24   8  length of the whole file in bytes, trailer included
//	   32  32  configuration hash (ConfigHash of the spec and machine config)
//	   64  32  parent identity: the parent file's checksum (zero if full)
//	sections, from byte 96, each:
//	    0   4  kind (1..7, in this order: see below)
//	    4   4  encoding: 0 = stored as is, 1 = zstd (RFC 8878)
//	    8   8  stored length n (bytes that follow)
//	   16   8  decoded length
//	   24   n  stored bytes
//	trailer (32 bytes)
//	    0  32  checksum: SHA-256 of every byte before the trailer
//
// The sections, each present exactly once:
//
//	1 spec        JSON board.Spec: board, harts, RAM, quantum, seed, command
//	              line, memory model (absent: sc), and every image by path
//	              and SHA-256 (the guest-image hashes); stored as is
//	2 parent path where the parent file was (relative to this file's folder
//	              when it can be), a hint for finding it; empty if full
//	3 machine     emu.Config and the instruction count: RAM base, RAM bytes,
//	              harts, quantum, seed, instructions per tick, icount (7 u64)
//	4 components  the names of the machine's registered components, as an
//	              hw.Encoder writes them: count, then length-prefixed names
//	5 state       emu.Snapshot.State (everything but RAM), zstd
//	6 page index  one u64 per recorded page, in strictly increasing page
//	              order: page number << 1 | z, where z = 1 marks a page that
//	              is all zero and has no data (only an incremental file
//	              needs those); zstd
//	7 page data   PageBytes for each index entry with z = 0, in index order;
//	              zstd
//
// A full file records every page that is not all zero. An incremental file
// records the pages that differ from its parent's (emu.Snapshot.
// ChangedPages) and names its parent by checksum: the file's checksum is its
// identity. A snapshot is rebuilt by loading the chain from the full file
// down, each file's pages replacing its parent's.
//
// Decoding checks, in order: the magic, the version, the architecture, the
// length (a short file is truncated), the checksum (any other change is
// corruption), then every section against a limit before it allocates, the
// configuration hash, the parent chain (each parent loaded and checked the
// same way, and its checksum compared with the one recorded), and the
// images' hashes. Each
// failure wraps a sentinel error (ErrNotSnapshot, ErrVersion, ErrArch,
// ErrTruncated, ErrCorrupt, ErrWrongImage, ErrParent) and says what it
// found. Writing is atomic: a temporary file in the same folder, fsync,
// rename, fsync of the folder; a failed write leaves any existing file as it
// was.
package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"everett/emu"
	"everett/emu/board"
	"everett/hw"
)

// Format constants.
const (
	// Magic starts every snapshot file.
	Magic = "EVSNAP\r\n"
	// Version is the format version this package writes and reads.
	Version = 6 // 2: the scheduler saves the communication tracker; 3: and whether only user-mode events preempt; 4: and holds; 5: TLBs tagged by ASID (versionChanges), and which returns are from futex calls; 6: the scheduler's change-point cluster, rvwmo's taints, deferred LR/SC and fence waits
	// Arch is the architecture field: the machines everett emulates.
	Arch = "rv64gc"

	headerBytes  = 96
	sectionBytes = 24 // a section's own header
	trailerBytes = sha256.Size

	flagIncremental = 1 << 0
)

// Section kinds, in file order.
const (
	secSpec = 1 + iota
	secParentPath
	secMachine
	secComponents
	secState
	secPageIndex
	secPageData
	numSections = secPageData
)

var sectionNames = [...]string{"", "spec", "parent path", "machine", "components", "state", "page index", "page data"}

// Section encodings.
const (
	encRaw  = 0
	encZstd = 1
)

// Limits on what a file may declare, checked before anything is allocated.
const (
	// MaxFileBytes bounds a snapshot file: 1 TiB of RAM compresses to less,
	// and nothing larger is read.
	MaxFileBytes = 1 << 41
	maxSpecBytes = 1 << 20
	maxPathBytes = 4096
	// maxStateBytes bounds the component state (it holds the disk overlay).
	maxStateBytes  = hw.MaxSliceLen
	maxComponents  = 1 << 10
	maxRAMBytes    = 1 << 40 // as emu.New
	machineBytes   = 7 * 8
	maxWindowBytes = 8 << 20 // zstd window: the encoder uses far less
	// MaxChainDepth bounds the parents an incremental file may have.
	MaxChainDepth = 64
)

// Errors of Load and Decode, for errors.Is. Every error names what it found.
var (
	// ErrNotSnapshot: the file does not start with Magic.
	ErrNotSnapshot = errors.New("not an everett snapshot file")
	// ErrVersion: the file has a format version this everett cannot read.
	ErrVersion = errors.New("unsupported snapshot format version")
	// ErrArch: the file is for another architecture.
	ErrArch = errors.New("snapshot is for another architecture")
	// ErrTruncated: the file ends before its recorded length.
	ErrTruncated = errors.New("snapshot file is truncated")
	// ErrCorrupt: the checksum does not match, or the content is
	// inconsistent or exceeds a limit.
	ErrCorrupt = errors.New("snapshot file is corrupted")
	// ErrWrongImage: an image the snapshot was made from no longer has its
	// recorded hash. It is board.ErrImageChanged, so either matches.
	ErrWrongImage = board.ErrImageChanged
	// ErrParent: an incremental file's parent is missing or is not the file
	// it was made from.
	ErrParent = errors.New("snapshot parent does not match")
)

// header is the fixed part of a file.
type header struct {
	version    uint32
	flags      uint32
	arch       [8]byte
	length     uint64
	configHash [32]byte
	parentID   [32]byte
}

func (h *header) encode() []byte {
	b := make([]byte, headerBytes)
	copy(b, Magic)
	binary.LittleEndian.PutUint32(b[8:], h.version)
	binary.LittleEndian.PutUint32(b[12:], h.flags)
	copy(b[16:24], h.arch[:])
	binary.LittleEndian.PutUint64(b[24:], h.length)
	copy(b[32:64], h.configHash[:])
	copy(b[64:96], h.parentID[:])
	return b
}

// decodeHeader checks the magic, version and architecture (so that a file
// from another everett says so, whatever else changed).
func decodeHeader(b []byte) (header, error) {
	var h header
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		if len(b) < len(Magic) && bytes.HasPrefix([]byte(Magic), b) {
			return h, fmt.Errorf("%w: %d bytes, shorter than the magic", ErrTruncated, len(b))
		}
		return h, fmt.Errorf("%w: the first bytes are %q", ErrNotSnapshot, b[:min(len(b), len(Magic))])
	}
	if len(b) < headerBytes {
		return h, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrTruncated, len(b), headerBytes)
	}
	h.version = binary.LittleEndian.Uint32(b[8:])
	h.flags = binary.LittleEndian.Uint32(b[12:])
	copy(h.arch[:], b[16:24])
	h.length = binary.LittleEndian.Uint64(b[24:])
	copy(h.configHash[:], b[32:64])
	copy(h.parentID[:], b[64:96])
	if h.version != Version {
		// Every change since the file's version, newest first.
		var since []string
		for v := uint32(Version); v > h.version; v-- {
			if c, ok := versionChanges[v]; ok {
				since = append(since, c)
			}
		}
		why := ""
		if len(since) > 0 {
			why = " (" + strings.Join(since, "; ") + ")"
		}
		return h, fmt.Errorf("%w: the file has version %d, this everett reads version %d%s", ErrVersion, h.version, Version, why)
	}
	if want := archField(); h.arch != want {
		return h, fmt.Errorf("%w: the file is for %q, this everett emulates %q", ErrArch, bytes.TrimRight(h.arch[:], "\x00"), Arch)
	}
	return h, nil
}

// versionChanges says what each format version changed, for the error
// that refuses an older file.
var versionChanges = map[uint32]string{
	6: "since version 6 the scheduler saves how close its change points are drawn (the cluster), and a machine under rvwmo saves its registers' dependencies on pending loads, deferred LR/SC pairs and fence waits, which a file of version 5 does not say",
	5: "since version 5 the machine keeps TLB entries per ASID and the scheduler saves which system call returns are futex calls, so a machine saved before would run on differently",
}

func archField() [8]byte {
	var a [8]byte
	copy(a[:], Arch)
	return a
}

// ConfigHash identifies the structure of a machine: what must be equal for
// a snapshot to restore into it and for an incremental file to extend its
// parent. It is the SHA-256 of a text naming the board, harts, RAM, quantum,
// timebase, command line, MAC and each image's hash; the seed and the
// images' paths are left out (a fork reseeds; images may move).
func ConfigHash(s *board.Spec, c emu.Config) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "everett machine v1\nboard %q\nharts %d\nram %d at %#x\nquantum %d\ninsns-per-tick %d\nappend %q\nmac %q\n",
		s.Board, c.Harts, c.RAMBytes, c.RAMBase, c.Quantum, c.InsnsPerTick, s.Append, s.MAC)
	for _, im := range s.Images() {
		fmt.Fprintf(h, "image %s %s\n", im.Name, im.Im.SHA256)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// The zstd encoder is shared: EncodeAll is safe for concurrent use.
var (
	zOnce sync.Once
	zEnc  *zstd.Encoder
	zErr  error
)

func encoder() (*zstd.Encoder, error) {
	zOnce.Do(func() {
		zEnc, zErr = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(maxWindowBytes/2))
	})
	return zEnc, zErr
}

// section is one section as it will be written.
type section struct {
	kind    uint32
	enc     uint32
	decoded uint64
	data    []byte
}

// encoded is what encodeFile wrote.
type encoded struct {
	id                    [32]byte // the checksum: the file's identity
	dataPages, zeroPages  int
	stateBytes, pageBytes int // compressed sizes
}

// encodeFile writes the file for snap to w and returns its checksum (its
// identity) and sizes. parent, when not nil, makes the file incremental: only pages
// that differ from parent's snapshot are recorded. parentPath is the hint
// recorded for finding the parent.
func encodeFile(w io.Writer, spec *board.Spec, snap *emu.Snapshot, parent *File, parentPath string) (encoded, error) {
	var out encoded
	id := &out.id
	enc, err := encoder()
	if err != nil {
		return out, err
	}
	if spec == nil || snap == nil {
		return out, errors.New("snapshot: nil spec or snapshot")
	}
	cfg := snap.Config
	h := header{version: Version, arch: archField(), configHash: ConfigHash(spec, cfg)}
	if parent != nil {
		if parent.ConfigHash != h.configHash {
			return out, fmt.Errorf("%w: the parent %s is of another machine (configuration hash %x, this one %x)",
				ErrParent, parent.Path, parent.ConfigHash[:8], h.configHash[:8])
		}
		if parent.Snap.ICount > snap.ICount {
			return out, fmt.Errorf("%w: the parent %s was taken at %d instructions, after this snapshot (%d)",
				ErrParent, parent.Path, parent.Snap.ICount, snap.ICount)
		}
		h.flags |= flagIncremental
		h.parentID = parent.ID
	}

	specJSON, err := json.Marshal(spec)
	if err != nil {
		return out, fmt.Errorf("snapshot: spec: %w", err)
	}
	if len(specJSON) > maxSpecBytes {
		return out, fmt.Errorf("snapshot: spec of %d bytes exceeds %d", len(specJSON), maxSpecBytes)
	}
	if len(parentPath) > maxPathBytes {
		return out, fmt.Errorf("snapshot: parent path of %d bytes exceeds %d", len(parentPath), maxPathBytes)
	}
	if len(snap.State) > maxStateBytes {
		return out, fmt.Errorf("snapshot: state of %d bytes exceeds %d", len(snap.State), maxStateBytes)
	}
	mach := make([]byte, 0, machineBytes)
	for _, v := range []uint64{cfg.RAMBase, cfg.RAMBytes, uint64(cfg.Harts), cfg.Quantum, cfg.Seed, cfg.InsnsPerTick, snap.ICount} {
		mach = binary.LittleEndian.AppendUint64(mach, v)
	}
	var ce hw.Encoder
	ce.U64(uint64(len(snap.Components)))
	for _, c := range snap.Components {
		ce.String(c)
	}

	index, data, err := encodePages(enc, snap, parent)
	if err != nil {
		return out, err
	}
	out.dataPages = int(data.decoded / emu.PageBytes)
	out.zeroPages = int(index.decoded/8) - out.dataPages
	out.pageBytes = len(index.data) + len(data.data)
	state := enc.EncodeAll(snap.State, nil)
	out.stateBytes = len(state)
	secs := []section{
		{kind: secSpec, enc: encRaw, decoded: uint64(len(specJSON)), data: specJSON},
		{kind: secParentPath, enc: encRaw, decoded: uint64(len(parentPath)), data: []byte(parentPath)},
		{kind: secMachine, enc: encRaw, decoded: machineBytes, data: mach},
		{kind: secComponents, enc: encRaw, decoded: uint64(len(ce.Bytes())), data: ce.Bytes()},
		{kind: secState, enc: encZstd, decoded: uint64(len(snap.State)), data: state},
		index,
		data,
	}
	h.length = headerBytes + trailerBytes
	for _, s := range secs {
		h.length += sectionBytes + uint64(len(s.data))
	}

	sum := sha256.New()
	mw := io.MultiWriter(w, sum)
	if _, err := mw.Write(h.encode()); err != nil {
		return out, err
	}
	for _, s := range secs {
		var sh [sectionBytes]byte
		binary.LittleEndian.PutUint32(sh[0:], s.kind)
		binary.LittleEndian.PutUint32(sh[4:], s.enc)
		binary.LittleEndian.PutUint64(sh[8:], uint64(len(s.data)))
		binary.LittleEndian.PutUint64(sh[16:], s.decoded)
		if _, err := mw.Write(sh[:]); err != nil {
			return out, err
		}
		if _, err := mw.Write(s.data); err != nil {
			return out, err
		}
	}
	sum.Sum(id[:0])
	if _, err := w.Write(id[:]); err != nil {
		return out, err
	}
	return out, nil
}

var zeroPage [emu.PageBytes]byte

// encodePages builds the page index and page data sections. A full file
// records every page that is not all zero; an incremental one every page
// that differs from the parent's, zero pages as index entries only.
func encodePages(enc *zstd.Encoder, snap *emu.Snapshot, parent *File) (index, data section, err error) {
	var idx []byte
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(maxWindowBytes/2))
	if err != nil {
		return index, data, err
	}
	var dataPages uint64
	add := func(n uint64, d *[emu.PageBytes]byte) {
		if err != nil {
			return
		}
		if *d == zeroPage {
			if parent == nil {
				return // a full file leaves zero pages out
			}
			idx = binary.LittleEndian.AppendUint64(idx, n<<1|1)
			return
		}
		idx = binary.LittleEndian.AppendUint64(idx, n<<1)
		dataPages++
		_, err = zw.Write(d[:])
	}
	if parent == nil {
		snap.Pages(func(p emu.Page) { add(p.N, p.Data) })
	} else {
		// ChangedPages misses a page the parent has and this snapshot lacks;
		// that happens only if snap does not descend from the parent's
		// snapshot, and then such a page must read as zero.
		var have, missing []uint64
		snap.Pages(func(p emu.Page) { have = append(have, p.N) })
		j := 0
		parent.Snap.Pages(func(p emu.Page) {
			for j < len(have) && have[j] < p.N {
				j++
			}
			if (j == len(have) || have[j] != p.N) && *p.Data != zeroPage {
				missing = append(missing, p.N)
			}
		})
		snap.ChangedPages(parent.Snap, func(p emu.Page) {
			for len(missing) > 0 && missing[0] < p.N {
				add(missing[0], &zeroPage)
				missing = missing[1:]
			}
			add(p.N, p.Data)
		})
		for _, n := range missing {
			add(n, &zeroPage)
		}
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return index, data, err
	}
	index = section{kind: secPageIndex, enc: encZstd, decoded: uint64(len(idx)), data: enc.EncodeAll(idx, nil)}
	data = section{kind: secPageData, enc: encZstd, decoded: dataPages * emu.PageBytes, data: buf.Bytes()}
	return index, data, nil
}

// decoded is a file's content before its parent is resolved.
type decoded struct {
	header
	id          [32]byte
	spec        *board.Spec
	parentPath  string
	cfg         emu.Config
	icount      uint64
	components  []string
	state       []byte
	pages       []emu.Page // data and zero pages, in page order
	dataPages   int
	zeroPages   int
	stateStored int // compressed sizes
	pagesStored int
}

// decodeFile checks and decodes a whole file. It never panics and allocates
// nothing that a checked limit does not bound.
func decodeFile(b []byte) (*decoded, error) {
	h, err := decodeHeader(b)
	if err != nil {
		return nil, err
	}
	switch {
	case h.length > uint64(len(b)):
		return nil, fmt.Errorf("%w: %d bytes of the %d recorded in its header", ErrTruncated, len(b), h.length)
	case h.length < uint64(len(b)):
		return nil, fmt.Errorf("%w: %d bytes follow the %d recorded in its header", ErrCorrupt, uint64(len(b))-h.length, h.length)
	case h.length < headerBytes+trailerBytes:
		return nil, fmt.Errorf("%w: recorded length %d is too short", ErrCorrupt, h.length)
	}
	body := b[:len(b)-trailerBytes]
	d := &decoded{header: h}
	copy(d.id[:], b[len(body):])
	if sha256.Sum256(body) != d.id {
		return nil, fmt.Errorf("%w: checksum mismatch (the SHA-256 of the content is not the one recorded at the end)", ErrCorrupt)
	}
	if h.flags&^flagIncremental != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, h.flags)
	}
	if (h.flags&flagIncremental != 0) != (h.parentID != [32]byte{}) {
		return nil, fmt.Errorf("%w: the incremental flag and the parent identity disagree", ErrCorrupt)
	}

	// Sections: read each header, check kind, encoding and lengths against
	// limits, then decode.
	off := headerBytes
	var secs [numSections + 1][]byte
	var stored [numSections + 1]int
	for kind := uint32(1); kind <= numSections; kind++ {
		name := sectionNames[kind]
		if len(body)-off < sectionBytes {
			return nil, fmt.Errorf("%w: %s section header past the end", ErrCorrupt, name)
		}
		sh := body[off : off+sectionBytes]
		k := binary.LittleEndian.Uint32(sh[0:])
		e := binary.LittleEndian.Uint32(sh[4:])
		n := binary.LittleEndian.Uint64(sh[8:])
		dn := binary.LittleEndian.Uint64(sh[16:])
		off += sectionBytes
		if k != kind {
			return nil, fmt.Errorf("%w: section %d where the %s section (%d) belongs", ErrCorrupt, k, name, kind)
		}
		if n > uint64(len(body)-off) {
			return nil, fmt.Errorf("%w: %s section of %d bytes runs past the end", ErrCorrupt, name, n)
		}
		data := body[off : off+int(n)]
		off += int(n)
		stored[kind] = int(n)
		limit, wantEnc := sectionLimit(kind, d)
		if e != wantEnc {
			return nil, fmt.Errorf("%w: %s section has encoding %d, want %d", ErrCorrupt, name, e, wantEnc)
		}
		if dn > limit {
			return nil, fmt.Errorf("%w: %s section declares %d bytes, more than the limit %d", ErrCorrupt, name, dn, limit)
		}
		switch e {
		case encRaw:
			if n != dn {
				return nil, fmt.Errorf("%w: %s section stores %d bytes but declares %d", ErrCorrupt, name, n, dn)
			}
			secs[kind] = data
		case encZstd:
			out, err := unzstd(data, dn)
			if err != nil {
				return nil, fmt.Errorf("%w: %s section: %v", ErrCorrupt, name, err)
			}
			secs[kind] = out
		}
		if err := d.decodeSection(kind, secs[kind]); err != nil {
			return nil, err
		}
	}
	if off != len(body) {
		return nil, fmt.Errorf("%w: %d bytes after the last section", ErrCorrupt, len(body)-off)
	}
	d.stateStored = stored[secState]
	d.pagesStored = stored[secPageIndex] + stored[secPageData]
	if err := d.assemblePages(secs[secPageIndex], secs[secPageData]); err != nil {
		return nil, err
	}
	if got := ConfigHash(d.spec, d.cfg); got != h.configHash {
		return nil, fmt.Errorf("%w: the configuration hash does not match the spec and machine sections", ErrCorrupt)
	}
	return d, nil
}

// sectionLimit returns the most bytes a section may decode to (given the
// sections before it) and its encoding.
func sectionLimit(kind uint32, d *decoded) (uint64, uint32) {
	switch kind {
	case secSpec:
		return maxSpecBytes, encRaw
	case secParentPath:
		return maxPathBytes, encRaw
	case secMachine:
		return machineBytes, encRaw
	case secComponents:
		return maxComponents * (8 + 256), encRaw
	case secState:
		return maxStateBytes, encZstd
	case secPageIndex:
		return d.cfg.RAMBytes / emu.PageBytes * 8, encZstd
	}
	return d.cfg.RAMBytes, encZstd // page data
}

// growStep is the most a decoded section grows by at a time beyond its
// first allocation: memory is allocated as data actually decodes, never up
// front for a declared length.
const growStep = 16 << 20

// firstRatio bounds a decoded section's first allocation by its stored
// bytes: at most this many times them (or growStep). Snapshots' page data
// decodes to about 5 times its stored bytes (etcd's boot: 17 MB to 87 MB a
// node, 2026-12-05), so it decodes into one allocation; growing those
// sections from 16 MiB by doubling, through the decoder's stream, spent
// 1.2 of the 4.2 s of CPU a replay from a cached etcd boot took, in copies
// and clearing. A file that declares more than it stores
// still allocates at most this multiple of its own size up front.
const firstRatio = 16

// unzstd decodes one zstd section into exactly want bytes (want already
// checked against the section's limit). It decodes at once into one buffer
// of at most firstRatio times the stored bytes (no copy through the
// decoder's own buffers, no regrowth), and streams (unzstdStream) only a
// section that decodes to more than that.
func unzstd(src []byte, want uint64) ([]byte, error) {
	first := min(want, max(growStep, firstRatio*uint64(len(src))))
	zr, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(maxWindowBytes),
		zstd.WithDecoderMaxMemory(max(first, maxWindowBytes)), // the cap limits the output
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, err
	}
	out, err := zr.DecodeAll(src, make([]byte, 0, first))
	zr.Close()
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) && first < want:
		return unzstdStream(src, want)
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return nil, fmt.Errorf("decodes to more than the %d bytes declared", want)
	case err != nil:
		return nil, err
	case uint64(len(out)) != want:
		return nil, fmt.Errorf("decodes to %d bytes, declared %d", len(out), want)
	}
	return out, nil
}

// unzstdStream decodes a section as a stream. The decoder's window and
// memory are bounded, and it stops at want: a longer stream is an error,
// not an allocation.
func unzstdStream(src []byte, want uint64) ([]byte, error) {
	zr, err := zstd.NewReader(bytes.NewReader(src),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(maxWindowBytes),
		zstd.WithDecoderMaxMemory(maxWindowBytes),
		zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	out := make([]byte, 0, min(want, growStep))
	for uint64(len(out)) < want {
		if len(out) == cap(out) {
			out = slices.Grow(out, int(min(want-uint64(len(out)), max(growStep, uint64(len(out))))))
		}
		n, err := zr.Read(out[len(out):min(uint64(cap(out)), want)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if uint64(len(out)) != want {
		return nil, fmt.Errorf("decodes to %d bytes, declared %d", len(out), want)
	}
	var one [1]byte
	for range 64 { // a reader may return (0, nil) a few times; not forever
		n, err := zr.Read(one[:])
		if n > 0 {
			return nil, fmt.Errorf("decodes to more than the %d bytes declared", want)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, errors.New("the decoder makes no progress")
}

func (d *decoded) decodeSection(kind uint32, b []byte) error {
	name := sectionNames[kind]
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s section: %s", ErrCorrupt, name, fmt.Sprintf(format, a...))
	}
	switch kind {
	case secSpec:
		var s board.Spec
		if err := json.Unmarshal(b, &s); err != nil {
			return bad("%v", err)
		}
		d.spec = &s
	case secParentPath:
		d.parentPath = string(b)
		if (d.parentPath != "") != (d.flags&flagIncremental != 0) {
			return bad("a parent path in a full file, or none in an incremental one")
		}
	case secMachine:
		if len(b) != machineBytes {
			return bad("%d bytes, want %d", len(b), machineBytes)
		}
		v := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
		d.cfg = emu.Config{RAMBase: v(0), RAMBytes: v(1), Quantum: v(3), Seed: v(4), InsnsPerTick: v(5)}
		harts := v(2)
		d.icount = v(6)
		switch {
		case harts < 1 || harts > emu.MaxHarts:
			return bad("%d harts", harts)
		case d.cfg.RAMBytes == 0 || d.cfg.RAMBytes%emu.PageBytes != 0 || d.cfg.RAMBytes > maxRAMBytes:
			return bad("RAM of %d bytes", d.cfg.RAMBytes)
		case d.cfg.Quantum == 0 || d.cfg.InsnsPerTick == 0:
			return bad("quantum %d, %d instructions per tick", d.cfg.Quantum, d.cfg.InsnsPerTick)
		}
		d.cfg.Harts = int(harts)
		if d.spec.Harts != d.cfg.Harts || d.spec.RAMBytes != d.cfg.RAMBytes {
			return bad("%d harts and %d bytes of RAM, the spec says %d and %d", d.cfg.Harts, d.cfg.RAMBytes, d.spec.Harts, d.spec.RAMBytes)
		}
	case secComponents:
		dec := hw.NewDecoder(b)
		n := dec.Len(maxComponents)
		names := make([]string, 0, n)
		for i := 0; i < n && dec.Err() == nil; i++ {
			names = append(names, dec.String(256))
		}
		if err := dec.Err(); err != nil {
			return bad("%v", err)
		}
		if dec.Remaining() != 0 {
			return bad("%d bytes after the names", dec.Remaining())
		}
		d.components = names
	case secState:
		d.state = b
	}
	return nil
}

// assemblePages checks the page index against RAM and the data section, and
// makes one emu.Page per entry. Data pages point into the decoded data
// section (no copy); zero pages share one zero page, which no machine
// writes (pages of a loaded snapshot belong to no machine, so every write
// copies first).
func (d *decoded) assemblePages(index, data []byte) error {
	if len(index)%8 != 0 {
		return fmt.Errorf("%w: page index of %d bytes is not whole entries", ErrCorrupt, len(index))
	}
	npages := d.cfg.RAMBytes / emu.PageBytes
	n := len(index) / 8
	d.pages = make([]emu.Page, 0, n)
	prev := int64(-1)
	used := 0
	for i := 0; i < n; i++ {
		e := binary.LittleEndian.Uint64(index[8*i:])
		pn := e >> 1
		if pn >= npages || int64(pn) <= prev {
			return fmt.Errorf("%w: page index entry %d: page %d out of order or outside %d pages of RAM", ErrCorrupt, i, pn, npages)
		}
		prev = int64(pn)
		if e&1 != 0 {
			if d.flags&flagIncremental == 0 {
				return fmt.Errorf("%w: a zero page entry in a full file", ErrCorrupt)
			}
			d.pages = append(d.pages, emu.Page{N: pn, Data: &zeroPage})
			d.zeroPages++
			continue
		}
		if len(data)-used < emu.PageBytes {
			return fmt.Errorf("%w: page data ends before page %d", ErrCorrupt, pn)
		}
		d.pages = append(d.pages, emu.Page{N: pn, Data: (*[emu.PageBytes]byte)(data[used : used+emu.PageBytes])})
		used += emu.PageBytes
		d.dataPages++
	}
	if used != len(data) {
		return fmt.Errorf("%w: %d bytes of page data no index entry uses", ErrCorrupt, len(data)-used)
	}
	return nil
}

// Check decodes a snapshot file's bytes and checks everything that needs no
// other file: the header, the checksum, every section and its limits. It
// neither loads images nor resolves the parent. It is what the fuzz target
// exercises.
func Check(b []byte) error {
	_, err := decodeFile(b)
	return err
}
