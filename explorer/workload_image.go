package explorer

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"everett/emu/board"
	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/bundle"
	"everett/internal/rootfs"
)

// BuildProgress, when set, receives a line for a person when a bundled
// image (the kernel, everett's init) is built on first use, which can take
// minutes. The CLI points it at stderr.
var BuildProgress func(format string, args ...any)

// initConfig is /everett/workload.json, read by everett's init
// (guest-images/init/README.md).
type initConfig struct {
	Nodes     []initNode    `json:"nodes"`
	Env       []string      `json:"env"`
	Processes []initProcess `json:"processes"`
	Deadlock  initDeadlock  `json:"deadlock"`
	Kills     bool          `json:"kills"`
	Mounts    []Mount       `json:"mounts,omitempty"`
	// SetupComplete: the init marks the setup point (false: the
	// workload does, with the SDK).
	SetupComplete bool `json:"setup_complete"`
}

type initNode struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
}

type initProcess struct {
	Name    string   `json:"name"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Restart string   `json:"restart"`
}

type initDeadlock struct {
	Check   bool   `json:"check"`
	StallNs uint64 `json:"stall_ns"`
}

// Guest paths of a workload's initramfs.
const (
	guestBinDir    = "/everett/bin"
	guestConfig    = "/everett/workload.json"
	defaultPathEnv = "PATH=/everett/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// nodeAddr is node i's IPv4 address on the simulated switch.
func nodeAddr(i int) string { return fmt.Sprintf("10.0.0.%d", i+1) }

// workloadImage builds node n's initramfs (field f names it in errors):
// the rootfs, the files, the programs, everett's init and its config.
// names are every node's name; the archive is written once to the cache,
// named by its hash, so that reports and snapshots can name it.
func (s *Spec) workloadImage(f string, n *NodeSpec, names []string) (*board.Image, []string, error) {
	var fsys *rootfs.FS
	if n.Rootfs != "" {
		p, err := resolvePath(n.Rootfs, s.dir)
		if err != nil {
			return nil, nil, specErr(f+".rootfs", "%v", err)
		}
		if fsys, err = rootfs.Load(p); err != nil {
			return nil, nil, specErr(f+".rootfs", "%v", err)
		}
	} else {
		fsys = rootfs.New(rootfs.Limits{})
	}
	cfg := initConfig{Env: []string{defaultPathEnv, "HOME=/root", "TERM=dumb"}}
	var img *rootfs.ImageConfig
	if fsys.Config != nil {
		img = fsys.Config
		cfg.Env = append(cfg.Env, img.Env...)
	}
	cfg.Env = append(cfg.Env, sortedEnv(n.Env)...)
	for i, name := range names {
		cfg.Nodes = append(cfg.Nodes, initNode{Name: name, Addr: nodeAddr(i)})
	}
	// Files first, programs over them.
	hosts := make([]string, 0, len(n.Files))
	for h := range n.Files {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		p, err := resolvePath(h, s.dir)
		if err != nil {
			return nil, nil, specErr(f+".files", "%v", err)
		}
		if err := fsys.AddHostPath(p, n.Files[h]); err != nil {
			return nil, nil, specErr(f+".files", "%s: %v", h, err)
		}
	}
	procs := n.Run
	if len(procs) == 0 {
		procs = Processes{{Restart: RestartNo}}
	}
	var symbols []string
	for i, p := range procs {
		pf := fmt.Sprintf("%s.run[%d]", f, i)
		argv := append([]string(nil), p.Cmd...)
		dir := p.Dir
		if len(argv) == 0 {
			if img == nil || len(img.Entrypoint)+len(img.Cmd) == 0 {
				return nil, nil, specErr(pf+".cmd", "empty, and the rootfs is not an image that says what to run")
			}
			argv = append(append(argv, img.Entrypoint...), img.Cmd...)
			if dir == "" {
				dir = img.WorkingDir
			}
		} else if dir == "" && img != nil {
			dir = img.WorkingDir
		}
		name := p.Name
		if name == "" {
			name = path.Base(argv[0])
		}
		if host := n.Rootfs == "" || strings.HasPrefix(argv[0], "./") || strings.HasPrefix(argv[0], "../"); host {
			hp, err := resolvePath(argv[0], s.dir)
			if err != nil {
				return nil, nil, specErr(pf+".cmd", "%v", err)
			}
			if err := checkProgram(hp, n.Rootfs != ""); err != nil {
				return nil, nil, specErr(pf+".cmd", "%v", err)
			}
			gp := guestBinDir + "/" + path.Base(hp)
			if err := fsys.AddHostPath(hp, gp); err != nil {
				return nil, nil, specErr(pf+".cmd", "%v", err)
			}
			argv[0] = gp
			symbols = append(symbols, hp)
		}
		cfg.Processes = append(cfg.Processes, initProcess{Name: name, Argv: argv, Env: sortedEnv(p.Env), Dir: dir, Restart: p.Restart})
	}
	cfg.Deadlock = initDeadlock{Check: true, StallNs: s.Oracles.Deadlock.Ns()}
	cfg.Kills = s.Faults.Kills == nil || *s.Faults.Kills > 0
	cfg.Mounts = n.Mounts
	cfg.SetupComplete = s.Setup.At == ""
	js, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	initPath, err := bundle.Init(BuildProgress)
	if err != nil {
		return nil, nil, specErr(f, "everett's init: %v", err)
	}
	initBin, err := os.ReadFile(initPath)
	if err != nil {
		return nil, nil, specErr(f, "everett's init: %v", err)
	}
	// everett's own files go over the rootfs: the mount points and the
	// console the kernel opens for init, the init and its config.
	for _, e := range []rootfs.File{
		{Path: "/dev", Type: rootfs.TypeDir, Perm: 0o755},
		{Path: "/dev/console", Type: rootfs.TypeCharDev, Perm: 0o600, Major: 5, Minor: 1},
		{Path: "/proc", Type: rootfs.TypeDir, Perm: 0o555},
		{Path: "/sys", Type: rootfs.TypeDir, Perm: 0o555},
		{Path: "/tmp", Type: rootfs.TypeDir, Perm: 0o1777},
		{Path: "/run", Type: rootfs.TypeDir, Perm: 0o755},
		{Path: "/etc", Type: rootfs.TypeDir, Perm: 0o755},
		{Path: "/root", Type: rootfs.TypeDir, Perm: 0o700},
		{Path: "/everett", Type: rootfs.TypeDir, Perm: 0o755},
		{Path: "/init", Type: rootfs.TypeFile, Perm: 0o755, Data: initBin},
		{Path: guestConfig, Type: rootfs.TypeFile, Perm: 0o644, Data: append(js, '\n')},
	} {
		if err := fsys.Add(e); err != nil {
			return nil, nil, specErr(f, "the initramfs: %v", err)
		}
	}
	all := fsys.Entries()
	var buf bytes.Buffer
	if err := initramfs.Write(&buf, all); err != nil {
		return nil, nil, specErr(f, "the initramfs: %v", err)
	}
	im, err := cacheImage("workload", "initramfs.cpio", buf.Bytes())
	if err != nil {
		return nil, nil, specErr(f, "%v", err)
	}
	return im, symbols, nil
}

// checkProgram checks that host file p is a program a riscv64 Linux guest
// can run: an ELF for RISC-V, 64-bit, and statically linked unless a
// rootfs may hold its interpreter. A shell script (#!) is fine.
func checkProgram(p string, haveRootfs bool) error {
	fh, err := os.Open(p)
	if err != nil {
		return err
	}
	defer fh.Close()
	var magic [4]byte
	if _, err := fh.ReadAt(magic[:], 0); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if magic[0] == '#' && magic[1] == '!' {
		if !haveRootfs {
			return fmt.Errorf("%s is a script: its interpreter needs a rootfs that holds it", p)
		}
		return nil
	}
	e, err := elf.NewFile(fh)
	if err != nil {
		return fmt.Errorf("%s is not an ELF program: %v", p, err)
	}
	if e.Machine != elf.EM_RISCV || e.Class != elf.ELFCLASS64 {
		return fmt.Errorf("%s is a %v %v program; everett runs 64-bit RISC-V Linux programs (GOOS=linux GOARCH=riscv64, or riscv64-linux-gnu-gcc -static)", p, e.Class, e.Machine)
	}
	for _, ph := range e.Progs {
		if ph.Type == elf.PT_INTERP && !haveRootfs {
			interp := make([]byte, ph.Filesz)
			_, _ = ph.ReadAt(interp, 0)
			return fmt.Errorf("%s is dynamically linked (it needs %s): link it statically (-static, or CGO_ENABLED=0 for Go), or give a rootfs that holds its libraries", p, strings.TrimRight(string(interp), "\x00"))
		}
	}
	return nil
}

// cacheImage writes data to $EVERETT_CACHE/KIND/<hash>/NAME (once: the
// name is its content's hash) and returns it as an image.
func cacheImage(kind, name string, data []byte) (*board.Image, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	dir := filepath.Join(bundle.CacheRoot(), kind, h[:16])
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, data) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cache %s: %w", kind, err)
		}
		tmp, err := os.CreateTemp(dir, name+".tmp*")
		if err != nil {
			return nil, fmt.Errorf("cache %s: %w", kind, err)
		}
		_, werr := tmp.Write(data)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("cache %s: %w", kind, err)
		}
		if err := os.Rename(tmp.Name(), p); err != nil {
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("cache %s: %w", kind, err)
		}
	}
	return &board.Image{Path: p, SHA256: h, Data: data}, nil
}
