/* wronglock: two code paths update one total under two different locks
 * (a lock that protects the wrong data).
 *
 * A shop's orders thread records each sale in the order book under
 * `orders_lock` and adds it to `revenue` there. Its refunds thread records
 * each refund in the audit log under `audit_lock` and takes it off
 * `revenue` there. Each path locks, so each looks safe on its own.
 *
 * The bug: `revenue` is written under two locks that exclude nothing from
 * each other: the two read-modify-writes of it can interleave, and one
 * update is lost. Main asserts the books balance when both are done
 * (SIGABRT). Each thread updates 8 times, between pieces of work of
 * different lengths, so the few instructions of one update rarely meet
 * the other's.
 *
 * Depth: two ordering constraints, one preemption: a thread stopped
 * between its load and its store of `revenue` while the other updates it.
 *
 * The fix (-DFIXED): `revenue` has one lock of its own, which both paths
 * take. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { SALES = 8, REFUNDS = 8, PRICE = 30, REFUND = 10 };

static pthread_mutex_t orders_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
#ifdef FIXED
static pthread_mutex_t revenue_lock = PTHREAD_MUTEX_INITIALIZER;
#endif
static int orders, refunds; /* under orders_lock, audit_lock */
static volatile long revenue;

static void add_revenue(long amount)
{
#ifdef FIXED
	pthread_mutex_lock(&revenue_lock);
	revenue += amount;
	pthread_mutex_unlock(&revenue_lock);
#else
	long r = revenue; /* BUG: the caller's lock is not revenue's lock */
	WINDOW(5000000);
	revenue = r + amount;
#endif
}

static void *sell(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < SALES; i++) {
		h ^= work(i, 26000); /* take an order */
		pthread_mutex_lock(&orders_lock);
		orders++;
		add_revenue(PRICE);
		pthread_mutex_unlock(&orders_lock);
	}
	return (void *)h;
}

static void *refund(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < REFUNDS; i++) {
		h ^= work(100 + i, 33000); /* check a return */
		pthread_mutex_lock(&audit_lock);
		refunds++;
		add_revenue(-REFUND);
		pthread_mutex_unlock(&audit_lock);
	}
	return (void *)h;
}

int main(void)
{
	pthread_t s, r;
	void *hs, *hr;
	if (pthread_create(&s, NULL, sell, NULL) != 0 || pthread_create(&r, NULL, refund, NULL) != 0) {
		perror("wronglock: pthread_create");
		return 1;
	}
	pthread_join(s, &hs);
	pthread_join(r, &hr);
	printf("wronglock: %d orders, %d refunds, revenue %ld (%02lx)\n", orders, refunds, revenue,
	       ((unsigned long)hs ^ (unsigned long)hr) & 0xff);
	assert(revenue == (long)orders * PRICE - (long)refunds * REFUND);
	return 0;
}
