/* latethread: the last of twelve workers assumes the others are done
 * (one thread must run much later than the rest).
 *
 * Main splits a sum over twelve workers, each summing its slice into
 * part[i]. The last worker created also merges: after its own slice and
 * the merge's set-up (more work than a slice), it adds up every part and
 * checks the total against the expected sum.
 *
 * The bug: nothing makes the merge wait for the other workers; it relies
 * on their having been created earlier and having less to do. If one
 * earlier worker has not finished its slice when the merge adds up, its
 * part is still 0 and the total is short: the assertion fails (SIGABRT).
 * On a normal run every earlier worker is long done.
 *
 * Depth: one ordering constraint, but a long one: one of the eleven
 * earlier workers kept from finishing (held back from its creation, or
 * preempted in its slice) while the twelfth is created and runs its
 * slice and the set-up, a few hundred thousand instructions.
 *
 * The fix (-DFIXED): the merge waits until the other eleven have counted
 * themselves done (a mutex and a condition variable). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { WORKERS = 12, SLICE = 1000 };

static unsigned long part[WORKERS];
#ifdef FIXED
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static int done;
#endif

/* slice_sum sums the integers of slice i, 1 + SLICE*i ... SLICE*(i+1),
 * with some hashing on the side as its work. */
static unsigned long slice_sum(int i)
{
	unsigned long s = 0;
	for (int k = 1; k <= SLICE; k++)
		s += (unsigned long)(SLICE * i + k) + (work(k, 10) & 0);
	return s;
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	if (me == 0)
		WINDOW(10000000);
	unsigned long s = slice_sum(me);
	__atomic_store_n(&part[me], s, __ATOMIC_RELEASE);
	if (me != WORKERS - 1) {
#ifdef FIXED
		pthread_mutex_lock(&lock);
		if (++done == WORKERS - 1)
			pthread_cond_signal(&all_done);
		pthread_mutex_unlock(&lock);
#endif
		return NULL;
	}
	unsigned long h = work(me, 3000000); /* set up the merge */
#ifdef FIXED
	pthread_mutex_lock(&lock);
	while (done < WORKERS - 1)
		pthread_cond_wait(&all_done, &lock);
	pthread_mutex_unlock(&lock);
#endif
	/* BUG (without FIXED): the others may not be done. */
	unsigned long total = 0;
	for (int i = 0; i < WORKERS; i++)
		total += __atomic_load_n(&part[i], __ATOMIC_ACQUIRE);
	unsigned long n = (unsigned long)WORKERS * SLICE;
	assert(total == n * (n + 1) / 2);
	return (void *)h;
}

int main(void)
{
	pthread_t t[WORKERS];
	void *h = NULL;
	for (long i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			perror("latethread: pthread_create");
			return 1;
		}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], i == WORKERS - 1 ? &h : NULL);
	printf("latethread: merged %d parts (%02lx)\n", WORKERS, (unsigned long)h & 0xff);
	return 0;
}
