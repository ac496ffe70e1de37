// sigwait is issue 25's idle program as an ordinary workload: the main
// thread blocks SIGUSR1, holds a mutex, starts a thread that blocks on the
// mutex, and waits in sigtimedwait for argv[1] seconds (default 30); then
// it unlocks, joins and exits 0. Idle all along: an emulator that idles
// retires few instructions, however long the wait.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *blocker(void *arg) {
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv) {
	long s = argc > 1 ? atol(argv[1]) : 30;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_lock(&lock);
	pthread_t t;
	pthread_create(&t, NULL, blocker, NULL);
	struct timespec ts = {.tv_sec = s};
	int r = sigtimedwait(&set, NULL, &ts);
	if (r != -1 || errno != EAGAIN) {
		fprintf(stderr, "sigwait: sigtimedwait returned %d\n", r);
		return 1;
	}
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	printf("sigwait: waited %ld s\n", s);
	return 0;
}
