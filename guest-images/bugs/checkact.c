/* checkact: two workers claim jobs with a check and a set that are not
 * one step (check-then-act without a lock).
 *
 * A list of 24 jobs; two workers take them from opposite ends, the first
 * from the front and the second from the back, each skipping the jobs the
 * other already took, until they meet. A job is claimed by testing its
 * `taken` flag and then setting it, without a lock or an atomic
 * instruction: each worker alone never takes a job twice, and the workers
 * only ever contend for the one job where they meet.
 *
 * The bug: if both test that job's flag before either sets it, both run
 * it. Each worker records the jobs it ran, and main asserts that every job
 * ran exactly once (SIGABRT). The window is the few instructions between
 * the test and the set, at one job of 24; the workers reach the meeting
 * job at moments as far apart as the work of a job, so a normal run
 * almost never shows it.
 *
 * Depth: two ordering constraints, one preemption: a worker stopped
 * between its test and its set of the meeting job while the other tests
 * it.
 *
 * The fix (-DFIXED): claim with one atomic exchange. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { JOBS = 24 };

static struct {
	volatile int taken;
	char pad[60]; /* one job a cache line */
} job[JOBS];

static int ran[2][JOBS]; /* ran[w][j]: worker w ran job j (each its own row) */

static int claim(int j)
{
#ifdef FIXED
	return __atomic_exchange_n(&job[j].taken, 1, __ATOMIC_SEQ_CST) == 0;
#else
	if (job[j].taken) /* BUG: test ... */
		return 0;
	WINDOW(5000000);
	job[j].taken = 1; /* ... then set, not one step */
	return 1;
#endif
}

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	unsigned long h = 0;
	for (int k = 0; k < JOBS; k++) {
		int j = w == 0 ? k : JOBS - 1 - k;
		if (!claim(j))
			continue;
		h ^= work(j, 20000); /* run the job */
		ran[w][j] = 1;
	}
	return (void *)h;
}

int main(void)
{
	pthread_t t[2];
	unsigned long h = 0;
	int mine = 0;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			perror("checkact: pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	for (int j = 0; j < JOBS; j++) {
		assert(ran[0][j] + ran[1][j] == 1); /* every job ran exactly once */
		mine += ran[0][j];
	}
	printf("checkact: worker 0 ran %d jobs, worker 1 %d (%02lx)\n", mine, JOBS - mine, h & 0xff);
	return 0;
}
