/* rwflag: a hand-made reader/writer protocol whose flags are tested and
 * then set (a reader/writer flag race).
 *
 * A record of two balances that always add up to 100: the writer moves
 * money from one to the other, the reader audits the sum. They exclude
 * each other with two flags instead of a lock: the writer waits until
 * `readers` is 0 and then sets `writing`; the reader waits until
 * `writing` is 0 and then increments `readers`.
 *
 * The bug: each side tests the other's flag and then sets its own, in two
 * steps. If the writer tests `readers` (0), and the reader then tests
 * `writing` (0) and increments `readers` before the writer sets
 * `writing`, both are inside. The reader reads one balance, formats its
 * audit line (twenty thousand instructions), and reads the other: when
 * the writer's transfer falls in between, the sum is off and the
 * reader's assertion fails (SIGABRT). The window is the few instructions
 * between a test and a set, and the threads enter a few times each,
 * between pieces of work of different lengths.
 *
 * Depth: three ordering constraints, one preemption: the writer stopped
 * between its test and its set while the reader tests, increments and
 * reads the first balance; the writer's transfer then lands in the
 * reader's audit (the reader stopped between its test and its increment
 * while the writer tests and sets does as well).
 *
 * The fix (-DFIXED): announce first, then test (Dekker's order): the
 * reader increments `readers` and then tests `writing` (backing off if
 * set); the writer sets `writing` and then waits for `readers` to be 0.
 * All flag accesses are sequentially consistent atomics. */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "work.h"

enum { TRANSFERS = 6, AUDITS = 6 };

static int readers, writing; /* accessed with __atomic builtins only */
static volatile long checking = 60, savings = 40;

static int load(int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static void store(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }

static void wait_zero(int *p)
{
	while (load(p) != 0)
		sched_yield();
}

static void *writer(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < TRANSFERS; i++) {
		h ^= work(i, 28000); /* decide the transfer */
#ifdef FIXED
		store(&writing, 1);
		wait_zero(&readers);
#else
		wait_zero(&readers);
		WINDOW(30000);
		store(&writing, 1); /* BUG: tested, then set */
#endif
		long amount = i % 2 ? 5 : -5;
		checking -= amount;
		h ^= work(h, 50); /* journal the transfer */
		savings += amount;
		store(&writing, 0);
	}
	return (void *)h;
}

static void *reader(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < AUDITS; i++) {
		h ^= work(100 + i, 35000); /* prepare the audit */
#ifdef FIXED
		for (;;) {
			__atomic_fetch_add(&readers, 1, __ATOMIC_SEQ_CST);
			if (load(&writing) == 0)
				break;
			__atomic_fetch_sub(&readers, 1, __ATOMIC_SEQ_CST);
			wait_zero(&writing);
		}
#else
		wait_zero(&writing);
		__atomic_fetch_add(&readers, 1, __ATOMIC_SEQ_CST); /* BUG: tested, then set */
#endif
		long c = checking;
		h ^= work(h, 5000); /* format the audit line */
		long s = savings;
		__atomic_fetch_sub(&readers, 1, __ATOMIC_SEQ_CST);
		assert(c + s == 100); /* a transfer seen halfway */
	}
	return (void *)h;
}

int main(void)
{
	pthread_t w, r;
	void *hw, *hr;
	if (pthread_create(&w, NULL, writer, NULL) != 0 || pthread_create(&r, NULL, reader, NULL) != 0) {
		perror("rwflag: pthread_create");
		return 1;
	}
	pthread_join(w, &hw);
	pthread_join(r, &hr);
	printf("rwflag: %ld + %ld (%02lx)\n", checking, savings, ((unsigned long)hw ^ (unsigned long)hr) & 0xff);
	return 0;
}
