/* counter: an unprotected counter++ (a read-modify-write atomicity
 * violation).
 *
 * Two threads serve requests and count the ones they served in one shared
 * counter with a load, an add and a store (what `served++` compiles to).
 * Main asserts the total when both are done.
 *
 * The bug: the increment is not atomic. If one thread loads the counter,
 * and the other's increment lands before the first stores, one increment
 * is lost and the assertion fails (SIGABRT). Each thread increments 8
 * times, between requests of different lengths (the two threads drift),
 * so the few instructions of an increment rarely meet the other thread's.
 *
 * Depth: two ordering constraints, one preemption: a thread stopped
 * between its load and its store while the other increments.
 *
 * The fix (-DFIXED): an atomic add. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { REQUESTS = 8 };

static volatile long served;

static void *server(void *arg)
{
	int me = (int)(long)arg;
	unsigned long h = 0;
	for (int i = 0; i < REQUESTS; i++) {
		h ^= work(me * 100 + i, me == 0 ? 23000 : 31000); /* serve a request */
#ifdef FIXED
		__atomic_fetch_add(&served, 1, __ATOMIC_SEQ_CST);
#else
		long n = served; /* BUG: load, ... */
		WINDOW(5000000);
		served = n + 1; /* ... add, store */
#endif
	}
	return (void *)h;
}

int main(void)
{
	pthread_t t[2];
	unsigned long h = 0;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, server, (void *)i) != 0) {
			perror("counter: pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	printf("counter: served %ld (%02lx)\n", served, h & 0xff);
	assert(served == 2 * REQUESTS);
	return 0;
}
