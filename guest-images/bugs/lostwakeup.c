/* lostwakeup: a waiter checks its condition outside the lock and waits
 * without a predicate loop (a lost wakeup).
 *
 * A worker needs the configuration that a loader thread reads. The loader
 * sets `loaded` and signals a condition variable under the lock. The
 * worker, after its own start-up work, peeks at `loaded` without the lock
 * and, if it is not set, takes the lock and waits once on the condition
 * variable.
 *
 * The bug: the peek and the wait are not one step under the lock. If the
 * loader sets the flag and signals between the worker's peek and its
 * pthread_mutex_lock, the signal wakes nobody, and the worker then waits
 * for a signal that never comes: worker in futex_wait, main in
 * pthread_join (a deadlock; natively, a hang). The loader usually signals
 * well before the worker peeks, and the window is a few instructions.
 *
 * Depth: two ordering constraints, one preemption: the worker stopped
 * between its peek and its lock while the loader signals.
 *
 * The fix (-DFIXED): test the predicate under the lock, in a loop. */
#include <pthread.h>
#include <stdio.h>

#include "work.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static volatile int loaded;
static int config;

static void *loader(void *arg)
{
	(void)arg;
	int c = (int)(work(1, 40000) & 0xff); /* read the configuration */
	WINDOW(10000000); /* the worker must peek before the flag is set ... */
	pthread_mutex_lock(&lock);
	config = c | 0x100;
	loaded = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	unsigned long h = work(2, 55000); /* start up */
#ifdef FIXED
	pthread_mutex_lock(&lock);
	while (!loaded)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
#else
	if (!loaded) { /* BUG: peeked outside the lock ... */
		WINDOW(20000000); /* ... and lock after the signal */
		pthread_mutex_lock(&lock);
		pthread_cond_wait(&cond, &lock); /* ... and no loop */
		pthread_mutex_unlock(&lock);
	}
#endif
	return (void *)(h ^ (unsigned long)config);
}

int main(void)
{
	pthread_t l, w;
	void *r;
	if (pthread_create(&l, NULL, loader, NULL) != 0 || pthread_create(&w, NULL, worker, NULL) != 0) {
		perror("lostwakeup: pthread_create");
		return 1;
	}
	pthread_join(l, NULL);
	pthread_join(w, &r);
	printf("lostwakeup: configured %x (%02lx)\n", config, (unsigned long)r & 0xff);
	return 0;
}
