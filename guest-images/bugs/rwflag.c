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
 * steps. If the reader tests `writing` (0), and the writer then tests
 * `readers` (0) and sets `writing` before the reader increments `readers`,
 * both are inside: the reader sums the record halfway through a transfer
 * and its assertion fails (SIGABRT). The window is the few instructions
 * between a test and a set, and the threads enter a few times each,
 * between pieces of work of different lengths.
 *
 * Depth: two ordering constraints, one preemption: the reader stopped
 * between its test and its increment while the writer tests and sets
 * (then the two critical sections, a transfer and an audit of a few
 * hundred instructions each, overlap).
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
		h ^= work(h, 50); /* format the audit line */
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
