package board

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"everett/devices/sdk"
	"everett/devices/virtio/blk"
	"everett/devices/virtio/net"
	"everett/emu"
	"everett/internal/hostfile"
)

// Spec describes a machine completely and serializably: the board, its
// size, its memory model, and its images by path and content hash.
// Snapshots, bug reports and the explorer store Specs so that a machine can
// be rebuilt exactly. Build is the one way from a Spec to a machine.
type Spec struct {
	Board    string `json:"board"` // BoardBareMetal or BoardVirt
	Harts    int    `json:"harts"`
	RAMBytes uint64 `json:"ram_bytes"`
	Quantum  uint64 `json:"quantum,omitempty"`
	Seed     uint64 `json:"seed"`
	Append   string `json:"append,omitempty"`
	// MemoryModel is the model the machine is built under: "" or "sc"
	// (the default, and what a spec written before the field existed
	// means), or "rvwmo" (emu.ParseMemoryModel).
	MemoryModel string `json:"memory_model,omitempty"`

	ELF          *Image `json:"elf,omitempty"` // bare-metal program
	BIOS         *Image `json:"bios,omitempty"`
	Kernel       *Image `json:"kernel,omitempty"`
	Initrd       *Image `json:"initrd,omitempty"`
	Disk         *Image `json:"disk,omitempty"`
	ConsoleInput *Image `json:"console_input,omitempty"`
	MAC          string `json:"mac,omitempty"` // "52:54:00:12:34:56"
	// DiskStable are the disk's blocks whose stable contents differ from
	// Disk's (blk.Config.Stable): a node restarted after a crash. They are
	// the universe's state, not an input: a spec written to a file leaves
	// them out, as it does the images' bytes.
	DiskStable []blk.Block `json:"-"`
}

// Boards.
const (
	BoardBareMetal = "baremetal"
	BoardVirt      = "virt"
)

// Image is a host file the machine is built from: its path, the SHA-256 of
// its contents, and (after Load) the contents.
type Image struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Data   []byte `json:"-"`
}

// ErrImageChanged says an image file no longer has the content hash recorded
// for it (a snapshot or report made with other images).
var ErrImageChanged = errors.New("image differs from the one recorded")

// NewImage reads path and records its hash.
func NewImage(path string) (*Image, error) {
	b, err := hostfile.Read(path)
	if err != nil {
		return nil, err
	}
	return &Image{Path: path, SHA256: sha256Hex(b), Data: b}, nil
}

// ImageOf is the image of data, which the caller has read from path itself.
// Its hash is left for HashImages, so that a machine that is built but never
// recorded does not pay for hashing its images.
func ImageOf(path string, data []byte) *Image {
	return &Image{Path: path, Data: data}
}

// HashImages records the hash of every loaded image that has none yet
// (ImageOf's): a spec is hashed before a snapshot or report records it.
func (s *Spec) HashImages() {
	for _, x := range s.Images() {
		if x.Im.SHA256 == "" && x.Im.Data != nil {
			x.Im.SHA256 = sha256Hex(x.Im.Data)
		}
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Model is the spec's memory model; an unknown name is an error naming the
// field.
func (s *Spec) Model() (emu.MemoryModel, error) {
	mm, err := emu.ParseMemoryModel(s.MemoryModel)
	if err != nil {
		return 0, fmt.Errorf("memory_model: %w", err)
	}
	return mm, nil
}

// Load reads the image (unless already loaded) and checks its hash.
func (im *Image) Load() error {
	if im == nil || im.Data != nil {
		return nil
	}
	b, got, err := hostfile.Load(im.Path)
	if err != nil {
		return err
	}
	if im.SHA256 != "" && got != im.SHA256 {
		return fmt.Errorf("%w: %s has sha256 %s, recorded %s", ErrImageChanged, im.Path, got[:16], short(im.SHA256))
	}
	im.Data = b
	return nil
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// Images returns the spec's images with their names, in a fixed order.
func (s *Spec) Images() []struct {
	Name string
	Im   *Image
} {
	var out []struct {
		Name string
		Im   *Image
	}
	for _, x := range []struct {
		name string
		im   *Image
	}{{"elf", s.ELF}, {"bios", s.BIOS}, {"kernel", s.Kernel}, {"initrd", s.Initrd}, {"disk", s.Disk}, {"console_input", s.ConsoleInput}} {
		if x.im != nil {
			out = append(out, struct {
				Name string
				Im   *Image
			}{x.name, x.im})
		}
	}
	return out
}

// Load reads every image and checks its hash.
func (s *Spec) Load() error {
	for _, x := range s.Images() {
		if err := x.Im.Load(); err != nil {
			return fmt.Errorf("%s: %w", x.Name, err)
		}
	}
	return nil
}

// Built is a machine built from a Spec.
type Built struct {
	*emu.Machine
	Spec *Spec
	Virt *VirtMachine // nil for a bare-metal machine
}

// BuildOptions are the host-side attachments of a machine: they are not part
// of its state.
type BuildOptions struct {
	Console io.Writer
	// NoLoad builds the machine's structure without writing images into RAM
	// or pointing harts at them: for restoring a snapshot.
	NoLoad bool
	// NetLink connects the network card (virt); nil leaves it unplugged.
	NetLink net.Link
	// SDK receives the guest's hypercalls (nil: a silent LogSink).
	SDK sdk.Sink
	// Engine runs the machine's guest code (the zero value is the
	// interpreter; the CLI passes --engine, default emu.DefaultEngine). It
	// is a host setting: never part of the spec, a snapshot or a state
	// hash, and it never changes results.
	Engine emu.Engine
}

// Build builds the machine the spec describes, under its memory model.
// Images must be loaded. It is the one way to build a machine from a
// description: the CLI, the explorer and snapshots all come here.
func Build(s *Spec, o BuildOptions) (*Built, error) {
	model, err := s.Model()
	if err != nil {
		return nil, err
	}
	switch s.Board {
	case BoardBareMetal:
		if s.ELF == nil || s.ELF.Data == nil {
			return nil, errors.New("bare-metal spec without a loaded ELF")
		}
		prog, err := emu.ParseELF(s.ELF.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ELF.Path, err)
		}
		m, err := newBareMetal(BareMetal{Harts: s.Harts, RAMBytes: s.RAMBytes, Quantum: s.Quantum, Seed: s.Seed, Model: model, Console: o.Console, SDK: o.SDK}, prog, !o.NoLoad)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ELF.Path, err)
		}
		if err := m.SetEngine(o.Engine); err != nil {
			return nil, err
		}
		return &Built{Machine: m, Spec: s}, nil
	case BoardVirt:
		cfg := Virt{
			Harts: s.Harts, RAMBytes: s.RAMBytes, Quantum: s.Quantum, Seed: s.Seed, Model: model,
			Append: s.Append, Console: o.Console, noLoad: o.NoLoad, SDK: o.SDK,
			DiskStable: s.DiskStable,
		}
		for _, x := range []struct {
			im  *Image
			dst *[]byte
		}{{s.BIOS, &cfg.BIOS}, {s.Kernel, &cfg.Kernel}, {s.Initrd, &cfg.Initrd}, {s.Disk, &cfg.Disk}, {s.ConsoleInput, &cfg.ConsoleInput}} {
			if x.im != nil {
				*x.dst = x.im.Data
			}
		}
		if s.MAC != "" {
			if _, err := fmt.Sscanf(s.MAC, "%x:%x:%x:%x:%x:%x", &cfg.MAC[0], &cfg.MAC[1], &cfg.MAC[2], &cfg.MAC[3], &cfg.MAC[4], &cfg.MAC[5]); err != nil {
				return nil, fmt.Errorf("mac %q: %v", s.MAC, err)
			}
		}
		if o.NetLink != nil {
			cfg.NetLink = o.NetLink
		}
		vm, err := NewVirt(cfg)
		if err != nil {
			return nil, err
		}
		if err := vm.SetEngine(o.Engine); err != nil {
			return nil, err
		}
		return &Built{Machine: vm.Machine, Spec: s, Virt: vm}, nil
	}
	return nil, fmt.Errorf("unknown board %q (want %q or %q)", s.Board, BoardBareMetal, BoardVirt)
}

// Restore builds a machine for spec and restores snapshot snap into it,
// reseeding its PRNG with seed when reseed is set (a fork: the same past, a
// different future). The snapshot's state decides the memory model (an
// rvwmo machine's state holds its store buffers): when it differs from the
// spec's, as in a snapshot written before specs recorded the model, the
// Built's Spec is a copy of s with the model the machine is under.
func Restore(s *Spec, snap *emu.Snapshot, o BuildOptions, reseed bool, seed uint64) (*Built, error) {
	o.NoLoad = true
	b, err := Build(s, o)
	if err != nil {
		return nil, err
	}
	if err := b.RestoreSnapshot(snap); err != nil {
		return nil, err
	}
	if mm, _ := s.Model(); mm != b.MemoryModel() {
		c := *s
		c.MemoryModel = b.MemoryModel().String()
		b.Spec = &c
	}
	if reseed {
		b.PRNG.Reseed(seed)
	}
	return b, nil
}
