// idlewait: init (PID 1) of a Linux guest that idles for a while (issue 25).
// The main thread blocks SIGUSR1, holds a mutex, starts a thread that blocks
// on it, and waits in sigtimedwait; then it unlocks, joins, prints
// "IDLEWAIT-DONE ... waited=N s" and powers off (PID 1 must not exit).
//
// The wait lasts IDLEWAIT_S seconds (default 30), from the environment (an
// unknown key=value on the kernel command line reaches init's
// environment). IDLEWAIT_MODE=nanosleep waits in nanosleep instead, with
// no second thread.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *blocker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause(); // PID 1 must not exit
}

int main(void)
{
	const char *s = getenv("IDLEWAIT_S");
	const char *mode = getenv("IDLEWAIT_MODE");
	long secs = s ? strtol(s, NULL, 10) : 30;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mode && strcmp(mode, "nanosleep") == 0) {
		struct timespec ts = {.tv_sec = secs};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	} else {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) {
			printf("idlewait: pthread_sigmask failed\n");
			power_off();
		}
		pthread_mutex_lock(&lock);
		pthread_t th;
		if (pthread_create(&th, NULL, blocker, NULL) != 0) {
			printf("idlewait: pthread_create failed\n");
			power_off();
		}
		struct timespec ts = {.tv_sec = secs};
		int r = sigtimedwait(&set, NULL, &ts);
		if (r != -1 || errno != EAGAIN)
			printf("idlewait: sigtimedwait returned %d (errno %d)\n", r, errno);
		pthread_mutex_unlock(&lock);
		pthread_join(th, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("IDLEWAIT-DONE mode=%s waited=%ld s\n", mode ? mode : "sigtimedwait",
	       (long)(t1.tv_sec - t0.tv_sec - (t1.tv_nsec < t0.tv_nsec)));
	fflush(stdout);
	power_off();
	return 0;
}
