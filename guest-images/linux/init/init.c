// everett guest init: PID 1 of the smoke-test initramfs.
//
// It mounts proc, sysfs and devtmpfs, reports the online harts, runs a small
// SMP workload (one pinned thread per online CPU), exercises the virtio disk,
// entropy and network devices when they are present, prints exactly one
// marker line, and powers the machine off:
//
//	EVERETT-SMOKE-OK
//	EVERETT-SMOKE-FAIL: <reason of the first failed check>
//
// Every line it prints starts with "init: " (except the marker) and depends
// only on the machine it runs on, never on the host clock, so a console log is
// comparable across runs.
//
// Kernel command-line options (read from /proc/cmdline, since the kernel
// keeps dotted options away from init's argv and environment):
//
//	everett.sleep=N     sleep N seconds (CLOCK_MONOTONIC) before the marker
//	everett.exit=MODE   poweroff (default), reboot, or hang after the marker
//	everett.work=N      iterations of the per-thread workload (default 50000)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

enum {
	maxThreads = 512,      // CONFIG_NR_CPUS can never exceed this here
	cmdlineBytesMax = 4096,
	hwrngBytes = 32,
	sleepSecondsMax = 86400,
	workDefault = 50000,
	workMax = 100000000,
	atomicAddsPerThread = 10000,
};

static char failure[256]; // the first failed check; empty while all pass

static void say(const char *fmt, ...) {
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	// One write(2) per line keeps our lines whole between kernel messages.
	ssize_t off = 0;
	while (off < n) {
		ssize_t w = write(1, buf + off, n - off);
		if (w <= 0)
			return;
		off += w;
	}
}

// fail records the first failure (later ones are only printed).
static void fail(const char *fmt, ...) {
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	say("init: FAIL %s", buf);
	if (failure[0] == 0)
		snprintf(failure, sizeof failure, "%s", buf);
}

// ---------------------------------------------------------------- cmdline --

static char cmdline[cmdlineBytesMax];

static void read_cmdline(void) {
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail("open /proc/cmdline: %s", strerror(errno));
		return;
	}
	ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
	close(fd);
	if (n < 0)
		n = 0;
	cmdline[n] = 0;
	char *nl = strchr(cmdline, '\n');
	if (nl)
		*nl = 0;
}

// cmdline_value returns the value of the last "name=value" word, or NULL.
static const char *cmdline_value(const char *name, char *out, size_t outBytes) {
	size_t nameLen = strlen(name);
	const char *found = NULL;
	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		const char *end = p;
		while (*end && *end != ' ')
			end++;
		if ((size_t)(end - p) > nameLen && strncmp(p, name, nameLen) == 0 && p[nameLen] == '=') {
			size_t vlen = end - (p + nameLen + 1);
			if (vlen >= outBytes)
				vlen = outBytes - 1;
			memcpy(out, p + nameLen + 1, vlen);
			out[vlen] = 0;
			found = out;
		}
		p = end;
	}
	return found;
}

// cmdline_uint parses name=N; returns def when absent, and fails on garbage.
static long cmdline_uint(const char *name, long def, long max) {
	char buf[32];
	if (!cmdline_value(name, buf, sizeof buf))
		return def;
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < 0 || v > max) {
		fail("bad %s=%s (want 0..%ld)", name, buf, max);
		return def;
	}
	return v;
}

// ----------------------------------------------------------------- mounts --

static void mount_one(const char *src, const char *dir, const char *type) {
	mkdir(dir, 0755);
	if (mount(src, dir, type, MS_NOSUID | MS_NOEXEC, NULL) != 0 && errno != EBUSY)
		fail("mount %s on %s: %s", type, dir, strerror(errno));
}

// ------------------------------------------------------------- SMP threads --

struct worker {
	pthread_t thread;
	int cpu;              // the CPU this thread pins itself to
	long iterations;
	int ranOn;            // sched_getcpu() after pinning
	int pinErr;           // errno of sched_setaffinity, 0 on success
	uint64_t intResult;
	double fpResult;
};

static atomic_ulong sharedAdds;
static pthread_mutex_t sharedLock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long sharedLocked;

// compute is the workload: integer multiply/divide/shift mixing and a
// floating-point recurrence, so that both register files are live across
// preemption and migration. Deterministic for a given (seed, iterations).
static void compute(uint64_t seed, long iterations, uint64_t *intOut, double *fpOut) {
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	double f = 1.0 + (double)seed;
	for (long i = 0; i < iterations; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		x += (x % 1000003) * 3 + (x / 7);
		f = f * 0.999999 + (double)(x & 0xff) / 256.0;
		if ((i & 1023) == 0)
			f = __builtin_sqrt(f * f + 1.0);
	}
	*intOut = x;
	*fpOut = f;
}

static void *worker_main(void *arg) {
	struct worker *w = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->pinErr = sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
	w->ranOn = sched_getcpu();
	compute((uint64_t)w->cpu, w->iterations, &w->intResult, &w->fpResult);
	for (int i = 0; i < atomicAddsPerThread; i++) {
		atomic_fetch_add_explicit(&sharedAdds, 1, memory_order_relaxed);
		pthread_mutex_lock(&sharedLock);
		sharedLocked++;
		pthread_mutex_unlock(&sharedLock);
	}
	return NULL;
}

static struct worker workers[maxThreads];

static void smp_smoke(long iterations) {
	cpu_set_t all;
	if (sched_getaffinity(0, sizeof all, &all) != 0) {
		fail("sched_getaffinity: %s", strerror(errno));
		return;
	}
	int n = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && n < maxThreads; cpu++)
		if (CPU_ISSET(cpu, &all))
			workers[n++].cpu = cpu;
	say("init: smp: %d threads, %ld iterations each", n, iterations);
	for (int i = 0; i < n; i++) {
		workers[i].iterations = iterations;
		int err = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
		if (err) {
			fail("pthread_create %d: %s", i, strerror(err));
			n = i;
			break;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(workers[i].thread, NULL);
	for (int i = 0; i < n; i++) {
		struct worker *w = &workers[i];
		uint64_t wantInt;
		double wantFp;
		compute((uint64_t)w->cpu, iterations, &wantInt, &wantFp);
		if (w->pinErr)
			fail("cpu %d: sched_setaffinity: %s", w->cpu, strerror(w->pinErr));
		else if (w->ranOn != w->cpu)
			fail("cpu %d: thread ran on cpu %d after pinning", w->cpu, w->ranOn);
		else if (w->intResult != wantInt || memcmp(&w->fpResult, &wantFp, sizeof wantFp) != 0)
			fail("cpu %d: result %016llx/%a, want %016llx/%a", w->cpu,
			     (unsigned long long)w->intResult, w->fpResult,
			     (unsigned long long)wantInt, wantFp);
		else
			say("init: smp: cpu %d ok %016llx %a", w->cpu,
			    (unsigned long long)w->intResult, w->fpResult);
	}
	unsigned long want = (unsigned long)n * atomicAddsPerThread;
	unsigned long gotAdds = atomic_load(&sharedAdds);
	if (gotAdds != want || sharedLocked != want)
		fail("smp: shared counters %lu (atomic) and %lu (mutex), want %lu", gotAdds, sharedLocked, want);
	else
		say("init: smp: shared counters ok (%lu)", want);
}

// ------------------------------------------------------------------- disk --

static const char diskHello[] = "hello from the everett disk image\n";
static const char diskProbe[] = "written by everett init\n";

static int read_file(const char *path, char *buf, size_t bufBytes) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got < bufBytes - 1) {
		ssize_t r = read(fd, buf + got, bufBytes - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	buf[got] = 0;
	return (int)got;
}

static void disk_smoke(void) {
	const char *dev = "/dev/vda", *dir = "/mnt", *probe = "/mnt/everett-probe.txt";
	if (access(dev, F_OK) != 0) {
		say("init: disk: no %s, skipped", dev);
		return;
	}
	mkdir(dir, 0755);
	if (mount(dev, dir, "ext4", 0, NULL) != 0) {
		fail("disk: mount %s as ext4: %s", dev, strerror(errno));
		return;
	}
	char buf[256];
	if (read_file("/mnt/hello.txt", buf, sizeof buf) < 0 || strcmp(buf, diskHello) != 0)
		fail("disk: /mnt/hello.txt missing or wrong");
	int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fail("disk: create %s: %s", probe, strerror(errno));
	} else {
		if (write(fd, diskProbe, sizeof diskProbe - 1) != (ssize_t)(sizeof diskProbe - 1))
			fail("disk: write %s: %s", probe, strerror(errno));
		if (fsync(fd) != 0)
			fail("disk: fsync %s: %s", probe, strerror(errno));
		close(fd);
	}
	sync();
	// Unmount and mount again so that the read-back comes from the device,
	// not from the page cache.
	if (umount(dir) != 0) {
		fail("disk: umount: %s", strerror(errno));
		return;
	}
	if (mount(dev, dir, "ext4", 0, NULL) != 0) {
		fail("disk: remount: %s", strerror(errno));
		return;
	}
	if (read_file(probe, buf, sizeof buf) < 0 || strcmp(buf, diskProbe) != 0)
		fail("disk: read-back of %s differs", probe);
	else
		say("init: disk: ext4 on %s ok (write, sync, remount, read back)", dev);
	if (umount(dir) != 0)
		fail("disk: final umount: %s", strerror(errno));
}

// ---------------------------------------------------------------- entropy --

static void rng_smoke(void) {
	const char *dev = "/dev/hwrng";
	if (access(dev, F_OK) != 0) {
		say("init: rng: no %s, skipped", dev);
	} else {
		int fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fail("rng: open %s: %s", dev, strerror(errno));
		} else {
			unsigned char buf[hwrngBytes];
			size_t got = 0;
			for (int tries = 0; got < sizeof buf && tries < 64; tries++) {
				ssize_t r = read(fd, buf + got, sizeof buf - got);
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					break;
				got += r;
			}
			close(fd);
			if (got != sizeof buf)
				fail("rng: read %zu of %zu bytes from %s", got, sizeof buf, dev);
			else
				say("init: rng: read %zu bytes from %s", got, dev);
		}
	}
	char buf[32];
	if (read_file("/proc/sys/kernel/random/entropy_avail", buf, sizeof buf) <= 0)
		fail("rng: cannot read entropy_avail");
	else
		say("init: rng: entropy_avail %ld", strtol(buf, NULL, 10));
}

// ---------------------------------------------------------------- network --

static int set_up(int sock, const char *ifname) {
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(sock, SIOCSIFFLAGS, &ifr);
}

// net_smoke brings lo (and eth0, when present) up and passes a few bytes
// over a TCP connection on 127.0.0.1.
static void net_smoke(void) {
	int ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ctl < 0) {
		fail("net: socket: %s", strerror(errno));
		return;
	}
	if (set_up(ctl, "lo") != 0)
		fail("net: lo up: %s", strerror(errno));
	if (access("/sys/class/net/eth0", F_OK) == 0) {
		if (set_up(ctl, "eth0") != 0) {
			fail("net: eth0 up: %s", strerror(errno));
		} else {
			// An address exists when the command line had ip=... (IP_PNP).
			struct ifreq ifr;
			memset(&ifr, 0, sizeof ifr);
			snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "eth0");
			char addr[INET_ADDRSTRLEN] = "no address";
			if (ioctl(ctl, SIOCGIFADDR, &ifr) == 0)
				inet_ntop(AF_INET, &((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr, addr, sizeof addr);
			say("init: net: eth0 up, %s", addr);
		}
	} else {
		say("init: net: no eth0");
	}
	close(ctl);

	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(7777)};
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int lst = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int srv = -1;
	char msg[] = "ping", got[8] = {0};
	if (lst < 0 || cli < 0) {
		fail("net: socket: %s", strerror(errno));
	} else if (bind(lst, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lst, 1) != 0) {
		fail("net: bind/listen: %s", strerror(errno));
	} else if (connect(cli, (struct sockaddr *)&addr, sizeof addr) != 0) {
		fail("net: connect: %s", strerror(errno));
	} else if ((srv = accept(lst, NULL, NULL)) < 0) {
		fail("net: accept: %s", strerror(errno));
	} else if (send(cli, msg, 4, 0) != 4 || recv(srv, got, 4, MSG_WAITALL) != 4 || memcmp(got, msg, 4) != 0) {
		fail("net: TCP loopback exchange failed: %s", strerror(errno));
	} else {
		say("init: net: TCP over 127.0.0.1 ok");
	}
	if (srv >= 0)
		close(srv);
	if (cli >= 0)
		close(cli);
	if (lst >= 0)
		close(lst);
}

// ------------------------------------------------------------------- main --

static void sleep_seconds(long seconds) {
	say("init: sleeping %ld s", seconds);
	struct timespec t0, t1, left = {.tv_sec = seconds};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (nanosleep(&left, &left) != 0 && errno == EINTR) {
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long slept = (long)(t1.tv_sec - t0.tv_sec) - (t1.tv_nsec < t0.tv_nsec);
	if (slept < seconds)
		fail("slept %ld s, want %ld s", slept, seconds);
	else
		say("init: slept %ld s", seconds);
}

int main(void) {
	// The kernel opened /dev/console as fds 0, 1 and 2 before exec'ing us.
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("devtmpfs", "/dev", "devtmpfs");
	read_cmdline();

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	say("init: everett smoke init, %ld online CPUs", cpus);

	long work = cmdline_uint("everett.work", workDefault, workMax);
	long sleepS = cmdline_uint("everett.sleep", 0, sleepSecondsMax);
	char exitMode[16] = "poweroff";
	cmdline_value("everett.exit", exitMode, sizeof exitMode);
	if (strcmp(exitMode, "poweroff") != 0 && strcmp(exitMode, "reboot") != 0 &&
	    strcmp(exitMode, "hang") != 0) {
		fail("bad everett.exit=%s (want poweroff, reboot or hang)", exitMode);
		snprintf(exitMode, sizeof exitMode, "poweroff");
	}

	smp_smoke(work);
	disk_smoke();
	rng_smoke();
	net_smoke();
	if (sleepS > 0)
		sleep_seconds(sleepS);

	if (failure[0])
		say("EVERETT-SMOKE-FAIL: %s", failure);
	else
		say("EVERETT-SMOKE-OK");

	sync();
	if (strcmp(exitMode, "hang") == 0) {
		for (;;)
			pause();
	}
	int how = strcmp(exitMode, "reboot") == 0 ? RB_AUTOBOOT : RB_POWER_OFF;
	reboot(how);
	say("init: reboot(%s): %s", exitMode, strerror(errno));
	for (;;) // PID 1 must not exit: that would panic the kernel
		pause();
}
