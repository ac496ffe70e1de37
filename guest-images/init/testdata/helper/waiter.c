// waiter.c: a process that waits forever in one of the ways the deadlock
// watch classifies, for the init's tests on the host (watch_host_test.go)
// and on a riscv64 guest (guest_test.go).
//
//	waiter deadlock       two threads lock two mutexes in opposite order;
//	                      main joins them: three threads in futex waits
//	waiter pipe           reads a pipe it also holds the write end of
//	waiter timerfd-pipe   the same, holding an (unarmed) timerfd
//	waiter report MS N    prints the host name, the working directory and
//	                      the EVERETT_ variables, sleeps MS milliseconds,
//	                      exits with N
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
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

extern char **environ;

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "report") == 0 && argc == 4) {
		char host[65] = "", cwd[256] = "";
		gethostname(host, sizeof host);
		if (!getcwd(cwd, sizeof cwd))
			strcpy(cwd, "?");
		printf("waiter: host %s, directory %s\n", host, cwd);
		for (char **e = environ; *e; e++)
			if (strncmp(*e, "EVERETT_", 8) == 0)
				printf("waiter: %s\n", *e);
		fflush(stdout);
		long ms = atol(argv[2]);
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
		nanosleep(&ts, NULL);
		printf("waiter: exiting with %s\n", argv[3]);
		return atoi(argv[3]);
	}
	if (strcmp(mode, "deadlock") == 0) {
		pthread_t a, b;
		pthread_barrier_init(&bar, NULL, 2);
		pthread_create(&a, NULL, lock_ab, NULL);
		pthread_create(&b, NULL, lock_ba, NULL);
		printf("waiter: two threads lock two mutexes in opposite order\n");
		fflush(stdout);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		return 0;
	}
	if (strcmp(mode, "pipe") == 0 || strcmp(mode, "timerfd-pipe") == 0) {
		int p[2];
		char c;
		if (pipe(p) != 0)
			return 2;
		if (strcmp(mode, "timerfd-pipe") == 0 && timerfd_create(CLOCK_MONOTONIC, 0) < 0)
			return 2;
		printf("waiter: reading a pipe nobody writes\n");
		fflush(stdout);
		return read(p[0], &c, 1) == 1 ? 0 : 2;
	}
	fprintf(stderr, "usage: waiter deadlock|pipe|timerfd-pipe|report MS N\n");
	return 2;
}
