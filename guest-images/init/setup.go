package main

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"everett/guest-images/sdk/go/everett"
	"everett/guest-images/sdk/go/netconf"
)

// Setting up the node before the workload starts: file systems, the
// console, the host name, /etc/hosts, the network, the workload's mounts.

// basicMount is a file system every node has.
type basicMount struct {
	source, target, fstype string
	flags                  uintptr
	data                   string
	mode                   os.FileMode // of the mount point, when the init creates it
}

var basicMounts = []basicMount{
	{"proc", "/proc", "proc", syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC, "", 0o555},
	{"sysfs", "/sys", "sysfs", syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC, "", 0o555},
	{"devtmpfs", "/dev", "devtmpfs", syscall.MS_NOSUID, "mode=0755", 0o755},
	{"devpts", "/dev/pts", "devpts", syscall.MS_NOSUID | syscall.MS_NOEXEC, "mode=0620,ptmxmode=0666", 0o755},
	{"tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID | syscall.MS_NODEV, "mode=1777", 0o1777},
	{"tmpfs", "/tmp", "tmpfs", syscall.MS_NOSUID | syscall.MS_NODEV, "mode=1777", 0o1777},
	{"tmpfs", "/run", "tmpfs", syscall.MS_NOSUID | syscall.MS_NODEV, "mode=0755", 0o755},
}

// mountBasics mounts proc, sysfs, devtmpfs, devpts and the tmpfs file
// systems. One that fails is reported and left out: a workload may not
// need it.
func mountBasics(con *console) {
	for _, m := range basicMounts {
		if err := os.MkdirAll(m.target, m.mode); err != nil {
			con.say("mkdir %s: %v; not mounting %s there", m.target, err, m.fstype)
			continue
		}
		err := syscall.Mount(m.source, m.target, m.fstype, m.flags, m.data)
		if err != nil && !errors.Is(err, syscall.EBUSY) {
			con.say("mount %s on %s: %v; going on without it", m.fstype, m.target, err)
		}
	}
}

// setupConsole makes sure that standard input, output and error are open:
// the kernel opens /dev/console for init only when the initramfs has it.
func setupConsole() {
	var st syscall.Stat_t
	fd, err := syscall.Open("/dev/console", syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	for to := range 3 {
		if syscall.Fstat(to, &st) != nil {
			syscall.Dup3(fd, to, 0)
		}
	}
	syscall.Close(fd)
}

// configureNode sets the host name, writes /etc/hosts and brings up lo and
// eth0. Only a failure to give eth0 the node's address is an error; the
// rest is reported and the node goes on.
func configureNode(con *console, u universe) error {
	self := u.self()
	if err := syscall.Sethostname([]byte(self.Name)); err != nil {
		con.say("set the host name to %s: %v", self.Name, err)
	}
	if err := writeHosts(u.hosts()); err != nil {
		con.say("not writing /etc/hosts: %v", err)
	}
	if err := netconf.Up("lo", nil); err != nil {
		con.say("bring up lo: %v", err)
	}
	if self.Addr == "" {
		return nil
	}
	if _, err := os.Stat("/sys/class/net/eth0"); err != nil {
		con.say("no eth0: the node's address %s is not configured", self.Addr)
		return nil
	}
	a := netip.MustParseAddr(self.Addr).As4() // checked with the workload
	if err := netconf.Up("eth0", &netconf.Addr{IP: a, Mask: [4]byte{255, 255, 255, 0}}); err != nil {
		return fmt.Errorf("eth0: %s/24: %w", self.Addr, err)
	}
	con.say("node %d of %d: %s, eth0 %s/24", u.index, len(u.nodes), self.Name, self.Addr)
	return nil
}

func writeHosts(b []byte) error {
	if err := os.MkdirAll("/etc", 0o755); err != nil {
		return err
	}
	return os.WriteFile("/etc/hosts", b, 0o644)
}

// Mount attempts: a disk that fails a read while the kernel reads its
// superblock, inode table or journal (a transient error, or one the
// explorer's fault model injects) fails mount(2) with EIO, or with what
// the file system makes of it (ext4: EINVAL when it could not load its
// journal, EUCLEAN, EBADMSG); a device that has not appeared yet, with
// ENOENT or ENXIO. Like kubelet's volume mounts or systemd's wait for a
// device, the init tries again after a pause that doubles, a bounded
// number of times, before it gives up and ends the run.
const (
	mountAttemptsMax = 5
	mountPauseFirst  = 50 * time.Millisecond // then 100, 200, 400 ms
)

// mountWorkload mounts the workload's file systems, creating their
// directories; mount and sleep are syscall.Mount and time.Sleep but in
// tests.
func mountWorkload(con *console, ms []mountSpec, mount func(dev, dir, fs string) error, sleep func(time.Duration)) error {
	for i, m := range ms {
		if err := os.MkdirAll(filepath.Clean(m.Dir), 0o755); err != nil {
			return fmt.Errorf("mounts[%d]: mkdir %s: %w", i, m.Dir, err)
		}
		pause := mountPauseFirst
		for attempt := 1; ; attempt++ {
			err := mount(m.Dev, m.Dir, m.FS)
			if err == nil {
				break
			}
			if attempt == mountAttemptsMax || !mountRetryable(err) {
				how := ""
				if attempt > 1 {
					how = fmt.Sprintf(" (%d attempts)", attempt)
				}
				return fmt.Errorf("mounts[%d]: mount %s on %s (%s): %w%s", i, m.Dev, m.Dir, m.FS, err, how)
			}
			con.say("mount %s on %s (%s): %v; trying again in %v (attempt %d of %d)", m.Dev, m.Dir, m.FS, err, pause, attempt+1, mountAttemptsMax)
			sleep(pause)
			pause *= 2
		}
		con.say("mounted %s on %s (%s)", m.Dev, m.Dir, m.FS)
	}
	return nil
}

// mountRetryable reports whether another attempt may mount where this one
// failed. EINVAL is also a wrong file system type or option: trying again
// costs such a mistake 750 ms of virtual time before it is reported. A
// file system type the kernel lacks (ENODEV), a target already mounted
// (EBUSY), a device that is not a block device (ENOTBLK) or a refusal
// (EPERM, EACCES, EROFS): no pause makes them mount.
func mountRetryable(err error) bool {
	for _, e := range []syscall.Errno{syscall.EIO, syscall.EINVAL, syscall.EUCLEAN, syscall.EBADMSG, syscall.ENOENT, syscall.ENXIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// sysMount mounts dev on dir as fs, without flags or options.
func sysMount(dev, dir, fs string) error { return syscall.Mount(dev, dir, fs, 0, "") }

// buildSpecs makes the processes of w ready to start on node u: their
// environments, directories and programs (argv[0] looked up in PATH when
// it has no slash). extra is environment the init passes through, which
// the workload's own replaces. On an error it names the process.
func buildSpecs(w *workload, u universe, extra []string) ([]procSpec, string, error) {
	var specs []procSpec
	for _, p := range w.Processes {
		env := u.environ(w.Env, p.Env, extra...)
		dir := p.Dir
		if dir == "" {
			dir = "/"
		}
		path, ok := getenv(env, "PATH")
		if !ok {
			path = defaultPath
		}
		exe, err := lookPath(p.Argv[0], path, dir)
		if err != nil {
			return nil, p.Name, fmt.Errorf("exec %w", err)
		}
		restart, _ := parsePolicy(p.Restart) // checked with the workload
		specs = append(specs, procSpec{name: p.Name, path: exe, argv: p.Argv, env: env, dir: dir, restart: restart})
	}
	return specs, "", nil
}

// rndReseedCRNG is the ioctl that makes the kernel reseed its random
// number generator from its input pool at once (RNDRESEEDCRNG,
// linux/random.h: _IO('R', 0x07)).
const rndReseedCRNG = 0x5207

// reseedRandom gives the kernel's random number generator 64 bytes of the
// universe's own randomness (the SDK's random operation, a function of
// the universe's seed) and has it reseed at once. Every universe forks
// from one snapshot of the booted node, kernel generator included: without
// this, the workload's AT_RANDOM, getrandom() and so the Go runtime's
// scheduling and map order would be the same in every universe.
func reseedRandom(con *console) {
	var b [64]byte
	for i := 0; i < len(b); i += 8 {
		v := everett.Random()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	f, err := os.OpenFile("/dev/urandom", os.O_WRONLY, 0)
	if err != nil {
		con.say("the workload's randomness: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(b[:]); err != nil {
		con.say("the workload's randomness: %v", err)
		return
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), rndReseedCRNG, 0); errno != 0 {
		con.say("the workload's randomness: reseed: %v", errno)
	}
}
