/* refcount: a reference count decremented and tested in separate steps
 * (a refcount race: a double free or a leak).
 *
 * Main builds a job and hands it to two workers; the job starts with
 * three references (main's and each worker's). Each of the three, when
 * done with the job, calls put(): decrement the count, and if it reached
 * zero, destroy the job. destroy() asserts that the job is alive and marks
 * it destroyed; main asserts at the end that it was destroyed exactly
 * once.
 *
 * The bug: put() decrements with a plain load, subtract and store, and
 * then loads the count again to test it. Two puts that overlap either
 * lose a decrement (the job is never destroyed: a leak, main's assertion
 * fails) or both see zero (destroyed twice: destroy's assertion fails).
 * Either way SIGABRT. The three puts come at different moments, a few
 * instructions each, so a normal run does not show it.
 *
 * Depth: two ordering constraints, one preemption: a thread stopped inside
 * its put (between its load and its store, or between its store and its
 * test) while another puts.
 *
 * The fix (-DFIXED): one atomic decrement-and-test. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { LIVE = 0x10b, DEAD = 0xdead };

struct job {
	volatile int refs;
	int magic;
	unsigned long result[2];
};

static int destroyed;

static void destroy(struct job *j)
{
	assert(j->magic == LIVE); /* destroyed twice */
	j->magic = DEAD;
	__atomic_fetch_add(&destroyed, 1, __ATOMIC_SEQ_CST);
}

static void put(struct job *j)
{
#ifdef FIXED
	if (__atomic_sub_fetch(&j->refs, 1, __ATOMIC_ACQ_REL) == 0)
		destroy(j);
#else
	int r = j->refs; /* BUG: load, ... */
	WINDOW(5000000);
	j->refs = r - 1;  /* ... subtract, store, ... */
	WINDOW(5000000);
	if (j->refs == 0) /* ... and a load again */
		destroy(j);
#endif
}

static struct job the_job = {3, LIVE, {0, 0}};

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	the_job.result[me] = work(me, me == 0 ? 70000 : 95000); /* do my half */
	put(&the_job);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			perror("refcount: pthread_create");
			return 1;
		}
	unsigned long h = work(9, 50000); /* main's own part */
	put(&the_job);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(destroyed == 1); /* a leak: never destroyed */
	printf("refcount: destroyed once (%02lx)\n", (h ^ the_job.result[0] ^ the_job.result[1]) & 0xff);
	return 0;
}
