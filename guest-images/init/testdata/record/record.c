// record.c: the init of a throw-away riscv64 guest that records real
// /proc/PID/task/TID/{stat,status,syscall,wchan,comm} text for the deadlock
// watch's tests (see ../README.md). It starts processes that wait in the
// ways the watch classifies, lets them settle, prints every file between
// "=== PATH" and "=== end" lines on the console, and powers off.
//
// Build: riscv64-linux-gnu-gcc -static -O2 -pthread -o init record.c
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER, mb = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t bar;

static void *lock_ab(void *x) {
	pthread_setname_np(pthread_self(), "lock-ab");
	pthread_mutex_lock(&ma);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&mb);
	return x;
}

static void *lock_ba(void *x) {
	pthread_setname_np(pthread_self(), "lock-ba");
	pthread_mutex_lock(&mb);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&ma);
	return x;
}

// deadlock: two threads lock two mutexes in opposite order; main joins.
static void deadlock(void) {
	pthread_t a, b;
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&a, NULL, lock_ab, NULL);
	pthread_create(&b, NULL, lock_ba, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

static void *sleeper(void *x) {
	pthread_setname_np(pthread_self(), "sleeper");
	for (;;) {
		struct timespec ts = {100, 0};
		nanosleep(&ts, NULL);
	}
	return x;
}

// waits: one process whose threads wait in other ways: a read of a pipe,
// an untimed ppoll, an untimed epoll_pwait, a timed futex (a condition
// variable with a deadline), and a nanosleep.
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int pfd[2];

static void *poller(void *x) {
	pthread_setname_np(pthread_self(), "poller");
	struct pollfd p = {pfd[0], POLLIN, 0};
	ppoll(&p, 1, NULL, NULL);
	return x;
}

static void *epoller(void *x) {
	pthread_setname_np(pthread_self(), "epoller");
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = pfd[0]};
	epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &ev);
	epoll_pwait(ep, &ev, 1, -1, NULL);
	return x;
}

static void *timed(void *x) {
	pthread_setname_np(pthread_self(), "timed");
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1000;
	pthread_mutex_lock(&cm);
	pthread_cond_timedwait(&cv, &cm, &ts);
	return x;
}

static void waits(void) {
	pthread_t t;
	char c;
	pipe(pfd);
	timerfd_create(CLOCK_MONOTONIC, 0);
	pthread_create(&t, NULL, poller, NULL);
	pthread_create(&t, NULL, epoller, NULL);
	pthread_create(&t, NULL, timed, NULL);
	pthread_create(&t, NULL, sleeper, NULL);
	read(pfd[0], &c, 1);
}

static void dump(const char *path) {
	char buf[4096];
	int fd = open(path, O_RDONLY);
	printf("=== %s\n", path);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n > 0)
			fwrite(buf, 1, n, stdout);
		close(fd);
	}
	printf("=== end\n");
}

static void dump_fds(int pid) {
	char dir[64], path[320], link[256];
	snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ssize_t n = readlink(path, link, sizeof link - 1);
		if (n > 0) {
			link[n] = 0;
			printf("=== link %s -> %s\n", path, link);
		}
	}
	if (d)
		closedir(d);
}

static void dump_process(int pid) {
	char path[256], dir[64];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	dump(path);
	dump_fds(pid);
	snprintf(dir, sizeof dir, "/proc/%d/task", pid);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		static const char *files[] = {"stat", "status", "syscall", "wchan", "comm"};
		for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
			snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, files[i]);
			dump(path);
		}
	}
	if (d)
		closedir(d);
}

int main(void) {
	mount("proc", "/proc", "proc", 0, NULL);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	pid_t kids[3];
	if ((kids[0] = fork()) == 0) {
		deadlock();
		_exit(0);
	}
	if ((kids[1] = fork()) == 0) {
		waits();
		_exit(0);
	}
	// A shell-like parent waiting for its child.
	if ((kids[2] = fork()) == 0) {
		if (fork() == 0) {
			pthread_t t;
			pthread_create(&t, NULL, sleeper, NULL);
			pthread_join(t, NULL);
			_exit(0);
		}
		wait(NULL);
		_exit(0);
	}
	sleep(2);
	dump("/proc/1/stat");
	dump("/proc/2/stat");
	for (int i = 0; i < 3; i++)
		dump_process(kids[i]);
	// The grandchild of kids[2]: the first child whose parent is kids[2].
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		char path[64], buf[512];
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", pid);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		char *p = strrchr(buf, ')');
		int ppid = 0;
		if (p)
			sscanf(p + 2, "%*c %d", &ppid);
		if (ppid == kids[2])
			dump_process(pid);
	}
	printf("=== done\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
